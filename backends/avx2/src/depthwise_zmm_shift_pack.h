// Internal to the zmm VNNI depthwise kernels (VnniZmm::ShiftPack, depthwise_zmm_vector.h): the fused
// epilogue of the direct strips and of the ring's one-sweep strips for the shift kinds (TFLite's
// double rounding, folded; TFLite's single rounding, TOSA's, TVM's) on a full block's pixel pair, 64
// bytes, where FusedRequantView::folded holds.
//
// Why. Sink's per-vector epilogue (Epilogue16 of epilogue_vnni512.h) runs TFLite's double rounding as
// written, SRDHM then RDBPOT, about 25 operations per 16 outputs with the VPMOVDB narrowing, and
// reloads its parameters around every byte store: the depthwise layer then took four times the
// xnnpack.fp32 row (docs/benchmarks.md). Folded (requant.h: q31_as_shift_round, zp_into_rounding),
// the byte before the clamp is one floor((v*M + c + [v < 0] * d) / 2^S) with the zero point in c,
// S >= 32: requant_avx512.cc's ShiftRound per vector (VPMULDQ on the even and odd lanes, the sign
// test and a masked VPADDQ of d, VPERMT2D of the high dwords, VPSRAVD by S - 32: 11 operations),
// then VnniZmm::PairPack's narrowing (VPACKSSDW, VPACKSSWB / VPACKUSWB, one VPERMD per 64 bytes), the
// clamp to [qmin, qmax] on the int16 lanes where the range is narrower than the byte type.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "depthwise_zmm_pair_bytes.h"
#include "qspec/simd/gemm.h"

namespace qspec::simd::avx2 {
namespace {

struct ShiftPairPack {
  using Vec = __m512i;
  __m512i m[2], m_odd[2], c_even[2], c_odd[2], sh[2], bias[2];
  __m512i diff, sign_lo, lo16, hi16;
  bool u8, clamp;
  static constexpr int kRuntime = 0, kS8Full = 1, kU8Full = 2;  // as VnniZmm::PairPack's forms

  // Folded, and a byte output (a clamp inside the byte type, the zero point in the constants).
  static bool applies(const FusedRequantView& e) {
    const std::int64_t qmin = std::int64_t{e.lo_nozp} + e.zp, qmax = std::int64_t{e.hi_nozp} + e.zp;
    return e.folded && !e.float_bias && qmin >= -128 && qmax <= 255 && (qmin >= 0 || qmax <= 127);
  }
  // The packs' saturation is the clamp where [qmin, qmax] is the byte type's whole range.
  static bool needs_clamp(const FusedRequantView& e) {
    const std::int64_t qmin = std::int64_t{e.lo_nozp} + e.zp, qmax = std::int64_t{e.hi_nozp} + e.zp;
    return unsigned_bytes(e) ? qmin != 0 || qmax != 255 : qmin != -128 || qmax != 127;
  }
  static int form(const FusedRequantView& e) {
    return needs_clamp(e) ? kRuntime : unsigned_bytes(e) ? kU8Full : kS8Full;
  }

  // Channels j .. j + 31, all present (a full block). The constants of the even (odd) lanes sit in
  // the qwords whose low dword is that lane, as VPMULDQ reads them.
  __attribute__((always_inline)) ShiftPairPack(const FusedRequantView* e, std::int64_t j, std::int64_t, std::int64_t)
      : diff(_mm512_set1_epi64(e->fold_diff)),
        sign_lo(_mm512_set1_epi64(std::int64_t{1} << 31)),  // the low dword's sign bit in its qword
        lo16(_mm512_set1_epi16(static_cast<std::int16_t>(std::int64_t{e->lo_nozp} + e->zp))),
        hi16(_mm512_set1_epi16(static_cast<std::int16_t>(std::int64_t{e->hi_nozp} + e->zp))),
        u8(unsigned_bytes(*e)),
        clamp(needs_clamp(*e)) {
    const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    for (int k = 0; k < 2; ++k) {
      const std::int64_t jk = j + 16 * k;
      m[k] = _mm512_loadu_si512(e->fold_m + jk);
      m_odd[k] = _mm512_srli_epi64(m[k], 32);
      const __m512i c0 = _mm512_loadu_si512(e->fold_c + jk), c1 = _mm512_loadu_si512(e->fold_c + jk + 8);
      c_even[k] = _mm512_permutex2var_epi64(c0, even, c1);
      c_odd[k] = _mm512_permutex2var_epi64(c0, odd, c1);
      sh[k] = _mm512_loadu_si512(e->fold_s + jk);
      bias[k] = _mm512_loadu_si512(e->bias + jk);
    }
  }
  // The accumulators start from corrections + bias (exact modulo 2^32: the caller bounded the sum).
  __attribute__((always_inline)) Vec init(int k, Vec c) const { return _mm512_add_epi32(c, bias[k]); }

  // Vector k's 16 bytes before the narrowing: floor((x*M + c + [x < 0] * d) / 2^S), zero point included
  // (an int32: zp_into_rounding checked the sum's range).
  __attribute__((always_inline)) __m512i raw(__m512i x, int k) const {
    const __m512i xo = _mm512_srli_epi64(x, 32);  // the odd lanes in the low dwords
    __m512i se = _mm512_add_epi64(_mm512_mul_epi32(x, m[k]), c_even[k]);
    __m512i so = _mm512_add_epi64(_mm512_mul_epi32(xo, m_odd[k]), c_odd[k]);
    se = _mm512_mask_add_epi64(se, _mm512_test_epi64_mask(x, sign_lo), se, diff);
    so = _mm512_mask_add_epi64(so, _mm512_test_epi64_mask(xo, sign_lo), so, diff);
    // S >= 32: floor(s / 2^S) = floor(hi32(s) / 2^(S-32)); VPERMT2D gathers the high dwords in lane order.
    const __m512i hi_dwords = _mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    return _mm512_srav_epi32(_mm512_permutex2var_epi32(se, hi_dwords, so), sh[k]);
  }

  // a, b: channels 0-15 and 16-31 of pixels 2j and 2j + 1 (b ignored without second); y: pixel 2j's
  // first byte, pixel 2j + 1's c bytes on. kForm fixes the clamp and the pack (kRuntime: the flags).
  template <int kForm>
  __attribute__((always_inline)) void pair(std::uint8_t* y, const Vec* a, const Vec* b, bool second,
                                           std::int64_t c) const {
    // VPACKSSDW saturates to int16 and [qmin, qmax] lies inside it, so clamping the int16 lanes
    // clamps the int32 ones; the byte pack is then exact (or is the clamp, for the full range).
    const bool do_clamp = kForm == kRuntime && clamp, pack_u8 = kForm == kRuntime ? u8 : kForm == kU8Full;
    __m512i p = _mm512_packs_epi32(raw(a[0], 0), raw(a[1], 1));
    __m512i q = _mm512_packs_epi32(raw(b[0], 0), raw(b[1], 1));
    if (do_clamp) {
      p = _mm512_min_epi16(_mm512_max_epi16(p, lo16), hi16);
      q = _mm512_min_epi16(_mm512_max_epi16(q, lo16), hi16);
    }
    store_pair_bytes(y, p, q, pack_u8, second, c);
  }
};

}  // namespace
}  // namespace qspec::simd::avx2
