// Properties of Arm NN's CpuRef Pooling2d on quantized tensors (spec/operators_qlinear_armnn.md,
// qlinear.{avg_pool2d,global_avg_pool,max_pool2d}.armnn_cpuref):
// - composition identity: with dyadic scales and power-of-two divisors every float step is exact
//   and y is the exact mean rounded once, half away from zero (every pair of codes of a 2x1 window);
// - the reference equals the workload's loops on this machine's binary32 hardware (-ffp-contract=off);
// - error bound against the exact real result with long-mantissa scales;
// - max pooling: armnn::Quantize(armnn::Dequantize(X)) = X for every code, zero point and the
//   scales drawn, so the float maximum encodes the maximum code;
// - the shape rule and the other rejections.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }
Rat abs_of(const Rat& r) { return r < Rat(0) ? -r : r; }

struct Rng {
  std::mt19937_64 e;
  long long in(long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(e); }
};

// Every pair (A, B) of codes as the 2x1 windows of a (1, 2, 256, 256) input: x[0, 0, a, b] = A,
// x[0, 1, a, b] = B (stride 2 down, 1 across).
IntArray pair_grid(DType t, std::vector<long long>& codes) {
  const long long lo = lo_of(t), hi = hi_of(t), stride = qspec::test::domain_stride();
  codes.clear();
  for (long long c = lo; c <= hi; c += stride) codes.push_back(c);
  if (codes.back() != hi) codes.push_back(hi);
  const auto n = static_cast<long long>(codes.size());
  IntArray x(Shape{1, 2, n, n});
  for (long long a = 0; a < n; ++a)
    for (long long b = 0; b < n; ++b) {
      x.data[static_cast<std::size_t>(a * n + b)] = Int(codes[static_cast<std::size_t>(a)]);
      x.data[static_cast<std::size_t>(n * n + a * n + b)] = Int(codes[static_cast<std::size_t>(b)]);
    }
  return x;
}

QPoolParams params(DType t, std::uint32_t xs, std::uint32_t ys, long long zx, long long zy) {
  QPoolParams p;
  p.type = t;
  p.x_scale = xs, p.y_scale = ys;
  p.x_zero_point = zx, p.y_zero_point = zy;
  return p;
}

// The workload on the hardware: float sum of the dequantized taps, / divisor, armnn::Quantize.
long long hardware_average(const std::vector<Int>& taps, std::int64_t divisor, const QPoolParams& p) {
  const float xs = std::bit_cast<float>(p.x_scale), ys = std::bit_cast<float>(p.y_scale);
  float v = 0.0f;
  if (!taps.empty()) {
    for (const auto& t : taps) v += static_cast<float>(static_cast<long long>(t - p.x_zero_point)) * xs;
    v /= static_cast<float>(divisor);
  }
  const float q = std::round(v / ys) + static_cast<float>(static_cast<long long>(p.y_zero_point));
  return static_cast<long long>(
      std::min(std::max(q, static_cast<float>(lo_of(p.type))), static_cast<float>(hi_of(p.type))));
}

QPoolGeometry pair_geometry() {
  QPoolGeometry g;
  g.kernel = {2, 1};
  g.strides = {2, 1};
  return g;
}

}  // namespace

TEST(qlinear_avg_pool2d_armnn_cpuref, ExactWhereEveryFloatStepIsExact) {
  long long checked = 0, away = 0;
  for (DType t : {DType::I8, DType::U8}) {
    std::vector<long long> codes;
    const IntArray x = pair_grid(t, codes);
    // x_s / y_s = 3/2, divisor 2: y = round_half_away(3 (dA + dB) / 4) + z_y.
    const QPoolParams p = params(t, 0x3cc00000u, 0x3c800000u, t == DType::I8 ? 5 : 131, t == DType::I8 ? -3 : 120);
    const IntArray y = qlinear_avg_pool2d(x, pair_geometry(), false, p, QPoolConvention::ArmnnCpuref);
    const auto n = codes.size();
    ASSERT_EQ(y.data.size(), n * n);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b, ++checked) {
        const Rat r =
            Rat(Int(codes[a] + codes[b]) - p.x_zero_point * 2) * f32_value(p.x_scale) / (f32_value(p.y_scale) * Rat(2));
        if (round_half_away(r) != round_half_even(r)) ++away;
        ASSERT_EQ(y.data[a * n + b], saturate(round_half_away(r) + p.y_zero_point, t))
            << dtype_name(t) << " A = " << codes[a] << ", B = " << codes[b];
      }
  }
  RecordProperty("pairs_checked", std::to_string(checked));
  EXPECT_GT(away, 0) << "no pair where half away and half to even differ: the test cannot tell them apart";
}

TEST(qlinear_global_avg_pool_armnn_cpuref, ExactWhereEveryFloatStepIsExact) {
  // A 2x2 image per channel, x_s / y_s = 1/2: y = round_half_away(sum d / 8) + z_y.
  Rng r{std::mt19937_64(31)};
  long long away = 0;
  for (int i = 0; i < 200; ++i) {
    const DType t = i % 2 ? DType::I8 : DType::U8;
    const QPoolParams p = params(t, 0x3c000000u, 0x3c800000u, r.in(lo_of(t), hi_of(t)), r.in(lo_of(t), hi_of(t)));
    IntArray x(Shape{1, 2, 2, 8});
    for (auto& v : x.data) v = r.in(lo_of(t), hi_of(t));
    const IntArray y = qlinear_global_avg_pool(x, p, QPoolConvention::ArmnnCpuref);
    for (long long c = 0; c < 8; ++c) {
      Int sum(0);
      for (long long k = 0; k < 4; ++k) sum += x.data[static_cast<std::size_t>(k * 8 + c)] - p.x_zero_point;
      const Rat v = Rat(sum, Int(8));
      away += round_half_away(v) != round_half_even(v) ? 1 : 0;
      ASSERT_EQ(y.data[static_cast<std::size_t>(c)], saturate(round_half_away(v) + p.y_zero_point, t));
    }
  }
  EXPECT_GT(away, 0);
}

TEST(qlinear_avg_pool2d_armnn_cpuref, EqualsTheHardwareFloatPipeline) {
  Rng r{std::mt19937_64(32)};
  long long outputs = 0, in_padding = 0;
  for (int i = 0; i < 400; ++i) {
    const DType t = r.in(0, 1) ? DType::I8 : DType::U8;
    QPoolGeometry g;
    g.kernel = {r.in(1, 3), r.in(1, 3)};
    g.strides = {r.in(1, 2), r.in(1, 2)};
    for (auto& v : g.pads) v = r.in(0, 2);
    const bool include = r.in(0, 1) == 1;
    const auto xs = (static_cast<std::uint32_t>(r.in(118, 125)) << 23) | static_cast<std::uint32_t>(r.in(0, 1 << 22));
    const auto ys = (static_cast<std::uint32_t>(r.in(118, 125)) << 23) | static_cast<std::uint32_t>(r.in(0, 1 << 22));
    const QPoolParams p = params(t, xs, ys, r.in(lo_of(t), hi_of(t)), r.in(lo_of(t), hi_of(t)));
    IntArray x(Shape{1, r.in(1, 4), r.in(1, 4), 2});
    for (auto& v : x.data) v = r.in(lo_of(t), hi_of(t));
    IntArray y;
    try {
      y = qlinear_avg_pool2d(x, g, include, p, QPoolConvention::ArmnnCpuref);
    } catch (const ErrorIf&) {
      continue;  // the shape rule (its own test below)
    } catch (const RequireViolated&) {
      continue;  // the kernel does not fit the padded input
    }
    const auto windows = qlinear_pool_window_codes(x, g, y.dim(1), y.dim(2));
    for (std::size_t k = 0; k < windows.size(); ++k, ++outputs) {
      in_padding += windows[k].empty() ? 1 : 0;
      const std::int64_t d = include ? g.kernel[0] * g.kernel[1] : static_cast<std::int64_t>(windows[k].size());
      ASSERT_EQ(static_cast<long long>(y.data[k]), hardware_average(windows[k], d, p)) << "problem " << i;
    }
  }
  RecordProperty("outputs_checked", std::to_string(outputs));
  EXPECT_GT(outputs, 1000);
  EXPECT_GT(in_padding, 0);
}

// |fl32(v / s_y) - r| <= ((1 + u)^(m + 2) - 1) sum |X - z_x| s_x / (divisor s_y).
void error_bound(bool global) {
  Rng r{std::mt19937_64(global ? 34 : 33)};
  const Rat u = Rat(Int(1), pow2(24)), one(1);
  long long unsaturated = 0;
  for (int i = 0; i < 300; ++i) {
    const DType t = r.in(0, 1) ? DType::I8 : DType::U8;
    const auto xs = (static_cast<std::uint32_t>(r.in(118, 125)) << 23) | static_cast<std::uint32_t>(r.in(0, 1 << 23));
    const auto ys = (static_cast<std::uint32_t>(r.in(118, 125)) << 23) | static_cast<std::uint32_t>(r.in(0, 1 << 23));
    const QPoolParams p = params(t, xs, ys, r.in(lo_of(t), hi_of(t)), r.in(lo_of(t), hi_of(t)));
    IntArray x(Shape{1, r.in(1, 4), r.in(1, 4), 1});
    for (auto& v : x.data) v = r.in(lo_of(t), hi_of(t));
    const std::vector<Int> taps = x.data;
    const auto m = static_cast<std::int64_t>(taps.size());
    const Int y = global ? qlinear_global_avg_pool(x, p, QPoolConvention::ArmnnCpuref).data[0]
                         : qlinear_avg_pool2d(x, QPoolGeometry{{x.dim(1), x.dim(2)}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
                                              true, p, QPoolConvention::ArmnnCpuref)
                               .data[0];
    Rat sum(0), mag(0);
    for (const auto& v : taps) {
      sum += Rat(v - p.x_zero_point) * f32_value(p.x_scale);
      mag += abs_of(Rat(v - p.x_zero_point) * f32_value(p.x_scale));
    }
    const Rat den = Rat(Int(m)) * f32_value(p.y_scale);
    const Rat real = sum / den;
    Rat grow(1);
    for (std::int64_t k = 0; k < m + 2; ++k) grow *= one + u;
    const Rat bound = (grow - one) * mag / den;
    const Rat q = f32_value(f32_div(qlinear_armnn_avgpool_value(taps, m, p), p.y_scale));
    ASSERT_TRUE(abs_of(q - real) <= bound) << "problem " << i;
    if (y > Int(lo_of(t)) && y < Int(hi_of(t))) {
      ++unsaturated;
      ASSERT_TRUE(abs_of(Rat(y) - Rat(p.y_zero_point) - real) <= Rat(Int(1), Int(2)) + bound) << "problem " << i;
    }
  }
  EXPECT_GT(unsaturated, 0);
}

TEST(qlinear_avg_pool2d_armnn_cpuref, WithinHalfAStepPlusTheFloatErrorOfTheRealResult) { error_bound(false); }
TEST(qlinear_global_avg_pool_armnn_cpuref, WithinHalfAStepPlusTheFloatErrorOfTheRealResult) { error_bound(true); }

TEST(qlinear_max_pool2d_armnn_cpuref, TheFloatRoundTripKeepsEveryCode) {
  // armnn::Quantize(armnn::Dequantize(X, z, s), s, z) = X for every code and zero point.
  Rng r{std::mt19937_64(35)};
  long long checked = 0;
  for (int i = 0; i < 12; ++i) {
    const auto s = (static_cast<std::uint32_t>(r.in(100, 140)) << 23) | static_cast<std::uint32_t>(r.in(0, 1 << 23));
    for (DType t : {DType::I8, DType::U8})
      for (long long z = lo_of(t); z <= hi_of(t); z += 15)
        for (long long q = lo_of(t); q <= hi_of(t); ++q, ++checked)
          ASSERT_EQ(armnn_quantize(armnn_dequantize(Int(q), Int(z), s), s, Int(z), t), Int(q))
              << "scale bits " << s << ", z " << z << ", code " << q;
  }
  RecordProperty("codes_checked", std::to_string(checked));
}

TEST(qlinear_max_pool2d_armnn_cpuref, IsTheMaximumCodeOfTheTapsInside) {
  Rng r{std::mt19937_64(36)};
  long long outputs = 0;
  for (int i = 0; i < 300; ++i) {
    const DType t = r.in(0, 1) ? DType::I8 : DType::U8;
    QPoolGeometry g;
    g.kernel = {r.in(1, 3), r.in(1, 3)};
    g.strides = {r.in(1, 2), r.in(1, 2)};
    for (auto& v : g.pads) v = r.in(0, 1);
    QPoolParams p;
    p.type = t;
    IntArray x(Shape{1, r.in(2, 4), r.in(2, 4), 2});
    for (auto& v : x.data) v = r.in(lo_of(t), hi_of(t));
    IntArray y;
    try {
      y = qlinear_max_pool2d(x, g, p, QPoolConvention::ArmnnCpuref);
    } catch (const std::exception&) {
      continue;  // the shape rule, or a window in the padding (REQUIRE)
    }
    const auto windows = qlinear_pool_window_codes(x, g, y.dim(1), y.dim(2));
    for (std::size_t k = 0; k < windows.size(); ++k, ++outputs)
      ASSERT_EQ(y.data[k], *std::max_element(windows[k].begin(), windows[k].end()));
  }
  EXPECT_GT(outputs, 500);
}

TEST(qlinear_avg_pool2d_armnn_cpuref, RejectsWhatArmNnRejects) {
  const QPoolParams p = params(DType::I8, 0x3c000000u, 0x3c000000u, 0, 0);
  IntArray x(Shape{1, 3, 3, 1});
  QPoolGeometry g;
  g.kernel = {2, 2};
  g.pads = {0, 0, 2, 0};  // 4 output rows by the window clause; Arm NN infers 3
  EXPECT_THROW(qlinear_avg_pool2d(x, g, true, p, QPoolConvention::ArmnnCpuref), ErrorIf);
  EXPECT_THROW(qlinear_max_pool2d(x, g, QPoolParams{}, QPoolConvention::ArmnnCpuref), ErrorIf);
  g.pads = {2, 0, 0, 0};  // 4 rows, the first in the padding: accepted, y = z_y there
  const IntArray y =
      qlinear_avg_pool2d(x, g, false, params(DType::I8, 0x3c000000u, 0x3c000000u, 0, 9), QPoolConvention::ArmnnCpuref);
  EXPECT_EQ(y.data[0], Int(9));
  EXPECT_THROW(qlinear_max_pool2d(x, g, QPoolParams{}, QPoolConvention::ArmnnCpuref), RequireViolated);
  g.pads = {0, 0, 0, 0};
  g.dilations = {2, 1};
  EXPECT_THROW(qlinear_max_pool2d(x, g, QPoolParams{}, QPoolConvention::ArmnnCpuref), ErrorIf);
  QPoolParams clamp = p;
  clamp.y_min = Int(-3);
  g.dilations = {1, 1};
  EXPECT_THROW(qlinear_avg_pool2d(x, g, true, clamp, QPoolConvention::ArmnnCpuref), RequireViolated);
}

TEST(qlinear_global_avg_pool_armnn_cpuref, RequiresFinitePositiveScales) {
  QPoolParams p = params(DType::U8, 0, 0x3c000000u, 0, 0);
  EXPECT_THROW(qlinear_global_avg_pool(IntArray(Shape{1, 2, 2, 1}), p, QPoolConvention::ArmnnCpuref), RequireViolated);
}
