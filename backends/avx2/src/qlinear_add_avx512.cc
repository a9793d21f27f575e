// qlinear.add kernels on zmm (AVX512F + BW + VL, FMA) for the conventions whose element arithmetic is
// int32 or IEEE float (XNNPACK, ONNX Runtime, oneDNN, ATen): 16 int32 lanes per step, VPMOVDB stores and a
// k-masked last step (no scalar tail), bit-exact with add_scalar. TFLite's fixed point keeps the
// ymm kernel (qlinear_add_avx2.cc), which this file calls for it.
//
// The same instruction per step as the ymm kernel, on twice the lanes: VPMULLD / VPADDD / VPSRAD
// (XNNPACK), two VFMADD (ONNX Runtime's specified fused multiply-adds), VMULPS / VADDPS (oneDNN),
// VMULPD / VCVTPD2PS (ATen), then the clamp and VCVTPS2DQ (rne).
// GCC 12 reports its own _mm512_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og as uninitialized (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>

#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

__m512i clamp(__m512i v, __m512i lo, __m512i hi) { return _mm512_min_epi32(_mm512_max_epi32(v, lo), hi); }

struct XnnpackAdd {
  __m512i ma, mb, bias, zy, lo, hi;
  __m128i shift;
  explicit XnnpackAdd(const AddParams& p)
      : ma(_mm512_set1_epi32(p.ma)),
        mb(_mm512_set1_epi32(p.mb)),
        bias(_mm512_set1_epi32(p.bias)),
        zy(_mm512_set1_epi32(p.zy)),
        lo(_mm512_set1_epi32(p.lo)),
        hi(_mm512_set1_epi32(p.hi)),
        shift(_mm_cvtsi32_si128(p.shift)) {}
  __m512i operator()(__m512i a, __m512i b) const {
    // Exact in int32 (the handler's bound), so VPMULLD's low halves are the products.
    const __m512i acc = _mm512_add_epi32(_mm512_add_epi32(bias, _mm512_mullo_epi32(a, ma)), _mm512_mullo_epi32(b, mb));
    return clamp(_mm512_add_epi32(_mm512_sra_epi32(acc, shift), zy), lo, hi);
  }
};

template <bool kSwap>
struct OrtAdd {
  __m512 fa, fb, fk;
  __m512i lo, hi;
  explicit OrtAdd(const AddParams& p)
      : fa(_mm512_set1_ps(p.fa)),
        fb(_mm512_set1_ps(p.fb)),
        fk(_mm512_set1_ps(p.fk)),
        lo(_mm512_set1_epi32(p.lo)),
        hi(_mm512_set1_epi32(p.hi)) {}
  __m512i operator()(__m512i a, __m512i b) const {
    const __m512 va = _mm512_cvtepi32_ps(a), vb = _mm512_cvtepi32_ps(b);  // exact: |code| <= 255
    const __m512 v = kSwap ? _mm512_fmadd_ps(vb, fb, _mm512_fmadd_ps(va, fa, fk))
                           : _mm512_fmadd_ps(va, fa, _mm512_fmadd_ps(vb, fb, fk));
    return clamp(_mm512_cvtps_epi32(v), lo, hi);  // rne (MXCSR's default); |v| < 2^31 (the handler's bound)
  }
};

struct OnednnAdd {
  __m512 fa, fb, fk, flo, fhi;
  explicit OnednnAdd(const AddParams& p)
      : fa(_mm512_set1_ps(p.fa)),
        fb(_mm512_set1_ps(p.fb)),
        fk(_mm512_set1_ps(p.fk)),
        flo(_mm512_set1_ps(static_cast<float>(p.lo))),
        fhi(_mm512_set1_ps(static_cast<float>(p.hi))) {}
  __m512i operator()(__m512i a, __m512i b) const {
    const __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(a), fa), z = _mm512_mul_ps(_mm512_cvtepi32_ps(b), fb);
    const __m512 w = _mm512_add_ps(_mm512_add_ps(x, z), fk);
    return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(w, flo), fhi));  // clamp in float, then rne
  }
};

// qlinear_add_avx2.cc's PytorchAdd on 16 lanes (two 8-lane binary64 halves per operand).
struct PytorchAdd {
  __m512d sa, sb;
  __m512 inv, lim, nlim;
  __m512i za, zb, zy, lo, hi;
  explicit PytorchAdd(const AddParams& p)
      : sa(_mm512_set1_pd(p.fa)),
        sb(_mm512_set1_pd(p.fb)),
        inv(_mm512_set1_ps(p.fk)),
        lim(_mm512_set1_ps(1024.0f)),
        nlim(_mm512_set1_ps(-1024.0f)),
        za(_mm512_set1_epi32(p.za)),
        zb(_mm512_set1_epi32(p.zb)),
        zy(_mm512_set1_epi32(p.zy)),
        lo(_mm512_set1_epi32(p.lo)),
        hi(_mm512_set1_epi32(p.hi)) {}
  static __m512 dequantize(__m512i d, __m512d s) {
    const __m256 l = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(d)), s));
    const __m256 h = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(d, 1)), s));
    return _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(l)), _mm256_castps_pd(h), 1));
  }
  __m512i operator()(__m512i a, __m512i b) const {
    const __m512 v = _mm512_mul_ps(
        _mm512_add_ps(dequantize(_mm512_sub_epi32(a, za), sa), dequantize(_mm512_sub_epi32(b, zb), sb)), inv);
    const __m512i r = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v, nlim), lim));
    return clamp(_mm512_add_epi32(r, zy), lo, hi);
  }
};

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
  using K = AddParams::Kind;
  switch (p.kind) {
    case K::kXnnpack: return drive<kU8>(XnnpackAdd(p), n, a, b, y);
    case K::kOrt:
      if (p.swap) return drive<kU8>(OrtAdd<true>(p), n, a, b, y);
      return drive<kU8>(OrtAdd<false>(p), n, a, b, y);
    case K::kOnednn: return drive<kU8>(OnednnAdd(p), n, a, b, y);
    case K::kPytorch: return drive<kU8>(PytorchAdd(p), n, a, b, y);
    case K::kTfliteDouble:
    case K::kTfliteSingle: return qlinear_add(p, n, a, b, y);
  }
}

}  // namespace

void qlinear_add_zmm(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (p.u8)
    add_typed<true>(p, n, a, b, y);
  else
    add_typed<false>(p, n, a, b, y);
}

}  // namespace qspec::simd::avx2
