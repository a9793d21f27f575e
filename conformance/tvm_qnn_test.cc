// Hand-derived tables for TVM QNN quantize / dequantize / requantize (spec/tvm_qnn.md).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/tvm_qnn.h"

using namespace qspec::ref;

namespace {
std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
float V(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint64_t D(double d) { return std::bit_cast<std::uint64_t>(d); }
const Int kTwo30 = pow2(30);
}  // namespace

// x / 0.5 = 2x exactly; llvm.round rounds ties away from zero: +-0.5 -> +-1, +-2.5 -> +-3.
TEST(tvm_quantize, TiesAwayFromZero) {
  const float xs[6] = {0.25f, -0.25f, 0.75f, -0.75f, 1.25f, -1.25f};
  const int expect[6] = {1, -1, 2, -2, 3, -3};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(tvm_quantize(F(xs[i]), F(0.5f), Int(0), DType::I8), expect[i]) << xs[i];
  // The zero point is added after the rounding: 2.5 -> 3, + 1 = 4 (not rne(3.5)).
  EXPECT_EQ(tvm_quantize(F(1.25f), F(0.5f), Int(1), DType::I8), 4);
}
TEST(tvm_quantize, SaturationAndTypes) {
  EXPECT_EQ(tvm_quantize(F(1000.0f), F(1.0f), Int(0), DType::I8), 127);
  EXPECT_EQ(tvm_quantize(F(-1000.0f), F(1.0f), Int(0), DType::I8), -128);
  EXPECT_EQ(tvm_quantize(F(-5.0f), F(1.0f), Int(0), DType::U8), 0);
  EXPECT_EQ(tvm_quantize(F(1e6f), F(1.0f), Int(0), DType::I16), 32767);
  EXPECT_EQ(tvm_quantize(F(1e6f), F(1.0f), Int(0), DType::U16), 65535);
  EXPECT_EQ(tvm_quantize(F(-3e9f), F(1.0f), Int(0), DType::I32), -2147483647 - 1);  // fl32(-2^31) fits
  // 3e38 / 2^-10 overflows to +inf; inf + zp = inf; the clip gives 127.
  EXPECT_EQ(tvm_quantize(F(3e38f), F(0x1p-10f), Int(0), DType::I8), 127);
  EXPECT_THROW(tvm_quantize(F(1.0f), F(1.0f), Int(0), DType::I64), ErrorIf);
}
// E-TVM-3: the clip bound for int32 is fl32(2^31 - 1) = 2^31, which does not convert to int32.
TEST(tvm_quantize, Int32UpperSaturationIsUndefined) {
  EXPECT_THROW(tvm_quantize(F(3e9f), F(1.0f), Int(0), DType::I32), RequireViolated);
  // 2147483520 = 2^31 - 128 is the largest float32 below 2^31: it converts.
  EXPECT_EQ(tvm_quantize(F(2147483520.0f), F(1.0f), Int(0), DType::I32), 2147483520);
}
// E-TVM-1: constant folding of tir.round uses std::nearbyint (ties to even) while the compiled
// kernel uses llvm.round (ties away): the same tie 2.5 quantizes to 3 at run time, 2 if folded.
TEST(tvm_quantize, ConstantFoldingRoundsTiesDifferently) {
  const std::uint32_t x = F(1.25f), s = F(0.5f);
  EXPECT_EQ(tvm_quantize(x, s, Int(0), DType::I8), 3);
  EXPECT_EQ(exact_quantize(x, s, Int(0), DType::I8, Rounding::HalfEven), 2);
}

TEST(tvm_dequantize, HandTable) {
  EXPECT_EQ(V(tvm_dequantize(Int(10), DType::I8, Int(3), F(0.25f))), 1.75f);
  EXPECT_EQ(V(tvm_dequantize(Int(0), DType::U8, Int(128), F(0.5f))), -64.0f);
  EXPECT_EQ(tvm_dequantize(Int(7), DType::I32, Int(7), F(3.0f)), F(0.0f));
  EXPECT_THROW(tvm_dequantize(Int(1), DType::I64, Int(0), F(1.0f)), ErrorIf);
  EXPECT_THROW(tvm_dequantize(Int(-2147483647 - 1), DType::I32, Int(1), F(1.0f)), RequireViolated);
}

TEST(tvm_requantize_multiplier, HandTable) {
  // 0.5 = 0.5 * 2^0 -> M = 2^30, s = 0.
  auto fp = tvm_fixed_point_multiplier_shift(tvm_double_multiplier(F(1.0f), F(2.0f)));
  EXPECT_EQ(fp.multiplier, kTwo30);
  EXPECT_EQ(fp.shift, 0);
  // 1/3 in double: 0x3FD5555555555555 = 6004799503160661 * 2^-54 = f * 2^-1 with
  // f * 2^31 = 6004799503160661 / 2^22 = 1431655765.33... -> 1431655765.
  fp = tvm_fixed_point_multiplier_shift(tvm_double_multiplier(F(1.0f), F(3.0f)));
  EXPECT_EQ(fp.multiplier, Int(1431655765));
  EXPECT_EQ(fp.shift, -1);
  // 3 = 0.75 * 2^2 -> M = 0.75 * 2^31 = 1610612736, s = 2.
  fp = tvm_fixed_point_multiplier_shift(tvm_double_multiplier(F(3.0f), F(1.0f)));
  EXPECT_EQ(fp.multiplier, Int(1610612736));
  EXPECT_EQ(fp.shift, 2);
  // The carry: d = 1 - 2^-40 has f = d, f * 2^31 = 2^31 - 2^-9 -> rounds to 2^31 -> (2^30, 1).
  fp = tvm_fixed_point_multiplier_shift(D(1.0 - 0x1p-40));
  EXPECT_EQ(fp.multiplier, kTwo30);
  EXPECT_EQ(fp.shift, 1);
  // Zero.
  fp = tvm_fixed_point_multiplier_shift(D(0.0));
  EXPECT_EQ(fp.multiplier, 0);
  EXPECT_EQ(fp.shift, 0);
}

TEST(tvm_fixed_point_multiply, PowerOfTwoBranch) {
  // M = 2^30, s = 0: the multiplier 2^-1. (x + 1) >> 1 = half_up(x / 2).
  EXPECT_EQ(tvm_fixed_point_multiply(Int(5), kTwo30, 0), 3);    // 2.5 -> 3
  EXPECT_EQ(tvm_fixed_point_multiply(Int(-5), kTwo30, 0), -2);  // -2.5 -> -2 (ties up)
  EXPECT_EQ(tvm_fixed_point_multiply(Int(-6), kTwo30, 0), -3);
  EXPECT_EQ(tvm_fixed_point_multiply(Int(7), kTwo30, -1), 2);  // 7 / 4 = 1.75 -> 2
  // s = 3: 2^2 -> x << 2.
  EXPECT_EQ(tvm_fixed_point_multiply(Int(3), kTwo30, 3), 12);
  EXPECT_EQ(tvm_fixed_point_multiply(Int(-3), kTwo30, 3), -12);
  // A multiplier of exactly 1 (M = 2^30, s = 1) shifts by -1: undefined.
  EXPECT_THROW(tvm_fixed_point_multiply(Int(3), kTwo30, 1), RequireViolated);
  // The int32 rounding add overflows for x = INT32_MAX (E-TVM-2); the int64 branch does not.
  EXPECT_THROW(tvm_fixed_point_multiply(Int(2147483647), kTwo30, 0), RequireViolated);
  EXPECT_EQ(tvm_fixed_point_multiply(Int(2147483647), kTwo30, 0, /*power_of_two_path=*/false), Int(1073741824));
}
TEST(tvm_fixed_point_multiply, Int64Branch) {
  const Int m075(1610612736);                                   // 0.75 * 2^31
  EXPECT_EQ(tvm_fixed_point_multiply(Int(3), m075, 0), 2);      // 2.25 -> 2
  EXPECT_EQ(tvm_fixed_point_multiply(Int(2), m075, 0), 2);      // 1.5 -> 2
  EXPECT_EQ(tvm_fixed_point_multiply(Int(-2), m075, 0), -1);    // -1.5 -> -1 (ties up)
  EXPECT_EQ(tvm_fixed_point_multiply(Int(3), m075, 2), 9);      // 3 * 0.75 * 4
  EXPECT_EQ(tvm_fixed_point_multiply(Int(-10), m075, -2), -2);  // -10 * 0.1875 = -1.875 -> -2
  // (2^31 - 1)^2 / 2^31 = 2^31 - 2 + 2^-31 -> 2147483646.
  EXPECT_EQ(tvm_fixed_point_multiply(Int(2147483647), Int(2147483647), 0), Int(2147483646));
  // -2^31 * (2^31 - 1) / 2^31 = -(2^31 - 1) exactly.
  EXPECT_EQ(tvm_fixed_point_multiply(Int(-2147483647 - 1), Int(2147483647), 0), Int(-2147483647));
  // Overflow of the int32 cast: 2^30 * 3 = 3 * 2^30 > INT32_MAX (E-TVM-2).
  EXPECT_THROW(tvm_fixed_point_multiply(Int(1 << 30), m075, 2), RequireViolated);
  // Right shift 63 (r = 32) is the last one allowed; r = 33 is not.
  EXPECT_EQ(tvm_fixed_point_multiply(Int(2147483647), m075, -32), 0);
  EXPECT_THROW(tvm_fixed_point_multiply(Int(1), m075, -33), RequireViolated);
}

TEST(tvm_requantize, UpwardVersusToNearestOnTies) {
  // in_scale 1, out_scale 2: multiplier 0.5 (per tensor: the power-of-two branch).
  EXPECT_EQ(tvm_requantize(Int(-5), F(1.0f), Int(0), F(2.0f), Int(0), TvmRounding::Upward, DType::I8), -2);
  EXPECT_EQ(tvm_requantize(Int(-5), F(1.0f), Int(0), F(2.0f), Int(0), TvmRounding::ToNearest, DType::I8), -3);
  EXPECT_EQ(tvm_requantize(Int(5), F(1.0f), Int(0), F(2.0f), Int(0), TvmRounding::Upward, DType::I8), 3);
  EXPECT_EQ(tvm_requantize(Int(5), F(1.0f), Int(0), F(2.0f), Int(0), TvmRounding::ToNearest, DType::I8), 3);
  // Per axis the same values come from the int64 branch.
  EXPECT_EQ(tvm_requantize(Int(-5), F(1.0f), Int(0), F(2.0f), Int(0), TvmRounding::Upward, DType::I8, true), -2);
  EXPECT_EQ(tvm_requantize(Int(-5), F(1.0f), Int(0), F(2.0f), Int(0), TvmRounding::ToNearest, DType::I8, true), -3);
}
TEST(tvm_requantize, ZeroPointsAndClipping) {
  // (10 - 2) * 1/4 = 2, + 3 = 5.
  EXPECT_EQ(tvm_requantize(Int(10), F(1.0f), Int(2), F(4.0f), Int(3), TvmRounding::Upward, DType::I8), 5);
  // Equal scales skip the multiply: 100 - 20 + 7 = 87.
  EXPECT_EQ(tvm_requantize(Int(100), F(0.3f), Int(20), F(0.3f), Int(7), TvmRounding::Upward, DType::U8), 87);
  EXPECT_EQ(tvm_requantize(Int(1000), F(1.0f), Int(0), F(1.0f), Int(0), TvmRounding::Upward, DType::I8), 127);
  EXPECT_EQ(tvm_requantize(Int(-1000), F(1.0f), Int(0), F(1.0f), Int(0), TvmRounding::Upward, DType::U8), 0);
  // int32 output is not clipped.
  EXPECT_EQ(tvm_requantize(Int(1 << 30), F(1.0f), Int(0), F(1.0f), Int(5), TvmRounding::Upward, DType::I32),
            Int((1 << 30) + 5));
  // A zero input scale (for example one channel of a per-axis requantize): y = output_zp.
  EXPECT_EQ(tvm_requantize(Int(12345), F(0.0f), Int(0), F(1.0f), Int(-7), TvmRounding::Upward, DType::I8, true), -7);
}
TEST(tvm_requantize, Preconditions) {
  EXPECT_THROW(tvm_requantize(Int(1), F(1.0f), Int(0), F(0.0f), Int(0), TvmRounding::Upward, DType::I8), ErrorIf);
  EXPECT_THROW(tvm_requantize(Int(1), F(1.0f), Int(0), F(1.0f), Int(0), TvmRounding::Upward, DType::I64), ErrorIf);
  EXPECT_THROW(tvm_requantize(Int(1), F(1.0f), Int(0), F(1.0f), Int(0), TvmRounding::Upward, DType::U16), ErrorIf);
  // E-TVM-2: 2^30 * 3 leaves int32 before the clip; TVM's int32 cast wraps (to -2^30, which
  // would clip to -128). The reference refuses; the exact answer saturates to 127.
  EXPECT_THROW(tvm_requantize(Int(1 << 30), F(3.0f), Int(0), F(1.0f), Int(0), TvmRounding::Upward, DType::I8),
               RequireViolated);
  EXPECT_EQ(exact_requantize(Int(1 << 30), F(3.0f), Int(0), DType::I8, Rounding::HalfUp), 127);
}
