// qlinear.mul kernels (qspec/simd/qlinear_mul.h) on AVX2, 8 int32 lanes per step and 32 codes per
// store, bit-exact with mul_scalar: XNNPACK's / ATen's, ONNX Runtime's and oneDNN's arithmetic from
// qlinear_mul_lanes.h on ymm, and TFLite's MBQM of the exact product through the requantization
// kernel's functors (requant_kinds_avx2.h), which have no zmm form.
//
// Compiled with -mavx2 only: no multiplication convention fuses a step, so there is no FMA here.
#include <immintrin.h>

#include <cstdint>

#include "qlinear_binary_drive.h"
#include "qlinear_mul_lanes.h"
#include "qspec/simd/avx2_kernels.h"
#include "requant_kinds_avx2.h"

namespace qspec::simd::avx2 {
namespace {

// TFLite's double rounding: MBQM(p, M, e) = RDBPOT(SRDHM(p 2^max(e, 0), M), max(-e, 0)), whose
// p 2^max(e, 0) fits int32 (the handler's bound), then + zy and the clamp: Q31Double as requant runs it.
struct TfliteDoubleMul {
  Product<Ymm> prod;
  Q31Double q;
  explicit TfliteDoubleMul(const MulParams& p)
      : prod(p), q([&] {
          RequantParams r;
          r.kind = RequantKind::kQ31Double;
          r.multiplier = p.m;
          r.left_shift = p.e > 0 ? p.e : 0;
          r.right_shift = p.e < 0 ? -p.e : 0;
          r.lo_nozp = p.lo - p.zy, r.hi_nozp = p.hi - p.zy, r.zp = p.zy;
          return r;
        }()) {}
  __m256i operator()(__m256i a, __m256i b) const { return q(prod(a, b)); }
};

// TFLite's single rounding: floor((p M + 2^(t-1)) / 2^t), t = 31 - e in [1, 62]: ShiftRound with
// S = t and one rounding constant (|p M| < 2^47; the quotient fits int32 by the handler's bound),
// kHighShift for t >= 32, then + zy and the clamp.
template <bool kHighShift>
struct TfliteSingleMul {
  Product<Ymm> prod;
  ShiftRound<false, false, kHighShift> q;
  explicit TfliteSingleMul(const MulParams& p)
      : prod(p), q([&] {
          RequantParams r;
          r.kind = RequantKind::kShiftRound;
          r.multiplier = p.m;
          r.shift = 31 - p.e;
          r.round_pos = r.round_neg = std::int64_t{1} << (30 - p.e);
          r.lo_nozp = p.lo - p.zy, r.hi_nozp = p.hi - p.zy, r.zp = p.zy;
          return r;
        }()) {}
  __m256i operator()(__m256i a, __m256i b) const { return q(prod(a, b)); }
};

template <OutType T, class F>
void drive(const F& f, const MulParams& p, std::size_t n, const void* a, const void* b, void* y) {
  drive_ymm<T>(f, n, a, b, y, [&](std::size_t i) {
    mul_scalar(p, n - i, static_cast<const std::uint8_t*>(a) + i, static_cast<const std::uint8_t*>(b) + i,
               static_cast<std::uint8_t*>(y) + i);
  });
}

template <OutType T>
void mul_typed(const MulParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (run_float_mul<Ymm>(p, [&](const auto& f) { drive<T>(f, p, n, a, b, y); })) return;
  if (p.kind == MulParams::Kind::kTfliteDouble)
    drive<T>(TfliteDoubleMul(p), p, n, a, b, y);
  else if (31 - p.e >= 32)
    drive<T>(TfliteSingleMul<true>(p), p, n, a, b, y);
  else
    drive<T>(TfliteSingleMul<false>(p), p, n, a, b, y);
}

}  // namespace

void qlinear_mul(const MulParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (p.u8)
    mul_typed<OutType::U8>(p, n, a, b, y);
  else
    mul_typed<OutType::I8>(p, n, a, b, y);
}

}  // namespace qspec::simd::avx2
