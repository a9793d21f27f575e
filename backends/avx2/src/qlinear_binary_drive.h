// Internal to the qlinear.add / qlinear.mul kernels: the loops that feed an element functor (two
// int32 vectors of codes in, int32 results out) from two byte arrays and store the bytes: 8 lanes
// per step on ymm with 32-byte stores and a scalar tail (AVX2), 16 lanes per step on zmm with a
// k-masked last step (AVX512F + BW + VL). Both stores saturate int8 (store_saturation.h's kSat). In an
// unnamed namespace: each including file (compiled with its own ISA flags) keeps its own copy.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "narrow_store.h"
#include "qspec/simd/requant.h"

namespace qspec::simd::avx2 {
namespace {

// Eight codes widened to int32 lanes.
template <OutType T>
__m256i load8(const std::uint8_t* p) {
  const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return T == OutType::U8 ? _mm256_cvtepu8_epi32(v) : _mm256_cvtepi8_epi32(v);
}

// y[i] = f(a[i], b[i]) saturated to the dtype for i < n, 32 per store (the packs saturate);
// tail(i) writes elements i..n-1 (fewer than 32).
template <OutType T, class F, class Tail>
void drive_ymm(const F& f, std::size_t n, const void* av, const void* bv, void* y, const Tail& tail) {
  const auto* a = static_cast<const std::uint8_t*>(av);
  const auto* b = static_cast<const std::uint8_t*>(bv);
  narrow_loop<T>(n, y, [&](std::size_t i) { return f(load8<T>(a + i), load8<T>(b + i)); }, tail);
}

#ifdef __AVX512F__
template <bool kU8>
__m512i widen(__m128i v) {
  return kU8 ? _mm512_cvtepu8_epi32(v) : _mm512_cvtepi8_epi32(v);
}

// The codes of 16 int32 lanes under mask m.
template <bool kU8>
void store16(std::uint8_t* y, __mmask16 m, __m512i r) {
  if constexpr (kU8) {
    if (m == 0xFFFF)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm512_cvtepi32_epi8(r));
    else
      _mm_mask_storeu_epi8(y, m, _mm512_cvtepi32_epi8(r));
  } else {
    _mm512_mask_cvtsepi32_storeu_epi8(y, m, r);  // VPMOVSDB to memory, as oneDNN stores
  }
}

// y[i] = f(a[i], b[i]) for i < n: 64 codes per iteration (four independent 16-lane steps: their
// conversions overlap), then 16 per step, the last n % 16 through byte masks. int8 stores
// saturate (VPMOVSDB: an int8 functor's result may be any int32, store_saturation.h's kSat); uint8
// results are inside [lo, hi], which VPMOVDB's truncation stores exactly.
template <bool kU8, class F>
void drive_zmm(const F& f, std::size_t n, const void* av, const void* bv, void* yv) {
  const auto* a = static_cast<const std::uint8_t*>(av);
  const auto* b = static_cast<const std::uint8_t*>(bv);
  auto* y = static_cast<std::uint8_t*>(yv);
  std::size_t i = 0;
  const auto step = [&](std::size_t j) {
    return f(widen<kU8>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j))),
             widen<kU8>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j))));
  };
  for (; i + 64 <= n; i += 64) {  // four independent steps per iteration
    const __m512i r0 = step(i), r1 = step(i + 16), r2 = step(i + 32), r3 = step(i + 48);
    store16<kU8>(y + i, 0xFFFF, r0);
    store16<kU8>(y + i + 16, 0xFFFF, r1);
    store16<kU8>(y + i + 32, 0xFFFF, r2);
    store16<kU8>(y + i + 48, 0xFFFF, r3);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512i r = f(widen<kU8>(_mm_maskz_loadu_epi8(m, a + i)), widen<kU8>(_mm_maskz_loadu_epi8(m, b + i)));
    store16<kU8>(y + i, m, r);
  }
}
#endif

}  // namespace
}  // namespace qspec::simd::avx2
