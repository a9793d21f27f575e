// Internal to the elementwise and pooling kernels: one vector width's steps as static functions, Ymm
// (8 int32 lanes; AVX2, and fmadd only where the file is built with FMA) and Zmm (16; AVX512F + BW +
// VL), so that a kernel's arithmetic is written once over the width (qlinear_add_lanes.h,
// qlinear_mul_lanes.h, qlinear_pool_lanes.h).
// In an unnamed namespace: each including file (compiled with its own ISA flags) keeps its own copy.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

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
  // For the pooling kernels (qlinear_pool_lanes.h).
  static constexpr int kLanes = 8;
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static I trunc(F a) { return _mm256_cvttps_epi32(a); }
  static I abs(I a) { return _mm256_abs_epi32(a); }
  static I with_sign_of(I v, I s) { return _mm256_sign_epi32(v, s); }  // -v where s < 0 (0 where s = 0)
  // floor((a b + c) / 2^s) per lane from exact 64-bit products, for a and b below 2^32 unsigned and
  // quotients below 2^31 (the caller's bound).
  static I mul_shift_u(I a, I b, I c, __m128i s) {
    const I e = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), c), s);
    const I o = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), c), s);
    return _mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xAA);
  }
  static I set1_64(std::int64_t v) { return _mm256_set1_epi64x(v); }
  // kLanes codes widened to int32 (n < kLanes: the first n, the rest 0), and the lanes' low bytes stored.
  template <bool kU8>
  static I load(const std::uint8_t* p) {
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return kU8 ? _mm256_cvtepu8_epi32(v) : _mm256_cvtepi8_epi32(v);
  }
  template <bool kU8>
  static I load(const std::uint8_t* p, std::size_t n) {
    std::uint8_t b[kLanes] = {};
    std::memcpy(b, p, n);
    return load<kU8>(b);
  }
  // Lanes inside the 8-bit type: the saturating packs only narrow.
  template <bool kU8>
  static void store(std::uint8_t* p, I v) {
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), kU8 ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w));
  }
  template <bool kU8>
  static void store(std::uint8_t* p, I v, std::size_t n) {
    std::uint8_t b[kLanes];
    store<kU8>(b, v);
    std::memcpy(p, b, n);
  }
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
  static constexpr int kLanes = 16;
  static F div(F a, F b) { return _mm512_div_ps(a, b); }
  static I trunc(F a) { return _mm512_cvttps_epi32(a); }
  static I abs(I a) { return _mm512_abs_epi32(a); }
  static I with_sign_of(I v, I s) {
    const I z = _mm512_setzero_si512();
    return _mm512_mask_sub_epi32(v, _mm512_cmplt_epi32_mask(s, z), z, v);
  }
  static I mul_shift_u(I a, I b, I c, __m128i s) {
    const I e = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, b), c), s);
    const I o = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), b), c), s);
    return _mm512_mask_blend_epi32(0xAAAA, e, _mm512_slli_epi64(o, 32));
  }
  static I set1_64(std::int64_t v) { return _mm512_set1_epi64(v); }
  // The partial forms through byte masks; VPMOVDB truncates lanes already inside the 8-bit type.
  template <bool kU8>
  static I load(const std::uint8_t* p) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return kU8 ? _mm512_cvtepu8_epi32(v) : _mm512_cvtepi8_epi32(v);
  }
  template <bool kU8>
  static I load(const std::uint8_t* p, std::size_t n) {
    const __m128i v = _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << n) - 1), p);
    return kU8 ? _mm512_cvtepu8_epi32(v) : _mm512_cvtepi8_epi32(v);
  }
  template <bool>
  static void store(std::uint8_t* p, I v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(v));
  }
  template <bool>
  static void store(std::uint8_t* p, I v, std::size_t n) {
    _mm_mask_storeu_epi8(p, static_cast<__mmask16>((1u << n) - 1), _mm512_cvtepi32_epi8(v));
  }
};
#endif

}  // namespace
}  // namespace qspec::simd::avx2
