// Properties of TFLite's convention of the quantized operators (spec/operators_qlinear.md,
// qlinear.tflite), under both builds (tflite.double_round, tflite.single_round):
// - composition identity: the operator is the exact accumulation, then QuantizeMultiplier of the
//   real multiplier the test derives from the scales (per-channel path: one binary64 rounding of
//   the exact quotient; per-tensor path: the product rounded in binary32 first), then
//   MultiplyByQuantizedMultiplier and the clamp; the derivation and the epilogue also equal a
//   transliteration of TFLite's C++ run on this machine's double and int64 hardware;
// - the error bound against the exact real result (1/2 or 3/4 of a step plus the derivation's);
// - exhaustively over every int8 and uint8 (x, w) of a 1x1 layer for a set of parameters;
// - hand examples of the rules that differ from the other conventions.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "ops_arrays.h"
#include "qlinear_q31_problem.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

// ---- TFLite's code, transliterated (quantization_util.cc, common.h), on this machine ----

// QuantizeMultiplier(double_multiplier, &quantized_multiplier, &shift), either build.
std::int32_t hw_quantize_multiplier(double d, int* shift, bool single_round) {
  if (d == 0.) {
    *shift = 0;
    return 0;
  }
  const double q = std::frexp(d, shift);
  auto q_fixed = static_cast<std::int64_t>(std::round(q * (1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  if (single_round && *shift > 30) {
    *shift = 30;
    q_fixed = (1LL << 31) - 1;
  }
  return static_cast<std::int32_t>(q_fixed);
}

std::int32_t hw_srdhm(std::int32_t a, std::int32_t b) {
  const bool overflow = a == b && a == INT32_MIN;
  const std::int64_t ab_64 = static_cast<std::int64_t>(a) * b;
  const std::int32_t nudge = ab_64 >= 0 ? (1 << 30) : (1 - (1 << 30));
  const auto ab_x2_high32 = static_cast<std::int32_t>((ab_64 + nudge) / (1LL << 31));
  return overflow ? INT32_MAX : ab_x2_high32;
}
std::int32_t hw_rdbpot(std::int32_t x, int exponent) {
  const std::int32_t mask = static_cast<std::int32_t>((1LL << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}
// MultiplyByQuantizedMultiplier(int32 x, M, shift), the default build or TFLITE_SINGLE_ROUNDING.
std::int32_t hw_mbqm(std::int32_t x, std::int32_t m, int shift, bool single_round) {
  if (single_round) {
    const int total_shift = 31 - shift;
    const std::int64_t round = 1LL << (total_shift - 1);
    return static_cast<std::int32_t>((x * static_cast<std::int64_t>(m) + round) >> total_shift);
  }
  const int left_shift = shift > 0 ? shift : 0, right_shift = shift > 0 ? 0 : -shift;
  return hw_rdbpot(hw_srdhm(static_cast<std::int32_t>(x * (1LL << left_shift)), m), right_shift);
}

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

using q31::accumulate;
using q31::Kind;
using q31::Problem;
using q31::run;
using q31::w_scale_of;

Problem draw_problem() { return q31::draw_problem(q31::Engine::Tflite); }

QLinearConvention draw_convention() {
  return *rc::gen::arbitrary<bool>() ? QLinearConvention::TfliteSingleRound : QLinearConvention::TfliteDoubleRound;
}

long long lo_of(DType t) { return q31::lo_of(t); }
long long hi_of(DType t) { return q31::hi_of(t); }

// Whether the operator takes TFLite's per-channel path (every int8 convolution; a fully connected
// layer with more than one weight scale), stated in the test.
bool per_channel_path(const Problem& pr) {
  if (pr.kind == Kind::Conv) return pr.p.x_type == DType::I8;
  return pr.kind == Kind::Fc && pr.p.w_scales.size() > 1;
}

// The real multiplier as a rational: one binary64 rounding of the exact quotient (per-channel
// path), or of the binary32-rounded product over y_scale (per-tensor path).
Rat real_multiplier(const Problem& pr, std::size_t o) {
  const Rat sx = f32_value(pr.p.x_scale), sw = f32_value(w_scale_of(pr.p, o)), sy = f32_value(pr.p.y_scale);
  const Rat num = per_channel_path(pr) ? sx * sw : f32_value(f32_round(sx * sw));
  return f64_value(f64_round(num / sy));
}

// ---- composition identity ----

RC_GTEST_PROP(qlinear_tflite, IsTheAccumulatorThenQuantizeMultiplierThenMbqmAndTheClamp, ()) {
  const Problem pr = draw_problem();
  const QLinearConvention c = draw_convention();
  const bool single = c == QLinearConvention::TfliteSingleRound;
  const IntArray y = run(pr, c);
  const IntArray acc = accumulate(pr);
  RC_ASSERT(y.shape == acc.shape);
  const Range t = int_range(pr.p.x_type);
  const Range clamp{pr.p.y_min.value_or(t.lo), pr.p.y_max.value_or(t.hi)};
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % channels;
    const Rat d = real_multiplier(pr, o);
    const QuantizedMultiplier qm =
        tflite_quantize_multiplier(f64_round(d), single ? TfliteBuild::SingleRounding : TfliteBuild::Default);
    const Int mbqm = single
                         ? tflite_multiply_by_quantized_multiplier_single_round(acc.data[i], qm.multiplier, qm.shift)
                         : tflite_multiply_by_quantized_multiplier_double_round(acc.data[i], qm.multiplier, qm.shift);
    const Int want = saturate(mbqm + pr.p.y_zero_point, clamp);
    RC_ASSERT(y.data[i] == want);
    // TFLite's own arithmetic on this machine: the double derivation and the int32/int64 epilogue.
    const double sx = V(pr.p.x_scale), sw = V(w_scale_of(pr.p, o)), sy = V(pr.p.y_scale);
    const double hw_d =
        per_channel_path(pr) ? sx * sw / sy : static_cast<double>(V(pr.p.x_scale) * V(w_scale_of(pr.p, o))) / sy;
    RC_ASSERT(f64_value(std::bit_cast<std::uint64_t>(hw_d)) == d);
    int shift = 0;
    const std::int32_t m = hw_quantize_multiplier(hw_d, &shift, single);
    RC_ASSERT(Int(m) == qm.multiplier && shift == qm.shift);
    std::int32_t v = hw_mbqm(static_cast<std::int32_t>(static_cast<long long>(acc.data[i])), m, shift, single);
    v += static_cast<std::int32_t>(static_cast<long long>(pr.p.y_zero_point));
    v = std::max(v, static_cast<std::int32_t>(static_cast<long long>(clamp.lo)));
    v = std::min(v, static_cast<std::int32_t>(static_cast<long long>(clamp.hi)));
    RC_ASSERT(Int(v) == y.data[i]);
  }
}

// ---- error bound ----

// |y - (zp + r)| <= 1/2 (single) or 3/4 (double) + eps |r| where y is not clamped, with eps the
// derivation's relative error; at a clamp bound, zp + r is beyond it or within that margin.
RC_GTEST_PROP(qlinear_tflite, WithinTheRoundingPlusTheDerivationErrorOfTheRealResult, ()) {
  const Problem pr = draw_problem();
  const QLinearConvention c = draw_convention();
  const IntArray y = run(pr, c);
  const IntArray acc = accumulate(pr);
  const Rat one(1);
  const Rat d1 = per_channel_path(pr) ? pow2r(-53) : (one + pow2r(-24)) * (one + pow2r(-53)) - one;
  const Rat eps = (one + pow2r(-31)) * (one + d1) - one;
  const Rat rounding = c == QLinearConvention::TfliteSingleRound ? Rat(1, 2) : Rat(3, 4);
  const Range t = int_range(pr.p.x_type);
  const Int lo = pr.p.y_min.value_or(t.lo), hi = pr.p.y_max.value_or(t.hi);
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const Rat r = Rat(acc.data[i]) * f32_value(pr.p.x_scale) * f32_value(w_scale_of(pr.p, i % channels)) /
                  f32_value(pr.p.y_scale);
    const Rat target = Rat(pr.p.y_zero_point) + r;
    const Rat margin = rounding + eps * abs(r);
    const Rat yv(y.data[i]);
    if (y.data[i] > lo && y.data[i] < hi) RC_ASSERT(abs(yv - target) <= margin);
    if (lo == hi) continue;  // a clamp to one code: every target gives it
    if (y.data[i] == lo) RC_ASSERT(target <= yv + margin);
    if (y.data[i] == hi) RC_ASSERT(target >= yv - margin);
  }
}

// ---- exhaustive: every (x, w) of a 1x1 layer ----

// For int8 and uint8 and a set of scales and zero points (ties, saturation, per-tensor and
// per-channel paths): every (x, w) code pair of a fully connected layer with K = 1 and of a 1x1
// convolution equals TFLite's transliterated arithmetic (the double derivation on this machine).
TEST(qlinear_tflite, ExhaustiveOverEveryCodePairOfA1x1Layer) {
  struct Config {
    DType t;
    std::uint32_t sx, sw, sy;
    long long zx, zw, zy;
  };
  const std::vector<Config> configs = {
      {DType::I8, 0x3f800000u, 0x3f800000u, 0x40000000u, 0, 0, 0},        // M 2^(shift-31) = 1/2: ties
      {DType::I8, 0x3c000000u, 0x3b800000u, 0x3a800000u, -3, 0, 5},       // 2^-7 2^-8 / 2^-10 = 1/32
      {DType::I8, 0x3f800800u, 0x3f800800u, 0x42c80000u, 17, 0, -20},     // 1+2^-12 squared: paths differ
      {DType::U8, 0x3c23d70au, 0x3b449ba6u, 0x3d4ccccdu, 128, 131, 100},  // realistic
      {DType::U8, 0x3f800000u, 0x3f800000u, 0x3e800000u, 0, 255, 255},    // S = 4: saturation
  };
  long long checked = 0;
  for (const auto& cfg : configs)
    for (const auto conv : {QLinearConvention::TfliteDoubleRound, QLinearConvention::TfliteSingleRound})
      for (const Kind kind : {Kind::Fc, Kind::Conv}) {
        const bool single = conv == QLinearConvention::TfliteSingleRound;
        const long long lo = lo_of(cfg.t), hi = hi_of(cfg.t), n = hi - lo + 1;
        QLinearParams p;
        p.x_type = p.w_type = cfg.t;
        p.x_scale = cfg.sx, p.w_scales = {cfg.sw}, p.y_scale = cfg.sy;
        p.x_zero_point = cfg.zx, p.w_zero_point = cfg.zw, p.y_zero_point = cfg.zy;
        const bool pc_path = kind == Kind::Conv && cfg.t == DType::I8;
        const double d = pc_path ? double(V(cfg.sx)) * double(V(cfg.sw)) / double(V(cfg.sy))
                                 : double(V(cfg.sx) * V(cfg.sw)) / double(V(cfg.sy));
        int shift = 0;
        const std::int32_t m = hw_quantize_multiplier(d, &shift, single);
        // One row per x, one output channel per w: acc[x][w] = (x - zx)(w - zw).
        IntArray x({n, 1}), w({n, 1});
        for (long long i = 0; i < n; ++i)
          x.data[static_cast<std::size_t>(i)] = w.data[static_cast<std::size_t>(i)] = lo + i;
        IntArray y;
        if (kind == Kind::Fc) {
          y = qlinear_fully_connected(x, w, nullptr, p, conv);
        } else {
          x.shape = {n, 1, 1, 1}, w.shape = {n, 1, 1, 1};
          y = qlinear_conv2d(x, w, nullptr, QConvGeometry{}, p, conv);
        }
        for (long long xi = 0; xi < n; ++xi)
          for (long long wi = 0; wi < n; ++wi) {
            const auto acc = static_cast<std::int32_t>((lo + xi - cfg.zx) * (lo + wi - cfg.zw));
            std::int32_t v = hw_mbqm(acc, m, shift, single) + static_cast<std::int32_t>(cfg.zy);
            v = std::min<std::int32_t>(std::max<std::int32_t>(v, static_cast<std::int32_t>(lo)),
                                       static_cast<std::int32_t>(hi));
            ASSERT_EQ(y.data[static_cast<std::size_t>(xi * n + wi)], Int(v))
                << "x " << lo + xi << " w " << lo + wi << (single ? " single" : " double");
            ++checked;
          }
      }
  EXPECT_EQ(checked, 2LL * 2 * (3 * 256 * 256 + 2 * 256 * 256));
}

// ---- hand examples ----

TEST(qlinear_tflite, PerTensorPathRoundsTheProductInFloat32) {
  // s_x = s_w = 1 + 2^-12: s_x s_w = 1 + 2^-11 + 2^-24 is a binary32 tie, rounded to 1 + 2^-11.
  QLinearParams p;
  p.x_scale = 0x3f800800u, p.w_scales = {0x3f800800u}, p.y_scale = 0x3f800000u;
  const Rat exact = Rat(1) + pow2r(-11) + pow2r(-24), rounded = Rat(1) + pow2r(-11);
  EXPECT_EQ(f64_value(qlinear_tflite_real_multiplier(p, 0, true)), exact);
  EXPECT_EQ(f64_value(qlinear_tflite_real_multiplier(p, 0, false)), rounded);
  // int8 conv (per-channel path) and fully connected (per-tensor path) get different multipliers.
  const auto conv = qlinear_tflite_multipliers(p, 1, QLinearOp::Conv2d, false);
  const auto fc = qlinear_tflite_multipliers(p, 1, QLinearOp::FullyConnected, false);
  EXPECT_EQ(conv[0].multiplier, Int((1LL << 30) + (1LL << 19) + (1LL << 6)));
  EXPECT_EQ(fc[0].multiplier, Int((1LL << 30) + (1LL << 19)));
  EXPECT_EQ(conv[0].shift, 1);
  EXPECT_EQ(fc[0].shift, 1);
}

TEST(qlinear_tflite, NegativeTiesGoAwayFromZeroOnlyBelowOneHalfUnderDoubleRounding) {
  // acc = -2, -6, 2 at a multiplier of exactly 1/4 (M = 2^30, shift = -1): double rounding (SRDHM
  // exact, then RDBPOT's half away from zero) -1 -2 1, single rounding (half up) 0 -1 1.
  QLinearParams p;
  p.y_scale = 0x40800000u;  // 4
  const IntArray x = ia({3, 1}, {-2, -6, 2}), w = ia({1, 1}, {1});
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::TfliteDoubleRound), ia({3, 1}, {-1, -2, 1}));
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::TfliteSingleRound), ia({3, 1}, {0, -1, 1}));
  // At a multiplier of 1/2 (M = 2^30, shift = 0) there is no RDBPOT: both builds round -1/2 up to 0.
  p.y_scale = 0x40000000u;
  const IntArray x2 = ia({3, 1}, {-1, -3, 1});
  EXPECT_EQ(qlinear_fully_connected(x2, w, nullptr, p, QLinearConvention::TfliteDoubleRound), ia({3, 1}, {0, -1, 1}));
  EXPECT_EQ(qlinear_fully_connected(x2, w, nullptr, p, QLinearConvention::TfliteSingleRound), ia({3, 1}, {0, -1, 1}));
}

TEST(qlinear_tflite, PaddingIsSameOrValidAndGroupsOneOrDepthwise) {
  QLinearParams p;
  const IntArray x = iota_array({1, 3, 3, 2}, -5), w = iota_array({2, 2, 2, 2}, -3);
  QConvGeometry g;
  EXPECT_NO_THROW(qlinear_conv2d(x, w, nullptr, g, p, QLinearConvention::TfliteDoubleRound));  // VALID
  g.pads = {0, 0, 1, 1};                                                                       // SAME: t = 1
  EXPECT_NO_THROW(qlinear_conv2d(x, w, nullptr, g, p, QLinearConvention::TfliteDoubleRound));
  g.pads = {1, 0, 0, 1};  // the odd unit at the beginning: not TFLite's SAME
  EXPECT_THROW(qlinear_conv2d(x, w, nullptr, g, p, QLinearConvention::TfliteDoubleRound), ErrorIf);
  EXPECT_NO_THROW(qlinear_conv2d(x, w, nullptr, g, p, QLinearConvention::OnnxRuntime));
  const IntArray x4 = iota_array({1, 1, 1, 4}, 0), w2 = iota_array({2, 1, 1, 2}, 0);
  QConvGeometry grouped;
  grouped.groups = 2;
  EXPECT_THROW(qlinear_conv2d(x4, w2, nullptr, grouped, p, QLinearConvention::TfliteSingleRound), ErrorIf);
  EXPECT_NO_THROW(qlinear_conv2d(x4, w2, nullptr, grouped, p, QLinearConvention::OnnxRuntime));
}

TEST(qlinear_tflite, Int8FilterZeroPointOnlyWhereTheKernelAppliesIt) {
  QLinearParams p;
  p.w_zero_point = 3;
  const IntArray x = ia({1, 1}, {5}), w = ia({1, 1}, {4});
  // Per-tensor FULLY_CONNECTED applies weights_offset: (5 - 0)(4 - 3) = 5.
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::TfliteDoubleRound), ia({1, 1}, {5}));
  // ConvPerChannel has no filter offset: rejected.
  const IntArray x4 = ia({1, 1, 1, 1}, {5}), w4 = ia({1, 1, 1, 1}, {4});
  EXPECT_THROW(qlinear_conv2d(x4, w4, nullptr, QConvGeometry{}, p, QLinearConvention::TfliteDoubleRound), ErrorIf);
}

}  // namespace
