// Properties of qlinear.add.pytorch_onednn and qlinear.add.pytorch_qnnpack
// (spec/operators_qlinear_pytorch_elementwise.md): PyTorch 1.13's quantized::add / add_relu.
// - composition identity: the reference equals ATen's scalar qadd_kernel transliterated on this
//   machine's binary32 hardware (dequantize_val, float sum, quantize_val), and PyTorch's QNNPACK
//   q8add transliterated in 32-bit integers (its SSE2 kernel's steps), on random problems and on
//   every (A, B) code pair of fixed parameter sets;
// - the qnnpack engine's kernel choice: int8 is qlinear.add.xnnpack_fp32, broadcast uint8 is
//   qlinear.add.pytorch_onednn, uint8 of one shape q8add;
// - error bounds against the exact real sum, unless clamped.
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

constexpr QEwConvention kOnednn = QEwConvention::PytorchOnednn;
constexpr QEwConvention kQnnpack = QEwConvention::PytorchQnnpack;

std::int64_t clamp_out(const QEwParams& p, std::int64_t y) {
  const Range r = int_range(p.type);
  const std::int64_t lo = static_cast<std::int64_t>(p.y_min.value_or(r.lo)),
                     hi = static_cast<std::int64_t>(p.y_max.value_or(r.hi));
  return std::clamp(std::clamp(y, static_cast<std::int64_t>(r.lo), static_cast<std::int64_t>(r.hi)), lo, hi);
}

// ATen's scalar qadd_kernel on this machine's binary32: every step a separate statement.
std::int64_t hw_add(const QEwParams& p, std::int64_t a, std::int64_t b) {
  const double sa = std::bit_cast<float>(p.a_scale), sb = std::bit_cast<float>(p.b_scale);
  volatile float da = static_cast<float>((static_cast<float>(a) - static_cast<float>(static_cast<long long>(p.a_zero_point))) * sa);
  volatile float db = static_cast<float>((static_cast<float>(b) - static_cast<float>(static_cast<long long>(p.b_zero_point))) * sb);
  volatile float c = da + db;
  volatile float inv = 1.0f / std::bit_cast<float>(p.y_scale);
  volatile float v = c * inv;
  return clamp_out(p, static_cast<std::int64_t>(std::nearbyint(v)) + static_cast<std::int64_t>(p.y_zero_point));
}

// PyTorch's QNNPACK q8add in 32-bit integers, as pytorch_qnnp_compute_add_quantization_params and
// the SSE2 kernel compute it (multipliers from the float ratios, wrapping uint32 products).
std::int64_t hw_q8add(const QEwParams& p, std::int64_t a, std::int64_t b) {
  const float ra = std::bit_cast<float>(p.a_scale) / std::bit_cast<float>(p.y_scale);
  const float rb = std::bit_cast<float>(p.b_scale) / std::bit_cast<float>(p.y_scale);
  const float mx = ra > rb ? ra : rb;
  const std::int32_t e = static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(mx) >> 23) - 127;
  const std::uint32_t shift = static_cast<std::uint32_t>(21 - e);
  const float sm = std::bit_cast<float>(static_cast<std::uint32_t>(21 - e + 127) << 23);
  const auto ma = static_cast<std::uint32_t>(static_cast<std::int32_t>(std::lrintf(ra * sm)));
  const auto mb = static_cast<std::uint32_t>(static_cast<std::int32_t>(std::lrintf(rb * sm)));
  const auto zpp = static_cast<std::int32_t>(
      0u - (ma * static_cast<std::uint32_t>(p.a_zero_point) + mb * static_cast<std::uint32_t>(p.b_zero_point)));
  const auto acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(zpp) + static_cast<std::uint32_t>(a) * ma +
                                             static_cast<std::uint32_t>(b) * mb);
  const std::int32_t mask = static_cast<std::int32_t>((1u << shift) - 1u);
  const std::int32_t rem = (acc & mask) - (acc < 0 ? 1 : 0);
  const std::int32_t q = (acc >> shift) + (rem > (mask >> 1) ? 1 : 0);
  return clamp_out(p, static_cast<std::int64_t>(q) + static_cast<std::int64_t>(p.y_zero_point));
}

// A positive normal float32 2^e (1 + m 2^-23), often with a short mantissa.
std::uint32_t draw_scale(int e) {
  const int kind = *rc::gen::inRange(0, 3);
  const auto m = kind == 0   ? 0u
                 : kind == 1 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                             : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

QEwParams draw_params(DType t) {
  QEwParams p;
  p.type = p.b_type = t;
  const Range r = int_range(t);
  const auto lo = static_cast<long long>(r.lo), hi = static_cast<long long>(r.hi);
  const int ea = *rc::gen::inRange(-10, -2);
  p.a_scale = draw_scale(ea);
  p.b_scale = draw_scale(ea + *rc::gen::inRange(-3, 4));
  p.y_scale = draw_scale(ea + *rc::gen::inRange(-2, 4));  // ratios within [2^-9, 2^4]: q8add's range
  p.a_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  p.b_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  p.y_zero_point = Int(*rc::gen::inRange(lo, hi));             // below the maximum: add_relu stays valid
  if (*rc::gen::inRange(0, 3) == 0) p.y_min = p.y_zero_point;  // quantized::add_relu
  return p;
}

IntArray codes(Shape s, const Range& r) {
  IntArray a(std::move(s));
  for (auto& v : a.data) v = Int(*rc::gen::inRange(static_cast<long long>(r.lo), static_cast<long long>(r.hi) + 1));
  return a;
}

DType draw_dtype() { return *rc::gen::arbitrary<bool>() ? DType::U8 : DType::I8; }

RC_GTEST_PROP(qlinear_add_pytorch_onednn, EqualsItsTransliterationOnTheHardware, ()) {
  const QEwParams p = draw_params(draw_dtype());
  const IntArray a = codes({3, 8}, int_range(p.type)), b = codes({8}, int_range(p.type));
  const IntArray y = qlinear_elementwise(QEwOp::Add, a, b, p, kOnednn);
  for (std::size_t i = 0; i < y.data.size(); ++i)
    RC_ASSERT(y.data[i] ==
              Int(hw_add(p, static_cast<std::int64_t>(a.data[i]), static_cast<std::int64_t>(b.data[i % 8]))));
}

RC_GTEST_PROP(qlinear_add_pytorch_qnnpack, EqualsItsTransliterationOnTheHardware, ()) {
  const QEwParams p = draw_params(DType::U8);
  const IntArray a = codes({24}, int_range(p.type)), b = codes({24}, int_range(p.type));
  const IntArray y = qlinear_elementwise(QEwOp::Add, a, b, p, kQnnpack);
  for (std::size_t i = 0; i < y.data.size(); ++i)
    RC_ASSERT(y.data[i] ==
              Int(hw_q8add(p, static_cast<std::int64_t>(a.data[i]), static_cast<std::int64_t>(b.data[i]))));
}

// The real sum r = z_y + (s_a da + s_b db) / s_y, and whether y lies within `margin` of it unless clamped.
void check_bound(const QEwParams& p, const Int& a, const Int& b, const Int& y, const Rat& margin) {
  const Rat real = (f32_value(p.a_scale) * Rat(a - p.a_zero_point) + f32_value(p.b_scale) * Rat(b - p.b_zero_point)) /
                   f32_value(p.y_scale);
  const Range t = int_range(p.type);
  const Int lo = p.y_min.value_or(t.lo), hi = p.y_max.value_or(t.hi);
  const Rat r = Rat(p.y_zero_point) + real, yv(y);
  if (y > lo && y < hi) RC_ASSERT(abs(yv - r) <= margin);
  if (y == lo) RC_ASSERT(r <= yv + margin);
  if (y == hi) RC_ASSERT(r >= yv - margin);
}

RC_GTEST_PROP(qlinear_add_pytorch_onednn, WithinTheStatedBoundOfTheRealSum, ()) {
  const QEwParams p = draw_params(draw_dtype());
  const IntArray a = codes({16}, int_range(p.type)), b = codes({16}, int_range(p.type));
  const IntArray y = qlinear_elementwise(QEwOp::Add, a, b, p, kOnednn);
  const Rat sy = f32_value(p.y_scale);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const Rat da = abs(f32_value(p.a_scale) * Rat(a.data[i] - p.a_zero_point));
    const Rat db = abs(f32_value(p.b_scale) * Rat(b.data[i] - p.b_zero_point));
    const Rat real = (f32_value(p.a_scale) * Rat(a.data[i] - p.a_zero_point) +
                      f32_value(p.b_scale) * Rat(b.data[i] - p.b_zero_point)) /
                     sy;
    check_bound(p, a.data[i], b.data[i], y.data[i], Rat(1, 2) + pow2r(-23) * (da + db) / sy + pow2r(-22) * abs(real));
  }
}

RC_GTEST_PROP(qlinear_add_pytorch_qnnpack, WithinTheStatedBoundOfTheRealSum, ()) {
  const QEwParams p = draw_params(DType::U8);
  const IntArray a = codes({16}, int_range(p.type)), b = codes({16}, int_range(p.type));
  const IntArray y = qlinear_elementwise(QEwOp::Add, a, b, p, kQnnpack);
  const QEwQnnpackAdd k = qlinear_add_pytorch_qnnpack_params(p);
  const Rat two_s = pow2r(k.shift);
  const Rat ea = abs(Rat(k.a_multiplier) - f32_value(k.a_ratio) * two_s) / two_s;
  const Rat eb = abs(Rat(k.b_multiplier) - f32_value(k.b_ratio) * two_s) / two_s;
  RC_ASSERT(ea * two_s <= Rat(1, 2));
  RC_ASSERT(eb * two_s <= Rat(1, 2));
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const Rat da = abs(Rat(a.data[i] - p.a_zero_point)), db = abs(Rat(b.data[i] - p.b_zero_point));
    const Rat margin =
        Rat(1, 2) + da * ea + db * eb + pow2r(-24) * (da * f32_value(k.a_ratio) + db * f32_value(k.b_ratio));
    check_bound(p, a.data[i], b.data[i], y.data[i], margin);
  }
}

// The qnnpack engine's kernel: int8 is XNNPACK's add, uint8 with broadcasting ATen's, and uint8 of
// one shape q8add (which differs from both on exact halves).
RC_GTEST_PROP(qlinear_add_pytorch_qnnpack, ComposesTheOtherClausesOffTheQ8addPath, ()) {
  const DType t = draw_dtype();
  QEwParams p = draw_params(t);
  if (t == DType::I8) {  // XNNPACK's ratio range [2^-10, 2^8) holds for draw_params' scales
    const IntArray a = codes({2, 5}, int_range(t)), b = codes({5}, int_range(t));
    RC_ASSERT(qlinear_elementwise(QEwOp::Add, a, b, p, kQnnpack).data ==
              qlinear_elementwise(QEwOp::Add, a, b, p, QEwConvention::XnnpackFp32).data);
  } else {
    const IntArray a = codes({2, 5}, int_range(t)), b = codes({5}, int_range(t));
    RC_ASSERT(qlinear_elementwise(QEwOp::Add, a, b, p, kQnnpack).data ==
              qlinear_elementwise(QEwOp::Add, a, b, p, kOnednn).data);
  }
}

TEST(qlinear_add_pytorch_qnnpack, PicksTheKernelByDtypeAndShape) {
  EXPECT_EQ(qlinear_add_pytorch_qnnpack_path(DType::I8, {4}, {4}), QEwPytorchQnnpackAddPath::Xnnpack);
  EXPECT_EQ(qlinear_add_pytorch_qnnpack_path(DType::U8, {2, 3}, {2, 3}), QEwPytorchQnnpackAddPath::Q8Add);
  EXPECT_EQ(qlinear_add_pytorch_qnnpack_path(DType::U8, {2, 3}, {3}), QEwPytorchQnnpackAddPath::Aten);
  // d_a / s_y = 1/2 and -1/2 with z_y = 128: ATen rounds half to even (128, 128), q8add half away
  // from zero (129, 127).
  QEwParams p;
  p.type = p.b_type = DType::U8;
  p.a_scale = p.b_scale = 0x3c000000u;  // 2^-7
  p.y_scale = 0x3c800000u;              // 2^-6
  p.a_zero_point = p.b_zero_point = p.y_zero_point = Int(128);
  const IntArray a({2}, std::vector<Int>{129, 127}), b({2}, std::vector<Int>{128, 128});
  EXPECT_EQ(qlinear_elementwise(QEwOp::Add, a, b, p, kOnednn).data, (std::vector<Int>{128, 128}));
  EXPECT_EQ(qlinear_elementwise(QEwOp::Add, a, b, p, kQnnpack).data, (std::vector<Int>{129, 127}));
  EXPECT_EQ(qlinear_elementwise(QEwOp::Add, a, IntArray({1}, std::vector<Int>{128}), p, kQnnpack).data,
            (std::vector<Int>{128, 128}));  // broadcast: ATen's kernel
}

TEST(qlinear_add_pytorch_qnnpack, TheRatioLimitsAndTheEmptyReluRangeAreErrors) {
  QEwParams p;
  p.type = p.b_type = DType::U8;
  p.a_scale = 0x43800000u;  // 256: s_a / s_y = 2^8
  const IntArray a({2}, std::vector<Int>{1, 2});
  EXPECT_THROW(qlinear_elementwise(QEwOp::Add, a, a, p, kQnnpack), ErrorIf);
  EXPECT_NO_THROW(qlinear_elementwise(QEwOp::Add, a, IntArray({1}, std::vector<Int>{1}), p, kQnnpack));  // ATen: no limit
  EXPECT_NO_THROW(qlinear_elementwise(QEwOp::Add, a, a, p, kOnednn));
  p.a_scale = 0x38800000u;  // 2^-14: inside
  EXPECT_NO_THROW(qlinear_elementwise(QEwOp::Add, a, a, p, kQnnpack));
  p.a_scale = 0x38000000u;  // 2^-15
  EXPECT_THROW(qlinear_elementwise(QEwOp::Add, a, a, p, kQnnpack), ErrorIf);
  p.a_scale = 0x3f800000u;
  p.y_zero_point = Int(255);  // add_relu with z_y = 255: [255, 255]
  p.y_min = Int(255);
  EXPECT_THROW(qlinear_elementwise(QEwOp::Add, a, a, p, kQnnpack), ErrorIf);
  EXPECT_NO_THROW(qlinear_elementwise(QEwOp::Add, a, a, p, kOnednn));
}

// Every (A, B) pair of the dtype for fixed parameter sets: 65,536 outputs each.
struct Set {
  DType t;
  std::uint32_t sa, sb, sy;
  int za, zb, zy;
  bool relu;
};

QEwParams params_of(const Set& s) {
  QEwParams p;
  p.type = p.b_type = s.t;
  p.a_scale = s.sa, p.b_scale = s.sb, p.y_scale = s.sy;
  p.a_zero_point = Int(s.za), p.b_zero_point = Int(s.zb), p.y_zero_point = Int(s.zy);
  if (s.relu) p.y_min = Int(s.zy);
  return p;
}

template <class Hw>
int mismatches_on_every_pair(const Set& s, QEwConvention c, Hw hw) {
  const QEwParams p = params_of(s);
  const Range r = int_range(s.t);
  IntArray a({256, 256}), b({256, 256});
  for (int i = 0; i < 256 * 256; ++i) {
    a.data[static_cast<std::size_t>(i)] = r.lo + i / 256;
    b.data[static_cast<std::size_t>(i)] = r.lo + i % 256;
  }
  const IntArray y = qlinear_elementwise(QEwOp::Add, a, b, p, c);
  int bad = 0;
  for (int i = 0; i < 256 * 256; ++i)
    bad += y.data[static_cast<std::size_t>(i)] !=
                   Int(hw(p, static_cast<std::int64_t>(r.lo) + i / 256, static_cast<std::int64_t>(r.lo) + i % 256))
               ? 1
               : 0;
  return bad;
}

TEST(qlinear_add_pytorch_onednn, EqualsTheHardwareOnEveryCodePair) {
  const std::vector<Set> sets = {
      {DType::U8, 0x3d4ccccdu /* 0.05 */, 0x3c23d70au /* 0.01 */, 0x3d888889u /* ~0.0667 */, 128, 120, 131, false},
      {DType::I8, 0x3b808081u, 0x3c010204u, 0x3c000000u, -3, 5, -1, true},
  };
  for (const Set& s : sets) EXPECT_EQ(mismatches_on_every_pair(s, kOnednn, hw_add), 0) << "y_scale bits " << s.sy;
}

TEST(qlinear_add_pytorch_qnnpack, EqualsTheKernelOnEveryCodePair) {
  const std::vector<Set> sets = {
      {DType::U8, 0x3d4ccccdu, 0x3c23d70au, 0x3d888889u, 128, 120, 131, false},
      {DType::U8, 0x3c000000u, 0x3c000000u, 0x3c800000u /* ratios 1/2: ties */, 125, 3, 100, true},
      {DType::U8, 0x3a800000u, 0x3f000000u, 0x3f000000u /* ratios 2^-9, 1 */, 0, 255, 7, false},
  };
  for (const Set& s : sets) EXPECT_EQ(mismatches_on_every_pair(s, kQnnpack, hw_q8add), 0) << "y_scale bits " << s.sy;
}

}  // namespace
