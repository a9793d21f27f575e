// Internal to the qlinear.add / qlinear.mul kernels: the loops that feed an element functor (two
// int32 vectors of codes in, the clamped int32 results out) from two byte arrays and store the bytes:
// 8 lanes per step on ymm with 32-byte stores and a scalar tail (AVX2), 16 lanes per step on zmm
// with a k-masked last step (AVX512F + BW + VL). In an unnamed namespace: each including file
// (compiled with its own ISA flags) keeps its own copy.
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

// y[i] = f(a[i], b[i]) for i < n, 32 per store; tail(i) writes elements i..n-1 (fewer than 32).
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

// y[i] = f(a[i], b[i]) for i < n, 16 codes per step; the last n % 16 through byte masks. Results are
// inside [lo, hi] (a byte of the dtype), so VPMOVDB's truncation stores them exactly.
template <bool kU8, class F>
void drive_zmm(const F& f, std::size_t n, const void* av, const void* bv, void* yv) {
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
#endif

}  // namespace
}  // namespace qspec::simd::avx2
