// Properties of TFLite's quantized leaky ReLU (spec/operators_qlinear_leaky_relu.md):
// - every code equals a native transliteration of LeakyReluPrepare + reference_ops::QuantizeLeakyRelu
//   (binary32 multipliers, frexp/round QuantizeMultiplier, SRDHM/RDBPOT or the single rounding);
// - composition identity: each output is the requant.tflite.* clause of its sign's multiplier;
// - every output is within the stated bound of the exact leaky ReLU of the real input;
// - every code of fixed parameter sets (ties, alpha 0, alpha > 1, saturation) exhaustively;
// - the two builds differ (negative ties), and a negative alpha is rejected.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>

#include "qlinear_elementwise_hw.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_leaky_relu_tflite.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec_rc.h"

using namespace qspec::ref;
using namespace qspec::ref::ops;

namespace {

namespace hw = qspec::qlinear_ew_hw;

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

struct Case {
  QPoolParams p;
  std::uint32_t alpha = 0;
};

std::uint32_t draw_scale(int e) {
  const auto m = *rc::gen::inRange(0, 2) == 0 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                                              : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

Case draw() {
  Case k;
  k.p.type = *rc::gen::arbitrary<bool>() ? DType::U8 : DType::I8;
  const int lo = k.p.type == DType::I8 ? -128 : 0;
  k.p.x_zero_point = Int(*rc::gen::inRange(lo, lo + 256));
  k.p.y_zero_point = Int(*rc::gen::inRange(lo, lo + 256));
  const int ey = *rc::gen::inRange(-10, 0);
  k.p.y_scale = draw_scale(ey);
  k.p.x_scale = draw_scale(ey + *rc::gen::inRange(-6, 5));
  const int pick = *rc::gen::inRange(0, 8);
  k.alpha = pick == 0 ? 0u : draw_scale(*rc::gen::inRange(-9, 3));  // alpha 0, (0, 1) and > 1
  return k;
}

// LeakyReluPrepare and reference_ops::QuantizeLeakyRelu<T>, as TFLite writes them.
int tflite_kernel(const Case& k, int code, bool single) {
  const float in_s = V(k.p.x_scale), out_s = V(k.p.y_scale), a = V(k.alpha);
  volatile float prod = in_s * a;
  volatile float fa =
      prod / out_s;  // double alpha_multiplier = input->params.scale * params->alpha / output->params.scale
  volatile float f1 = in_s / out_s;  // double identity_multiplier = input->params.scale / output->params.scale
  const hw::Q31 ma = hw::quantize_multiplier(static_cast<double>(fa), single);
  const hw::Q31 m1 = hw::quantize_multiplier(static_cast<double>(f1), single);
  const int lo = k.p.type == DType::I8 ? -128 : 0;
  const std::int32_t input_value = code - static_cast<std::int32_t>(k.p.x_zero_point);
  const std::int64_t unclamped =
      static_cast<std::int64_t>(k.p.y_zero_point) +
      (input_value >= 0 ? hw::mbqm(input_value, m1, single) : hw::mbqm(input_value, ma, single));
  return static_cast<int>(std::min<std::int64_t>(lo + 255, std::max<std::int64_t>(lo, unclamped)));
}

void check_transliteration(bool single) {
  const Case k = draw();
  const auto table = qlinear_leaky_relu_tflite_table(k.alpha, k.p, single);
  const int lo = k.p.type == DType::I8 ? -128 : 0;
  for (int i = 0; i < 256; ++i) RC_ASSERT(table[static_cast<std::size_t>(i)] == Int(tflite_kernel(k, lo + i, single)));
}

void check_composition(bool single) {
  const Case k = draw();
  const auto table = qlinear_leaky_relu_tflite_table(k.alpha, k.p, single);
  const auto build = single ? TfliteBuild::SingleRounding : TfliteBuild::Default;
  const auto m1 = tflite_quantize_multiplier(f64_from_f32(f32_div(k.p.x_scale, k.p.y_scale)), build);
  const auto ma = tflite_quantize_multiplier(f64_from_f32(f32_div(f32_mul(k.p.x_scale, k.alpha), k.p.y_scale)), build);
  const Range r = int_range(k.p.type);
  for (int i = 0; i < 256; ++i) {
    const Int v = r.lo + i - k.p.x_zero_point;
    const auto& m = v >= 0 ? m1 : ma;
    const Int want = single ? tflite_requantize_single_round(v, m.multiplier, m.shift, k.p.y_zero_point, k.p.type)
                            : tflite_requantize_double_round(v, m.multiplier, m.shift, k.p.y_zero_point, k.p.type);
    RC_ASSERT(table[static_cast<std::size_t>(i)] == want);
  }
}

void check_bound(bool single) {
  const Case k = draw();
  const auto table = qlinear_leaky_relu_tflite_table(k.alpha, k.p, single);
  const Range r = int_range(k.p.type);
  const Rat u = pow2r(-24);
  const Rat rel = (1 + u) * (1 + u) * (1 + pow2r(-31)) - 1;
  const Rat half = single ? Rat(1, 2) : Rat(1);
  // The relative bound needs normal binary32 multipliers (no subnormal rounding): the draws give them.
  for (int i = 0; i < 256; ++i) {
    const Rat real = f32_value(k.p.x_scale) * Rat(r.lo + i - k.p.x_zero_point);
    const Rat f = real >= 0 ? real : f32_value(k.alpha) * real;
    const Rat e = f / f32_value(k.p.y_scale);
    const Rat target = Rat(k.p.y_zero_point) + e;
    const Int y = table[static_cast<std::size_t>(i)];
    if (y == r.lo && target < Rat(r.lo)) continue;  // saturated low
    if (y == r.hi && target > Rat(r.hi)) continue;  // saturated high
    RC_ASSERT(abs(Rat(y) - target) <= half + rel * abs(e));
  }
}

Case fixed(DType t, std::uint32_t xs, std::uint32_t ys, std::uint32_t alpha, int zx, int zy) {
  Case k;
  k.p.type = t;
  k.p.x_scale = xs, k.p.y_scale = ys, k.alpha = alpha;
  k.p.x_zero_point = Int(zx), k.p.y_zero_point = Int(zy);
  return k;
}

// Every code of parameter sets that reach each branch's corner cases: dyadic ratios (half-integer
// products), alpha 0, alpha 3 (> 1), saturation both ends, both dtypes.
void exhaustive(bool single) {
  const Case cases[] = {
      fixed(DType::U8, 0x3f000000u, 0x3f800000u, 0x3f000000u, 128, 128),   // 1/2, 1, alpha 1/2: ties
      fixed(DType::I8, 0x3e800000u, 0x3f800000u, 0x3e000000u, 3, -5),      // 1/4, alpha 1/8: quarter ties
      fixed(DType::I8, 0x3f800000u, 0x3f000000u, 0x40400000u, 0, 0),       // ratio 2, alpha 3: saturates
      fixed(DType::U8, 0x3c23d70au, 0x3c8f5c29u, 0u, 200, 10),             // alpha 0: negatives give z_y
      fixed(DType::I8, 0x3d4ccccdu, 0x3dcccccdu, 0x3c23d70au, -128, 127),  // 0.05, 0.1, alpha 0.01
  };
  for (const Case& k : cases) {
    const auto table = qlinear_leaky_relu_tflite_table(k.alpha, k.p, single);
    const int lo = k.p.type == DType::I8 ? -128 : 0;
    for (int i = 0; i < 256; ++i)
      ASSERT_EQ(table[static_cast<std::size_t>(i)], Int(tflite_kernel(k, lo + i, single))) << "code " << lo + i;
  }
}

}  // namespace

RC_GTEST_PROP(qlinear_leaky_relu_tflite_double_round, EveryCodeEqualsTheTfliteKernelTransliteration, ()) {
  check_transliteration(false);
}
RC_GTEST_PROP(qlinear_leaky_relu_tflite_single_round, EveryCodeEqualsTheTfliteKernelTransliteration, ()) {
  check_transliteration(true);
}
RC_GTEST_PROP(qlinear_leaky_relu_tflite_double_round, EqualsTheRequantClausesOfEachBranch, ()) {
  check_composition(false);
}
RC_GTEST_PROP(qlinear_leaky_relu_tflite_single_round, EqualsTheRequantClausesOfEachBranch, ()) {
  check_composition(true);
}
RC_GTEST_PROP(qlinear_leaky_relu_tflite_double_round, WithinTheStatedBoundOfTheExactValue, ()) { check_bound(false); }
RC_GTEST_PROP(qlinear_leaky_relu_tflite_single_round, WithinTheStatedBoundOfTheExactValue, ()) { check_bound(true); }
TEST(qlinear_leaky_relu_tflite_double_round, ExhaustiveFixedParameterSets) { exhaustive(false); }
TEST(qlinear_leaky_relu_tflite_single_round, ExhaustiveFixedParameterSets) { exhaustive(true); }

// x_s / y_s = 1/2, alpha = 1/2: (M_a, sh_a) = (2^30, -1), so v < 0 maps to v / 4. v = -2 is the tie
// -1/2: single rounding (half up) gives 0; double rounding gives SRDHM = -1 exactly, then
// RoundingDivideByPOT(-1, 1) rounds -1/2 away from zero to -1. The builds differ exactly there.
TEST(qlinear_leaky_relu_tflite_single_round, DiffersFromDoubleRoundingAtNegativeTies) {
  const Case k = fixed(DType::I8, 0x3f000000u, 0x3f800000u, 0x3f000000u, 0, 0);
  const auto d = qlinear_leaky_relu_tflite_table(k.alpha, k.p, false);
  const auto s = qlinear_leaky_relu_tflite_table(k.alpha, k.p, true);
  EXPECT_EQ(d[128 - 2], Int(-1));
  EXPECT_EQ(s[128 - 2], Int(0));
  int differ = 0;
  for (std::size_t i = 0; i < 256; ++i) differ += d[i] != s[i] ? 1 : 0;
  EXPECT_EQ(differ, 32);  // v = -2, -6, ..., -126: every v = -2 (mod 4) below zero
}

// The multiplier is a binary32 expression (errata E-TFLRELU-1): with x_s = 0x3e2efc83, alpha =
// 0x3ef57d42, y_s = 0x3ef736dc the float d_a quantizes to (1457649536, -2), the double
// double(x_s) double(alpha) / double(y_s) to (1457649473, -2); int8 x = -128 with z_x = 51 (v = -179),
// z_y = 0 gives -31 (TFLite) where the double derivation would give -30.
TEST(qlinear_leaky_relu_tflite_double_round, TheAlphaMultiplierIsABinary32Expression) {
  const Case k = fixed(DType::I8, 0x3e2efc83u, 0x3ef736dcu, 0x3ef57d42u, 51, 0);
  const double in_double =
      static_cast<double>(V(k.p.x_scale)) * static_cast<double>(V(k.alpha)) / static_cast<double>(V(k.p.y_scale));
  const auto from_double = tflite_quantize_multiplier(std::bit_cast<std::uint64_t>(in_double));
  const auto m = qlinear_leaky_relu_tflite_multipliers(k.alpha, k.p, false);
  EXPECT_EQ(m.alpha.multiplier, Int(1457649536));
  EXPECT_EQ(m.alpha.shift, -2);
  EXPECT_EQ(from_double.multiplier, Int(1457649473));
  EXPECT_EQ(qlinear_leaky_relu_tflite_table(k.alpha, k.p, false)[0], Int(-31));
  EXPECT_EQ(tflite_requantize_double_round(Int(-179), from_double.multiplier, from_double.shift, Int(0), DType::I8),
            Int(-30));
}

TEST(qlinear_leaky_relu_tflite_double_round, ANegativeAlphaIsRejected) {
  const Case k = fixed(DType::U8, 0x3f000000u, 0x3f800000u, 0xbe800000u, 128, 128);
  EXPECT_THROW(qlinear_leaky_relu_tflite_table(k.alpha, k.p, false), ErrorIf);
  EXPECT_THROW(qlinear_leaky_relu_tflite_table(k.alpha, k.p, true), ErrorIf);
}
