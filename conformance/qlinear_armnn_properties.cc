// Properties of Arm NN's CpuRef convolution and fully connected layers (spec/operators_qlinear_armnn.md,
// qlinear.armnn_cpuref):
// - composition identity: with power-of-two scales every float step is exact, and the layer is the
//   exact accumulation (qlinear.acc.*) rounded once, half away from zero, plus the zero point;
// - the float sums equal the same loops run on this machine's binary32 hardware (-ffp-contract=off);
// - error bound against the exact real result;
// - the convention's rejections and a summation-order example.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t B(float f) { return std::bit_cast<std::uint32_t>(f); }
long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

struct Problem {
  bool conv = true;
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

std::uint32_t draw_scale(int e, bool dyadic) {
  const auto m = dyadic ? 0u : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

// A small convolution (groups 1 or depthwise) or fully connected layer; `dyadic`: power-of-two scales
// and bias magnitudes that keep every float step exact.
Problem draw_problem(bool dyadic) {
  Problem pr;
  pr.conv = *rc::gen::arbitrary<bool>();
  auto& p = pr.p;
  p.x_type = p.w_type = *rc::gen::arbitrary<bool>() ? DType::I8 : DType::U8;
  Shape xs, ws;
  if (pr.conv) {
    auto& g = pr.g;
    const bool depthwise = *rc::gen::arbitrary<bool>();
    const long long C = *rc::gen::inRange(1, 4), O = depthwise ? C * *rc::gen::inRange(1, 4) : *rc::gen::inRange(1, 4);
    g.groups = depthwise ? C : 1;
    const long long kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
    g.strides = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    g.dilations = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    for (auto& v : g.pads) v = *rc::gen::inRange(0, 3);
    const long long eh = g.dilations[0] * (kh - 1) + 1, ew = g.dilations[1] * (kw - 1) + 1;
    const long long h = std::max<long long>(1, eh - g.pads[0] - g.pads[2]) + *rc::gen::inRange(0, 3);
    const long long w = std::max<long long>(1, ew - g.pads[1] - g.pads[3]) + *rc::gen::inRange(0, 3);
    xs = {*rc::gen::inRange(1, 3), h, w, C};
    ws = {O, kh, kw, depthwise ? 1 : C};
  } else {
    const long long k = *rc::gen::inRange(1, 24);
    xs = {*rc::gen::inRange(1, 3), k}, ws = {*rc::gen::inRange(1, 5), k};
  }
  pr.x = draw_array(xs, lo_of(p.x_type), hi_of(p.x_type));
  pr.w = draw_array(ws, lo_of(p.w_type), hi_of(p.w_type));
  p.x_zero_point = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type) + 1);
  p.w_zero_point = *rc::gen::inRange(lo_of(p.w_type), hi_of(p.w_type) + 1);
  p.y_zero_point = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type) + 1);
  if (*rc::gen::arbitrary<bool>()) pr.b = draw_array({ws[0]}, -(1 << 16), 1 << 16);
  const int ex = *rc::gen::inRange(-10, 0), ew = *rc::gen::inRange(-10, 0);
  p.x_scale = draw_scale(ex, dyadic);
  p.w_scales = {draw_scale(ew, dyadic)};
  p.y_scale = draw_scale(ex + ew + *rc::gen::inRange(4, 14), dyadic);  // about 2^6 output steps
  return pr;
}

IntArray run(const Problem& pr) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  return pr.conv ? qlinear_armnn_conv2d(pr.x, pr.w, b, pr.g, pr.p) : qlinear_armnn_fully_connected(pr.x, pr.w, b, pr.p);
}
ArmnnSums sums(const Problem& pr) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  return pr.conv ? armnn_conv2d_sums(pr.x, pr.w, b, pr.g, pr.p) : armnn_fully_connected_sums(pr.x, pr.w, b, pr.p);
}
IntArray accumulate(const Problem& pr, const Shape& out) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  return pr.conv ? qlinear_acc_conv2d(pr.x, pr.w, b, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, out[1], out[2])
                 : qlinear_acc_fully_connected(pr.x, pr.w, b, pr.p.x_zero_point, pr.p.w_zero_point);
}

// The workloads' loops transliterated on native binary32 (this file is built with -ffp-contract=off).
std::vector<std::uint32_t> hardware_sums(const Problem& pr, const Shape& out) {
  const auto& p = pr.p;
  auto deq = [](const Int& q, const Int& z, std::uint32_t s) {
    return static_cast<float>(static_cast<long long>(q - z)) * V(s);
  };
  const float bias_scale = V(p.x_scale) * V(p.w_scales[0]);
  std::vector<std::uint32_t> r;
  if (!pr.conv) {
    const long long N = pr.x.dim(0), K = pr.x.dim(1), O = pr.w.dim(0);
    for (long long n = 0; n < N; ++n)
      for (long long o = 0; o < O; ++o) {
        float sum = 0.0f;
        for (long long k = 0; k < K; ++k) {
          const float prod =
              deq(pr.w.at2(o, k), p.w_zero_point, p.w_scales[0]) * deq(pr.x.at2(n, k), p.x_zero_point, p.x_scale);
          sum += prod;
        }
        if (pr.b)
          sum += static_cast<float>(static_cast<long long>(pr.b->data[static_cast<std::size_t>(o)])) * bias_scale;
        r.push_back(B(sum));
      }
    return r;
  }
  const auto& g = pr.g;
  const long long H = pr.x.dim(1), W = pr.x.dim(2), O = pr.w.dim(0), KH = pr.w.dim(1), KW = pr.w.dim(2),
                  Cg = pr.w.dim(3), M = O / g.groups;
  for (long long n = 0; n < out[0]; ++n)
    for (long long a = 0; a < out[1]; ++a)
      for (long long q = 0; q < out[2]; ++q)
        for (long long o = 0; o < O; ++o) {
          float sum = 0.0f;
          for (long long c = 0; c < Cg; ++c)
            for (long long i = 0; i < KH; ++i)
              for (long long j = 0; j < KW; ++j) {
                const long long h = a * g.strides[0] - g.pads[0] + i * g.dilations[0];
                const long long v = q * g.strides[1] - g.pads[1] + j * g.dilations[1];
                const bool pad = h < 0 || h >= H || v < 0 || v >= W;
                // Arm NN multiplies the padding's 0.0f too: kept here, so skipping it is checked.
                const float xv = pad ? 0.0f : deq(pr.x.at4(n, h, v, (o / M) * Cg + c), p.x_zero_point, p.x_scale);
                const float prod = deq(pr.w.at4(o, i, j, c), p.w_zero_point, p.w_scales[0]) * xv;
                sum += prod;
              }
          if (pr.b)
            sum += static_cast<float>(static_cast<long long>(pr.b->data[static_cast<std::size_t>(o)])) * bias_scale;
          r.push_back(B(sum));
        }
  return r;
}

}  // namespace

// Power-of-two scales, codes of at most 8 bits, sums below 2^24 steps: every float step is exact.
RC_GTEST_PROP(qlinear_armnn_cpuref, ExactWhereEveryFloatStepIsExact, ()) {
  const Problem pr = draw_problem(true);
  const IntArray y = run(pr);
  const IntArray acc = accumulate(pr, y.shape);
  const Rat s = f32_value(pr.p.x_scale) * f32_value(pr.p.w_scales[0]) / f32_value(pr.p.y_scale);
  for (std::size_t i = 0; i < y.data.size(); ++i)
    RC_ASSERT(y.data[i] == saturate(round_half_away(Rat(acc.data[i]) * s) + pr.p.y_zero_point, pr.p.x_type));
}

// The modelled float sums (exact rationals rounded per step) are the hardware's, bit for bit, and
// the output is armnn::Quantize of them (std::round on the hardware quotient).
RC_GTEST_PROP(qlinear_armnn_cpuref, FloatSumsMatchTheHardwareLoops, ()) {
  const Problem pr = draw_problem(*rc::gen::arbitrary<bool>());
  const ArmnnSums s = sums(pr);
  RC_ASSERT(s.sums == hardware_sums(pr, s.shape));
  const IntArray y = run(pr);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const float v =
        std::round(V(s.sums[i]) / V(pr.p.y_scale)) + static_cast<float>(static_cast<long long>(pr.p.y_zero_point));
    const float c =
        std::min(std::max(v, static_cast<float>(lo_of(pr.p.x_type))), static_cast<float>(hi_of(pr.p.x_type)));
    RC_ASSERT(y.data[i] == Int(static_cast<long long>(c)));
  }
}

// |y - (z_y + r)| <= 1/2 + ((1 + u)^(n + 3) - 1) A' unclamped, n the number of summed terms (the
// bias one), A' = sum |exact term| / s_y; at a saturation bound, z_y + r is beyond it or within it.
RC_GTEST_PROP(qlinear_armnn_cpuref, WithinHalfAStepPlusTheFloatErrorOfTheRealResult, ()) {
  const Problem pr = draw_problem(false);
  const IntArray y = run(pr);
  const auto& p = pr.p;
  const Rat sx = f32_value(p.x_scale), sw = f32_value(p.w_scales[0]), sy = f32_value(p.y_scale);
  // Per output: r and A' from the exact terms (the padding contributes none).
  Problem ones = pr;  // |x - zx|, |w - zw|, |b| with zero points 0: A' from the same accumulation
  for (auto& v : ones.x.data) v = abs(v - p.x_zero_point);
  for (auto& v : ones.w.data) v = abs(v - p.w_zero_point);
  if (ones.b)
    for (auto& v : ones.b->data) v = abs(v);
  const IntArray acc = accumulate(pr, y.shape);
  const IntArray* mag_b = ones.b ? &*ones.b : nullptr;
  const IntArray mag = ones.conv ? qlinear_acc_conv2d(ones.x, ones.w, mag_b, ones.g, 0, 0, y.shape[1], y.shape[2])
                                 : qlinear_acc_fully_connected(ones.x, ones.w, mag_b, 0, 0);
  const long long terms = (pr.conv ? pr.w.dim(1) * pr.w.dim(2) * pr.w.dim(3) : pr.w.dim(1)) + (pr.b ? 1 : 0);
  const Rat u = pow2r(-24);
  Rat growth(1);
  for (long long i = 0; i < terms + 3; ++i) growth *= Rat(1) + u;
  growth -= 1;
  const Range t = int_range(p.x_type);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const Rat r = Rat(acc.data[i]) * sx * sw / sy, target = Rat(p.y_zero_point) + r;
    const Rat margin = Rat(1, 2) + growth * Rat(mag.data[i]) * sx * sw / sy;
    const Rat yv(y.data[i]);
    if (y.data[i] > t.lo && y.data[i] < t.hi) RC_ASSERT(abs(yv - target) <= margin);
    if (y.data[i] == t.lo) RC_ASSERT(target <= yv + margin);
    if (y.data[i] == t.hi) RC_ASSERT(target >= yv - margin);
  }
}

// Half away from zero, not to even: 0.5 1.5 -0.5 -1.5 2.5 -> 1 2 -1 -2 3.
TEST(qlinear_armnn_cpuref, TiesRoundHalfAwayFromZero) {
  QLinearParams p;
  p.y_scale = 0x40000000u;  // 2
  const IntArray x = ia({5, 1}, {1, 3, -1, -3, 5}), w = ia({1, 1}, {1});
  EXPECT_EQ(qlinear_armnn_fully_connected(x, w, nullptr, p), ia({5, 1}, {1, 2, -1, -2, 3}));
}

// 161.29 + 0.01 - 161.29 in float (scales fl32(0.1)) loses the 0.01's low bits: 3, not the exact 4;
// the same terms in another order give 4.
TEST(qlinear_armnn_cpuref, TheSummationOrderIsPartOfTheConvention) {
  QLinearParams p;
  p.x_scale = 0x3dcccccdu;
  p.w_scales = {0x3dcccccdu};
  p.y_scale = 0x3b3b3ee7u;
  EXPECT_EQ(qlinear_armnn_fully_connected(ia({1, 3}, {127, 1, 127}), ia({1, 3}, {127, 1, -127}), nullptr, p),
            ia({1, 1}, {3}));
  EXPECT_EQ(qlinear_armnn_fully_connected(ia({1, 3}, {127, 127, 1}), ia({1, 3}, {127, -127, 1}), nullptr, p),
            ia({1, 1}, {4}));
}

TEST(qlinear_armnn_cpuref, RejectsWhatArmNnCannotRun) {
  QLinearParams p;
  p.w_scales = {0x3f800000u, 0x40000000u};
  EXPECT_THROW(qlinear_armnn_fully_connected(ia({1, 1}, {1}), ia({2, 1}, {1, 1}), nullptr, p), ErrorIf);
  QLinearParams mixed;
  mixed.w_type = DType::U8;
  EXPECT_THROW(qlinear_armnn_fully_connected(ia({1, 1}, {1}), ia({1, 1}, {1}), nullptr, mixed), ErrorIf);
  QConvGeometry g;
  g.groups = 2;
  EXPECT_THROW(
      qlinear_armnn_conv2d(ia({1, 1, 1, 4}, {0, 1, 2, 3}), ia({2, 1, 1, 2}, {1, 1, 1, 1}), nullptr, g, QLinearParams{}),
      ErrorIf);
}
