// Properties of the engines' quantized leaky ReLU tables (spec/operators_qlinear_pool.md):
// - every entry of the reference table (all 256 codes) equals the engine's table loop
//   transliterated in native C++ on this machine's binary32 hardware;
// - every entry is within the stated bound of the exact leaky ReLU of the real input.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_lut.h"
#include "qspec_rc.h"

using namespace qspec::ref;
using namespace qspec::ref::ops;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

struct Case {
  QPoolParams p;
  std::uint32_t alpha = 0;
};

std::uint32_t draw_scale(int e) {
  const auto m = *rc::gen::inRange(0, 2) == 0 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                                              : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

Case draw(QLutConvention c) {
  Case k;
  const bool xnn = c == QLutConvention::XnnpackFp32;
  k.p.type = xnn || *rc::gen::arbitrary<bool>() ? DType::U8 : DType::I8;
  const int lo = k.p.type == DType::I8 ? -128 : 0;
  k.p.x_zero_point = Int(*rc::gen::inRange(lo, lo + 256));
  k.p.y_zero_point = Int(*rc::gen::inRange(lo, lo + 256));
  const int ey = *rc::gen::inRange(-10, 0);
  k.p.y_scale = draw_scale(ey);
  k.p.x_scale = draw_scale(ey + *rc::gen::inRange(-5, 5));
  k.alpha = draw_scale(*rc::gen::inRange(-8, 0));  // (0, 1]: 2^0 only with a zero mantissa
  if (V(k.alpha) > 1.0f) k.alpha = 0x3f800000u;
  if (!xnn && *rc::gen::arbitrary<bool>()) k.alpha |= 0x80000000u;  // ONNX Runtime: any sign
  if (xnn && *rc::gen::inRange(0, 3) == 0) {
    const int a = *rc::gen::inRange(0, 255);
    k.p.y_min = Int(a);
    k.p.y_max = Int(*rc::gen::inRange(a + 1, 256));
  }
  return k;
}

// The engines' table loops (lut-elementwise-nc.c; QlinearBuildLookupTable + MlasQuantizeLinear).
int hardware_entry(const Case& k, int code, QLutConvention c) {
  const int zx = static_cast<int>(k.p.x_zero_point), zy = static_cast<int>(k.p.y_zero_point);
  const int lo = k.p.type == DType::I8 ? -128 : 0, hi = lo + 255;
  if (c == QLutConvention::XnnpackFp32) {
    volatile float inv = 1.0f / V(k.p.y_scale);
    volatile float d = static_cast<float>(code - zx) * V(k.p.x_scale);
    volatile float f = std::signbit(static_cast<float>(d)) ? d * V(k.alpha) : d;
    volatile float q = f * inv;
    const long v = std::lrintf(q) + zy;
    return static_cast<int>(std::clamp<long>(v, static_cast<long>(k.p.y_min.value_or(Int(lo))),
                                             static_cast<long>(k.p.y_max.value_or(Int(hi)))));
  }
  volatile float d = V(k.p.x_scale) * static_cast<float>(code - zx);
  volatile float f = d >= 0.0f ? d : V(k.alpha) * d;
  volatile float v = f / V(k.p.y_scale);
  const float cl = std::min(std::max(static_cast<float>(v), static_cast<float>(lo - zy)), static_cast<float>(hi - zy));
  return static_cast<int>(std::nearbyint(cl)) + zy;
}

void check_table(QLutConvention c) {
  const Case k = draw(c);
  const auto table = qlinear_leaky_relu_table(k.alpha, k.p, c);
  const int lo = k.p.type == DType::I8 ? -128 : 0;
  for (int i = 0; i < 256; ++i) RC_ASSERT(table[static_cast<std::size_t>(i)] == Int(hardware_entry(k, lo + i, c)));
}

void check_bound(QLutConvention c) {
  const Case k = draw(c);
  const auto table = qlinear_leaky_relu_table(k.alpha, k.p, c);
  const int lo = k.p.type == DType::I8 ? -128 : 0;
  const Int ylo = k.p.y_min.value_or(Int(lo)), yhi = k.p.y_max.value_or(Int(lo + 255));
  const Rat u = pow2r(-24);
  const Rat rel =
      c == QLutConvention::XnnpackFp32 ? (1 + u) * (1 + u) * (1 + u) * (1 + u) - 1 : (1 + u) * (1 + u) * (1 + u) - 1;
  for (int i = 0; i < 256; ++i) {
    const Rat real = f32_value(k.p.x_scale) * Rat(Int(lo + i) - k.p.x_zero_point);
    const Rat f = real >= 0 ? real : f32_value(k.alpha) * real;
    const Rat target = Rat(k.p.y_zero_point) + f / f32_value(k.p.y_scale);
    const Rat bound = Rat(1, 2) + rel * abs(f / f32_value(k.p.y_scale));
    const Int y = table[static_cast<std::size_t>(i)];
    if (y == ylo && target < Rat(ylo)) continue;  // clamped low
    if (y == yhi && target > Rat(yhi)) continue;  // clamped high
    RC_ASSERT(abs(Rat(y) - target) <= bound);
  }
}

}  // namespace

RC_GTEST_PROP(qlinear_leaky_relu_xnnpack_fp32, TableIsTheLutLoopOnTheHardware, ()) {
  check_table(QLutConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_leaky_relu_onnxruntime, TableIsTheLookupBuilderOnTheHardware, ()) {
  check_table(QLutConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_leaky_relu_xnnpack_fp32, TableWithinTheStatedBoundOfTheExactEntry, ()) {
  check_bound(QLutConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_leaky_relu_onnxruntime, TableWithinTheStatedBoundOfTheExactEntry, ()) {
  check_bound(QLutConvention::OnnxRuntime);
}

// The two engines differ on ties: with y_s = 7 and x_s = 7/2, (i - z_x) x_s / y_s = i/2 exactly
// under ONNX Runtime's division, while XNNPACK's fl32(1/7) makes the product miss the half-integer:
// 39 of the 256 codes (the first is 13) round to another integer.
TEST(qlinear_leaky_relu_onnxruntime, DivisionAndReciprocalTablesDiffer) {
  QPoolParams p;
  p.type = DType::U8;
  p.x_scale = 0x40600000u;  // 3.5
  p.y_scale = 0x40e00000u;  // 7
  p.x_zero_point = Int(0);
  p.y_zero_point = Int(0);
  const auto xnn = qlinear_leaky_relu_table(0x3f000000u, p, QLutConvention::XnnpackFp32);
  const auto ort = qlinear_leaky_relu_table(0x3f000000u, p, QLutConvention::OnnxRuntime);
  int differ = 0;
  for (std::size_t i = 0; i < 256; ++i) differ += xnn[i] != ort[i] ? 1 : 0;
  EXPECT_EQ(differ, 39);
  EXPECT_NE(xnn[13], ort[13]);
}
