// Properties of qlinear.pytorch_qnnpack (spec/operators_qlinear.md): PyTorch 1.13's quantized::linear
// and quantized::conv2d under the qnnpack engine.
// - composition identity: the operator is the shared exact accumulation followed, per element, by
//   the epilogue transliterated on this machine's binary32 hardware (quint8: S_o =
//   (w_s[o] * x_s) * (1.f / y_s), y = sat(lrintf(acc * S_o) + z_y); qint8: XNNPACK's qs8 / qc8);
// - qint8 activations are qlinear.xnnpack_fp32 exactly;
// - error bound against the exact real result: |y - (z_y + r)| <= 1/2 + ((1 + 2^-24)^5 - 1) |r|
//   unless saturated (quint8: five roundings, fl32(1 / y_s) included).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <optional>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec_rc.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

// A positive normal float32 2^e (1 + m 2^-23), often with a short mantissa (exact products, ties).
std::uint32_t draw_scale(int emin, int emax) {
  const int e = *rc::gen::inRange(emin, emax + 1);
  const int kind = *rc::gen::inRange(0, 3);
  const auto m = kind == 0   ? 0u
                 : kind == 1 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                             : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

IntArray codes(Shape s, long long lo, long long hi) {
  IntArray a(std::move(s));
  for (auto& v : a.data) v = Int(*rc::gen::inRange(lo, hi + 1));
  return a;
}

// One problem the convention accepts (qint8 weights; per channel only where PyTorch has it).
struct Problem {
  bool fc = true;
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

Problem draw_problem() {
  Problem pr;
  pr.fc = *rc::gen::arbitrary<bool>();
  const bool u8 = *rc::gen::arbitrary<bool>();
  auto& p = pr.p;
  p.x_type = u8 ? DType::U8 : DType::I8, p.w_type = DType::I8;
  const long long lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  long long O = 0, K = 0;
  if (pr.fc) {
    const long long N = *rc::gen::inRange(1, 4);
    K = *rc::gen::inRange(1, 20), O = *rc::gen::inRange(1, 5);
    pr.x = codes({N, K}, lo, hi), pr.w = codes({O, K}, -128, 127);
  } else {
    const long long G = *rc::gen::inRange(1, 3), cg = *rc::gen::inRange(1, 3), og = *rc::gen::inRange(1, 3);
    const long long kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
    O = G * og, K = kh * kw * cg;
    pr.g.groups = G;
    pr.g.strides = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    const long long ph = *rc::gen::inRange(0, 2), pw = *rc::gen::inRange(0, 2);
    pr.g.pads = {ph, pw, ph, pw};
    const long long h = std::max<long long>(1, kh - 2 * ph) + *rc::gen::inRange(0, 3);
    const long long w = std::max<long long>(1, kw - 2 * pw) + *rc::gen::inRange(0, 3);
    pr.x = codes({1, h, w, G * cg}, lo, hi), pr.w = codes({O, kh, kw, cg}, -128, 127);
  }
  const bool per_channel = O > 1 && (!pr.fc || u8) && *rc::gen::arbitrary<bool>();
  p.x_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  p.y_zero_point = Int(*rc::gen::inRange(lo + 20, hi - 19));
  p.w_zero_point = Int(u8 ? *rc::gen::inRange(-20, 21) : 0);
  p.x_scale = draw_scale(-10, -3);
  p.w_scales.clear();
  for (long long o = 0; o < (per_channel ? O : 1); ++o) p.w_scales.push_back(draw_scale(-10, -3));
  // About 2^6 output steps for a typical accumulator (2^12 sqrt(K)).
  int log_acc = 12;
  for (long long v = 1; v < K; v *= 4) ++log_acc;
  const int ex = static_cast<int>(((p.x_scale >> 23) & 0xffu)) - 127;
  const int ew = static_cast<int>(((p.w_scales[0] >> 23) & 0xffu)) - 127;
  p.y_scale = draw_scale(ex + ew + log_acc - 6 - 1, ex + ew + log_acc - 6 + 1);
  if (*rc::gen::arbitrary<bool>()) pr.b = codes({O}, -(1 << 14), 1 << 14);
  return pr;
}

IntArray run(const Problem& pr, QLinearConvention c) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  return pr.fc ? qlinear_fully_connected(pr.x, pr.w, b, pr.p, c) : qlinear_conv2d(pr.x, pr.w, b, pr.g, pr.p, c);
}

IntArray accumulate(const Problem& pr) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  if (pr.fc) return qlinear_acc_fully_connected(pr.x, pr.w, b, pr.p.x_zero_point, pr.p.w_zero_point);
  const auto [oh, ow] = qlinear_conv2d_out_size(pr.x.shape, pr.w.shape, pr.g, QLinearConvention::PytorchQnnpack);
  return qlinear_acc_conv2d(pr.x, pr.w, b, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, oh, ow);
}

std::uint32_t w_scale(const QLinearParams& p, std::size_t o) { return p.w_scales[p.w_scales.size() == 1 ? 0 : o]; }

}  // namespace

RC_GTEST_PROP(qlinear_pytorch_qnnpack, IsTheAccumulatorThenTheQnnpackEpilogueOnTheHardware, ()) {
  const Problem pr = draw_problem();
  const IntArray y = run(pr, QLinearConvention::PytorchQnnpack);
  const IntArray acc = accumulate(pr);
  RC_ASSERT(y.shape == acc.shape);
  const auto O = static_cast<std::size_t>(acc.shape.back());
  const bool u8 = pr.p.x_type == DType::U8;
  const long long lo = u8 ? 0 : -128, hi = u8 ? 255 : 127, zp = static_cast<long long>(pr.p.y_zero_point);
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const float ws = V(w_scale(pr.p, i % O)), xs = V(pr.p.x_scale), ys = V(pr.p.y_scale);
    // volatile: each product rounded to binary32 as the engines do (no contraction, no reassociation).
    volatile float s = u8 ? (ws * xs) * (1.0f / ys) : (xs * ws) / ys;
    volatile float v = static_cast<float>(static_cast<long long>(acc.data[i])) * s;
    const long long want = std::clamp<long long>(std::lrintf(v) + zp, lo, hi);
    RC_ASSERT(static_cast<long long>(y.data[i]) == want);
  }
}

RC_GTEST_PROP(qlinear_pytorch_qnnpack, Qint8IsXnnpackFp32, ()) {
  Problem pr = draw_problem();
  RC_PRE(pr.p.x_type == DType::I8);
  RC_ASSERT(run(pr, QLinearConvention::PytorchQnnpack) == run(pr, QLinearConvention::XnnpackFp32));
}

RC_GTEST_PROP(qlinear_pytorch_qnnpack, WithinHalfAStepPlusTheFloatErrorOfTheRealResult, ()) {
  const Problem pr = draw_problem();
  const IntArray y = run(pr, QLinearConvention::PytorchQnnpack);
  const IntArray acc = accumulate(pr);
  const auto O = static_cast<std::size_t>(acc.shape.back());
  const Range r = int_range(pr.p.x_type);
  const Rat u = pow2r(-24), eps = (Rat(1) + u) * (Rat(1) + u) * (Rat(1) + u) * (Rat(1) + u) * (Rat(1) + u) - Rat(1);
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const Rat real =
        Rat(acc.data[i]) * f32_value(pr.p.x_scale) * f32_value(w_scale(pr.p, i % O)) / f32_value(pr.p.y_scale);
    const Rat target = Rat(pr.p.y_zero_point) + real;
    const Rat bound = Rat(1, 2) + eps * abs(real);
    const Int out = y.data[i];
    if (out == r.lo && target < Rat(r.lo)) continue;  // saturated toward the target
    if (out == r.hi && target > Rat(r.hi)) continue;
    RC_ASSERT(abs(Rat(out) - target) <= bound);
  }
}

// One tie per activation type, and what PyTorch rejects.
TEST(qlinear_pytorch_qnnpack, TiesRoundToEvenBeforeTheZeroPointAndQint8WeightsOnly) {
  QLinearParams p;
  p.x_type = DType::U8, p.w_type = DType::I8;
  p.x_zero_point = Int(128), p.y_zero_point = Int(128);
  p.y_scale = 0x40000000u;  // S = 1/2
  const IntArray x({3, 1}, {Int(129), Int(131), Int(127)}), w({1, 1}, {Int(1)});
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::PytorchQnnpack),
            IntArray({3, 1}, {Int(128), Int(130), Int(128)}));
  QLinearParams uw = p;
  uw.w_type = DType::U8;
  EXPECT_THROW(qlinear_fully_connected(x, w, nullptr, uw, QLinearConvention::PytorchQnnpack), ErrorIf);
  QLinearParams pc = p;
  pc.x_type = DType::I8, pc.x_zero_point = Int(0), pc.y_zero_point = Int(0);
  pc.w_scales = {0x3f800000u, 0x3f800000u};
  const IntArray x8({1, 1}, {Int(1)}), w2({2, 1}, {Int(1), Int(1)});
  EXPECT_THROW(qlinear_fully_connected(x8, w2, nullptr, pc, QLinearConvention::PytorchQnnpack), ErrorIf);
  pc.x_type = DType::U8;
  EXPECT_NO_THROW(qlinear_fully_connected(x8, w2, nullptr, pc, QLinearConvention::PytorchQnnpack));
}
