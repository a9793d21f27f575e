// The gemmlowp adapter through the C ABI on hand-derived cases (research/third-party-libraries.md).
//
// Expected values are derived by hand from gemmlowp's documented arithmetic (fixedpoint.h), NOT
// read back from the library:
//   SRDHM(a, M) = a * M / 2^31 rounded to nearest, ties toward +inf (nudge 2^30, or 1 - 2^30 for
//                 a negative product, then truncating division);
//   RDBPOT(v, e) = v / 2^e rounded to nearest, ties away from zero;
//   y = clamp(RDBPOT(SRDHM(x * 2^max(shift,0), M), max(-shift,0)) + zp).
#include <gtest/gtest.h>

#include <climits>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& gemmlowp() {
  static PluginClient c(QSPEC_PLUGIN_PATH);
  return c;
}

Result requant(std::vector<std::int64_t> x, std::int64_t mult, int shift, int zp, const char* out = "int8") {
  const std::string o = out;
  const qspec_dtype d = o == "int8" ? QSPEC_DTYPE_INT8 : o == "uint8" ? QSPEC_DTYPE_UINT8 : o == "int16" ? QSPEC_DTYPE_INT16
                                                                                                         : QSPEC_DTYPE_INT32;
  const auto n = static_cast<std::int64_t>(x.size());
  return gemmlowp().run("requantize", "gemmlowp.double_round",
                        "{\"multiplier\":" + std::to_string(mult) + ",\"shift\":" + std::to_string(shift) +
                            ",\"output_zero_point\":" + std::to_string(zp) + ",\"out_dtype\":\"" + o + "\"}",
                        {i32("x", std::move(x))}, d, {n});
}

std::vector<std::int64_t> y_of(const Result& r) {
  EXPECT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  return r.y;
}

TEST(gemmlowp_adapter, ClaimsTheDoubleRoundingConventionOnly) {
  EXPECT_TRUE(gemmlowp().supports("requantize", "gemmlowp.double_round"));
  EXPECT_FALSE(gemmlowp().supports("requantize", "xnnpack.fp32"));
  EXPECT_FALSE(gemmlowp().supports("requantize", "tflite.single_round"));
  EXPECT_FALSE(gemmlowp().supports("quantize", "xnnpack.convert"));  // no float path in gemmlowp
}

// research table "Set A" with TFLite's QuantizeMultiplier of each m (frexp, round to Q31):
//   m=0.29896437721483315 -> M=1284042223, shift -1: SRDHM(132) = 78.93 -> 79, 79/2 = 39.5 -> 40,
//   40 - 40 = 0 (exact: -0.537, XNNPACK/oneDNN give -1);
//   m=0.28729139751963778 -> M=1233907157, shift -1: SRDHM(-259) = -148.82 -> -149, -74.5 -> -75, +33 = -42;
//   m=0.13149719637195767 -> M=1129552316, shift -2: SRDHM(954) = 501.79 -> 502, 125.5 -> 126, -17 = 109.
TEST(gemmlowp_adapter, DoubleRoundingCasesFromTheResearchTable) {
  EXPECT_EQ(y_of(requant({132}, 1284042223, -1, -40)), std::vector<std::int64_t>{0});
  EXPECT_EQ(y_of(requant({-259}, 1233907157, -1, 33)), std::vector<std::int64_t>{-42});
  EXPECT_EQ(y_of(requant({954}, 1129552316, -2, -17)), std::vector<std::int64_t>{109});
}

// M = 2^30 (0.5 in Q31). shift 0: SRDHM(7) = 3.5 -> 4, SRDHM(-7) = -3.5 -> -3 (ties up).
// shift -1 (m = 0.25): SRDHM(5) = 2.5 -> 3, RDBPOT(3, 1) = 1.5 -> 2 (exact 1.25: the double
// rounding error); SRDHM(-5) = -2.5 -> -2, RDBPOT(-2, 1) = -1; SRDHM(-6) = -3, RDBPOT = -1.5 -> -2.
TEST(gemmlowp_adapter, SrdhmTiesUpThenRdbpotTiesAwayFromZero) {
  EXPECT_EQ(y_of(requant({7, -7}, 1 << 30, 0, 0)), (std::vector<std::int64_t>{4, -3}));
  EXPECT_EQ(y_of(requant({5, -5, 6, -6}, 1 << 30, -1, 0)), (std::vector<std::int64_t>{2, -1, 2, -2}));
}

// shift > 0 shifts left first: m = 2^30/2^31 * 2^1 = 1. x=100 -> 200 -> SRDHM = 100; -3 -> -6 -> -3.
TEST(gemmlowp_adapter, PositiveShiftShiftsLeftBeforeTheMultiply) {
  EXPECT_EQ(y_of(requant({100, -3}, 1 << 30, 1, 5)), (std::vector<std::int64_t>{105, 2}));
}

// SRDHM(INT32_MAX, 2^30) = (2^31 - 1)/2 = 2^30 - 0.5 -> 2^30 (tie up); clamps per out_dtype.
TEST(gemmlowp_adapter, ClampsToTheOutputType) {
  EXPECT_EQ(y_of(requant({INT32_MAX, INT32_MIN}, 1 << 30, 0, 0)), (std::vector<std::int64_t>{127, -128}));
  EXPECT_EQ(y_of(requant({INT32_MAX, INT32_MIN}, 1 << 30, 0, 10, "uint8")), (std::vector<std::int64_t>{255, 0}));
  EXPECT_EQ(y_of(requant({INT32_MAX, INT32_MIN}, 1 << 30, 0, 0, "int16")), (std::vector<std::int64_t>{32767, -32768}));
  EXPECT_EQ(y_of(requant({INT32_MAX, INT32_MIN}, 1 << 30, 0, 0, "int32")),
            (std::vector<std::int64_t>{1 << 30, -(1 << 30)}));
}

// RDBPOT takes exponents 0..31 only: a right shift of 32 is reported, not computed.
TEST(gemmlowp_adapter, ReportsShiftsOutsideTheLibrarysRange) {
  const Result r = requant({1}, 1 << 30, -32, 0);
  EXPECT_EQ(r.status, QSPEC_STATUS_UNSUPPORTED) << r.message;
  // SRDHM(INT32_MAX, 2^30) = 2^30; RDBPOT(2^30, 31) = 0.5 -> 1 (ties away from zero).
  EXPECT_EQ(y_of(requant({INT32_MAX}, 1 << 30, -31, 0)), std::vector<std::int64_t>{1});
}

}  // namespace
