// Internal to the AVX2 kernels: requant.h's two integer kinds as 8-lane functors (int32 in, clamped
// int32 with the zero point out), shared by the requantization kernel and the qlinear.add kernel.
// In an unnamed namespace: each including file (compiled with its own ISA flags) keeps its own copy,
// so the linker can never pick one file's instructions for another's level.
#pragma once

#include <immintrin.h>

#include "qspec/simd/requant.h"
#include "requant_kinds.h"

namespace qspec::simd::avx2 {
namespace {

struct Q31Double {
  __m256i m, nudge, mask, half, lo, hi, zp, int_min, int_max;
  __m128i lsh, rsh;
  bool fix_overflow;
  explicit Q31Double(const RequantParams& p) : Q31Double(p, Q31Lanes(p)) {}
  Q31Double(const RequantParams& p, const Q31Lanes& c)
      : m(_mm256_set1_epi64x(p.multiplier)),  // mul_epi32 reads the low dword of each qword
        nudge(_mm256_set1_epi64x(std::int64_t{1} << 30)),
        mask(_mm256_set1_epi32(c.mask)),
        half(_mm256_set1_epi32(c.half)),
        lo(_mm256_set1_epi32(p.lo_nozp)),
        hi(_mm256_set1_epi32(p.hi_nozp)),
        zp(_mm256_set1_epi32(p.zp)),
        int_min(_mm256_set1_epi32(INT32_MIN)),
        int_max(_mm256_set1_epi32(INT32_MAX)),
        lsh(_mm_cvtsi32_si128(p.left_shift)),
        rsh(_mm_cvtsi32_si128(p.right_shift)),
        fix_overflow(c.fix_overflow) {}

  __m256i operator()(__m256i x) const {
    x = _mm256_sll_epi32(x, lsh);  // x * 2^L modulo 2^32
    // SRDHM: floor((x*M + 2^30) / 2^31) from exact 64-bit products of the even and odd lanes.
    // Bits 31..62 of the 64-bit sum are that floor modulo 2^32; it fits int32 except for
    // INT32_MIN * INT32_MIN (2^31), fixed below.
    const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(x, m), nudge);
    const __m256i po = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), m), nudge);
    __m256i r = _mm256_blend_epi32(_mm256_srli_epi64(pe, 31), _mm256_slli_epi64(po, 1), 0xAA);
    if (fix_overflow) r = _mm256_blendv_epi8(r, int_max, _mm256_cmpeq_epi32(x, int_min));
    // RDBPOT: (r >> R) + (remainder > (mask >> 1) + (r < 0)), i.e. ties away from zero.
    const __m256i rem = _mm256_and_si256(r, mask);
    const __m256i thr = _mm256_sub_epi32(half, _mm256_srai_epi32(r, 31));
    __m256i q = _mm256_sub_epi32(_mm256_sra_epi32(r, rsh), _mm256_cmpgt_epi32(rem, thr));
    q = _mm256_min_epi32(_mm256_max_epi32(q, lo), hi);
    return _mm256_add_epi32(q, zp);
  }
};

// floor((x*M + c(x)) / 2^S): 64-bit products of even and odd lanes, the rounding constant chosen
// by the sign of x, then the quotient's low 32 bits put back in lane order.
template <bool kTwoConstants, bool kWide, bool kHighShift>
struct ShiftRound {
  __m256i off, m, c_pos, c_diff, wlo, whi, lo, hi, zp;
  __m128i s_lo, s_hi;  // S (S < 32), or S - 32 (S >= 32)
  bool has_offset;
  explicit ShiftRound(const RequantParams& p) : ShiftRound(p, ShiftLanes(p)) {}
  ShiftRound(const RequantParams& p, const ShiftLanes& c)
      : off(_mm256_set1_epi32(p.input_offset)),
        m(_mm256_set1_epi64x(p.multiplier)),
        c_pos(_mm256_set1_epi64x(p.round_pos)),
        c_diff(_mm256_set1_epi64x(c.c_diff)),
        wlo(_mm256_set1_epi64x(p.wide_lo)),
        whi(_mm256_set1_epi64x(p.wide_hi)),
        lo(_mm256_set1_epi32(p.lo_nozp)),
        hi(_mm256_set1_epi32(p.hi_nozp)),
        zp(_mm256_set1_epi32(p.zp)),
        s_lo(_mm_cvtsi32_si128(c.s_lo)),
        s_hi(_mm_cvtsi32_si128(c.s_hi)),
        has_offset(c.has_offset) {}

  __m256i clamp64(__m256i s) const {
    s = _mm256_blendv_epi8(s, wlo, _mm256_cmpgt_epi64(wlo, s));
    return _mm256_blendv_epi8(s, whi, _mm256_cmpgt_epi64(s, whi));
  }

  __m256i operator()(__m256i x) const {
    if (has_offset) x = _mm256_add_epi32(x, off);  // modulo 2^32, as the scalar path
    __m256i se = _mm256_mul_epi32(x, m);
    __m256i so = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), m);
    if constexpr (kTwoConstants) {
      const __m256i neg = _mm256_srai_epi32(x, 31);  // all ones in the lanes where x < 0
      const __m256i neg_e = _mm256_shuffle_epi32(neg, _MM_SHUFFLE(2, 2, 0, 0));
      const __m256i neg_o = _mm256_shuffle_epi32(neg, _MM_SHUFFLE(3, 3, 1, 1));
      se = _mm256_add_epi64(se, _mm256_add_epi64(c_pos, _mm256_and_si256(neg_e, c_diff)));
      so = _mm256_add_epi64(so, _mm256_add_epi64(c_pos, _mm256_and_si256(neg_o, c_diff)));
    } else {
      se = _mm256_add_epi64(se, c_pos);
      so = _mm256_add_epi64(so, c_pos);
    }
    if constexpr (kWide) {
      se = clamp64(se);
      so = clamp64(so);
    }
    __m256i r;
    if constexpr (kHighShift) {
      // S >= 32: floor(s / 2^S) = floor(hi32(s) / 2^(S-32)) with hi32 the signed high dword.
      r = _mm256_sra_epi32(_mm256_blend_epi32(_mm256_srli_epi64(se, 32), so, 0xAA), s_lo);
    } else {
      // S < 32: bits S..S+31 of s are floor(s / 2^S) modulo 2^32, exact when it fits int32
      // (always, unless kWide, and then the clamp above made it fit).
      r = _mm256_blend_epi32(_mm256_srl_epi64(se, s_lo), _mm256_sll_epi64(so, s_hi), 0xAA);
    }
    if constexpr (!kWide) r = _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
    return _mm256_add_epi32(r, zp);
  }
};

}  // namespace
}  // namespace qspec::simd::avx2
