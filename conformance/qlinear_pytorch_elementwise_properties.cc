// Properties of qlinear.mul.pytorch_onednn (spec/operators_qlinear_elementwise.md): PyTorch 1.13's
// quantized::mul / mul_relu, ATen's native qmul_kernel (XNNPACK's multiply for qint8 with z_y < 127).
// - composition identity: the reference equals the kernel's arithmetic transliterated on this
//   machine's binary32 hardware (multiplier = s_a * s_b * (1.0f / s_y), lrintf, + z_y, clamp), on
//   random problems and exhaustively over every (A, B) code pair for fixed parameter sets;
// - error bound against the exact real product: |y - r| <= 1/2 + ((1 + 2^-24)^4 - 1) |r - z_y|
//   unless clamped;
// - the multiplier is a product with fl32(1 / s_y), not a quotient (a case where they differ).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec_rc.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

constexpr QEwConvention kPt = QEwConvention::PytorchOnednn;

// qmul_kernel on this machine's binary32: every step a separate statement (no contraction).
std::int64_t hw_mul(const QEwParams& p, std::int64_t a, std::int64_t b) {
  volatile float sa = std::bit_cast<float>(p.a_scale), sb = std::bit_cast<float>(p.b_scale);
  volatile float sy = std::bit_cast<float>(p.y_scale);
  volatile float inv = 1.0f / sy;
  volatile float sab = sa * sb;
  volatile float m = sab * inv;
  const std::int64_t prod =
      (a - static_cast<std::int64_t>(p.a_zero_point)) * (b - static_cast<std::int64_t>(p.b_zero_point));
  volatile float v = static_cast<float>(prod) * m;
  const std::int64_t y = std::lrintf(v) + static_cast<std::int64_t>(p.y_zero_point);
  const Range r = int_range(p.type);
  const std::int64_t lo = static_cast<std::int64_t>(p.y_min.value_or(r.lo)),
                     hi = static_cast<std::int64_t>(p.y_max.value_or(r.hi));
  const std::int64_t t = std::clamp(y, static_cast<std::int64_t>(r.lo), static_cast<std::int64_t>(r.hi));
  return std::clamp(t, lo, hi);
}

// A positive normal float32 2^e (1 + m 2^-23), often with a short mantissa.
std::uint32_t draw_scale(int emin, int emax) {
  const int e = *rc::gen::inRange(emin, emax + 1);
  const int kind = *rc::gen::inRange(0, 3);
  const auto m = kind == 0   ? 0u
                 : kind == 1 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                             : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

QEwParams draw_params() {
  QEwParams p;
  p.type = p.b_type = *rc::gen::arbitrary<bool>() ? DType::U8 : DType::I8;
  const Range r = int_range(p.type);
  const auto lo = static_cast<long long>(r.lo), hi = static_cast<long long>(r.hi);
  p.a_scale = draw_scale(-10, -2);
  p.b_scale = draw_scale(-10, -2);
  p.y_scale = draw_scale(-16, -4);
  p.a_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  p.b_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  p.y_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  if (*rc::gen::inRange(0, 3) == 0) p.y_min = p.y_zero_point;  // quantized::mul_relu
  return p;
}

IntArray codes(Shape s, const Range& r) {
  IntArray a(std::move(s));
  for (auto& v : a.data) v = Int(*rc::gen::inRange(static_cast<long long>(r.lo), static_cast<long long>(r.hi) + 1));
  return a;
}

// qint8 with z_y < 127 is XNNPACK's multiply (QMul::run): the clause qlinear.mul.xnnpack_fp32,
// rejections included.
RC_GTEST_PROP(qlinear_mul_pytorch_onednn, Qint8BelowZeroPoint127IsXnnpacksMultiply, ()) {
  QEwParams p = draw_params();
  p.type = p.b_type = DType::I8;
  p.y_zero_point = Int(*rc::gen::inRange(-128, 127));
  if (p.y_min) p.y_min = p.y_zero_point;
  RC_ASSERT(qlinear_mul_pytorch_runs_xnnpack(p));
  const IntArray a = codes({2, 6}, int_range(p.type)), b = codes({6}, int_range(p.type));
  bool xnn_rejects = false;
  IntArray want;
  try {
    want = qlinear_elementwise(QEwOp::Mul, a, b, p, QEwConvention::XnnpackFp32);
  } catch (const ErrorIf&) {
    xnn_rejects = true;
  }
  if (xnn_rejects)
    RC_ASSERT_THROWS_AS(qlinear_elementwise(QEwOp::Mul, a, b, p, kPt), ErrorIf);
  else
    RC_ASSERT(qlinear_elementwise(QEwOp::Mul, a, b, p, kPt).data == want.data);
}

RC_GTEST_PROP(qlinear_mul_pytorch_onednn, EqualsItsTransliterationOnTheHardware, ()) {
  QEwParams p = draw_params();
  if (p.type == DType::I8) p.y_zero_point = Int(127);  // ATen's kernel (z_y < 127: XNNPACK's, above)
  const IntArray a = codes({3, 8}, int_range(p.type)), b = codes({8}, int_range(p.type));
  const IntArray y = qlinear_elementwise(QEwOp::Mul, a, b, p, kPt);
  for (std::size_t i = 0; i < y.data.size(); ++i)
    RC_ASSERT(y.data[i] ==
              Int(hw_mul(p, static_cast<std::int64_t>(a.data[i]), static_cast<std::int64_t>(b.data[i % 8]))));
}

RC_GTEST_PROP(qlinear_mul_pytorch_onednn, WithinTheStatedBoundOfTheRealProduct, ()) {
  QEwParams p = draw_params();
  if (p.type == DType::I8) p.y_zero_point = Int(127);  // ATen's kernel (XNNPACK's has its own bound)
  const IntArray a = codes({16}, int_range(p.type)), b = codes({16}, int_range(p.type));
  const IntArray y = qlinear_elementwise(QEwOp::Mul, a, b, p, kPt);
  const Range t = int_range(p.type);
  const Int lo = p.y_min.value_or(t.lo), hi = p.y_max.value_or(t.hi);
  const Rat u = pow2r(-24), k = (1 + u) * (1 + u) * (1 + u) * (1 + u) - 1;
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const Rat real = f32_value(p.a_scale) * Rat(a.data[i] - p.a_zero_point) * f32_value(p.b_scale) *
                     Rat(b.data[i] - p.b_zero_point) / f32_value(p.y_scale);
    const Rat r = Rat(p.y_zero_point) + real, yv(y.data[i]);
    const Rat margin = Rat(1, 2) + k * abs(real);
    if (y.data[i] > lo && y.data[i] < hi) RC_ASSERT(abs(yv - r) <= margin);
    if (y.data[i] == lo) RC_ASSERT(r <= yv + margin);
    if (y.data[i] == hi) RC_ASSERT(r >= yv - margin);
  }
}

// Every (A, B) pair of the dtype for fixed parameter sets: 65,536 outputs each.
TEST(qlinear_mul_pytorch_onednn, EqualsTheHardwareOnEveryCodePair) {
  struct Set {
    DType t;
    std::uint32_t sa, sb, sy;
    int za, zb, zy;
    bool relu;
  };
  const std::vector<Set> sets = {
      {DType::U8, 0x3d4ccccdu /* 0.05 */, 0x3c23d70au /* 0.01 */, 0x3a83126fu /* 0.001 */, 128, 120, 131, false},
      {DType::U8, 0x3c000000u, 0x3c000000u, 0x38e00000u /* 7 * 2^-17 */, 125, 3, 100, true},
      {DType::I8, 0x3b808081u, 0x3c010204u, 0x3d088889u, -3, 5, 127, false},  // z_y = 127: ATen's kernel
  };
  for (const Set& s : sets) {
    QEwParams p;
    p.type = p.b_type = s.t;
    p.a_scale = s.sa, p.b_scale = s.sb, p.y_scale = s.sy;
    p.a_zero_point = Int(s.za), p.b_zero_point = Int(s.zb), p.y_zero_point = Int(s.zy);
    if (s.relu) p.y_min = Int(s.zy);
    const Range r = int_range(s.t);
    IntArray a({256, 1}), b({256});
    for (int i = 0; i < 256; ++i) a.data[static_cast<std::size_t>(i)] = b.data[static_cast<std::size_t>(i)] = r.lo + i;
    const IntArray y = qlinear_elementwise(QEwOp::Mul, a, b, p, kPt);
    int bad = 0;
    for (int i = 0; i < 256; ++i)
      for (int j = 0; j < 256; ++j) {
        const auto A = static_cast<std::int64_t>(r.lo) + i, B = static_cast<std::int64_t>(r.lo) + j;
        bad += y.data[static_cast<std::size_t>(i * 256 + j)] != Int(hw_mul(p, A, B)) ? 1 : 0;
      }
    EXPECT_EQ(bad, 0) << "parameter set with y_scale bits " << s.sy;
  }
}

// s_a s_b = 21/8, s_y = 7: M = fl32(2.625 fl32(1/7)) = 3/8 + 2^-25, so p = 12 gives
// fl32(12 M) = 4.5 + 2^-21 -> 5, where the quotient fl32(2.625 / 7) = 3/8 gives the tie 4.5 -> 4.
TEST(qlinear_mul_pytorch_onednn, TheMultiplierIsAProductWithTheReciprocalNotAQuotient) {
  QEwParams p;
  p.type = p.b_type = DType::U8;
  p.a_scale = 0x40280000u;  // 2.625
  p.b_scale = 0x3f800000u;
  p.y_scale = 0x40e00000u;  // 7
  p.a_zero_point = p.b_zero_point = Int(128);
  p.y_zero_point = Int(129);
  EXPECT_EQ(qlinear_mul_pytorch_onednn_multiplier(p), 0x3ec00001u);  // 3/8 + 2^-25
  const IntArray y = qlinear_elementwise(QEwOp::Mul, IntArray({2}, {131, 125}), IntArray({2}, {132, 132}), p, kPt);
  EXPECT_EQ(y.data[0], Int(129 + 5));
  EXPECT_EQ(y.data[1], Int(129 - 5));
  EXPECT_EQ(qlinear_mul_xnnpack_scale(p), 0x3ec00000u);  // the quotient: 3/8 exactly
}

TEST(qlinear_mul_pytorch_onednn, ZeroPointsOutsideTheDtypeOrAnInvertedClampAreErrors) {
  QEwParams p;
  p.type = p.b_type = DType::U8;
  p.y_zero_point = Int(256);
  EXPECT_THROW(qlinear_mul_pytorch_onednn_multiplier(p), qspec::ref::ErrorIf);
  p.y_zero_point = Int(0);
  p.y_min = Int(10), p.y_max = Int(9);
  EXPECT_THROW(qlinear_mul_pytorch_onednn_multiplier(p), qspec::ref::ErrorIf);
}

}  // namespace
