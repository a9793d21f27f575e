// Hand-derived tables for the TFLite and TOSA requantization clauses (spec/tflite_tosa.md).
//
// Expected values are worked out by hand from the clause statements (derivations in the
// comments) or cited from research/third-party-libraries.md, where they were measured with the
// real gemmlowp GEMM.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "qspec/ref/ieee.h"
#include "qspec/ref/tflite_choose_params.h"
#include "qspec/ref/tflite_tosa.h"

using namespace qspec::ref;

namespace {
const Int kMin("-2147483648");
const Int kMax("2147483647");
const Int k2p30 = pow2(30);

struct QmRow {
  std::uint64_t bits;
  const char* multiplier;
  int shift;
  const char* what;
};
}  // namespace

TEST(requant_tflite_quantize_multiplier, DefaultBuildHandTable) {
  const QmRow rows[] = {
      {0x0000000000000000ull, "0", 0, "+0"},
      {0x8000000000000000ull, "0", 0, "-0 compares equal to 0"},
      {0x3fe0000000000000ull, "1073741824", 0, "0.5 = 2^30 * 2^-31"},
      {0x3ff0000000000000ull, "1073741824", 1, "1.0: frexp gives 0.5 * 2^1"},
      {0x3fefffffffffffffull, "1073741824", 1, "1 - 2^-53: q*2^31 = 2^31 - 2^-22 rounds to 2^31, carry"},
      {0x3e00000000000000ull, "1073741824", -30, "2^-31"},
      {0x3df0000000000000ull, "1073741824", -31, "2^-32: e = -31, kept"},
      {0x3defffffffe00000ull, "1073741824", -31, "2^-32 - 2^-64: q*2^31 = 2^31 - 1/2 rounds up, carry to -31"},
      {0x3defffffffdfffffull, "0", 0, "the next double below: e = -32 with no carry, flushed"},
      {0x3de0000000000000ull, "0", 0, "2^-33: flushed"},
      {0x0000000000000001ull, "0", 0, "the smallest subnormal: flushed"},
      {0x3fe0000000200000ull, "1073741825", 0, "0.5 + 2^-32: q*2^31 = 2^30 + 1/2, std::round -> up"},
      {0x41d0000000000000ull, "1073741824", 31, "2^30"},
      {0x41cfffffffe00000ull, "1073741824", 31, "2^30 - 1/4: carry from e = 30"},
      {0x7fefffffffffffffull, "1073741824", 1025, "DBL_MAX = (1 - 2^-53) * 2^1024: carry"},
      {0x3fd3223b7bb3a13cull, "1284042223", -1, "0.29896437721483315: q*2^31 = 1284042222.8067"},
      {0x3fd262fb753136f7ull, "1233907157", -1, "0.28729139751963778: q*2^31 = 1233907156.7690"},
      {0x3fc0d4e66ef774acull, "1129552316", -2, "0.13149719637195767: q*2^31 = 1129552315.8665"},
  };
  for (const auto& r : rows) {
    const auto q = tflite_quantize_multiplier(r.bits, TfliteBuild::Default);
    EXPECT_EQ(q.multiplier, Int(r.multiplier)) << r.what;
    EXPECT_EQ(q.shift, r.shift) << r.what;
  }
  EXPECT_THROW(tflite_quantize_multiplier(0xbfe0000000000000ull), ErrorIf);          // -0.5
  EXPECT_THROW(tflite_quantize_multiplier(0x7ff0000000000000ull), RequireViolated);  // +inf
}

TEST(requant_tflite_quantize_multiplier, BuildVariantsHandTable) {
  // TFLITE_SINGLE_ROUNDING saturates shift > 30 to (2^31 - 1, 30).
  for (std::uint64_t b : {0x41d0000000000000ull, 0x41cfffffffe00000ull, 0x7fefffffffffffffull}) {
    const auto q = tflite_quantize_multiplier(b, TfliteBuild::SingleRounding);
    EXPECT_EQ(q.multiplier, kMax);
    EXPECT_EQ(q.shift, 30);
  }
  // 2^30 - 1/2 has e = 30 and no carry: kept in both builds.
  const auto below = tflite_quantize_multiplier(0x41cfffffffc00000ull, TfliteBuild::SingleRounding);
  EXPECT_EQ(below.multiplier, Int("2147483647"));  // (2^30 - 1/2) / 2^30 * 2^31 = 2^31 - 1
  EXPECT_EQ(below.shift, 30);
  // TFLITE_EMULATE_FLOAT rounds the 22 discarded fraction bits half DOWN (errata E-TFLITE-1).
  const auto tie = tflite_quantize_multiplier(0x3fe0000000200000ull, TfliteBuild::EmulateFloat);
  EXPECT_EQ(tie.multiplier, k2p30);
  EXPECT_EQ(tie.shift, 0);
  // Just above the tie both builds round up.
  const auto above = tflite_quantize_multiplier(0x3fe0000000200001ull, TfliteBuild::EmulateFloat);
  EXPECT_EQ(above.multiplier, k2p30 + 1);
  // Subnormals are read as if normal (shift -1022) and flushed.
  const auto sub = tflite_quantize_multiplier(0x000fffffffffffffull, TfliteBuild::EmulateFloat);
  EXPECT_EQ(sub.multiplier, 0);
  EXPECT_EQ(sub.shift, 0);
}

TEST(requant_tflite_double_round, ResearchExamples) {
  // research/third-party-libraries.md (gemmlowp GEMM, measured): exact -0.5367 -> 0,
  // -41.4085 -> -42, 108.4483 -> 109; TFLite's MBQM is the same two roundings.
  EXPECT_EQ(tflite_requantize_double_round(132, Int(1284042223), -1, -40, DType::I8), 0);
  EXPECT_EQ(tflite_requantize_double_round(-259, Int(1233907157), -1, 33, DType::I8), -42);
  EXPECT_EQ(tflite_requantize_double_round(954, Int(1129552316), -2, -17, DType::I8), 109);
}

TEST(requant_tflite_double_round, HandTable) {
  // Left shift: 3 * 2 * 2^30 / 2^31 = 3 (M = 2^30, shift 1 is exactly 1).
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_double_round(3, k2p30, 1), 3);
  // v = x/4 with x = -2: SRDHM(-2, 2^30) = -1, RDBPOT(-1, 1) = -1 (single rounding gives 0).
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_double_round(-2, k2p30, -1), -1);
  // Saturation to int8 after the offset: v = x/2 = 200 + 3 -> 127.
  EXPECT_EQ(tflite_requantize_double_round(400, k2p30, 0, 3, DType::I8), 127);
  EXPECT_EQ(tflite_requantize_double_round(-400, k2p30, 0, 3, DType::U8), 0);
  EXPECT_THROW(tflite_multiply_by_quantized_multiplier_double_round(pow2(29), k2p30, 2), RequireViolated);
  EXPECT_THROW(tflite_multiply_by_quantized_multiplier_double_round(1, k2p30, 31), RequireViolated);
  EXPECT_THROW(tflite_multiply_by_quantized_multiplier_double_round(1, k2p30, -32), RequireViolated);
  EXPECT_THROW(tflite_requantize_double_round(kMax, kMax, 0, 10, DType::I32), RequireViolated);
}

TEST(requant_tflite_single_round, HandTable) {
  // round_half_up(x * M * 2^(shift-31)): the research examples give 39.46 -> 39, -74.41 -> -74,
  // 125.45 -> 125.
  EXPECT_EQ(tflite_requantize_single_round(132, Int(1284042223), -1, -40, DType::I8), -1);
  EXPECT_EQ(tflite_requantize_single_round(-259, Int(1233907157), -1, 33, DType::I8), -41);
  EXPECT_EQ(tflite_requantize_single_round(954, Int(1129552316), -2, -17, DType::I8), 108);
  // Ties go up on both signs: v = x/4.
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_single_round(-2, k2p30, -1), 0);   // -0.5 -> 0
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_single_round(-6, k2p30, -1), -1);  // -1.5 -> -1
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_single_round(10, k2p30, -1), 3);   // 2.5 -> 3
  // shift 30 (t = 1): 1 * 2^30 / 2 = 2^29; 8 * 2^30 / 2 = 2^32 does not fit (DCHECK).
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_single_round(1, k2p30, 30), pow2(29));
  EXPECT_THROW(tflite_multiply_by_quantized_multiplier_single_round(8, k2p30, 30), RequireViolated);
  // shift -31 (t = 62): INT32_MIN * (2^31 - 1) / 2^62 = -(1 - 2^-31) -> -1;
  // INT32_MIN * 2^30 / 2^62 = -1/2 exactly -> 0 (ties up).
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_single_round(kMin, kMax, -31), -1);
  EXPECT_EQ(tflite_multiply_by_quantized_multiplier_single_round(kMin, k2p30, -31), 0);
  EXPECT_THROW(tflite_multiply_by_quantized_multiplier_single_round(1, k2p30, 31), RequireViolated);
}

TEST(requant_tflite_per_channel, HandTable) {
  // Channel 1 has a zero filter scale: QuantizeMultiplier(0) = (0, 0), output = sat(zp).
  // Channel 0: M = 2^30, shift -1, v = x/4.
  const std::vector<Int> m = {k2p30, 0};
  const std::vector<int> s = {-1, 0};
  EXPECT_EQ(tflite_requantize_per_channel(18, 0, m, s, -5, DType::I8, false), 0);    // 4.5 -> 5, -5
  EXPECT_EQ(tflite_requantize_per_channel(18, 1, m, s, -5, DType::I8, false), -5);
  // -4.5: double rounding SRDHM(-18, 2^30) = -9, RDBPOT(-9, 1) = -5; single half-up gives -4.
  EXPECT_EQ(tflite_requantize_per_channel(-18, 0, m, s, 0, DType::I8, false), -5);
  EXPECT_EQ(tflite_requantize_per_channel(-18, 0, m, s, 0, DType::I8, true), -4);
  EXPECT_THROW(tflite_requantize_per_channel(1, 2, m, s, 0, DType::I8, false), RequireViolated);
}

TEST(requant_double_round_vs_single, HandTable) {
  EXPECT_EQ(double_round_minus_single_round(132, Int(1284042223), -1), 1);    // f = 0.4633 in [1/4, 1/2)
  EXPECT_EQ(double_round_minus_single_round(-259, Int(1233907157), -1), -1);  // f = 0.5915 in [1/2, 3/4)
  EXPECT_EQ(double_round_minus_single_round(954, Int(1129552316), -2), 1);    // f = 0.4483 in [3/8, 1/2)
  EXPECT_EQ(double_round_minus_single_round(-2, k2p30, -1), -1);              // v = -1/2: f = 1/2
  EXPECT_EQ(double_round_minus_single_round(-3, k2p30, -1), 0);               // v = -3/4: f = 1/4
  EXPECT_EQ(double_round_minus_single_round(1, k2p30, -1), 1);                // v = 1/4: f in [1/4, 1/2)
  EXPECT_EQ(double_round_minus_single_round(2, k2p30, -1), 0);                // v = 1/2: both round up
  EXPECT_EQ(double_round_minus_single_round(3, k2p30, 0), 0);                 // shift 0: one rounding
}

TEST(requant_q31_exact, SevenRoundingsAtTies) {
  // v = x/2 with M = 2^30, shift 0: x = 1, -3, 5 are 0.5, -1.5, 2.5 (spec/primitives.md table).
  const struct {
    int x;
    int expected[7];  // floor, ceil, trunc, half_up, half_down, half_away, half_even
  } rows[] = {{1, {0, 1, 0, 1, 0, 1, 0}}, {-3, {-2, -1, -1, -1, -2, -2, -2}}, {5, {2, 3, 2, 3, 2, 3, 2}}};
  for (const auto& r : rows)
    for (std::size_t i = 0; i < kAllRoundings.size(); ++i)
      EXPECT_EQ(q31_exact_requantize(r.x, k2p30, 0, 0, DType::I32, kAllRoundings[i]), r.expected[i])
          << r.x << " " << clause_id(kAllRoundings[i]);
  // Saturation after the zero point: 1000/2 + 3 -> 127 in int8, -1000/2 + 3 -> -128.
  EXPECT_EQ(q31_exact_requantize(1000, k2p30, 0, 3, DType::I8, Rounding::HalfEven), 127);
  EXPECT_EQ(q31_exact_requantize(-1000, k2p30, 0, 3, DType::I8, Rounding::HalfEven), -128);
}

TEST(requant_tosa_apply_scale_32, HandTable) {
  // The spec's unit scaling: multiplier 2^30, shift 30 is 1.0.
  EXPECT_EQ(tosa_apply_scale_32(-12345, k2p30, 30, false), -12345);
  // AVG_POOL2D's reciprocal_scale(4) = (2^30 + 1, 32): sum 10 -> (10*(2^30+1) + 2^31) >> 32 = 3.
  EXPECT_EQ(tosa_apply_scale_32(10, k2p30 + 1, 32, false), 3);
  // s = 32 is TFLite shift -1: the research example, double 40 vs single 39.
  EXPECT_EQ(tosa_apply_scale_32(132, Int(1284042223), 32, true), 40);
  EXPECT_EQ(tosa_apply_scale_32(132, Int(1284042223), 32, false), 39);
  // Negative value, double rounding: round = 2^31 - 2^30; (-2 * 2^30 + 2^30) >> 32 = floor(-1/4) = -1.
  EXPECT_EQ(tosa_apply_scale_32(-2, k2p30, 32, true), -1);
  EXPECT_EQ(tosa_apply_scale_32(-2, k2p30, 32, false), 0);  // -0.5 -> 0 (half up)
  // s <= 31: DOUBLE_ROUND adds nothing.
  EXPECT_EQ(tosa_apply_scale_32(-3, k2p30, 31, true), -1);  // -1.5 -> -1
  // TOSA's REQUIREs.
  EXPECT_THROW(tosa_apply_scale_32(1, k2p30, 1, false), RequireViolated);
  EXPECT_THROW(tosa_apply_scale_32(1, k2p30, 63, false), RequireViolated);
  EXPECT_THROW(tosa_apply_scale_32(512, pow2(9), 10, false), RequireViolated);  // value >= 2^9
  EXPECT_EQ(tosa_apply_scale_32(-512, pow2(9), 10, false), -256);               // -2^9 is allowed: -256 + 1/2
  EXPECT_THROW(tosa_apply_scale_32(1, -1, 40, false), RequireViolated);
}

TEST(requant_tosa_apply_scale_16, HandTable) {
  // multiplier 2^14, shift 14 is 1.0 (the spec's unit scaling).
  EXPECT_EQ(tosa_apply_scale_16(777, pow2(14), 14), 777);
  EXPECT_EQ(tosa_apply_scale_16(3, pow2(14), 16), 1);    // 0.75 -> 1
  EXPECT_EQ(tosa_apply_scale_16(-2, pow2(14), 16), 0);   // -0.5 -> 0
  EXPECT_EQ(tosa_apply_scale_16(-6, pow2(14), 16), -1);  // -1.5 -> -1
  EXPECT_EQ(tosa_apply_scale_16(pow2(46), pow2(14), 30), pow2(30));  // an int48 value
  EXPECT_THROW(tosa_apply_scale_16(pow2(46), pow2(14), 14), RequireViolated);  // 2^46 > int32
  EXPECT_THROW(tosa_apply_scale_16(1, pow2(15), 14), RequireViolated);         // not an int16 >= 0
}

TEST(requant_tosa_rescale, ErrorIfTable) {
  // TOSA's ERROR_IFs for an int32 input.
  EXPECT_THROW(tosa_rescale(0, k2p30, 31, 0, DType::U8, TosaScale::Single32), ErrorIf);  // unsigned output
  EXPECT_THROW(tosa_rescale(0, k2p30, 31, 1, DType::I16, TosaScale::Single32), ErrorIf);
  EXPECT_THROW(tosa_rescale(0, k2p30, 31, -1, DType::I32, TosaScale::Double32), ErrorIf);
  EXPECT_THROW(tosa_rescale(0, k2p30, 31, 128, DType::I8, TosaScale::Single32), ErrorIf);  // not an int8
  // ERROR_IF wins over a REQUIRE violation (shift 1 is outside apply_scale_32's REQUIRE).
  EXPECT_THROW(tosa_rescale(0, k2p30, 1, 5, DType::I16, TosaScale::Single32), ErrorIf);
}

TEST(requant_tosa_rescale, HandTable) {
  // Identity scale (2^30, 30) returns the input (reading the pseudocode's sign_extend(value) as
  // sign_extend(in_value): errata E-TOSA-1), then + zp and the int8 clip.
  EXPECT_EQ(tosa_rescale(-77, k2p30, 30, 5, DType::I8, TosaScale::Single32), -72);
  EXPECT_EQ(tosa_rescale(300, k2p30, 30, 0, DType::I8, TosaScale::Single32), 127);
  EXPECT_EQ(tosa_rescale(-300, k2p30, 30, 0, DType::I8, TosaScale::Double32), -128);
  EXPECT_EQ(tosa_rescale(-300, pow2(14), 14, 0, DType::I16, TosaScale::Scale16), -300);
  // result + output_zp overflowing int32 is apply_add_s's REQUIRE: apply_scale_16 with unit
  // scaling returns 2^31 - 1, and an int8 output allows zp = 1.
  EXPECT_THROW(tosa_rescale(kMax, pow2(14), 14, 1, DType::I8, TosaScale::Scale16), RequireViolated);
  // apply_scale_32's value REQUIRE at s = 31: |value| <= 2^30.
  EXPECT_THROW(tosa_rescale(kMax, kMax, 31, 0, DType::I32, TosaScale::Single32), RequireViolated);
}

// TFLite ChooseQuantizationParams, by hand. [-1, 1] as uint8: scale 2/255; zp_min = 0 - (-1)/(2/255)
// = 127.5 with error 127.5, zp_max = 255 - 127.5 = 127.5 with error 382.5: 127.5, a tie, round()
// goes away: 128. As int8: zp_min = -128 + 127.5 = -0.5 (error 255.5), zp_max = 127 - 127.5 = -0.5
// (error 254.5): -0.5 rounds away to -1. [0, 6] uint8: zp_min = 0 (error 0). A point range {0}:
// scale 0, zero point 0. Ranges without 0, and int32, are rejected.
TEST(tflite_choose_quantization_params, HandTable) {
  const auto d = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  auto p = tflite_choose_quantization_params(d(-1.0), d(1.0), DType::U8, false);
  EXPECT_EQ(p.zero_point, Int(128));
  EXPECT_EQ(f64_value(p.scale), f64_value(f64_round(Rat(2, 255))));
  EXPECT_EQ(tflite_choose_quantization_params(d(-1.0), d(1.0), DType::I8, false).zero_point, Int(-1));
  EXPECT_EQ(tflite_choose_quantization_params(d(0.0), d(6.0), DType::U8, false).zero_point, Int(0));
  // narrow_range int8: qmin = -127, span 254: scale 2/254, zp_min = -127 + 127 = 0.
  EXPECT_EQ(tflite_choose_quantization_params(d(-1.0), d(1.0), DType::I8, true).zero_point, Int(0));
  p = tflite_choose_quantization_params(d(0.0), d(0.0), DType::I16, false);
  EXPECT_EQ(p.scale, 0u);
  EXPECT_EQ(p.zero_point, Int(0));
  EXPECT_THROW(tflite_choose_quantization_params(d(1.0), d(2.0), DType::U8, false), ErrorIf);
  EXPECT_THROW(tflite_choose_quantization_params(d(-2.0), d(-1.0), DType::U8, false), ErrorIf);
  EXPECT_THROW(tflite_choose_quantization_params(d(-1.0), d(1.0), DType::I32, false), ErrorIf);
  // The two candidates on either side of a half (found by a search on host doubles; the values
  // are Python's binary64 arithmetic): [-0x1.c2c39980a3a8bp+9, 0x1.df30ccb243e3cp+8] as int8 has
  // zp_min = 38.50000000000003 (error 294.5) and zp_max = 38.499999999999986 (error 215.5):
  // zp_max wins, 38 (zp_min would give 39). [-0x1.0b3e417e8b5a9p+10, 0x1.38bb3c4d467a6p+10]:
  // zp_min = -10.500000000000028 (error 245.49999999999997) beats zp_max = -10.499999999999972
  // (error 264.5): -11 (zp_max would give -10).
  EXPECT_EQ(
      tflite_choose_quantization_params(d(-0x1.c2c39980a3a8bp+9), d(0x1.df30ccb243e3cp+8), DType::I8, false).zero_point,
      Int(38));
  EXPECT_EQ(tflite_choose_quantization_params(d(-0x1.0b3e417e8b5a9p+10), d(0x1.38bb3c4d467a6p+10), DType::I8, false)
                .zero_point,
            Int(-11));
}
