// Properties of qlinear.pytorch_onednn (spec/operators_qlinear_pytorch_onednn.md): PyTorch 1.13's
// quantized::linear and quantized::conv2d under the onednn engine.
// - composition identity: the operator is the shared exact accumulation followed, per element, by
//   the epilogue transliterated on this machine's binary32 / binary64 hardware (ideep's reciprocal
//   scales, M_o = dst / (src * wei); d = fl32(acc) + fl32(b); y = sat(nearbyint(d * M_o + zp)));
// - where every scale is a power of two (the reciprocals exact) it is qlinear.onednn exactly;
// - error bound against the exact real result: |y - (z_y + r)| <= 1/2 + 2^-20 A sigma + 2^-24 |z_y + r|
//   unless saturated.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
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

// A positive normal float32 2^e (1 + m 2^-23), often a power of two or with a short mantissa.
std::uint32_t draw_scale(int emin, int emax, bool pow2) {
  const int e = *rc::gen::inRange(emin, emax + 1);
  const int kind = pow2 ? 0 : *rc::gen::inRange(0, 3);
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

// One problem the convention accepts: quint8 activations, qint8 weights of zero point 0.
struct Problem {
  bool fc = true;
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

Problem draw_problem(bool pow2) {
  Problem pr;
  pr.fc = *rc::gen::arbitrary<bool>();
  auto& p = pr.p;
  p.x_type = DType::U8, p.w_type = DType::I8;
  long long O = 0, K = 0;
  if (pr.fc) {
    const long long N = *rc::gen::inRange(1, 4);
    K = *rc::gen::inRange(1, 20), O = *rc::gen::inRange(1, 5);
    pr.x = codes({N, K}, 0, 255), pr.w = codes({O, K}, -128, 127);
  } else {
    const long long G = *rc::gen::inRange(1, 3), cg = *rc::gen::inRange(1, 3), og = *rc::gen::inRange(1, 3);
    const long long kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
    O = G * og, K = kh * kw * cg;
    pr.g.groups = G;
    pr.g.strides = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    pr.g.dilations = {*rc::gen::inRange(1, 3), 1};
    const long long ph = *rc::gen::inRange(0, 2), pw = *rc::gen::inRange(0, 2);
    pr.g.pads = {ph, pw, ph, pw};
    const long long h = std::max<long long>(1, pr.g.dilations[0] * (kh - 1) + 1 - 2 * ph) + *rc::gen::inRange(0, 3);
    const long long w = std::max<long long>(1, kw - 2 * pw) + *rc::gen::inRange(0, 3);
    pr.x = codes({1, h, w, G * cg}, 0, 255), pr.w = codes({O, kh, kw, cg}, -128, 127);
  }
  const bool per_channel = O > 1 && *rc::gen::arbitrary<bool>();
  p.x_zero_point = Int(*rc::gen::inRange(0, 256));
  p.y_zero_point = Int(*rc::gen::inRange(20, 236));
  p.x_scale = draw_scale(-10, -3, pow2);
  p.w_scales.clear();
  for (long long o = 0; o < (per_channel ? O : 1); ++o) p.w_scales.push_back(draw_scale(-10, -3, pow2));
  int log_acc = 12;  // about 2^6 output steps for a typical accumulator (2^12 sqrt(K))
  for (long long v = 1; v < K; v *= 4) ++log_acc;
  const int ex = static_cast<int>(((p.x_scale >> 23) & 0xffu)) - 127;
  const int ew = static_cast<int>(((p.w_scales[0] >> 23) & 0xffu)) - 127;
  p.y_scale = draw_scale(ex + ew + log_acc - 6 - 1, ex + ew + log_acc - 6 + 1, pow2);
  if (*rc::gen::arbitrary<bool>()) pr.b = codes({O}, -(1 << 14), 1 << 14);
  return pr;
}

IntArray run(const Problem& pr, QLinearConvention c) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  return pr.fc ? qlinear_fully_connected(pr.x, pr.w, b, pr.p, c) : qlinear_conv2d(pr.x, pr.w, b, pr.g, pr.p, c);
}

// The accumulator without the bias (oneDNN adds the bias in float).
IntArray accumulate(const Problem& pr) {
  if (pr.fc) return qlinear_acc_fully_connected(pr.x, pr.w, nullptr, pr.p.x_zero_point, pr.p.w_zero_point);
  const auto [oh, ow] = qlinear_conv2d_out_size(pr.x.shape, pr.w.shape, pr.g, QLinearConvention::PytorchOnednn);
  return qlinear_acc_conv2d(pr.x, pr.w, nullptr, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, oh, ow);
}

std::uint32_t w_scale(const QLinearParams& p, std::size_t o) { return p.w_scales[p.w_scales.size() == 1 ? 0 : o]; }

// ideep's reciprocal scale: 1.0 / q_scale() in double, stored as float.
float reciprocal(float s) { return static_cast<float>(1.0 / static_cast<double>(s)); }

}  // namespace

RC_GTEST_PROP(qlinear_pytorch_onednn, IsTheAccumulatorThenOnednnsEpilogueWithReciprocalScalesOnTheHardware, ()) {
  const Problem pr = draw_problem(false);
  const IntArray y = run(pr, QLinearConvention::PytorchOnednn);
  const IntArray acc = accumulate(pr);
  RC_ASSERT(y.shape == acc.shape);
  const auto O = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % O;
    // volatile: each step rounded to binary32 as the engine does (no contraction, no reassociation).
    volatile float c = reciprocal(V(pr.p.x_scale)) * reciprocal(V(w_scale(pr.p, o)));
    volatile float m = reciprocal(V(pr.p.y_scale)) / c;
    volatile float d = static_cast<float>(static_cast<long long>(acc.data[i]));
    if (pr.b) d = d + static_cast<float>(static_cast<long long>(pr.b->data[o]));
    volatile float v = d * m;
    v = v + static_cast<float>(static_cast<long long>(pr.p.y_zero_point));
    const float sat = std::clamp(static_cast<float>(v), 0.0f, 255.0f);
    RC_ASSERT(static_cast<long long>(y.data[i]) == static_cast<long long>(std::nearbyint(sat)));
  }
}

RC_GTEST_PROP(qlinear_pytorch_onednn, WithPowerOfTwoScalesIsQlinearOnednn, ()) {
  const Problem pr = draw_problem(true);
  RC_ASSERT(run(pr, QLinearConvention::PytorchOnednn) == run(pr, QLinearConvention::Onednn));
}

RC_GTEST_PROP(qlinear_pytorch_onednn, WithinHalfAStepPlusTheFloatErrorOfTheRealResult, ()) {
  const Problem pr = draw_problem(false);
  const IntArray y = run(pr, QLinearConvention::PytorchOnednn);
  const IntArray acc = accumulate(pr);
  const auto O = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % O;
    const Int b = pr.b ? pr.b->data[o] : Int(0);
    const Rat sigma = f32_value(pr.p.x_scale) * f32_value(w_scale(pr.p, o)) / f32_value(pr.p.y_scale);
    const Rat real = Rat(acc.data[i] + b) * sigma, target = Rat(pr.p.y_zero_point) + real;
    const Rat bound = Rat(1, 2) + pow2r(-20) * Rat(abs(acc.data[i]) + abs(b)) * sigma + pow2r(-24) * abs(target);
    const Int out = y.data[i];
    if (out == Int(0) && target < Rat(0)) continue;  // saturated toward the target
    if (out == Int(255) && target > Rat(255)) continue;
    RC_ASSERT(abs(Rat(out) - target) <= bound);
  }
}

// The zero point before rounding, the reciprocal derivation, and what the engine rejects.
TEST(qlinear_pytorch_onednn, TiesRoundAfterTheZeroPointAndQuint8ActivationsOnly) {
  QLinearParams p;
  p.x_type = DType::U8, p.w_type = DType::I8;
  p.x_zero_point = Int(128), p.y_zero_point = Int(3);
  p.y_scale = 0x40000000u;  // M = 1/2
  const IntArray x({4, 1}, {Int(129), Int(131), Int(127), Int(125)}), w({1, 1}, {Int(1)});
  // 0.5 1.5 -0.5 -1.5 + 3 = 3.5 4.5 2.5 1.5: half to even after the zero point (qnnpack: 3 5 3 1).
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::PytorchOnednn),
            IntArray({4, 1}, {Int(4), Int(4), Int(2), Int(2)}));
  // The reciprocal derivation: x_s = fl32(0.1), w_s = 1, y_s = 7 give M = fl32(fl32(1 / 7) / fl32(1 / 0.1f))
  // = 0.0142857153, one ulp above fl32(fl32(0.1f * 1) / 7) = 0.0142857144: acc 35 gives 0.50000006 -> 1
  // (zero point 0), where the quotient derivation gives the tie 0.5 -> 0.
  QLinearParams q = p;
  q.x_zero_point = Int(0), q.y_zero_point = Int(0);
  q.x_scale = 0x3dcccccdu, q.y_scale = 0x40e00000u;
  EXPECT_EQ(qlinear_fully_connected(IntArray({1, 1}, {Int(35)}), w, nullptr, q, QLinearConvention::PytorchOnednn),
            IntArray({1, 1}, {Int(1)}));
  EXPECT_EQ(qlinear_fully_connected(IntArray({1, 1}, {Int(35)}), w, nullptr, q, QLinearConvention::Onednn),
            IntArray({1, 1}, {Int(0)}));
  QLinearParams i8 = p;
  i8.x_type = DType::I8;
  EXPECT_THROW(qlinear_fully_connected(x, w, nullptr, i8, QLinearConvention::PytorchOnednn), ErrorIf);
  QLinearParams wzp = p;
  wzp.w_zero_point = Int(1);
  EXPECT_THROW(qlinear_fully_connected(x, w, nullptr, wzp, QLinearConvention::PytorchOnednn), ErrorIf);
  QLinearParams zx = p;
  zx.x_zero_point = Int(256);
  EXPECT_THROW(qlinear_fully_connected(x, w, nullptr, zx, QLinearConvention::PytorchOnednn), ErrorIf);
}
