// Properties of TOSA's convention of the quantized operators (spec/operators_qlinear.md,
// qlinear.tosa):
// - composition identity: the operator is the exact accumulation, then RESCALE with the
//   multiplier and shift the test derives from the scales, then CLAMP; the derivation and the
//   rescale also equal a transliteration of the legalization's computeMultiplierAndShift and of
//   TOSA's apply_scale_32 run on this machine's double and int64 hardware;
// - TOSA's RESCALE equals TFLite's double rounding with shift_tflite = 31 - s wherever both apply;
// - the error bound against the exact real result;
// - hand examples of the rules that differ from TFLite's.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "ops_arrays.h"
#include "qlinear_q31_problem.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec_rc.h"

using namespace qspec::opstest;
using q31::Problem;

namespace {

// ---- the legalization's and TOSA's code, transliterated, on this machine ----

// computeMultiplierAndShiftTosaScale32 (llvm mlir/lib/Dialect/Tosa/Utils/QuantUtils.cpp).
void hw_multiplier_and_shift(double scale, std::int32_t& multiplier, std::int32_t& shift) {
  int e = 0;
  const double mantissa = std::frexp(scale, &e);
  auto shifted_m = static_cast<std::int64_t>(std::round(mantissa * static_cast<double>(std::int64_t{1} << 31)));
  if (shifted_m == (std::int64_t{1} << 31)) {
    shifted_m /= 2;
    ++e;
  }
  shift = -e + 31;
  multiplier = static_cast<std::int32_t>(shifted_m);
  if (shift > 62) {
    multiplier = multiplier >> std::min<std::int32_t>(31, shift - 62);
    shift = 62;
  }
}

// apply_scale_32(value, multiplier, shift, double_round) (pseudocode/library/scale_helpers.tosac).
std::int32_t hw_apply_scale_32(std::int32_t value, std::int32_t multiplier, std::int32_t shift, bool double_round) {
  std::int64_t round = std::int64_t{1} << (shift - 1);
  if (double_round && shift > 31) round += value >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
  const std::int64_t result = (static_cast<std::int64_t>(value) * multiplier + round) >> shift;
  return static_cast<std::int32_t>(result);
}

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

// The binary64 scale: one rounding of the exact quotient (the product of two widened floats is exact).
Rat scale_of(const Problem& pr, std::size_t o) {
  return f64_value(f64_round(f32_value(pr.p.x_scale) * f32_value(q31::w_scale_of(pr.p, o)) / f32_value(pr.p.y_scale)));
}

RC_GTEST_PROP(qlinear_tosa, IsTheAccumulatorThenRescaleThenClamp, ()) {
  const Problem pr = q31::draw_problem(q31::Engine::Tosa);
  const IntArray y = q31::run(pr, QLinearConvention::Tosa);
  const IntArray acc = q31::accumulate(pr);
  RC_ASSERT(y.shape == acc.shape);
  const Range clamp{pr.p.y_min.value_or(Int(-128)), pr.p.y_max.value_or(Int(127))};
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % channels;
    const Rat d = scale_of(pr, o);
    const QuantizedMultiplier qm = qlinear_tosa_multiplier_and_shift(f64_round(d));
    const Int want = saturate(
        tosa_rescale(acc.data[i], qm.multiplier, qm.shift, pr.p.y_zero_point, DType::I8, TosaScale::Double32), clamp);
    RC_ASSERT(y.data[i] == want);
    // The legalization's derivation and TOSA's rescale on this machine.
    const double hw_d = double(V(pr.p.x_scale)) * double(V(q31::w_scale_of(pr.p, o))) / double(V(pr.p.y_scale));
    RC_ASSERT(f64_value(std::bit_cast<std::uint64_t>(hw_d)) == d);
    std::int32_t m = 0, s = 0;
    hw_multiplier_and_shift(hw_d, m, s);
    RC_ASSERT(Int(m) == qm.multiplier && s == qm.shift);
    std::int32_t v = hw_apply_scale_32(static_cast<std::int32_t>(static_cast<long long>(acc.data[i])), m, s, true);
    v += static_cast<std::int32_t>(static_cast<long long>(pr.p.y_zero_point));
    v = std::clamp<std::int32_t>(v, -128, 127);
    v = std::clamp<std::int32_t>(v, static_cast<std::int32_t>(static_cast<long long>(clamp.lo)),
                                 static_cast<std::int32_t>(static_cast<long long>(clamp.hi)));
    RC_ASSERT(Int(v) == y.data[i]);
  }
}

// Where TFLite takes its per-channel path (here an int8 fully connected layer with per-channel
// scales, no weight zero point) and the multiplier is neither flushed by TFLite nor capped by
// TOSA, the two conventions agree: TOSA's RESCALE is TFLite's double rounding with shift 31 - s.
RC_GTEST_PROP(qlinear_tosa, EqualsTfliteDoubleRoundingOnTheSharedDomain, ()) {
  Problem pr = q31::draw_problem(q31::Engine::Tosa, q31::Kind::Fc);
  const auto channels = static_cast<std::size_t>(pr.w.shape[0]);
  RC_PRE(channels > 1);
  pr.p.w_zero_point = 0;
  while (pr.p.w_scales.size() < channels) pr.p.w_scales.push_back(pr.p.w_scales[0]);
  RC_ASSERT(q31::run(pr, QLinearConvention::Tosa) == q31::run(pr, QLinearConvention::TfliteDoubleRound));
}

// |y - (zp + r)| <= 3/4 + eps |r| + 2^-31 where y is not clamped.
RC_GTEST_PROP(qlinear_tosa, WithinTheRoundingPlusTheDerivationErrorOfTheRealResult, ()) {
  const Problem pr = q31::draw_problem(q31::Engine::Tosa);
  const IntArray y = q31::run(pr, QLinearConvention::Tosa);
  const IntArray acc = q31::accumulate(pr);
  const Rat one(1);
  const Rat eps = (one + pow2r(-31)) * (one + pow2r(-53)) - one;
  const Int lo = pr.p.y_min.value_or(Int(-128)), hi = pr.p.y_max.value_or(Int(127));
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const Rat r = Rat(acc.data[i]) * f32_value(pr.p.x_scale) * f32_value(q31::w_scale_of(pr.p, i % channels)) /
                  f32_value(pr.p.y_scale);
    const Rat target = Rat(pr.p.y_zero_point) + r;
    const Rat margin = Rat(3, 4) + eps * abs(r) + pow2r(-31);
    const Rat yv(y.data[i]);
    if (y.data[i] > lo && y.data[i] < hi) RC_ASSERT(abs(yv - target) <= margin);
    if (lo == hi) continue;
    if (y.data[i] == lo) RC_ASSERT(target <= yv + margin);
    if (y.data[i] == hi) RC_ASSERT(target >= yv - margin);
  }
}

TEST(qlinear_tosa, ShiftAbove62IsCappedNotFlushed) {
  // 2^-36 / 3: e = -37, s = 68 -> M >> 6, s = 62; TFLite flushes the same scale to (0, 0).
  const std::uint64_t d = f64_round(pow2r(-36) / Rat(3));
  const QuantizedMultiplier m = qlinear_tosa_multiplier_and_shift(d);
  EXPECT_EQ(m.shift, 62);
  EXPECT_EQ(m.multiplier, floor_div(round_half_away(Rat(pow2(32)) / Rat(3)), pow2(6)));
  EXPECT_EQ(tflite_quantize_multiplier(d).multiplier, Int(0));
}

TEST(qlinear_tosa, RejectsWhatTheTosaOperatorsDoNotTake) {
  QLinearParams p;
  const IntArray x = ia({1, 1}, {1}), w = ia({1, 1}, {1});
  EXPECT_NO_THROW(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::Tosa));
  QLinearParams u8 = p;
  u8.x_type = u8.w_type = DType::U8;
  EXPECT_THROW(qlinear_fully_connected(x, w, nullptr, u8, QLinearConvention::Tosa), ErrorIf);
  QLinearParams clamp = p;
  clamp.y_min = Int(3), clamp.y_max = Int(2);
  EXPECT_THROW(qlinear_fully_connected(x, w, nullptr, clamp, QLinearConvention::Tosa), ErrorIf);
  // MATMUL has one batch dimension N: no broadcast.
  const IntArray a = iota_array({2, 1, 1}), b = iota_array({1, 1, 1});
  EXPECT_THROW(qlinear_matmul(a, b, p, QLinearConvention::Tosa), ErrorIf);
  EXPECT_NO_THROW(qlinear_matmul(a, b, p, QLinearConvention::OnnxRuntime));
  // A kernel larger than the padded input: no output position.
  const IntArray x4 = iota_array({1, 1, 2, 1}), w4 = iota_array({1, 3, 3, 1});
  EXPECT_THROW(qlinear_conv2d(x4, w4, nullptr, QConvGeometry{}, p, QLinearConvention::Tosa), ErrorIf);
}

}  // namespace
