// Properties of oneDNN's convention of the quantized operators (spec/operators_qlinear.md,
// qlinear.onednn):
// - composition identity: the operator is the exact accumulation without the bias, then a binary32
//   transliteration of oneDNN 2.6's execute_forward (ref_convolution_int8.cpp / ref_matmul_int8.cpp)
//   run on this machine's float hardware, and the clamp of float.onednn_fp32 of the integer
//   fl32(fl32(acc) + fl32(b));
// - the error bound against the exact real result;
// - every (x, w) pair of int8 and of uint8 x int8 through a 1x1 layer, with ties and an odd zero point;
// - hand examples of the rules that differ from the other conventions.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <optional>

#include "ops_arrays.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

constexpr auto kOnednn = QLinearConvention::Onednn;

float V(std::uint32_t b) { return std::bit_cast<float>(b); }
long long ll(const Int& v) { return static_cast<long long>(v); }

// oneDNN's epilogue as its ref kernels write it, on this machine's binary32 (no FMA contraction:
// one operation per statement, volatile between them).
long long hw_epilogue(long long acc, std::optional<long long> bias, float x_s, float w_s, float y_s, long long zp,
                      std::optional<long long> y_min, std::optional<long long> y_max, bool u8) {
  volatile float s = x_s * w_s;
  s = s / y_s;
  volatile float d = static_cast<float>(acc);
  if (bias) d = d + static_cast<float>(*bias);
  d = d * s;
  const long long lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  if (y_min || y_max) {  // eltwise_clip(alpha, beta): clip_fwd
    const float alpha = static_cast<float>(y_min.value_or(lo) - zp), beta = static_cast<float>(y_max.value_or(hi) - zp);
    d = d > alpha ? static_cast<float>(d) : alpha;
    d = d > beta ? beta : static_cast<float>(d);
  }
  d = d + static_cast<float>(zp);
  d = std::max(static_cast<float>(lo), std::min(static_cast<float>(hi), static_cast<float>(d)));
  return std::lrint(d);  // nearbyintf in the default rounding mode (round to nearest, ties to even)
}

struct Problem {
  int kind = 0;  // 0 conv, 1 fully connected, 2 matmul
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

std::uint32_t draw_scale(int lo, int hi) {
  const int e = *rc::gen::inRange(lo, hi + 1);
  const auto m =
      *rc::gen::oneOf(rc::gen::just<std::uint32_t>(0), rc::gen::inRange<std::uint32_t>(0, 1u << 23),
                      rc::gen::map(rc::gen::inRange<std::uint32_t>(0, 16), [](std::uint32_t v) { return v << 19; }));
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

Problem draw_problem() {
  Problem pr;
  pr.kind = *rc::gen::inRange(0, 3);
  const bool u8 = *rc::gen::arbitrary<bool>();
  pr.p.x_type = u8 ? DType::U8 : DType::I8;
  pr.p.w_type = DType::I8;
  const long long xlo = u8 ? 0 : -128, xhi = u8 ? 255 : 127;
  std::int64_t channels = 1;
  if (pr.kind == 0) {
    const long long groups = *rc::gen::inRange(1, 3), cg = *rc::gen::inRange(1, 3), og = *rc::gen::inRange(1, 3);
    const long long kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
    pr.g.groups = groups;
    pr.g.strides = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    pr.g.dilations = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    for (auto& v : pr.g.pads) v = *rc::gen::inRange(0, 3);
    const long long eh = pr.g.dilations[0] * (kh - 1) + 1, ew = pr.g.dilations[1] * (kw - 1) + 1;
    const long long h = std::max<long long>(1, eh - pr.g.pads[0] - pr.g.pads[2]) + *rc::gen::inRange(0, 3);
    const long long w = std::max<long long>(1, ew - pr.g.pads[1] - pr.g.pads[3]) + *rc::gen::inRange(0, 3);
    channels = groups * og;
    pr.x = draw_array({1, h, w, groups * cg}, xlo, xhi);
    pr.w = draw_array({channels, kh, kw, cg}, -128, 127);
  } else if (pr.kind == 1) {
    const long long n = *rc::gen::inRange(1, 4), k = *rc::gen::inRange(1, 20);
    channels = *rc::gen::inRange(1, 5);
    pr.x = draw_array({n, k}, xlo, xhi);
    pr.w = draw_array({channels, k}, -128, 127);
    pr.p.w_zero_point = *rc::gen::inRange(-128, 128);
  } else {
    const long long m = *rc::gen::inRange(1, 4), k = *rc::gen::inRange(1, 12);
    channels = *rc::gen::inRange(1, 5);
    const bool batched = *rc::gen::arbitrary<bool>();
    pr.x = draw_array(batched ? Shape{2, m, k} : Shape{m, k}, xlo, xhi);
    pr.w = draw_array({k, channels}, -128, 127);
    pr.p.w_zero_point = *rc::gen::inRange(-128, 128);
  }
  if (pr.kind != 2 && *rc::gen::arbitrary<bool>()) {
    const bool large = *rc::gen::inRange(0, 4) == 0;  // beyond 2^24: the float sum rounds
    pr.b = draw_array({channels}, large ? -(1LL << 28) : -(1LL << 14), large ? (1LL << 28) : (1LL << 14));
  }
  pr.p.x_zero_point = *rc::gen::inRange(xlo, xhi + 1);
  pr.p.y_zero_point = *rc::gen::inRange(xlo, xhi + 1);
  pr.p.x_scale = draw_scale(-10, -4);
  pr.p.w_scales.clear();
  const bool per_channel = channels > 1 && *rc::gen::arbitrary<bool>();
  for (std::int64_t o = 0; o < (per_channel ? channels : 1); ++o) pr.p.w_scales.push_back(draw_scale(-10, -4));
  pr.p.y_scale = draw_scale(-14, 2);
  if (*rc::gen::inRange(0, 4) == 0) {
    const long long a = *rc::gen::inRange(xlo, xhi + 1), c = *rc::gen::inRange(xlo, xhi + 1);
    pr.p.y_min = Int(std::min(a, c)), pr.p.y_max = Int(std::max(a, c));
  }
  return pr;
}

IntArray run(const Problem& pr) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  if (pr.kind == 0) return qlinear_conv2d(pr.x, pr.w, b, pr.g, pr.p, kOnednn);
  if (pr.kind == 1) return qlinear_fully_connected(pr.x, pr.w, b, pr.p, kOnednn);
  return qlinear_matmul(pr.x, pr.w, pr.p, kOnednn);
}

IntArray accumulate(const Problem& pr) {  // without the bias
  if (pr.kind == 0) {
    const auto [oh, ow] = qlinear_conv2d_out_size(pr.x.shape, pr.w.shape, pr.g, kOnednn);
    return qlinear_acc_conv2d(pr.x, pr.w, nullptr, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, oh, ow);
  }
  if (pr.kind == 1) return qlinear_acc_fully_connected(pr.x, pr.w, nullptr, pr.p.x_zero_point, pr.p.w_zero_point);
  return qlinear_acc_matmul(pr.x, pr.w, pr.p.x_zero_point, pr.p.w_zero_point);
}

std::uint32_t w_scale(const QLinearParams& p, std::size_t o) { return p.w_scales[p.w_scales.size() == 1 ? 0 : o]; }

RC_GTEST_PROP(qlinear_onednn, IsTheAccumulatorThenOnednnsFloatEpilogue, ()) {
  RC_ASSERT(std::fegetround() == FE_TONEAREST);
  const Problem pr = draw_problem();
  const IntArray y = run(pr), acc = accumulate(pr);
  RC_ASSERT(y.shape == acc.shape);
  const bool u8 = pr.p.x_type == DType::U8;
  const Range dtype = int_range(pr.p.x_type);
  const Range clamp{pr.p.y_min.value_or(dtype.lo), pr.p.y_max.value_or(dtype.hi)};
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % channels;
    const std::optional<long long> b = pr.b ? std::optional<long long>(ll(pr.b->data[o])) : std::nullopt;
    const auto opt = [](const std::optional<Int>& v) { return v ? std::optional<long long>(ll(*v)) : std::nullopt; };
    RC_ASSERT(Int(hw_epilogue(ll(acc.data[i]), b, V(pr.p.x_scale), V(w_scale(pr.p, o)), V(pr.p.y_scale),
                              ll(pr.p.y_zero_point), opt(pr.p.y_min), opt(pr.p.y_max), u8)) == y.data[i]);
    // The same as clamp(float.onednn_fp32(v)) with v = fl32(fl32(acc) + fl32(b)) (an integer).
    std::uint32_t v = f32_from_int(acc.data[i]);
    if (b) v = f32_add(v, f32_from_int(Int(*b)));
    const std::uint32_t s = qlinear_fp32_scale(pr.p.x_scale, w_scale(pr.p, o), pr.p.y_scale);
    RC_ASSERT(saturate(onednn_fp32_requantize(round_half_even(f32_value(v)), s, pr.p.y_zero_point, pr.p.x_type),
                       clamp) == y.data[i]);
  }
}

// |y - (zp + r)| <= 1/2 + 2^-20 (|acc| + |b|) sigma + 2^-24 |zp + r| where y is not clamped.
RC_GTEST_PROP(qlinear_onednn, WithinHalfAStepPlusTheFloatErrorOfTheRealResult, ()) {
  const Problem pr = draw_problem();
  const IntArray y = run(pr), acc = accumulate(pr);
  const Range dtype = int_range(pr.p.x_type);
  const Int lo = std::max(pr.p.y_min.value_or(dtype.lo), dtype.lo),
            hi = std::min(pr.p.y_max.value_or(dtype.hi), dtype.hi);
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % channels;
    const Int b = pr.b ? pr.b->data[o] : Int(0);
    const Rat sigma = f32_value(pr.p.x_scale) * f32_value(w_scale(pr.p, o)) / f32_value(pr.p.y_scale);
    const Rat target = Rat(pr.p.y_zero_point) + Rat(acc.data[i] + b) * sigma;
    const Rat margin = Rat(1, 2) + pow2r(-20) * Rat(abs(acc.data[i]) + abs(b)) * sigma + pow2r(-24) * abs(target);
    const Rat yv(y.data[i]);
    if (y.data[i] > lo && y.data[i] < hi) RC_ASSERT(abs(yv - target) <= margin);
    if (lo == hi) continue;
    if (y.data[i] == lo) RC_ASSERT(target <= yv + margin);
    if (y.data[i] == hi) RC_ASSERT(target >= yv - margin);
  }
}

// Every (x, w) pair of s8 x s8 and of u8 x s8 as a 1x1 layer: x (256, 1) against w (256, 1), with
// S = 2^-8 (half the pairs' products with an odd w land on ties) and an odd zero point.
TEST(qlinear_onednn, EveryPairOfA1x1LayerIsTheFloatEpilogue) {
  for (const bool u8 : {false, true}) {
    QLinearParams p;
    p.x_type = u8 ? DType::U8 : DType::I8;
    p.x_zero_point = u8 ? 131 : 3;
    p.y_zero_point = u8 ? 127 : -3;
    p.w_zero_point = 0;
    p.x_scale = 0x3f800000u;     // 1
    p.w_scales = {0x3b800000u};  // 2^-8
    p.y_scale = 0x3f800000u;
    IntArray x({256, 1}), w({256, 1});
    for (long long i = 0; i < 256; ++i) {
      x.data[static_cast<std::size_t>(i)] = Int(u8 ? i : i - 128);
      w.data[static_cast<std::size_t>(i)] = Int(i - 128);
    }
    const IntArray y = qlinear_fully_connected(x, w, nullptr, p, kOnednn);
    int mismatches = 0;
    for (long long i = 0; i < 256; ++i)
      for (long long j = 0; j < 256; ++j) {
        const long long acc = (ll(x.data[static_cast<std::size_t>(i)]) - ll(p.x_zero_point)) * (j - 128);
        const long long want =
            hw_epilogue(acc, std::nullopt, 1.0f, 0x1p-8f, 1.0f, ll(p.y_zero_point), std::nullopt, std::nullopt, u8);
        mismatches += Int(want) != y.data[static_cast<std::size_t>(i * 256 + j)] ? 1 : 0;
      }
    EXPECT_EQ(mismatches, 0) << (u8 ? "u8 x s8" : "s8 x s8");
  }
}

TEST(qlinear_onednn, AddsTheZeroPointBeforeRoundingAndTheBiasInFloat) {
  QLinearParams p;
  p.y_scale = 0x40000000u;  // S = 1/2
  p.y_zero_point = 3;
  const IntArray x = ia({4, 1}, {1, 3, -1, -3}), w = ia({1, 1}, {1});
  // rne(k + 1/2 + 3): 4 4 2 2, where XNNPACK gives rne(k + 1/2) + 3 = 3 5 3 1.
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, kOnednn).data, ia({4, 1}, {4, 4, 2, 2}).data);
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::XnnpackFp32).data,
            ia({4, 1}, {3, 5, 3, 1}).data);
  // acc 1 plus bias 2^25 + 2 in float is 2^25; times 101 2^-26 the tie 50.5 -> 50 (exact sum: 51).
  QLinearParams q;
  q.w_scales = {f32_round(Rat(101) * pow2r(-26))};
  const IntArray one = ia({1, 1}, {1}), bias = ia({1}, {33554434});
  EXPECT_EQ(qlinear_fully_connected(one, one, &bias, q, kOnednn).data[0], Int(50));
  EXPECT_EQ(qlinear_fully_connected(one, one, &bias, q, QLinearConvention::OnnxRuntime).data[0], Int(51));
}

TEST(qlinear_onednn, RejectsWhatOnednnDoesNotImplement) {
  QLinearParams p;
  const IntArray x4 = ia({1, 1, 1, 1}, {1}), w4 = ia({1, 1, 1, 1}, {1}), x = ia({1, 1}, {1}), w = ia({1, 1}, {1});
  p.w_zero_point = 1;
  EXPECT_THROW(qlinear_conv2d(x4, w4, nullptr, QConvGeometry{}, p, kOnednn), ErrorIf);  // conv: no weights zp
  EXPECT_NO_THROW(qlinear_fully_connected(x, w, nullptr, p, kOnednn));                  // matmul: a common one
  EXPECT_NO_THROW(qlinear_matmul(x, w, p, kOnednn));
  p.w_zero_point = 0;
  p.w_type = DType::U8;
  EXPECT_THROW(qlinear_matmul(x, w, p, kOnednn), ErrorIf);  // s8 weights only
  p.w_type = DType::I8;
  p.x_zero_point = 1000;  // s32 zero points: any int32
  EXPECT_NO_THROW(qlinear_matmul(x, w, p, kOnednn));
  p.y_min = Int(6), p.y_max = Int(5);
  EXPECT_THROW(qlinear_matmul(x, w, p, kOnednn), ErrorIf);  // eltwise_clip: beta < alpha
  p.y_max = Int(6);
  EXPECT_NO_THROW(qlinear_matmul(x, w, p, kOnednn));  // beta = alpha is allowed
  p.y_min.reset(), p.y_max.reset();
  p.w_scales = {0x3f800000u, 0x3f800000u};
  EXPECT_THROW(qlinear_matmul(x, w, p, kOnednn), ErrorIf);  // 2 scales for 1 column
}

}  // namespace
