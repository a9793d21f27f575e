// qlinear.add kernels (qspec/simd/qlinear_add.h) on AVX2 + FMA, 8 int32 lanes per step and 32 codes
// per store, bit-exact with add_scalar: XNNPACK's, ONNX Runtime's, oneDNN's and ATen's arithmetic from
// qlinear_add_lanes.h on ymm, and TFLite's fixed point (requant_kinds_avx2.h's SRDHM / RDBPOT and
// 64-bit single rounding), which has no zmm form.
//
// Compiled with -mavx2 -mfma: the FMA instruction is used only where the convention specifies a
// fused multiply-add (ONNX Runtime; _mm256_fmadd_ps is fmaf's one rounding); every other float step
// is its own instruction (-ffp-contract=off on the library). Called only where the CPU has both.
#include <immintrin.h>

#include <cstdint>

#include "qlinear_binary_drive.h"
#include "qlinear_add_lanes.h"
#include "qspec/simd/avx2_kernels.h"
#include "requant_kinds_avx2.h"

namespace qspec::simd::avx2 {
namespace {

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
    return Ymm::clamp(_mm256_add_epi32(qy(_mm256_add_epi32(ta, tb)), zy), lo, hi);
  }
};

template <OutType T, class F>
void drive(const F& f, const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  drive_ymm<T>(f, n, a, b, y, [&](std::size_t i) {
    add_scalar(p, n - i, static_cast<const std::uint8_t*>(a) + i, static_cast<const std::uint8_t*>(b) + i,
               static_cast<std::uint8_t*>(y) + i);
  });
}

template <OutType T>
void add_typed(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (run_float_kind<Ymm>(p, [&](const auto& f) { drive<T>(f, p, n, a, b, y); })) return;
  if (p.kind == AddParams::Kind::kTfliteDouble)
    drive<T>(TfliteDoubleAdd(p), p, n, a, b, y);
  else
    drive<T>(TfliteSingleAdd(p), p, n, a, b, y);
}

}  // namespace

void qlinear_add(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (p.u8)
    add_typed<OutType::U8>(p, n, a, b, y);
  else
    add_typed<OutType::I8>(p, n, a, b, y);
}

}  // namespace qspec::simd::avx2
