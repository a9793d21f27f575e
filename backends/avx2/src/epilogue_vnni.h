// Internal to the ymm VNNI kernels (gemm_vnni.cc, depthwise_vnni.cc; both also built for AVX-VNNI):
// the fused requantizing epilogue of 8 int32 output columns (FusedRequantView's arithmetic).
//
// The GEMM engine's store and the depthwise kernel's share this one text, so that they cannot drift
// apart (epilogue_vnni512.h is the zmm kernels' 16-column form of the same arithmetic). The
// instructions AVX-VNNI lacks are spelled both ways in vnni_isa.h. The includer silences GCC 12's
// -Wmaybe-uninitialized / -Wuninitialized on the AVX-512 intrinsics' undefined placeholders (bug
// 105593), as it must before including <immintrin.h>.
#pragma once

#include <immintrin.h>

#include <climits>
#include <cstdint>

#include "qspec/simd/gemm.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

// kFloatThenZp with an int32 bias (XNNPACK, ONNX Runtime, PyTorch qnnpack) on 8 columns:
// rne(fl32(fl32(v + b) * S)) clamped to the integer bounds [flo, fhi] first (it commutes with the
// monotone rounding), + zp; for kernels that hold the parameters in registers themselves.
__attribute__((always_inline)) inline __m256i float_then_zp(__m256i v, __m256i bias, __m256 scale, __m256 flo,
                                                            __m256 fhi, __m256i zp) {
  const __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(v, bias)), scale);
  return _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(f, flo), fhi)), zp);  // rne: MXCSR's
}

// requant_one's arithmetic on columns j..j+7 (m: the valid ones) as requant_avx2.cc computes it,
// with each column's own parameters; int32 accumulators in, clamped int32 with the zero point out.
// The constructor loads every per-column parameter the kind needs once, for a kernel to apply to
// each of its rows.
struct Epilogue8 {
  RequantKind kind;
  bool float_bias;
  std::int32_t zp, lo, hi;
  float zp_f, flo, fhi;
  __m256i bias;
  __m256 scale;                                               // the float kinds
  __m256i mul, lsh, rsh;                                      // kQ31Double
  __m256i mul64[2], cpos[2], cneg[2], slo[2], shi[2], sh[2];  // kShiftRound, per 4-column half

  __attribute__((always_inline)) Epilogue8(const FusedRequantView& e, std::int64_t j, Lanes8 m)
      : kind(e.kind),
        float_bias(e.float_bias),
        zp(e.zp),
        lo(e.lo_nozp),
        hi(e.hi_nozp),
        zp_f(e.zp_f),
        flo(e.flo),
        fhi(e.fhi),
        bias(load_z32(m, e.bias + j)),
        scale(_mm256_setzero_ps()),
        mul(_mm256_setzero_si256()),
        lsh(_mm256_setzero_si256()),
        rsh(_mm256_setzero_si256()),
        mul64{},
        cpos{},
        cneg{},
        slo{},
        shi{},
        sh{} {
    if (kind == RequantKind::kShiftRound) {
      const Lanes4 mh[2] = {low_lanes(m), high_lanes(m)};
      for (int h = 0; h < 2; ++h) {
        const std::int64_t jh = j + 4 * h;
        mul64[h] = _mm256_cvtepi32_epi64(load_z32x4(mh[h], e.multiplier + jh));
        cpos[h] = load_z64x4(mh[h], e.round_pos + jh);
        cneg[h] = load_z64x4(mh[h], e.round_neg + jh);
        slo[h] = load_z64x4(mh[h], e.s_lo + jh);
        shi[h] = load_z64x4(mh[h], e.s_hi + jh);
        sh[h] = load_z64x4(mh[h], e.shift + jh);
      }
    } else if (kind == RequantKind::kQ31Double) {
      mul = load_z32(m, e.multiplier + j);
      lsh = load_z32(m, e.left_shift + j);
      rsh = load_z32(m, e.right_shift + j);
    } else {
      scale = load_zps(m, e.scale + j);
    }
  }

  // kShiftRound on the 4 columns of half h in 64-bit lanes: s = x*M + c(x) exactly, clamped to
  // [s_lo, s_hi] for the wide columns (so that the quotient fits int32), then the arithmetic shift;
  // the caller clamps in int32 and adds the zero point, as requant_avx2.cc's ShiftRound.
  __attribute__((always_inline)) __m128i shift_round4(__m128i x, int h) const {
    const __m256i x64 = _mm256_cvtepi32_epi64(x);
    const __m256i c = neg_select64(x64, cpos[h], cneg[h]);
    __m256i s = _mm256_add_epi64(_mm256_mul_epi32(x64, mul64[h]), c);  // |x*M| <= 2^62, |c| <= 2^62
    s = clamp64(s, slo[h], shi[h]);
    return low32_of64(sra64(s, sh[h]));
  }

  // kFloatThenZp with an int32 bias (XNNPACK, ONNX Runtime, PyTorch qnnpack): rne(fl32(fl32(v + b) * S))
  // clamped to the integer bounds first (it commutes with the monotone rounding), + zp; a kernel
  // that knows the kind calls it without operator()'s dispatch.
  __attribute__((always_inline)) __m256i float_then_zp(__m256i v) const {
    return avx2::float_then_zp(v, bias, scale, _mm256_set1_ps(flo), _mm256_set1_ps(fhi), _mm256_set1_epi32(zp));
  }

  __attribute__((always_inline)) __m256i operator()(__m256i v) const {
    if (kind == RequantKind::kFloatThenZp && !float_bias) return float_then_zp(v);
    if (kind == RequantKind::kShiftRound) {
      const __m256i x = _mm256_add_epi32(v, bias);  // exact: the caller bounded |acc| + |bias| in int32
      __m256i r = _mm256_set_m128i(shift_round4(_mm256_extracti128_si256(x, 1), 1),
                                   shift_round4(_mm256_castsi256_si128(x), 0));
      r = _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
      return _mm256_add_epi32(r, _mm256_set1_epi32(zp));
    }
    if (kind == RequantKind::kQ31Double) {
      __m256i x = _mm256_add_epi32(v, bias);  // exact: the caller bounded |acc| + |bias| in int32
      x = _mm256_sllv_epi32(x, lsh);          // x * 2^L modulo 2^32
      // SRDHM: bits 31..62 of the exact 64-bit x*M + 2^30 of the even and odd lanes.
      const __m256i nudge = _mm256_set1_epi64x(std::int64_t{1} << 30);
      const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(x, mul), nudge);
      const __m256i po =
          _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(mul, 32)), nudge);
      __m256i r = _mm256_blend_epi32(_mm256_srli_epi64(pe, 31), _mm256_slli_epi64(po, 1), 0xAA);
      const __m256i int_min = _mm256_set1_epi32(INT32_MIN);
      r = blend32(r, lanes_and(eq32(x, int_min), eq32(mul, int_min)), _mm256_set1_epi32(INT32_MAX));
      // RDBPOT: (r >> R) + (remainder > (mask >> 1) + (r < 0)): ties away from zero.
      const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), rsh), _mm256_set1_epi32(1));
      const __m256i thr = _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_srai_epi32(r, 31));
      r = add1_where(_mm256_srav_epi32(r, rsh), gt32(_mm256_and_si256(r, mask), thr));
      r = _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
      return _mm256_add_epi32(r, _mm256_set1_epi32(zp));
    }
    // The float kinds (float_narrow): rne(fl32(fl32(x) * S)) (+ fl32(zp) before the rounding for
    // kFloatInclZp), clamped to integer bounds first, which commutes with the monotone rounding.
    __m256 f;
    if (float_bias) {  // oneDNN: fl32(fl32(acc) + fl32(b)), an integer below 2^31 in magnitude
      f = _mm256_add_ps(_mm256_cvtepi32_ps(v), _mm256_cvtepi32_ps(bias));
    } else {
      f = _mm256_cvtepi32_ps(_mm256_add_epi32(v, bias));
    }
    f = _mm256_mul_ps(f, scale);
    const bool incl = kind == RequantKind::kFloatInclZp;
    if (incl) f = _mm256_add_ps(f, _mm256_set1_ps(zp_f));
    f = _mm256_min_ps(_mm256_max_ps(f, _mm256_set1_ps(flo)), _mm256_set1_ps(fhi));
    const __m256i r = _mm256_cvtps_epi32(f);  // round to nearest even (MXCSR's default)
    return incl ? r : _mm256_add_epi32(r, _mm256_set1_epi32(zp));
  }
};

}  // namespace
}  // namespace qspec::simd::avx2
