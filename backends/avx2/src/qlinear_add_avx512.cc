// qlinear.add kernels on zmm (AVX512F + BW + VL, FMA) for the conventions whose element arithmetic is
// int32 or IEEE float (XNNPACK, ONNX Runtime, oneDNN, ATen): 16 int32 lanes per step, VPMOVDB stores and a
// k-masked last step (no scalar tail), bit-exact with add_scalar. TFLite's fixed point keeps the
// ymm kernel (qlinear_add_avx2.cc), which this file calls for it.
//
// The ymm kernel's arithmetic (qlinear_add_lanes.h) on twice the lanes: VPMULLD / VPADDD / VPSRAD
// (XNNPACK), two VFMADD (ONNX Runtime's specified fused multiply-adds), VMULPS / VADDPS (oneDNN
// and ATen), then the clamp and VCVTPS2DQ (rne).
// GCC 12 reports its own _mm512_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og as uninitialized (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>

#include "qlinear_add_lanes.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

template <bool kU8>
__m512i widen(__m128i v) {
  return kU8 ? _mm512_cvtepu8_epi32(v) : _mm512_cvtepi8_epi32(v);
}

// 16 codes per step; the last n % 16 through byte masks. Results are inside [lo, hi] (a byte of
// the dtype), so VPMOVDB's truncation stores them exactly.
template <bool kU8, class F>
void drive(const F& f, std::size_t n, const void* av, const void* bv, void* yv) {
  const auto* a = static_cast<const std::uint8_t*>(av);
  const auto* b = static_cast<const std::uint8_t*>(bv);
  auto* y = static_cast<std::uint8_t*>(yv);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {  // two independent steps per iteration
    const __m512i r0 = f(widen<kU8>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i))),
                         widen<kU8>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i))));
    const __m512i r1 = f(widen<kU8>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 16))),
                         widen<kU8>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16))));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(r0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i + 16), _mm512_cvtepi32_epi8(r1));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512i r = f(widen<kU8>(_mm_maskz_loadu_epi8(m, a + i)), widen<kU8>(_mm_maskz_loadu_epi8(m, b + i)));
    _mm_mask_storeu_epi8(y + i, m, _mm512_cvtepi32_epi8(r));
  }
}

template <bool kU8>
void add_typed(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (!run_float_kind<Zmm>(p, [&](const auto& f) { drive<kU8>(f, n, a, b, y); }))
    qlinear_add(p, n, a, b, y);  // TFLite's fixed point: the ymm kernel
}

}  // namespace

void qlinear_add_zmm(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (p.u8)
    add_typed<true>(p, n, a, b, y);
  else
    add_typed<false>(p, n, a, b, y);
}

}  // namespace qspec::simd::avx2
