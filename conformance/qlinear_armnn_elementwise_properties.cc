// Properties of Arm NN's CpuRef Addition and Multiplication on quantized tensors
// (spec/operators_qlinear_armnn.md, qlinear.add.armnn_cpuref / qlinear.mul.armnn_cpuref), over the
// (A, B) pairs of every third 8-bit code (a column against a row) for int8 and uint8:
// - the reference equals the float pipeline on this machine's binary32 hardware (-ffp-contract=off);
// - composition identity: with dyadic scales every float step is exact and y is the exact real
//   result rounded once, half away from zero, plus the zero point, saturated;
// - error bound against the exact real result with long-mantissa scales;
// - the rejections (different dtypes) and the REQUIREs (no fused clamp).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Config {
  std::string name;
  QEwParams p;
  bool exact = false;  // every float step exact (dyadic scales, small codes)
};

QEwParams params(DType t, std::uint32_t sa, std::uint32_t sb, std::uint32_t sy, long long za, long long zb,
                 long long zy) {
  QEwParams p;
  p.type = p.b_type = t;
  p.a_scale = sa, p.b_scale = sb, p.y_scale = sy;
  p.a_zero_point = za, p.b_zero_point = zb, p.y_zero_point = zy;
  return p;
}

std::vector<Config> configs(QEwOp op) {
  std::vector<Config> v;
  for (DType t : {DType::I8, DType::U8}) {
    const bool s8 = t == DType::I8;
    const std::string n = s8 ? "int8 " : "uint8 ";
    if (op == QEwOp::Add) {
      // s_a / s_y = 3/4, s_b / s_y = 1/2: exact steps, many exact ties.
      v.push_back({n + "ratios 3/4 and 1/2",
                   params(t, 0x3c400000u, 0x3c000000u, 0x3c800000u, s8 ? 5 : 130, s8 ? -7 : 120, s8 ? 3 : 128), true});
      v.push_back({n + "realistic scales",
                   params(t, 0x3c23d70au, 0x3b9a6b51u, 0x3c8f5c29u, s8 ? -20 : 100, s8 ? 33 : 140, s8 ? -1 : 127)});
    } else {
      // S = 3/64.
      v.push_back({n + "S = 3/64",
                   params(t, 0x3d400000u, 0x3c800000u, 0x3c800000u, s8 ? 3 : 128, s8 ? -2 : 125, s8 ? 1 : 131), true});
      v.push_back({n + "realistic scales",
                   params(t, 0x3c23d70au, 0x3c4ccccdu, 0x3d0f5c29u, s8 ? -9 : 117, s8 ? 11 : 135, s8 ? 5 : 125)});
    }
  }
  return v;
}

std::vector<long long> codes(DType t) {
  const long long lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
  // Every third code and both ends (86 x 86 pairs per configuration): the exact rational checks
  // of every pair of every configuration take ~15 s of CPU, beyond this suite's CI budget.
  const long long stride = 3 * qspec::test::domain_stride();
  std::vector<long long> v;
  for (long long c = lo; c <= hi; c += stride) v.push_back(c);
  if (v.back() != hi) v.push_back(hi);
  return v;
}

// The workload's arithmetic on the hardware: armnn::Dequantize, std::plus / std::multiplies<float>,
// armnn::Quantize (std::round of the float quotient, + offset, clamp in float).
long long hardware(QEwOp op, const QEwParams& p, long long a, long long b) {
  const float sa = std::bit_cast<float>(p.a_scale), sb = std::bit_cast<float>(p.b_scale);
  const float sy = std::bit_cast<float>(p.y_scale);
  const float da = static_cast<float>(a - static_cast<long long>(p.a_zero_point)) * sa;
  const float db = static_cast<float>(b - static_cast<long long>(p.b_zero_point)) * sb;
  const float v = op == QEwOp::Add ? da + db : da * db;
  const float lo = p.type == DType::I8 ? -128.0f : 0.0f, hi = p.type == DType::I8 ? 127.0f : 255.0f;
  const float q = std::round(v / sy) + static_cast<float>(static_cast<long long>(p.y_zero_point));
  return static_cast<long long>(std::min(std::max(q, lo), hi));
}

Rat abs_of(const Rat& r) { return r < Rat(0) ? -r : r; }

// Runs `each(A, B, y)` on every code pair of every configuration of `op` (selected by `pick`);
// returns the number of pairs.
long long every_pair(QEwOp op, const std::function<bool(const Config&)>& pick,
                     const std::function<void(const Config&, long long, long long, long long)>& each) {
  long long checked = 0;
  for (const Config& cfg : configs(op)) {
    if (!pick(cfg)) continue;
    const auto cs = codes(cfg.p.type);
    const auto n = static_cast<long long>(cs.size());
    IntArray a(Shape{n, 1}), b(Shape{1, n});
    for (long long i = 0; i < n; ++i) {
      a.data[static_cast<std::size_t>(i)] = Int(cs[static_cast<std::size_t>(i)]);
      b.data[static_cast<std::size_t>(i)] = Int(cs[static_cast<std::size_t>(i)]);
    }
    const IntArray y = qlinear_elementwise(op, a, b, cfg.p, QEwConvention::ArmnnCpuref);
    EXPECT_EQ(y.data.size(), static_cast<std::size_t>(n * n));
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j, ++checked)
        each(cfg, cs[static_cast<std::size_t>(i)], cs[static_cast<std::size_t>(j)],
             static_cast<long long>(y.data[static_cast<std::size_t>(i * n + j)]));
  }
  ::testing::Test::RecordProperty("pairs_checked", std::to_string(checked));
  return checked;
}

// The exact real result in output steps: ((A - z_a) s_a + (B - z_b) s_b) / s_y or (A - z_a)(B - z_b) s_a s_b / s_y.
Rat real_result(QEwOp op, const QEwParams& p, long long a, long long b) {
  const Rat ra = Rat(Int(a) - p.a_zero_point) * f32_value(p.a_scale);
  const Rat rb = Rat(Int(b) - p.b_zero_point) * f32_value(p.b_scale);
  return (op == QEwOp::Add ? ra + rb : ra * rb) / f32_value(p.y_scale);
}

void equals_hardware(QEwOp op) {
  const long long n = every_pair(
      op, [](const Config&) { return true; },
      [op](const Config& cfg, long long a, long long b, long long y) {
        ASSERT_EQ(y, hardware(op, cfg.p, a, b)) << cfg.name << ": A = " << a << ", B = " << b;
      });
  EXPECT_GT(n, 0);
}

void exact_composition(QEwOp op) {
  long long ties = 0;
  const long long n = every_pair(
      op, [](const Config& c) { return c.exact; },
      [&](const Config& cfg, long long a, long long b, long long y) {
        const Rat r = real_result(op, cfg.p, a, b);
        const Range t = int_range(cfg.p.type);
        const Int want = saturate(round_half_away(r) + cfg.p.y_zero_point, t);
        if (round_half_away(r) != round_half_even(r)) ++ties;
        ASSERT_EQ(Int(y), want) << cfg.name << ": A = " << a << ", B = " << b;
      });
  EXPECT_GT(n, 0);
  EXPECT_GT(ties, 0)
      << "no pair where half away from zero and half to even differ: the property cannot tell them apart";
}

void error_bound(QEwOp op) {
  const Rat u = Rat(Int(1), pow2(24));
  const Rat one = Rat(1);
  const Rat margin3 = (one + u) * (one + u) * (one + u) - one;
  const Rat margin4 = margin3 * (one + u) + u;  // (1 + u)^4 - 1
  long long unsaturated = 0;
  const long long n = every_pair(
      op, [](const Config& c) { return !c.exact; },
      [&](const Config& cfg, long long a, long long b, long long y) {
        const auto& p = cfg.p;
        const Rat r = real_result(op, p, a, b);
        const std::uint32_t v = qlinear_ew_armnn_value(op, Int(a), Int(b), p);
        const Rat q = f32_value(f32_div(v, p.y_scale));
        const Rat mag = op == QEwOp::Add ? (abs_of(Rat(Int(a) - p.a_zero_point) * f32_value(p.a_scale)) +
                                            abs_of(Rat(Int(b) - p.b_zero_point) * f32_value(p.b_scale))) /
                                               f32_value(p.y_scale)
                                         : abs_of(r);
        const Rat bound = (op == QEwOp::Add ? margin3 : margin4) * mag;
        ASSERT_TRUE(abs_of(q - r) <= bound) << cfg.name << ": A = " << a << ", B = " << b;
        const Range t = int_range(p.type);
        if (Int(y) > t.lo && Int(y) < t.hi) {
          ++unsaturated;
          ASSERT_TRUE(abs_of(Rat(Int(y)) - (Rat(p.y_zero_point) + r)) <= Rat(Int(1), Int(2)) + bound)
              << cfg.name << ": A = " << a << ", B = " << b;
        }
      });
  EXPECT_GT(n, 0);
  EXPECT_GT(unsaturated, 0);
}

void rejections(QEwOp op) {
  QEwParams p = params(DType::I8, 0x3c000000u, 0x3c000000u, 0x3c800000u, 0, 0, 0);
  IntArray a(Shape{2}), b(Shape{2});
  p.b_type = DType::U8;
  EXPECT_THROW(qlinear_elementwise(op, a, b, p, QEwConvention::ArmnnCpuref), ErrorIf);
  p.b_type = DType::I8;
  p.y_min = Int(-10);
  EXPECT_THROW(qlinear_elementwise(op, a, b, p, QEwConvention::ArmnnCpuref), RequireViolated);
  p.y_min.reset();
  p.y_zero_point = Int(128);
  EXPECT_THROW(qlinear_elementwise(op, a, b, p, QEwConvention::ArmnnCpuref), RequireViolated);
  p.y_zero_point = Int(0);
  IntArray c(Shape{3});
  EXPECT_THROW(qlinear_elementwise(op, a, c, p, QEwConvention::ArmnnCpuref), ErrorIf);
}

}  // namespace

TEST(qlinear_add_armnn_cpuref, EveryCodePairEqualsTheHardwareFloatPipeline) { equals_hardware(QEwOp::Add); }
TEST(qlinear_mul_armnn_cpuref, EveryCodePairEqualsTheHardwareFloatPipeline) { equals_hardware(QEwOp::Mul); }
TEST(qlinear_add_armnn_cpuref, ExactWhereEveryFloatStepIsExact) { exact_composition(QEwOp::Add); }
TEST(qlinear_mul_armnn_cpuref, ExactWhereEveryFloatStepIsExact) { exact_composition(QEwOp::Mul); }
TEST(qlinear_add_armnn_cpuref, WithinHalfAStepPlusTheFloatErrorOfTheRealResult) { error_bound(QEwOp::Add); }
TEST(qlinear_mul_armnn_cpuref, WithinHalfAStepPlusTheFloatErrorOfTheRealResult) { error_bound(QEwOp::Mul); }
TEST(qlinear_add_armnn_cpuref, RejectsWhatArmNnRejects) { rejections(QEwOp::Add); }
TEST(qlinear_mul_armnn_cpuref, RejectsWhatArmNnRejects) { rejections(QEwOp::Mul); }
