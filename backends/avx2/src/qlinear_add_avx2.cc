// qlinear.add kernels (qspec/simd/qlinear_add.h) on AVX2 + FMA, 8 int32 lanes per step and 32 codes
// per store, bit-exact with add_scalar: XNNPACK's int32 multiply-add and floor shift, ONNX Runtime's
// two fused multiply-adds, TFLite's fixed point (requant_kinds_avx2.h's SRDHM / RDBPOT and 64-bit
// single rounding), oneDNN's binary32 products and sums, ATen's binary64 dequantization.
//
// Compiled with -mavx2 -mfma: the FMA instruction is used only where the convention specifies a
// fused multiply-add (ONNX Runtime; _mm256_fmadd_ps is fmaf's one rounding); every other float step
// is its own instruction (-ffp-contract=off on the library). Called only where the CPU has both.
#include <immintrin.h>

#include <cstdint>

#include "narrow_store.h"
#include "qspec/simd/avx2_kernels.h"
#include "requant_kinds_avx2.h"

namespace qspec::simd::avx2 {
namespace {

__m256i clamp(__m256i v, __m256i lo, __m256i hi) { return _mm256_min_epi32(_mm256_max_epi32(v, lo), hi); }

struct XnnpackAdd {
  __m256i ma, mb, bias, zy, lo, hi;
  __m128i shift;
  explicit XnnpackAdd(const AddParams& p)
      : ma(_mm256_set1_epi32(p.ma)),
        mb(_mm256_set1_epi32(p.mb)),
        bias(_mm256_set1_epi32(p.bias)),
        zy(_mm256_set1_epi32(p.zy)),
        lo(_mm256_set1_epi32(p.lo)),
        hi(_mm256_set1_epi32(p.hi)),
        shift(_mm_cvtsi32_si128(p.shift)) {}
  __m256i operator()(__m256i a, __m256i b) const {
    // Exact in int32 (the handler's bound), so VPMULLD's low halves are the products.
    const __m256i acc = _mm256_add_epi32(_mm256_add_epi32(bias, _mm256_mullo_epi32(a, ma)), _mm256_mullo_epi32(b, mb));
    return clamp(_mm256_add_epi32(_mm256_sra_epi32(acc, shift), zy), lo, hi);
  }
};

template <bool kSwap>
struct OrtAdd {
  __m256 fa, fb, fk;
  __m256i lo, hi;
  explicit OrtAdd(const AddParams& p)
      : fa(_mm256_set1_ps(p.fa)),
        fb(_mm256_set1_ps(p.fb)),
        fk(_mm256_set1_ps(p.fk)),
        lo(_mm256_set1_epi32(p.lo)),
        hi(_mm256_set1_epi32(p.hi)) {}
  __m256i operator()(__m256i a, __m256i b) const {
    const __m256 va = _mm256_cvtepi32_ps(a), vb = _mm256_cvtepi32_ps(b);  // exact: |code| <= 255
    const __m256 v = kSwap ? _mm256_fmadd_ps(vb, fb, _mm256_fmadd_ps(va, fa, fk))
                           : _mm256_fmadd_ps(va, fa, _mm256_fmadd_ps(vb, fb, fk));
    return clamp(_mm256_cvtps_epi32(v), lo, hi);  // rne; |v| < 2^31 (the handler's bound)
  }
};

// RequantParams of one TFLite stage: multiplier m, exponent e <= 0, no clamp but the given one.
RequantParams tflite_stage(std::int32_t m, int e, std::int32_t lo, std::int32_t hi, std::int32_t zp) {
  RequantParams r;
  r.kind = RequantKind::kQ31Double;
  r.multiplier = m;
  r.right_shift = -e;
  r.lo_nozp = lo, r.hi_nozp = hi, r.zp = zp;
  return r;
}

// MBQM with double rounding: RDBPOT(SRDHM(x, M), -e), each input's x = (code - z) 2^20 (< 2^28).
struct TfliteDoubleAdd {
  Q31Double qa, qb, qy;
  __m256i za, zb;
  explicit TfliteDoubleAdd(const AddParams& p)
      : qa(tflite_stage(p.m[0], p.e[0], INT32_MIN, INT32_MAX, 0)),
        qb(tflite_stage(p.m[1], p.e[1], INT32_MIN, INT32_MAX, 0)),
        qy(tflite_stage(p.m[2], p.e[2], p.lo - p.zy, p.hi - p.zy, p.zy)),
        za(_mm256_set1_epi32(p.za)),
        zb(_mm256_set1_epi32(p.zb)) {}
  __m256i operator()(__m256i a, __m256i b) const {
    const __m256i ta = qa(_mm256_slli_epi32(_mm256_sub_epi32(a, za), 20));
    const __m256i tb = qb(_mm256_slli_epi32(_mm256_sub_epi32(b, zb), 20));
    return qy(_mm256_add_epi32(ta, tb));  // |ta + tb| < 2^29
  }
};

// MBQM with single rounding: floor((x M + 2^(t-1)) / 2^t), t = 31 - e in [31, 62], as
// floor(floor((x M + 2^(t-1)) / 2^31) / 2^(t-31)): the inner quotient fits int32 (|x M| < 2^59,
// 2^(t-1) <= 2^61), ShiftRound's S = 31 path, then an arithmetic shift by -e.
struct TfliteSingleStage {
  ShiftRound<false, false, false> q;
  __m128i rest;
  explicit TfliteSingleStage(std::int32_t m, int e)
      : q([&] {
          RequantParams r;
          r.kind = RequantKind::kShiftRound;
          r.multiplier = m;
          r.shift = 31;
          r.round_pos = r.round_neg = std::int64_t{1} << (30 - e);
          r.lo_nozp = INT32_MIN, r.hi_nozp = INT32_MAX, r.zp = 0;
          return r;
        }()),
        rest(_mm_cvtsi32_si128(-e)) {}
  __m256i operator()(__m256i x) const { return _mm256_sra_epi32(q(x), rest); }
};

struct TfliteSingleAdd {
  TfliteSingleStage qa, qb, qy;
  __m256i za, zb, zy, lo, hi;
  explicit TfliteSingleAdd(const AddParams& p)
      : qa(p.m[0], p.e[0]),
        qb(p.m[1], p.e[1]),
        qy(p.m[2], p.e[2]),
        za(_mm256_set1_epi32(p.za)),
        zb(_mm256_set1_epi32(p.zb)),
        zy(_mm256_set1_epi32(p.zy)),
        lo(_mm256_set1_epi32(p.lo)),
        hi(_mm256_set1_epi32(p.hi)) {}
  __m256i operator()(__m256i a, __m256i b) const {
    const __m256i ta = qa(_mm256_slli_epi32(_mm256_sub_epi32(a, za), 20));
    const __m256i tb = qb(_mm256_slli_epi32(_mm256_sub_epi32(b, zb), 20));
    return clamp(_mm256_add_epi32(qy(_mm256_add_epi32(ta, tb)), zy), lo, hi);
  }
};

struct OnednnAdd {
  __m256 fa, fb, fk, flo, fhi;
  explicit OnednnAdd(const AddParams& p)
      : fa(_mm256_set1_ps(p.fa)),
        fb(_mm256_set1_ps(p.fb)),
        fk(_mm256_set1_ps(p.fk)),
        flo(_mm256_set1_ps(static_cast<float>(p.lo))),
        fhi(_mm256_set1_ps(static_cast<float>(p.hi))) {}
  __m256i operator()(__m256i a, __m256i b) const {
    const __m256 x = _mm256_mul_ps(_mm256_cvtepi32_ps(a), fa), z = _mm256_mul_ps(_mm256_cvtepi32_ps(b), fb);
    const __m256 w = _mm256_add_ps(_mm256_add_ps(x, z), fk);
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(w, flo), fhi));  // clamp in float, then rne
  }
};

// ATen's qadd_kernel: each dequantized value a binary64 product rounded to binary32 (VCVTPD2PS: the
// product of an int9 and a binary32 is exact in binary64), the float sum times fl32(1 / s_y), rne
// after a clamp to +-1024 (beyond the dtype either way), + z_y and the clamp.
struct PytorchAdd {
  __m256d sa, sb;
  __m256 inv, lim, nlim;
  __m256i za, zb, zy, lo, hi;
  explicit PytorchAdd(const AddParams& p)
      : sa(_mm256_set1_pd(p.fa)),
        sb(_mm256_set1_pd(p.fb)),
        inv(_mm256_set1_ps(p.fk)),
        lim(_mm256_set1_ps(1024.0f)),
        nlim(_mm256_set1_ps(-1024.0f)),
        za(_mm256_set1_epi32(p.za)),
        zb(_mm256_set1_epi32(p.zb)),
        zy(_mm256_set1_epi32(p.zy)),
        lo(_mm256_set1_epi32(p.lo)),
        hi(_mm256_set1_epi32(p.hi)) {}
  static __m256 dequantize(__m256i d, __m256d s) {
    const __m128 l = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(d)), s));
    const __m128 h = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(d, 1)), s));
    return _mm256_set_m128(h, l);
  }
  __m256i operator()(__m256i a, __m256i b) const {
    const __m256 v = _mm256_mul_ps(
        _mm256_add_ps(dequantize(_mm256_sub_epi32(a, za), sa), dequantize(_mm256_sub_epi32(b, zb), sb)), inv);
    const __m256i r = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, nlim), lim));
    return clamp(_mm256_add_epi32(r, zy), lo, hi);
  }
};

// Eight codes widened to int32 lanes.
template <OutType T>
__m256i load8(const std::uint8_t* p) {
  const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return T == OutType::U8 ? _mm256_cvtepu8_epi32(v) : _mm256_cvtepi8_epi32(v);
}

template <OutType T, class F>
void drive(const F& f, const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  const auto* pa = static_cast<const std::uint8_t*>(a);
  const auto* pb = static_cast<const std::uint8_t*>(b);
  narrow_loop<T>(
      n, y, [&](std::size_t i) { return f(load8<T>(pa + i), load8<T>(pb + i)); },
      [&](std::size_t i) { add_scalar(p, n - i, pa + i, pb + i, static_cast<std::uint8_t*>(y) + i); });
}

template <OutType T>
void add_typed(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  using K = AddParams::Kind;
  switch (p.kind) {
    case K::kXnnpack: return drive<T>(XnnpackAdd(p), p, n, a, b, y);
    case K::kOrt:
      if (p.swap) return drive<T>(OrtAdd<true>(p), p, n, a, b, y);
      return drive<T>(OrtAdd<false>(p), p, n, a, b, y);
    case K::kTfliteDouble: return drive<T>(TfliteDoubleAdd(p), p, n, a, b, y);
    case K::kTfliteSingle: return drive<T>(TfliteSingleAdd(p), p, n, a, b, y);
    case K::kOnednn: return drive<T>(OnednnAdd(p), p, n, a, b, y);
    case K::kPytorch: return drive<T>(PytorchAdd(p), p, n, a, b, y);
  }
}

}  // namespace

void qlinear_add(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (p.u8)
    add_typed<OutType::U8>(p, n, a, b, y);
  else
    add_typed<OutType::I8>(p, n, a, b, y);
}

}  // namespace qspec::simd::avx2
