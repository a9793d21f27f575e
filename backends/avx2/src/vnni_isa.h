// Internal to the ymm VNNI kernels (gemm_vnni.cc, depthwise_vnni.cc): the operations they need that
// AVX512-VL spells with k-masks and AVX-VNNI (VEX, no AVX-512) cannot, in both spellings.
//
// Each kernel file is one text compiled twice: as is, with the AVX-512 flags (the avx512vnni
// level, EVEX VPDPBUSD), and through a wrapper that defines QSPEC_AVXVNNI, with -mavxvnni only (the
// avxvnni level of Alder Lake and later Intel cores without AVX-512). The EVEX spellings below are
// the instructions the kernels used before this header existed, so that build is unchanged; the
// AVX2 spellings use lane-mask vectors (VPMASKMOV), blends and shuffles. Everything here has
// internal linkage: the two builds' functions of one name must never be merged by the linker.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#if defined(QSPEC_AVXVNNI)
#define QSPEC_VNNI_PICK(evex, vex) vex
#else
#define QSPEC_VNNI_PICK(evex, vex) evex
#endif

namespace qspec::simd::avx2 {
namespace {

inline __m256i dpbusd(__m256i acc, __m256i a, __m256i b) {
  return QSPEC_VNNI_PICK(_mm256_dpbusd_epi32, _mm256_dpbusd_avx_epi32)(acc, a, b);
}

#if defined(QSPEC_AVXVNNI)

// A set of int32 lanes of a ymm (Lanes8) or of an xmm (Lanes4): all-ones lanes are in the set.
using Lanes8 = __m256i;
using Lanes4 = __m128i;

inline Lanes8 first_lanes(int n) {  // lanes 0 .. n-1 (n may lie outside 0..8)
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline bool all_lanes(Lanes8 m) { return _mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xff; }
inline Lanes4 low_lanes(Lanes8 m) { return _mm256_castsi256_si128(m); }
inline Lanes4 high_lanes(Lanes8 m) { return _mm256_extracti128_si256(m, 1); }
inline Lanes8 lanes_and(Lanes8 a, Lanes8 b) { return _mm256_and_si256(a, b); }
inline Lanes8 eq32(__m256i a, __m256i b) { return _mm256_cmpeq_epi32(a, b); }
inline Lanes8 gt32(__m256i a, __m256i b) { return _mm256_cmpgt_epi32(a, b); }

// Masked loads: the lanes outside the set read as zero and are neither read nor faulted on.
inline __m256i load_z32(Lanes8 m, const std::int32_t* p) { return _mm256_maskload_epi32(p, m); }
inline __m256 load_zps(Lanes8 m, const float* p) { return _mm256_maskload_ps(p, m); }
inline __m128i load_z32x4(Lanes4 m, const std::int32_t* p) { return _mm_maskload_epi32(p, m); }
inline __m256i load_z64x4(Lanes4 m, const std::int64_t* p) {
  return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), _mm256_cvtepi32_epi64(m));
}
inline void store_m32(std::int32_t* p, Lanes8 m, __m256i v) { _mm256_maskstore_epi32(p, m, v); }

// r with the lanes of m replaced by v's; q + 1 in the lanes of m (an all-ones lane is -1).
inline __m256i blend32(__m256i r, Lanes8 m, __m256i v) { return _mm256_blendv_epi8(r, v, m); }
inline __m256i add1_where(__m256i q, Lanes8 m) { return _mm256_sub_epi32(q, m); }

// The 64-bit lane operations AVX2 lacks.
inline __m256i neg_select64(__m256i x, __m256i pos, __m256i neg) {  // neg where x < 0, else pos
  return _mm256_castpd_si256(
      _mm256_blendv_pd(_mm256_castsi256_pd(pos), _mm256_castsi256_pd(neg), _mm256_castsi256_pd(x)));
}
inline __m256i clamp64(__m256i s, __m256i lo, __m256i hi) {
  s = _mm256_blendv_epi8(s, lo, _mm256_cmpgt_epi64(lo, s));
  return _mm256_blendv_epi8(s, hi, _mm256_cmpgt_epi64(s, hi));
}
// floor(s / 2^n): for s < 0 it is ~(~s >> n) with a logical shift (both sides are -1 for n >= 64).
inline __m256i sra64(__m256i s, __m256i n) {
  const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), s);
  return _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(s, sign), n), sign);
}
inline __m128i low32_of64(__m256i s) {  // the low 32 bits of each 64-bit lane
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

// The low byte of each lane of v, the first n (1..8) of them stored at y (lanes 0..n-1 of m).
inline void store_low_bytes(std::uint8_t* y, Lanes8, int n, __m256i v) {
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i b = _mm256_shuffle_epi8(v, pick);
  const __m128i bytes = _mm_unpacklo_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
  if (n >= 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y), bytes);
    return;
  }
  alignas(16) std::uint8_t t[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(t), bytes);
  std::memcpy(y, t, static_cast<std::size_t>(n));
}

// The low bytes of the 16 lanes of v0, v1 (in that order) stored at y: each 128-bit half's four
// low bytes gathered in place, v1's beside v0's, then the dwords put in order.
inline void store16_low_bytes(std::uint8_t* y, __m256i v0, __m256i v1) {
  const __m256i pick0 = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                         0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i pick1 = _mm256_setr_epi8(-1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                         -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i b = _mm256_or_si256(_mm256_shuffle_epi8(v0, pick0), _mm256_shuffle_epi8(v1, pick1));
  // dwords: v0[0..3] v1[0..3] . . v0[4..7] v1[4..7] . .  ->  v0[0..3] v0[4..7] v1[0..3] v1[4..7]
  const __m256i r = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm256_castsi256_si128(r));
}

// The first `valid` bytes of a 32-byte block (zero past them; at most `valid` bytes are read).
using ByteLanes = std::int64_t;
inline ByteLanes first_bytes(std::int64_t valid) { return valid; }
inline __m256i load_z8(ByteLanes valid, const std::uint8_t* p) {
  if (valid >= 32) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  alignas(32) std::uint8_t t[32] = {};
  std::memcpy(t, p, static_cast<std::size_t>(valid));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(t));
}

// The first `valid` (<= 32) int16 of p, each of which fits int8, as 32 bytes in order, zero past them.
inline __m256i words_to_bytes(const std::int16_t* p, std::int64_t valid) {
  alignas(32) std::int16_t t[32] = {};
  std::memcpy(t, p, static_cast<std::size_t>(valid) * sizeof(std::int16_t));
  // VPACKSSWB interleaves the 128-bit lanes of its operands: lo[0..7] hi[0..7] lo[8..15] hi[8..15].
  const __m256i packed = _mm256_packs_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(t)),
                                            _mm256_load_si256(reinterpret_cast<const __m256i*>(t + 16)));
  return _mm256_permute4x64_epi64(packed, _MM_SHUFFLE(3, 1, 2, 0));
}

#else  // AVX512-VL, k-mask registers

using Lanes8 = __mmask8;
using Lanes4 = __mmask8;

inline Lanes8 first_lanes(int n) { return static_cast<__mmask8>(n >= 8 ? 0xff : n <= 0 ? 0 : (1u << n) - 1); }
inline bool all_lanes(Lanes8 m) { return m == 0xff; }
inline Lanes4 low_lanes(Lanes8 m) { return static_cast<__mmask8>(m & 0xf); }
inline Lanes4 high_lanes(Lanes8 m) { return static_cast<__mmask8>(m >> 4); }
inline Lanes8 lanes_and(Lanes8 a, Lanes8 b) { return static_cast<__mmask8>(a & b); }
inline Lanes8 eq32(__m256i a, __m256i b) { return _mm256_cmpeq_epi32_mask(a, b); }
inline Lanes8 gt32(__m256i a, __m256i b) { return _mm256_cmpgt_epi32_mask(a, b); }

inline __m256i load_z32(Lanes8 m, const std::int32_t* p) { return _mm256_maskz_loadu_epi32(m, p); }
inline __m256 load_zps(Lanes8 m, const float* p) { return _mm256_maskz_loadu_ps(m, p); }
inline __m128i load_z32x4(Lanes4 m, const std::int32_t* p) { return _mm_maskz_loadu_epi32(m, p); }
inline __m256i load_z64x4(Lanes4 m, const std::int64_t* p) { return _mm256_maskz_loadu_epi64(m, p); }
inline void store_m32(std::int32_t* p, Lanes8 m, __m256i v) { _mm256_mask_storeu_epi32(p, m, v); }

inline __m256i blend32(__m256i r, Lanes8 m, __m256i v) { return _mm256_mask_mov_epi32(r, m, v); }
inline __m256i add1_where(__m256i q, Lanes8 m) { return _mm256_mask_add_epi32(q, m, q, _mm256_set1_epi32(1)); }

inline __m256i neg_select64(__m256i x, __m256i pos, __m256i neg) {
  return _mm256_mask_mov_epi64(pos, _mm256_cmplt_epi64_mask(x, _mm256_setzero_si256()), neg);
}
inline __m256i clamp64(__m256i s, __m256i lo, __m256i hi) { return _mm256_min_epi64(_mm256_max_epi64(s, lo), hi); }
inline __m256i sra64(__m256i s, __m256i n) { return _mm256_srav_epi64(s, n); }
inline __m128i low32_of64(__m256i s) { return _mm256_cvtepi64_epi32(s); }

// VPMOVDB: the low byte of each lane of m (n of them; n >= 8: all), narrowed in a register and
// stored whole where every lane is (the masked store form of VPMOVDB is slow on Zen 4 and 5).
inline void store_low_bytes(std::uint8_t* y, Lanes8 m, int n, __m256i v) {
  if (n >= 8) return _mm_storel_epi64(reinterpret_cast<__m128i*>(y), _mm256_cvtepi32_epi8(v));
  _mm256_mask_cvtepi32_storeu_epi8(y, m, v);
}

// VPMOVDB in registers (its store form is slow on Zen 4), the two halves joined, one 16-byte store.
inline void store16_low_bytes(std::uint8_t* y, __m256i v0, __m256i v1) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm_unpacklo_epi64(_mm256_cvtepi32_epi8(v0), _mm256_cvtepi32_epi8(v1)));
}

using ByteLanes = __mmask32;
inline ByteLanes first_bytes(std::int64_t valid) {
  return valid >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((std::uint32_t{1} << valid) - 1);
}
inline __m256i load_z8(ByteLanes m, const std::uint8_t* p) { return _mm256_maskz_loadu_epi8(m, p); }

// VPMOVWB narrows words that fit int8 exactly.
inline __m256i words_to_bytes(const std::int16_t* p, std::int64_t valid) {
  const ByteLanes m = first_bytes(valid);
  const __m256i lo = _mm256_maskz_loadu_epi16(static_cast<__mmask16>(m), p);
  const __m256i hi = _mm256_maskz_loadu_epi16(static_cast<__mmask16>(m >> 16), p + 16);
  return _mm256_set_m128i(_mm256_maskz_cvtepi16_epi8(0xffff, hi), _mm256_maskz_cvtepi16_epi8(0xffff, lo));
}

#endif

}  // namespace
}  // namespace qspec::simd::avx2
