// Internal to the elementwise kernels: one vector width's int32 and binary32 lane operations under
// one spelling, so an element's arithmetic is written once as a template over the width: Ymm (8
// lanes, AVX2; fmadd only where the file is built with FMA) or Zmm (16, AVX512F). In an unnamed
// namespace: each including file (compiled with its own ISA flags) keeps its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

namespace qspec::simd::avx2 {
namespace {

struct Ymm {
  using I = __m256i;
  using F = __m256;
  static I set1(std::int32_t v) { return _mm256_set1_epi32(v); }
  static F set1(float v) { return _mm256_set1_ps(v); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  static I sub(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I mullo(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static I sra(I a, __m128i s) { return _mm256_sra_epi32(a, s); }
  static I clamp(I v, I lo, I hi) { return _mm256_min_epi32(_mm256_max_epi32(v, lo), hi); }
  static F to_float(I a) { return _mm256_cvtepi32_ps(a); }
  static I rne(F a) { return _mm256_cvtps_epi32(a); }  // MXCSR's default rounding: to nearest even
#ifdef __FMA__
  static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }  // fmaf: only where a convention fuses
#endif
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F clamp(F v, F lo, F hi) { return _mm256_min_ps(_mm256_max_ps(v, lo), hi); }
  static F min(F a, F b) { return _mm256_min_ps(a, b); }
};

#ifdef __AVX512F__
struct Zmm {
  using I = __m512i;
  using F = __m512;
  static I set1(std::int32_t v) { return _mm512_set1_epi32(v); }
  static F set1(float v) { return _mm512_set1_ps(v); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }
  static I sub(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I mullo(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I sra(I a, __m128i s) { return _mm512_sra_epi32(a, s); }
  static I clamp(I v, I lo, I hi) { return _mm512_min_epi32(_mm512_max_epi32(v, lo), hi); }
  static F to_float(I a) { return _mm512_cvtepi32_ps(a); }
  static I rne(F a) { return _mm512_cvtps_epi32(a); }
#ifdef __FMA__
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
#endif
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F clamp(F v, F lo, F hi) { return _mm512_min_ps(_mm512_max_ps(v, lo), hi); }
  static F min(F a, F b) { return _mm512_min_ps(a, b); }
};
#endif

// kSat: y's clamp is int8's own range [-128, 127], which the elementwise kernels' stores apply by
// signed saturation (the ymm packs, the zmm VPMOVSDB): an element functor then leaves its int32
// result unclamped (one clamp fewer per element), and a float result need only stay below 2^31
// (cvtps2dq gives INT32_MIN below -2^31, which saturates to -128 as it should). With a fused clamp,
// or uint8 (whose zmm store truncates), the functor clamps.
inline bool store_saturates(bool u8, std::int32_t lo, std::int32_t hi) { return !u8 && lo == -128 && hi == 127; }
template <class Run>
void with_sat(bool sat, const Run& run) {
  if (sat)
    run(std::true_type{});
  else
    run(std::false_type{});
}
template <class V, bool kSat>
typename V::I clamp_unless_saturated(typename V::I v, typename V::I lo, typename V::I hi) {
  if constexpr (kSat) return v;
  return V::clamp(v, lo, hi);
}

}  // namespace
}  // namespace qspec::simd::avx2
