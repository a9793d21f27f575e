// Hand-derived tables for the gemmlowp clauses (spec/gemmlowp.md); every expected value is worked out by hand.
//
// Each row's derivation is in its comment. Values cited from research/third-party-libraries.md
// were measured there against the real gemmlowp GEMM, independently of this code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/gemmlowp_forms.h"
#include "qspec/ref/rounding.h"

using namespace qspec::ref;

namespace {
const Int kMin("-2147483648");
const Int kMax("2147483647");
const Int k2p30 = pow2(30);
}  // namespace

TEST(gemmlowp_affine_map, HandTable) {
  // real = scale * (q - zp)
  EXPECT_EQ(gemmlowp_real_value(Rat(1, 4), 3, 3), Rat(0));    // the zero point is the real 0
  EXPECT_EQ(gemmlowp_real_value(Rat(1, 4), 7, 3), Rat(1));    // 4 steps of 1/4
  EXPECT_EQ(gemmlowp_real_value(Rat(1, 4), 0, 3), Rat(-3, 4));
  EXPECT_EQ(gemmlowp_real_value(Rat(2, 255), 255, 127), Rat(256, 255));
}

TEST(gemmlowp_choose_params, HandTable) {
  // Values from the example's float/double steps done by hand (see spec/gemmlowp.md):
  // scale = fl32(fl32(max' - min') / 255), zp = round_half_away(-min' / scale) clamped.
  struct Row {
    std::uint32_t lo, hi, scale;
    int zp;
  };
  const Row rows[] = {
      {0xbf800000, 0x3f800000, 0x3c008081, 127},  // [-1, 1]: fl32(2/255) > 2/255 so -min/scale = 127.49999
      {0x00000000, 0x3f000000, 0x3b008081, 0},    // [0, 0.5]: all positive, zp 0, scale fl32(0.5/255)
      {0x3f800000, 0x40c00000, 0x3cc0c0c1, 0},    // [1, 6] -> [0, 6]: scale fl32(6/255)
      {0xc0400000, 0xbf800000, 0x3c40c0c1, 255},  // [-3, -1] -> [-3, 0]: -min/scale = 254.99999 -> 255
      {0x40000000, 0x40000000, 0x3c008081, 0},    // [2, 2] -> [0, 2]
      {0xc0000000, 0xc0000000, 0x3c008081, 255},  // [-2, -2] -> [-2, 0]
      {0xbdcccccd, 0x40c00000, 0x3cc3f72a, 4},    // [-0.1, 6]: 0.1 / fl32(6.1/255) = 4.18 -> 4
      {0xbec90000, 0x3f1a8000, 0x3b800000, 101},  // [-100.5/256, 154.5/256]: scale 2^-8, 100.5 -> 101 (away)
      {0x80000000, 0x3f800000, 0x3b808081, 0},    // [-0, 1]: -0 stays, (1 - (-0)) = 1, zp 0
  };
  for (const auto& r : rows) {
    const auto p = gemmlowp_choose_params(r.lo, r.hi);
    EXPECT_EQ(p.scale_bits, r.scale) << std::hex << r.lo << " " << r.hi;
    EXPECT_EQ(p.zero_point, r.zp) << std::hex << r.lo << " " << r.hi;
  }
  // Degenerate scales are rejected (ERROR_IF): [0, 0], an underflowing and an overflowing range.
  EXPECT_THROW(gemmlowp_choose_params(0x00000000, 0x00000000), ErrorIf);
  EXPECT_THROW(gemmlowp_choose_params(0x80000000, 0x00000000), ErrorIf);
  EXPECT_THROW(gemmlowp_choose_params(0x00000000, 0x00000001), ErrorIf);  // fl32(2^-149 / 255) = 0
  EXPECT_THROW(gemmlowp_choose_params(0xff61b1e6, 0x7f61b1e6), ErrorIf);  // 3e38 - (-3e38) = inf
  EXPECT_THROW(gemmlowp_choose_params(0x7fc00000, 0x3f800000), RequireViolated);  // NaN
}

TEST(gemmlowp_quantize, HandTable) {
  // scale 0.25, zp 3: x/0.25 + 3 for x = 0.125, 0.375, 0.625, -0.125, -0.625 is 3.5, 4.5, 5.5, 2.5, 0.5
  // exactly; std::round goes away from zero: 4, 5, 6, 3, 1.
  EXPECT_EQ(gemmlowp_quantize(0x3e000000, 0x3e800000, 3), 4);
  EXPECT_EQ(gemmlowp_quantize(0x3ec00000, 0x3e800000, 3), 5);
  EXPECT_EQ(gemmlowp_quantize(0x3f200000, 0x3e800000, 3), 6);
  EXPECT_EQ(gemmlowp_quantize(0xbe000000, 0x3e800000, 3), 3);
  EXPECT_EQ(gemmlowp_quantize(0xbf200000, 0x3e800000, 3), 1);
  // The float32 addition rounds before std::round: x = 0.5 - 2^-25, scale 1, zp 3:
  // 3 + 0.49999997 = 3.49999997 rounds to the float 3.5 (spacing 2^-22), then to 4; exactly it is 3.
  EXPECT_EQ(gemmlowp_quantize(0x3effffff, 0x3f800000, 3), 4);
  // Saturation and overflow: FLT_MAX / 0.25 is +inf -> 255; -FLT_MAX -> 0; 100/0.25 + 3 = 403 -> 255.
  EXPECT_EQ(gemmlowp_quantize(0x7f7fffff, 0x3e800000, 3), 255);
  EXPECT_EQ(gemmlowp_quantize(0xff7fffff, 0x3e800000, 3), 0);
  EXPECT_EQ(gemmlowp_quantize(0x42c80000, 0x3e800000, 3), 255);
  EXPECT_EQ(gemmlowp_quantize(0xc2c80000, 0x3e800000, 3), 0);
  EXPECT_THROW(gemmlowp_quantize(0x3f800000, 0x00000000, 3), RequireViolated);  // scale 0
  EXPECT_THROW(gemmlowp_quantize(0x3f800000, 0x3f800000, 256), RequireViolated);
}

TEST(gemmlowp_dequantize, HandTable) {
  // scale 0.25, zp 3: q = 0 -> -0.75; q = 3 -> +0 (0 * 0.25); q = 7 -> 1.
  EXPECT_EQ(gemmlowp_dequantize(0, 0x3e800000, 3), 0xbf400000u);
  EXPECT_EQ(gemmlowp_dequantize(3, 0x3e800000, 3), 0x00000000u);
  EXPECT_EQ(gemmlowp_dequantize(7, 0x3e800000, 3), 0x3f800000u);
  // scale -0.25: (+0) * (-0.25) is -0.
  EXPECT_EQ(gemmlowp_dequantize(3, 0xbe800000, 3), 0x80000000u);
  // fl32(2/255) * 255 = 2.0000001... rounds to exactly 2.0f.
  EXPECT_EQ(gemmlowp_dequantize(255, 0x3c008081, 0), 0x40000000u);
}

TEST(gemmlowp_offset_identity, HandTable) {
  // a = (1, 2), b = (3, 4), zero points 1 and 2 (offsets -1, -2): (0)(1) + (1)(2) = 2.
  const std::vector<Int> a = {1, 2}, b = {3, 4};
  EXPECT_EQ(gemmlowp_offset_dot(a, b, -1, -2), 2);
  EXPECT_EQ(gemmlowp_offset_dot_int32(a, b, -1, -2), 2);
  // int8 operands, zero offsets, every product (-128)(-128) = 16384: K = 131071 fits int32
  // (2147467264), K = 131072 gives exactly 2^31, which wraps to INT32_MIN.
  const std::vector<Int> m128(131071, Int(-128));
  EXPECT_EQ(gemmlowp_offset_dot_int32(m128, m128, 0, 0), Int("2147467264"));
  const std::vector<Int> m128b(131072, Int(-128));
  EXPECT_EQ(gemmlowp_offset_dot(m128b, m128b, 0, 0), pow2(31));
  EXPECT_EQ(gemmlowp_offset_dot_int32(m128b, m128b, 0, 0), kMin);
  // uint8 operands 255 with zero point 0: K = 33025 gives 2147450625 <= 2^31 - 1.
  const std::vector<Int> u255(33025, Int(255));
  EXPECT_EQ(gemmlowp_offset_dot_int32(u255, u255, 0, 0), Int("2147450625"));
  // Partial terms that wrap although the exact result fits: a = (2^30, 2^30), b = (2, 2),
  // lhs_offset -2^30: exact sum (0)(2) + (0)(2) = 0; in int32 sum a*b = 2^32 and
  // lhs_offset * sum b = -2^32 both wrap, and their wrapped sum is still 0.
  EXPECT_EQ(gemmlowp_offset_dot_int32({k2p30, k2p30}, {2, 2}, -k2p30, 0), 0);
  EXPECT_EQ(gemmlowp_offset_dot({k2p30, k2p30}, {2, 2}, -k2p30, 0), 0);
  // An exact result outside int32 is not recovered: a = b = (2^16), zero offsets: 2^32 wraps to 0.
  EXPECT_EQ(gemmlowp_offset_dot_int32({pow2(16)}, {pow2(16)}, 0, 0), 0);
}

TEST(requant_gemmlowp_srdhm, HandTable) {
  // round_half_up(a*b/2^31): 7*2^30/2^31 = 3.5 -> 4; -3.5 -> -3 (ties toward +inf, not away).
  EXPECT_EQ(gemmlowp_srdhm(7, k2p30), 4);
  EXPECT_EQ(gemmlowp_srdhm(-7, k2p30), -3);
  EXPECT_EQ(gemmlowp_srdhm(1, k2p30), 1);    // 0.5 -> 1
  EXPECT_EQ(gemmlowp_srdhm(-1, k2p30), 0);   // -0.5 -> 0
  EXPECT_EQ(gemmlowp_srdhm(-3, k2p30), -1);  // -1.5 -> -1
  EXPECT_EQ(gemmlowp_srdhm(5, k2p30), 3);    // 2.5 -> 3
  EXPECT_EQ(gemmlowp_srdhm(-5, k2p30), -2);  // -2.5 -> -2
  // The one saturating product; its neighbours are exact.
  EXPECT_EQ(gemmlowp_srdhm(kMin, kMin), kMax);
  EXPECT_EQ(gemmlowp_srdhm(kMax, kMax), kMax - 1);  // (2^31-1)^2/2^31 = 2^31 - 2 + 2^-31
  EXPECT_EQ(gemmlowp_srdhm(kMin, kMax), -kMax);     // -(2^31 - 1) exactly
  EXPECT_EQ(gemmlowp_srdhm(kMin, 1), -1);           // -2^31/2^31
  EXPECT_EQ(gemmlowp_srdhm(kMax, 1), 1);            // 0.99999999953 -> 1
  EXPECT_EQ(gemmlowp_srdhm(k2p30, k2p30), pow2(29));
  EXPECT_EQ(gemmlowp_srdhm(0, kMin), 0);
  EXPECT_THROW(gemmlowp_srdhm(pow2(31), 1), RequireViolated);
}

TEST(requant_gemmlowp_rdbpot, HandTable) {
  // round_half_away(x / 2^e)
  EXPECT_EQ(gemmlowp_rdbpot(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(gemmlowp_rdbpot(-5, 1), -3);  // -2.5 -> -3
  EXPECT_EQ(gemmlowp_rdbpot(-3, 1), -2);  // -1.5 -> -2
  EXPECT_EQ(gemmlowp_rdbpot(3, 1), 2);
  EXPECT_EQ(gemmlowp_rdbpot(-1, 1), -1);  // -0.5 -> -1
  EXPECT_EQ(gemmlowp_rdbpot(7, 2), 2);    // 1.75 -> 2
  EXPECT_EQ(gemmlowp_rdbpot(-6, 2), -2);  // -1.5 -> -2
  EXPECT_EQ(gemmlowp_rdbpot(-5, 2), -1);  // -1.25 -> -1
  EXPECT_EQ(gemmlowp_rdbpot(kMin, 31), -1);
  EXPECT_EQ(gemmlowp_rdbpot(kMax, 31), 1);
  EXPECT_EQ(gemmlowp_rdbpot(k2p30 - 1, 31), 0);
  EXPECT_EQ(gemmlowp_rdbpot(-k2p30, 31), -1);  // -0.5 -> -1
  EXPECT_EQ(gemmlowp_rdbpot(k2p30, 31), 1);
  EXPECT_EQ(gemmlowp_rdbpot(kMin, 0), kMin);
  EXPECT_THROW(gemmlowp_rdbpot(1, 32), RequireViolated);
  EXPECT_THROW(gemmlowp_rdbpot(1, -1), RequireViolated);
}

TEST(requant_gemmlowp_quantize_multiplier, HandTable) {
  struct Row {
    std::uint32_t bits;
    const char* q;
    int shift;
  };
  const Row rows[] = {
      {0x3f000000, "1073741824", 0},    // 0.5 = 2^30 / 2^31
      {0x3e800000, "1073741824", -1},   // 0.25: one doubling
      {0x3f400000, "1610612736", 0},    // 0.75 = 3*2^29 / 2^31
      {0x3f7fffff, "2147483520", 0},    // 1 - 2^-24: (1 - 2^-24) * 2^31 = 2^31 - 2^7
      {0x30000000, "1073741824", -30},  // 2^-31 = 2^30 * 2^(-30-31)
      {0x00000001, "1073741824", -148}, // 2^-149: 148 doublings to 1/2
      {0x3e99999a, "1288490240", -1},   // 0.3f = 0x99999a * 2^-25; *2 = 0x99999a * 2^-24; *2^31 = 0x99999a * 2^7
  };
  for (const auto& r : rows) {
    const auto qm = gemmlowp_quantize_multiplier_smaller_than_one(r.bits);
    EXPECT_EQ(qm.multiplier, Int(r.q)) << std::hex << r.bits;
    EXPECT_EQ(qm.shift, r.shift) << std::hex << r.bits;
  }
  EXPECT_THROW(gemmlowp_quantize_multiplier_smaller_than_one(0x3f800000), RequireViolated);  // 1.0
  EXPECT_THROW(gemmlowp_quantize_multiplier_smaller_than_one(0x00000000), RequireViolated);  // 0
}

TEST(requant_gemmlowp_fixedpoint_output_stage, ResearchExamples) {
  // research/third-party-libraries.md measured these with gemmlowp's GEMM (exact values in the
  // comments); M and shift are TFLite's QuantizeMultiplier of the real multipliers.
  // 132 * 0.29896 = 39.46 - 40: SRDHM -> round(78.93) = 79, RDBPOT(79, 1) = 39.5 -> 40; 40 - 40 = 0.
  EXPECT_EQ(gemmlowp_quantize_down_by_fixedpoint(132, Int(1284042223), 1, -40), 0);
  // -259 * 0.28729 = -74.41 + 33: SRDHM -> round_half_up(-148.82) = -149, -74.5 -> -75; -75 + 33 = -42.
  EXPECT_EQ(gemmlowp_quantize_down_by_fixedpoint(-259, Int(1233907157), 1, 33), -42);
  // 954 * 0.13150 = 125.45 - 17: SRDHM -> round(501.79) = 502, 502/4 = 125.5 -> 126; 126 - 17 = 109.
  EXPECT_EQ(gemmlowp_quantize_down_by_fixedpoint(954, Int(1129552316), 2, -17), 109);
  // A negative tie after SRDHM: SRDHM(-3, 2^30) = round_half_up(-1.5) = -1, RDBPOT(-1, 1) =
  // -0.5 away from zero = -1; the header comment's (-1 + 1) >> 1 would give 0 (E-GEMMLOWP-4).
  EXPECT_EQ(gemmlowp_quantize_down_by_fixedpoint(-3, k2p30, 1, 0), -1);
  // Overflow of the final int32 addition is outside the REQUIREs.
  EXPECT_THROW(gemmlowp_quantize_down_by_fixedpoint(kMax, kMax, 0, 10), RequireViolated);
}

TEST(requant_gemmlowp_scale_by_fixedpoint_and_exponent, HandTable) {
  // M = 2^30, exponent 1: x * 2 * 2^30 / 2^31 = x exactly.
  EXPECT_EQ(gemmlowp_scale_by_fixedpoint_and_exponent(-12345, k2p30, 1, 0), -12345);
  // Exponent -1 equals the QuantizeDownByFixedPoint stage with result_shift 1.
  EXPECT_EQ(gemmlowp_scale_by_fixedpoint_and_exponent(132, Int(1284042223), -1, -40), 0);
  // Exponent 3, M = 2^30: 5 * 8 / 2 = 20; + 7.
  EXPECT_EQ(gemmlowp_scale_by_fixedpoint_and_exponent(5, k2p30, 3, 7), 27);
  // x * 2^3 overflows int32 for x = 2^28: the scalar code saturates, SIMD wraps: outside REQUIRE.
  EXPECT_THROW(gemmlowp_scale_by_fixedpoint_and_exponent(pow2(28), k2p30, 3, 0), RequireViolated);
  EXPECT_THROW(gemmlowp_scale_by_fixedpoint_and_exponent(1, k2p30, 31, 0), RequireViolated);
  EXPECT_THROW(gemmlowp_scale_by_fixedpoint_and_exponent(1, k2p30, -32, 0), RequireViolated);
}

TEST(requant_gemmlowp_scale_by_fixedpoint_and_exponent_pc, HandTable) {
  const std::vector<Int> m = {k2p30, 0, k2p30};
  const std::vector<int> e = {1, 0, -2};
  // channel 0: x; channel 1: M = 0 -> offset only; channel 2: x * 2^30 / 2^31 / 4 = x / 8.
  EXPECT_EQ(gemmlowp_scale_by_fixedpoint_and_exponent_pc(40, 0, m, e, 3), 43);
  EXPECT_EQ(gemmlowp_scale_by_fixedpoint_and_exponent_pc(40, 1, m, e, 3), 3);
  EXPECT_EQ(gemmlowp_scale_by_fixedpoint_and_exponent_pc(40, 2, m, e, 3), 8);   // 5 + 3
  EXPECT_EQ(gemmlowp_scale_by_fixedpoint_and_exponent_pc(-12, 2, m, e, 0), -2); // SRDHM -6, RDBPOT(-6, 2) = -1.5 -> -2
  EXPECT_THROW(gemmlowp_scale_by_fixedpoint_and_exponent_pc(1, 3, m, e, 0), RequireViolated);
}

TEST(requant_gemmlowp_legacy_uint8_scale, HandTable) {
  // (x + a) * b / 2^r rounded half away from zero (the code), not half up (the header comment).
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale(-1, 0, 1, 1), -1);  // -0.5: comment's (-1 + 1) >> 1 = 0
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale(-3, 0, 1, 1), -2);  // -1.5: comment gives -1
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale(3, 0, 1, 1), 2);    // 1.5: both give 2
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale(10, 5, 3, 2), 11);  // 45/4 = 11.25
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale(10, 5, 3, 0), 45);  // result_shift 0
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale(7, 0, 0, 3), 0);    // result_mult_int 0
  // int32 overflow of the plain addition or multiplication is outside the REQUIREs.
  EXPECT_THROW(gemmlowp_quantize_down_uint8_scale(kMax, 1, 1, 0), RequireViolated);
  EXPECT_THROW(gemmlowp_quantize_down_uint8_scale(k2p30, 0, 2, 0), RequireViolated);
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale(k2p30 - 1, 0, 2, 1), k2p30 - 1);  // (2^31 - 2) / 2 fits
}

TEST(requant_gemmlowp_legacy_uint8_scale_pc, HandTable) {
  const std::vector<Int> a = {0, 10}, b = {1, 0};
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale_pc(-1, 0, a, b, 1), -1);  // channel 0: -0.5 away
  EXPECT_EQ(gemmlowp_quantize_down_uint8_scale_pc(-1, 1, a, b, 1), 0);   // channel 1: multiplier 0
  EXPECT_THROW(gemmlowp_quantize_down_uint8_scale_pc(0, 2, a, b, 1), RequireViolated);
}

// Forms (1), (2), (3): scale 1/4 with zero point 3 is (2) with C = 1/4, D = -3 and (1) with
// A = 1/4, B = -3/4; 0 is the quantized value 3 in each. A form (1) map with B = 1/8, A = 1/4
// has -B / A = -1/2: no quantized value is 0 (the seed's "awkward constraint").
TEST(gemmlowp_affine_forms, HandTable) {
  const Range u8{Int(0), Int(255)};
  const AffineForm2 f2 = form2_of_form3(Rat(1, 4), Int(3));
  EXPECT_EQ(f2.c, Rat(1, 4));
  EXPECT_EQ(f2.d, Rat(-3));
  const AffineForm1 f1 = form1_of_form2(f2);
  EXPECT_EQ(f1.a, Rat(1, 4));
  EXPECT_EQ(f1.b, Rat(-3, 4));
  EXPECT_EQ(exact_zero_of(f1, u8), Int(3));
  EXPECT_EQ(exact_zero_of(f2, u8), Int(3));
  EXPECT_EQ(exact_zero_of(AffineForm1{Rat(1, 4), Rat(1, 8)}, u8), std::nullopt);
  EXPECT_EQ(exact_zero_of(AffineForm1{Rat(1, 4), Rat(1, 4)}, u8), std::nullopt);  // q0 = -1: outside uint8
}

// The kernel's types, exhaustively: every difference of two uint8 values is in [-255, 255] and
// every product of two differences in [-65025, 65025], both ends reached; depth 33025 fits
// int32 in the worst case and 33026 does not.
TEST(gemmlowp_kernel_types, ExhaustiveUint8) {
  int dmin = 0, dmax = 0;
  for (int q = 0; q <= 255; ++q)
    for (int z = 0; z <= 255; ++z) dmin = std::min(dmin, q - z), dmax = std::max(dmax, q - z);
  EXPECT_EQ(dmin, -255);
  EXPECT_EQ(dmax, 255);
  long long pmin = 0, pmax = 0;
  for (int d1 = -255; d1 <= 255; ++d1)
    for (int d2 = -255; d2 <= 255; ++d2) pmin = std::min(pmin, 1LL * d1 * d2), pmax = std::max(pmax, 1LL * d1 * d2);
  EXPECT_EQ(pmin, -65025);
  EXPECT_EQ(pmax, 65025);
  EXPECT_LE(dmax, INT16_MAX);
  EXPECT_GE(dmin, INT16_MIN);
  EXPECT_TRUE(gemmlowp_kernel_depth_fits_int32(Int(33025)));
  EXPECT_FALSE(gemmlowp_kernel_depth_fits_int32(Int(33026)));
  EXPECT_EQ(33025LL * 65025, 2147450625LL);
  EXPECT_GT(33026LL * 65025, 2147483647LL);
}

// The legacy stage's overflow: x + a = 2^16, b = 2^15 gives 2^31, one past int32; the safe
// multiplier for 24-bit accumulators is 127 (2^31 - 1 = 127 * 2^24 + 2^24 - 1).
TEST(requant_gemmlowp_legacy_uint8_scale, OverflowBoundary) {
  EXPECT_FALSE(gemmlowp_legacy_defined(Int(1) << 16, Int(0), Int(1) << 15));
  EXPECT_THROW(gemmlowp_quantize_down_uint8_scale(Int(1) << 16, Int(0), Int(1) << 15, 0), RequireViolated);
  EXPECT_TRUE(gemmlowp_legacy_defined(-(Int(1) << 16), Int(0), Int(1) << 15));  // -2^31 fits
  EXPECT_EQ(gemmlowp_legacy_max_safe_multiplier(Int(1) << 24), Int(127));
  EXPECT_EQ(gemmlowp_legacy_max_safe_multiplier(Int(1)), (Int(1) << 31) - 1);
}
