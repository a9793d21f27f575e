// Properties of Arm NN CpuRef's quantized leaky ReLU (spec/operators_qlinear_leaky_relu.md,
// qlinear.leaky_relu.armnn_cpuref):
// - every code equals Activation.cpp's float steps on this machine's binary32 hardware (decoder,
//   in > 0 ? in : in * a, armnn::Quantize), for random and tie-rich parameters (all 256 codes);
// - composition: above the zero point the output is qlinear.concat.armnn_cpuref's requantization
//   (armnn::Dequantize then armnn::Quantize) of the code, and alpha = 1 gives it for every code;
// - every output is within the stated bound of the exact leaky ReLU of the real input;
// - fixed parameter sets exhaustively, ties rounding half away from zero.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/ops/qlinear_leaky_relu_armnn.h"
#include "qspec_rc.h"

using namespace qspec::ref;
using namespace qspec::ref::ops;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

struct Case {
  QPoolParams p;
  std::uint32_t alpha = 0;
};

std::uint32_t draw_scale(int e, bool dyadic) {
  const auto m = dyadic ? *rc::gen::inRange<std::uint32_t>(0, 4) << 21 : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

Case draw(bool small_offsets) {
  Case k;
  k.p.type = *rc::gen::arbitrary<bool>() ? DType::U8 : DType::I8;
  const int lo = k.p.type == DType::I8 ? -128 : 0;
  const bool wide = !small_offsets && *rc::gen::inRange(0, 4) == 0;
  k.p.x_zero_point = Int(wide ? *rc::gen::inRange(-100000, 100000) : *rc::gen::inRange(lo, lo + 256));
  k.p.y_zero_point = Int(wide ? *rc::gen::inRange(-100000, 100000) : *rc::gen::inRange(lo, lo + 256));
  const bool dyadic = *rc::gen::arbitrary<bool>();
  const int ey = *rc::gen::inRange(-10, 0);
  k.p.y_scale = draw_scale(ey, dyadic);
  k.p.x_scale = draw_scale(ey + *rc::gen::inRange(-5, 4), dyadic);
  const int pick = *rc::gen::inRange(0, 8);
  k.alpha = pick == 0 ? 0u : draw_scale(*rc::gen::inRange(-9, 3), dyadic);  // 0, (0, 1), > 1
  if (pick == 1) k.alpha |= 0x80000000u;                                    // negative: Arm NN takes any slope
  return k;
}

// RefActivationWorkload on one code: armnn::Dequantize, Activation(LeakyReLu), armnn::Quantize<T>.
int armnn_steps(const Case& k, int code) {
  const int lo = k.p.type == DType::I8 ? -128 : 0, hi = lo + 255;
  const auto zx = static_cast<std::int64_t>(k.p.x_zero_point), zy = static_cast<std::int64_t>(k.p.y_zero_point);
  volatile float in = static_cast<float>(code - zx) * V(k.p.x_scale);  // numeric_cast<float>(value - offset) * scale
  volatile float out = in > 0.0f ? in : (in * V(k.alpha));             // in > 0.0f ? in : (in * a)
  volatile float q = out / V(k.p.y_scale);
  volatile float r = std::round(static_cast<float>(q));
  volatile float t = r + static_cast<float>(zy);
  const float c = std::min(std::max(static_cast<float>(t), static_cast<float>(lo)), static_cast<float>(hi));
  return static_cast<int>(c);
}

// 24 codes of a draw: both ends, the zero point's neighbours and random ones (every code of fixed
// parameter sets is checked exhaustively below; the exact float steps cost ~60 us a code).
std::vector<int> sample_codes(const Case& k) {
  const int lo = k.p.type == DType::I8 ? -128 : 0, hi = lo + 255;
  const auto zx = static_cast<long long>(k.p.x_zero_point);
  std::vector<int> c = {lo, hi};
  for (long long d = -2; d <= 2; ++d)
    if (zx + d >= lo && zx + d <= hi) c.push_back(static_cast<int>(zx + d));
  while (c.size() < 24) c.push_back(*rc::gen::inRange(lo, hi + 1));
  return c;
}

Case fixed(DType t, std::uint32_t xs, std::uint32_t ys, std::uint32_t alpha, int zx, int zy) {
  Case k;
  k.p.type = t;
  k.p.x_scale = xs, k.p.y_scale = ys, k.alpha = alpha;
  k.p.x_zero_point = Int(zx), k.p.y_zero_point = Int(zy);
  return k;
}

}  // namespace

RC_GTEST_PROP(qlinear_leaky_relu_armnn_cpuref, EveryCodeEqualsTheFloatSteps, ()) {
  const Case k = draw(false);
  for (int x : sample_codes(k))
    RC_ASSERT(qlinear_leaky_relu_armnn_code(Int(x), k.alpha, k.p) == Int(armnn_steps(k, x)));
}

RC_GTEST_PROP(qlinear_leaky_relu_armnn_cpuref, EqualsTheConcatRequantizationAboveTheZeroPoint, ()) {
  Case k = draw(false);
  if (*rc::gen::inRange(0, 3) == 0) k.alpha = 0x3f800000u;  // alpha = 1: the identity on every code
  QConcatParams c;
  c.type = k.p.type;
  c.input_types = {k.p.type};
  c.x_scales = {k.p.x_scale};
  c.x_zero_points = {k.p.x_zero_point};
  c.y_scale = k.p.y_scale;
  c.y_zero_point = k.p.y_zero_point;
  const auto requantize = qlinear_concat_armnn_map(c, 0);
  for (int c : sample_codes(k)) {
    const Int x(c);
    if (x > k.p.x_zero_point || k.alpha == 0x3f800000u)
      RC_ASSERT(qlinear_leaky_relu_armnn_code(x, k.alpha, k.p) == requantize(x));
  }
}

RC_GTEST_PROP(qlinear_leaky_relu_armnn_cpuref, WithinTheStatedBoundOfTheExactValue, ()) {
  const Case k = draw(true);
  const Range r = int_range(k.p.type);
  const Rat u = pow2r(-24);
  const Rat rel = (1 + u) * (1 + u) * (1 + u) - 1;
  for (int c : sample_codes(k)) {
    const Rat real = f32_value(k.p.x_scale) * Rat(Int(c) - k.p.x_zero_point);
    const Rat f = real > 0 ? real : f32_value(k.alpha) * real;
    const Rat e = f / f32_value(k.p.y_scale);
    const Rat target = Rat(k.p.y_zero_point) + e;
    const Int y = qlinear_leaky_relu_armnn_code(Int(c), k.alpha, k.p);
    if (y == r.lo && target < Rat(r.lo)) continue;  // saturated low
    if (y == r.hi && target > Rat(r.hi)) continue;  // saturated high
    RC_ASSERT(abs(Rat(y) - target) <= Rat(1, 2) + rel * abs(e));
  }
}

// x_s = 1/2, y_s = 1, alpha = 1/2: every odd v >= 0 is an exact k + 1/2 (v / 2) and every
// v = 2 (mod 4) below zero too (v / 4); armnn::Quantize rounds them half away from zero.
TEST(qlinear_leaky_relu_armnn_cpuref, TiesRoundHalfAwayFromZero) {
  const Case k = fixed(DType::I8, 0x3f000000u, 0x3f800000u, 0x3f000000u, 0, 0);
  const auto t = qlinear_leaky_relu_armnn_table(k.alpha, k.p);
  EXPECT_EQ(t[128 + 1], Int(1));   // 1/2 -> 1
  EXPECT_EQ(t[128 + 3], Int(2));   // 3/2 -> 2
  EXPECT_EQ(t[128 - 2], Int(-1));  // -1/2 -> -1
  EXPECT_EQ(t[128 - 6], Int(-2));  // -3/2 -> -2
}

TEST(qlinear_leaky_relu_armnn_cpuref, ExhaustiveFixedParameterSets) {
  const Case cases[] = {
      fixed(DType::U8, 0x3f000000u, 0x3f800000u, 0x3f000000u, 128, 128),    // ties
      fixed(DType::I8, 0x3f800000u, 0x3f000000u, 0x40400000u, 0, 0),        // alpha 3: saturates both ends
      fixed(DType::U8, 0x3c23d70au, 0x3c8f5c29u, 0u, 200, 10),              // alpha 0
      fixed(DType::I8, 0x3d4ccccdu, 0x3dcccccdu, 0xbe800000u, -128, 127),   // alpha -1/4
      fixed(DType::U8, 0x3c23d70au, 0x3c23d70au, 0x3c23d70au, 1000, -900),  // offsets outside uint8
  };
  for (const Case& k : cases) {
    const auto table = qlinear_leaky_relu_armnn_table(k.alpha, k.p);
    const int lo = k.p.type == DType::I8 ? -128 : 0;
    for (int i = 0; i < 256; ++i)
      ASSERT_EQ(table[static_cast<std::size_t>(i)], Int(armnn_steps(k, lo + i))) << "code " << lo + i;
  }
}
