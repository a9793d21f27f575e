// Internal to the zmm VNNI kernels (the GEMM engine and the direct convolution): the fused
// requantizing epilogue of 16 int32 output columns (FusedRequantView's arithmetic) and its byte store.
//
// Both kernels hold 16 output columns of several rows (GEMM rows, conv output pixels) in zmm
// accumulators; one text of the epilogue serves both, so that they cannot drift apart. The includer
// silences GCC 12's -Wmaybe-uninitialized / -Wuninitialized on the AVX-512 intrinsics' undefined
// placeholders (bug 105593), as it must before including <immintrin.h>.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "qspec/simd/gemm.h"

namespace qspec::simd::avx2 {

inline constexpr int kEpilogueLanes = 16;  // int32 columns per zmm

inline __mmask16 lanes(int ncols) {
  return static_cast<__mmask16>(ncols >= kEpilogueLanes ? 0xffff : ncols <= 0 ? 0 : (1u << ncols) - 1);
}

// requant_one's arithmetic on 16 columns as requant_avx2.cc computes it: int32 in, clamped int32
// with the zero point out.
// kFloatThenZp with an int32 bias (XNNPACK, ONNX Runtime, PyTorch qnnpack): rne(fl32(fl32(v + b) * S))
// clamped to the integer bounds [flo, fhi] first (it commutes with the monotone rounding), + zp.
__attribute__((always_inline)) inline __m512i float_then_zp(__m512i v, __m512i bias, __m512 scale, __m512 flo,
                                                            __m512 fhi, __m512i zp) {
  const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(v, bias)), scale);
  return _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, flo), fhi)), zp);  // rne: MXCSR's
}

// Every per-column parameter of columns j..j+15 (mask m: the valid ones) loaded once, for a kernel
// to apply to each of its rows in registers.
struct Epilogue16 {
  RequantKind kind;
  bool float_bias;
  __m512i bias, zp, lo, hi;
  __m512 scale, zp_f, flo, fhi;                               // the float kinds
  __m512i mul, lsh, rsh, mask, half;                          // kQ31Double
  __m512i mul64[2], cpos[2], cneg[2], slo[2], shi[2], sh[2];  // kShiftRound, per 8-column half

  __attribute__((always_inline)) Epilogue16(const FusedRequantView& e, std::int64_t j, __mmask16 m)
      : kind(e.kind),
        float_bias(e.float_bias),
        bias(_mm512_maskz_loadu_epi32(m, e.bias + j)),
        zp(_mm512_set1_epi32(e.zp)),
        lo(_mm512_set1_epi32(e.lo_nozp)),
        hi(_mm512_set1_epi32(e.hi_nozp)),
        scale(_mm512_setzero_ps()),
        zp_f(_mm512_set1_ps(e.zp_f)),
        flo(_mm512_set1_ps(e.flo)),
        fhi(_mm512_set1_ps(e.fhi)),
        mul(_mm512_setzero_si512()),
        lsh(_mm512_setzero_si512()),
        rsh(_mm512_setzero_si512()),
        mask(_mm512_setzero_si512()),
        half(_mm512_setzero_si512()) {
    if (kind == RequantKind::kFloatThenZp || kind == RequantKind::kFloatInclZp) {
      scale = _mm512_maskz_loadu_ps(m, e.scale + j);
    } else if (kind == RequantKind::kQ31Double) {
      mul = _mm512_maskz_loadu_epi32(m, e.multiplier + j);
      lsh = _mm512_maskz_loadu_epi32(m, e.left_shift + j);
      rsh = _mm512_maskz_loadu_epi32(m, e.right_shift + j);
      mask = _mm512_sub_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), rsh), _mm512_set1_epi32(1));
      half = _mm512_srli_epi32(mask, 1);
    } else {
      for (int h = 0; h < 2; ++h) {
        const auto mh = static_cast<__mmask8>(m >> (8 * h));
        const std::int64_t jh = j + 8 * h;
        mul64[h] = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(mh, e.multiplier + jh));
        cpos[h] = _mm512_maskz_loadu_epi64(mh, e.round_pos + jh);
        cneg[h] = _mm512_maskz_loadu_epi64(mh, e.round_neg + jh);
        slo[h] = _mm512_maskz_loadu_epi64(mh, e.s_lo + jh);
        shi[h] = _mm512_maskz_loadu_epi64(mh, e.s_hi + jh);
        sh[h] = _mm512_maskz_loadu_epi64(mh, e.shift + jh);
      }
    }
  }

  // kShiftRound on the 8 columns of half h in 64-bit lanes: s = x*M + c(x) exactly (|x*M| <= 2^62,
  // |c| <= 2^62), clamped to [s_lo, s_hi] for the wide columns (so that the quotient fits int32),
  // then the arithmetic shift; the int32 clamp and the zero point follow, as requant_avx2.cc's.
  __attribute__((always_inline)) __m256i shift_round8(__m256i x, int h) const {
    const __m512i x64 = _mm512_cvtepi32_epi64(x);
    const __mmask8 neg = _mm512_cmplt_epi64_mask(x64, _mm512_setzero_si512());
    __m512i s = _mm512_add_epi64(_mm512_mul_epi32(x64, mul64[h]), _mm512_mask_mov_epi64(cpos[h], neg, cneg[h]));
    s = _mm512_min_epi64(_mm512_max_epi64(s, slo[h]), shi[h]);
    return _mm512_cvtepi64_epi32(_mm512_srav_epi64(s, sh[h]));
  }

  __attribute__((always_inline)) __m512i operator()(__m512i v) const {
    if (kind == RequantKind::kShiftRound) {
      const __m512i x = _mm512_add_epi32(v, bias);  // exact: the caller bounded |acc| + |bias| in int32
      const __m256i r0 = shift_round8(_mm512_castsi512_si256(x), 0);
      const __m256i r1 = shift_round8(_mm512_extracti64x4_epi64(x, 1), 1);
      const __m512i r = _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
      return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(r, lo), hi), zp);
    }
    if (kind == RequantKind::kQ31Double) {
      const __m512i x = _mm512_sllv_epi32(_mm512_add_epi32(v, bias), lsh);  // x * 2^L modulo 2^32
      // SRDHM: bits 31..62 of the exact 64-bit x*M + 2^30 of the even and odd lanes.
      const __m512i nudge = _mm512_set1_epi64(std::int64_t{1} << 30);
      const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(x, mul), nudge);
      const __m512i po =
          _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(mul, 32)), nudge);
      __m512i r = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 31), _mm512_slli_epi64(po, 1));
      const __m512i int_min = _mm512_set1_epi32(INT32_MIN);
      const __mmask16 both_min = _mm512_cmpeq_epi32_mask(x, int_min) & _mm512_cmpeq_epi32_mask(mul, int_min);
      r = _mm512_mask_mov_epi32(r, both_min, _mm512_set1_epi32(INT32_MAX));
      // RDBPOT: (r >> R) + (remainder > (mask >> 1) + (r < 0)): ties away from zero.
      const __m512i thr = _mm512_sub_epi32(half, _mm512_srai_epi32(r, 31));
      const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(r, mask), thr);
      const __m512i q = _mm512_srav_epi32(r, rsh);
      r = _mm512_mask_add_epi32(q, up, q, _mm512_set1_epi32(1));
      return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(r, lo), hi), zp);
    }
    if (kind == RequantKind::kFloatThenZp && !float_bias) return float_then_zp(v, bias, scale, flo, fhi, zp);
    // The float kinds (float_narrow): rne(fl32(fl32(x) * S)) (+ fl32(zp) before the rounding for
    // kFloatInclZp), clamped to integer bounds first, which commutes with the monotone rounding;
    // oneDNN's bias is added in binary32 (an integer below 2^31 in magnitude: the caller's bound).
    __m512 f = float_bias ? _mm512_add_ps(_mm512_cvtepi32_ps(v), _mm512_cvtepi32_ps(bias))
                          : _mm512_cvtepi32_ps(_mm512_add_epi32(v, bias));
    f = _mm512_mul_ps(f, scale);
    const bool incl = kind == RequantKind::kFloatInclZp;
    if (incl) f = _mm512_add_ps(f, zp_f);
    const __m512i r = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, flo), fhi));  // rne: MXCSR's default
    return incl ? r : _mm512_add_epi32(r, zp);
  }
};

// 16 lanes already inside the byte range narrowed in a register (VPMOVDB; its store form is slow
// on Zen 4) and stored, ncols of them.
inline void store_bytes(std::uint8_t* y, __m512i r, int ncols) {
  const __m128i b = _mm512_cvtepi32_epi8(r);
  if (ncols >= kEpilogueLanes) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), b);
  } else {
    _mm_mask_storeu_epi8(y, lanes(ncols), b);
  }
}

// The epilogue ep of one 16-column group (nc of them valid) applied to R rows, row r's int32
// accumulators being v(r) (a compile-time row index once unrolled), its bytes stored at y + r * ldy.
// The common case (kFloatThenZp, int32 bias, a full group) runs branch-free on the parameters copied
// into locals: the byte stores may alias anything reached through a pointer, and parameters read
// between them would be reloaded for every row. kBiasInAcc: the kernel started its accumulators
// from the int32 bias (ep's kind must not be float_bias), so it is not added again.
template <int R, bool kBiasInAcc, class V>
__attribute__((always_inline)) inline void requant_rows(const Epilogue16& ep, int nc, std::uint8_t* y, std::int64_t ldy,
                                                        V v) {
  const __m512i bias = kBiasInAcc ? _mm512_setzero_si512() : ep.bias;
  if (ep.kind == RequantKind::kFloatThenZp && !ep.float_bias && nc == kEpilogueLanes) {
    const __m512i zp = ep.zp;
    const __m512 scale = ep.scale, flo = ep.flo, fhi = ep.fhi;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + r * ldy),
                       _mm512_cvtepi32_epi8(float_then_zp(v(r), bias, scale, flo, fhi, zp)));
    return;
  }
  Epilogue16 local = ep;  // a copy no store can alias
  local.bias = bias;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) store_bytes(y + r * ldy, local(v(r)), nc);
}

}  // namespace qspec::simd::avx2
