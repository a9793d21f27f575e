// Internal to the AVX2 kernels: a loop that turns 8-lane int32 results (already inside the output
// range) into int8/uint8/int16/uint16/int32 stores, 32/16/8 elements per step, with a scalar tail.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "qspec/simd/requant.h"

namespace qspec::simd::avx2 {

// f(i) returns the clamped int32 lanes of elements i..i+7; tail(i) handles elements i..n-1.
template <OutType T, class F, class Tail>
inline void narrow_loop(std::size_t n, void* yv, const F& f, const Tail& tail) {
  auto* y = static_cast<unsigned char*>(yv);
  std::size_t i = 0;
  if constexpr (T == OutType::I8 || T == OutType::U8) {
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= n; i += 32) {
      // The saturating packs narrow lanes inside the output range exactly, and clamp any other int32
      // to it (the elementwise kernels rely on that: store_saturation.h's kSat).
      const __m256i ab = _mm256_packs_epi32(f(i), f(i + 8));
      const __m256i cd = _mm256_packs_epi32(f(i + 16), f(i + 24));
      __m256i r = T == OutType::I8 ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
      r = _mm256_permutevar8x32_epi32(r, order);  // undo the per-128-bit-lane interleaving
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), r);
    }
  } else if constexpr (T == OutType::I16 || T == OutType::U16) {
    for (; i + 16 <= n; i += 16) {
      const __m256i a = f(i), b = f(i + 8);
      __m256i r = T == OutType::I16 ? _mm256_packs_epi32(a, b) : _mm256_packus_epi32(a, b);
      r = _mm256_permute4x64_epi64(r, _MM_SHUFFLE(3, 1, 2, 0));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + 2 * i), r);
    }
  } else {
    for (; i + 8 <= n; i += 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + 4 * i), f(i));
  }
  if (i < n) tail(i);
}

template <class F, class Tail>
inline void narrow_loop_any(OutType t, std::size_t n, void* y, const F& f, const Tail& tail) {
  switch (t) {
    case OutType::I8: return narrow_loop<OutType::I8>(n, y, f, tail);
    case OutType::U8: return narrow_loop<OutType::U8>(n, y, f, tail);
    case OutType::I16: return narrow_loop<OutType::I16>(n, y, f, tail);
    case OutType::U16: return narrow_loop<OutType::U16>(n, y, f, tail);
    case OutType::I32: return narrow_loop<OutType::I32>(n, y, f, tail);
  }
}

}  // namespace qspec::simd::avx2
