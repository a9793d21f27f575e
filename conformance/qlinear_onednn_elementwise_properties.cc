// Properties of qlinear.add.onednn and qlinear.mul.onednn (spec/operators_qlinear_onednn_binary.md):
// oneDNN 2.6's s8/u8 binary_add / binary_mul as a user maps the operator onto it.
// - composition identity: the reference equals the primitive's float sequence transliterated on
//   this machine's binary32 hardware (source scales, vmulps, vaddps / vmulps, + z_y in float,
//   clip, saturate, rne), on random problems and exhaustively over every (A, B) code pair for
//   fixed parameter sets;
// - error bound against the exact real result (the clause's "Error bounds") unless clamped;
// - the output zero point is added in float before the rounding (a case where that differs from
//   rounding first), and the rejections of source zero points and of more than 12 axes.
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

constexpr QEwConvention kDnn = QEwConvention::Onednn;

// The primitive on this machine's binary32: every step a separate statement (no contraction).
std::int64_t hw(QEwOp op, const QEwParams& p, std::int64_t a, std::int64_t b) {
  volatile float sa = std::bit_cast<float>(p.a_scale), sb = std::bit_cast<float>(p.b_scale);
  volatile float sy = std::bit_cast<float>(p.y_scale);
  volatile float s0, s1 = 1.0f;
  if (op == QEwOp::Add) {
    s0 = sa / sy;
    s1 = sb / sy;
  } else {
    volatile float ab = sa * sb;
    s0 = ab / sy;
  }
  volatile float x = static_cast<float>(a) * s0;
  volatile float y = static_cast<float>(b) * s1;
  volatile float v = op == QEwOp::Add ? x + y : x * y;
  volatile float w = v + static_cast<float>(static_cast<std::int64_t>(p.y_zero_point));
  const Range r = int_range(p.type);
  const auto lo = static_cast<float>(static_cast<std::int64_t>(p.y_min.value_or(r.lo)));
  const auto hi = static_cast<float>(static_cast<std::int64_t>(p.y_max.value_or(r.hi)));
  return static_cast<std::int64_t>(std::nearbyint(std::min(std::max(static_cast<float>(w), lo), hi)));
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

QEwParams draw_params(QEwOp op) {
  QEwParams p;
  p.type = p.b_type = *rc::gen::arbitrary<bool>() ? DType::U8 : DType::I8;
  const Range r = int_range(p.type);
  const auto lo = static_cast<long long>(r.lo), hi = static_cast<long long>(r.hi);
  p.a_scale = draw_scale(-10, -2);
  p.b_scale = draw_scale(-10, -2);
  p.y_scale = op == QEwOp::Add ? draw_scale(-10, -2) : draw_scale(-16, -4);
  p.y_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  if (*rc::gen::inRange(0, 3) == 0) {
    const long long a = *rc::gen::inRange(lo, hi + 1);
    const long long b = *rc::gen::inRange(a, hi + 1);
    p.y_min = Int(a);
    p.y_max = Int(b);
  }
  return p;
}

// A one-element tensor of `rank` unit axes holding v.
IntArray one(long long v, std::size_t rank = 1) { return IntArray(Shape(rank, 1), std::vector<Int>{Int(v)}); }

IntArray codes(Shape s, const Range& r) {
  IntArray a(std::move(s));
  for (auto& v : a.data) v = Int(*rc::gen::inRange(static_cast<long long>(r.lo), static_cast<long long>(r.hi) + 1));
  return a;
}

void transliteration(QEwOp op) {
  const QEwParams p = draw_params(op);
  const IntArray a = codes({3, 8}, int_range(p.type)), b = codes({8}, int_range(p.type));
  const IntArray y = qlinear_elementwise(op, a, b, p, kDnn);
  for (std::size_t i = 0; i < y.data.size(); ++i)
    RC_ASSERT(y.data[i] ==
              Int(hw(op, p, static_cast<std::int64_t>(a.data[i]), static_cast<std::int64_t>(b.data[i % 8]))));
}

RC_GTEST_PROP(qlinear_add_onednn, EqualsItsTransliterationOnTheHardware, ()) { transliteration(QEwOp::Add); }
RC_GTEST_PROP(qlinear_mul_onednn, EqualsItsTransliterationOnTheHardware, ()) { transliteration(QEwOp::Mul); }

// |y - R| <= 1/2 + e + u (|R| + e) unclamped, e = ((1+u)^3 - 1)(|A| s_a + |B| s_b) / s_y (add) or
// ((1+u)^4 - 1) |X| (mul); R = z_y + X the exact result in output steps.
void bound(QEwOp op) {
  const QEwParams p = draw_params(op);
  const IntArray a = codes({16}, int_range(p.type)), b = codes({16}, int_range(p.type));
  const IntArray y = qlinear_elementwise(op, a, b, p, kDnn);
  const Range t = int_range(p.type);
  const Int lo = p.y_min.value_or(t.lo), hi = p.y_max.value_or(t.hi);
  const Rat u = pow2r(-24), sa = f32_value(p.a_scale), sb = f32_value(p.b_scale), sy = f32_value(p.y_scale);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const Rat A(a.data[i]), B(b.data[i]);
    const Rat x = op == QEwOp::Add ? (sa * A + sb * B) / sy : sa * sb * A * B / sy;
    const Rat e = op == QEwOp::Add ? ((1 + u) * (1 + u) * (1 + u) - 1) * (sa * abs(A) + sb * abs(B)) / sy
                                   : ((1 + u) * (1 + u) * (1 + u) * (1 + u) - 1) * abs(x);
    const Rat r = Rat(p.y_zero_point) + x, yv(y.data[i]);
    const Rat margin = Rat(1, 2) + e + u * (abs(r) + e);
    if (y.data[i] > lo && y.data[i] < hi) RC_ASSERT(abs(yv - r) <= margin);
    if (y.data[i] == lo && lo < hi) RC_ASSERT(r <= yv + margin);
    if (y.data[i] == hi && lo < hi) RC_ASSERT(r >= yv - margin);
  }
}

RC_GTEST_PROP(qlinear_add_onednn, WithinTheStatedBoundOfTheRealSum, ()) { bound(QEwOp::Add); }
RC_GTEST_PROP(qlinear_mul_onednn, WithinTheStatedBoundOfTheRealProduct, ()) { bound(QEwOp::Mul); }

// Every (A, B) pair of the dtype for a fixed parameter set: 65,536 outputs (about 1.5 s: one set per
// op, uint8 for add and int8 with a clamp for mul; the transliteration properties draw the rest).
void every_pair(QEwOp op, DType t) {
  QEwParams p;
  p.type = p.b_type = t;
  if (t == DType::U8) {  // add: 0.05 / 0.07 and 0.01 / 0.07; mul: 0.05 * 0.01 / 0.001
    p.a_scale = 0x3d4ccccdu, p.b_scale = 0x3c23d70au, p.y_scale = op == QEwOp::Add ? 0x3d8f5c29u : 0x3a83126fu;
    p.y_zero_point = Int(3);
  } else {  // inexact ratios near 1/255, 1/127, with a narrowed clamp
    p.a_scale = 0x3b808081u, p.b_scale = 0x3c010204u, p.y_scale = op == QEwOp::Add ? 0x3c088889u : 0x3a088889u;
    p.y_zero_point = Int(-7);
    p.y_min = Int(-100), p.y_max = Int(90);
  }
  const Range r = int_range(t);
  IntArray a({256, 1}), b({256});
  for (int i = 0; i < 256; ++i) a.data[static_cast<std::size_t>(i)] = b.data[static_cast<std::size_t>(i)] = r.lo + i;
  const IntArray y = qlinear_elementwise(op, a, b, p, kDnn);
  int bad = 0;
  for (int i = 0; i < 256; ++i)
    for (int j = 0; j < 256; ++j) {
      const auto A = static_cast<std::int64_t>(r.lo) + i, B = static_cast<std::int64_t>(r.lo) + j;
      bad += y.data[static_cast<std::size_t>(i * 256 + j)] != Int(hw(op, p, A, B)) ? 1 : 0;
    }
  EXPECT_EQ(bad, 0);
}

TEST(qlinear_add_onednn, EqualsTheHardwareOnEveryCodePair) { every_pair(QEwOp::Add, DType::U8); }
TEST(qlinear_mul_onednn, EqualsTheHardwareOnEveryCodePair) { every_pair(QEwOp::Mul, DType::I8); }

// s0 = 1/2 + 2^-24, A = 1, z_y = 100: v = 1/2 + 2^-24 (rne 1, so round-then-add gives 101), but
// fl32(v + 100) = 100.5 rounds to even: 100.
TEST(qlinear_add_onednn, TheOutputZeroPointIsAddedInFloatBeforeTheRounding) {
  for (QEwOp op : {QEwOp::Add, QEwOp::Mul}) {
    QEwParams p;
    p.type = p.b_type = DType::I8;
    p.a_scale = 0x3f000001u;
    p.y_zero_point = Int(100);
    const IntArray y = qlinear_elementwise(op, one(1), one(op == QEwOp::Add ? 0 : 1), p, kDnn);
    EXPECT_EQ(y.data[0], Int(100));
    p.y_zero_point = Int(0);
    const IntArray y0 = qlinear_elementwise(op, one(1), one(op == QEwOp::Add ? 0 : 1), p, kDnn);
    EXPECT_EQ(y0.data[0], Int(1));
  }
}

TEST(qlinear_mul_onednn, SourceZeroPointsAndMoreThanTwelveAxesAreErrors) {
  for (QEwOp op : {QEwOp::Add, QEwOp::Mul}) {
    QEwParams p;
    p.type = p.b_type = DType::U8;
    p.a_zero_point = Int(128);
    EXPECT_THROW(qlinear_elementwise(op, one(1), one(1), p, kDnn), qspec::ref::ErrorIf);
    p.a_zero_point = Int(0), p.b_zero_point = Int(1);
    EXPECT_THROW(qlinear_elementwise(op, one(1), one(1), p, kDnn), qspec::ref::ErrorIf);
    p.b_zero_point = Int(0);
    EXPECT_THROW(qlinear_elementwise(op, one(1, 13), one(1), p, kDnn), qspec::ref::ErrorIf);
    EXPECT_NO_THROW(qlinear_elementwise(op, one(1, 12), one(1), p, kDnn));
    p.y_min = Int(10), p.y_max = Int(9);
    EXPECT_THROW(qlinear_elementwise(op, one(1), one(1), p, kDnn), qspec::ref::ErrorIf);
  }
}

}  // namespace
