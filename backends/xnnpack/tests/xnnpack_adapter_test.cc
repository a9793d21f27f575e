// The XNNPACK adapter through the C ABI on hand-derived cases (research/third-party-libraries.md).
//
// Expected values are derived by hand from XNNPACK's documented x86 epilogue, NOT read back from
// the library: y = sat(rne(float(x) * scale) + zp), rounding once, half to even, BEFORE adding
// the zero point; convert multiplies by 1.0f / scale and rounds half to even.
#include <gtest/gtest.h>

#include <climits>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& xnnpack() {
  static PluginClient c(QSPEC_PLUGIN_PATH);
  return c;
}

std::string requant_attrs(float scale, int zp, const char* out) {
  return std::string("{\"scale\":\"") + f32_hex(scale) + "\",\"output_zero_point\":" + std::to_string(zp) +
         ",\"out_dtype\":\"" + out + "\"}";
}

// One accumulator through requantize xnnpack.fp32.
Result requant1(std::int64_t acc, double m, int zp, const char* out = "int8") {
  const qspec_dtype d = std::string(out) == "int8" ? QSPEC_DTYPE_INT8 : std::string(out) == "uint8" ? QSPEC_DTYPE_UINT8
                                                                                                      : QSPEC_DTYPE_INT16;
  return xnnpack().run("requantize", "xnnpack.fp32", requant_attrs(static_cast<float>(m), zp, out), {i32("x", {acc})}, d,
                       {1});
}

TEST(xnnpack_adapter, ClaimsTheFp32ConventionOnly) {
  EXPECT_TRUE(xnnpack().supports("requantize", "xnnpack.fp32"));
  EXPECT_TRUE(xnnpack().supports("quantize", "xnnpack.convert"));
  EXPECT_FALSE(xnnpack().supports("requantize", "gemmlowp.double_round"));
  EXPECT_FALSE(xnnpack().supports("requantize", "onednn.fp32"));
  EXPECT_NE(xnnpack().capabilities().find("xnnpack.fp32"), std::string::npos);
}

// research table "Set A": values far from a tie, where gemmlowp's double rounding differs.
// 132 * 0.29896437721483315 = 39.463 -> 39, -40 + 39 = -1 (gemmlowp gives 0).
TEST(xnnpack_adapter, RequantizeNonTieCasesFromTheResearchTable) {
  EXPECT_EQ(requant1(132, 0.29896437721483315, -40).y, std::vector<std::int64_t>{-1});
  EXPECT_EQ(requant1(-259, 0.28729139751963778, 33).y, std::vector<std::int64_t>{-41});  // -74.41 -> -74
  EXPECT_EQ(requant1(954, 0.13149719637195767, -17).y, std::vector<std::int64_t>{108});  // 125.45 -> 125
}

// Exact ties: rne(x * m) first, then + zp. -141 * 0.5 = -70.5 -> -70 (even), + 59 = -11 (oneDNN,
// which adds zp before rounding: -11.5 -> -12). -114/4 = -28.5 -> -28, -82 - 28 = -110.
// -660/8 = -82.5 -> -82, +19 = -63.
TEST(xnnpack_adapter, RequantizeTiesRoundHalfEvenBeforeTheZeroPoint) {
  EXPECT_EQ(requant1(-141, 0.5, 59).y, std::vector<std::int64_t>{-11});
  EXPECT_EQ(requant1(-114, 0.25, -82).y, std::vector<std::int64_t>{-110});
  EXPECT_EQ(requant1(-660, 0.125, 19).y, std::vector<std::int64_t>{-63});
  EXPECT_EQ(requant1(5, 0.5, 0).y, std::vector<std::int64_t>{2});    // 2.5 -> 2
  EXPECT_EQ(requant1(7, 0.5, 0).y, std::vector<std::int64_t>{4});    // 3.5 -> 4
  EXPECT_EQ(requant1(-5, 0.5, 0).y, std::vector<std::int64_t>{-2});  // -2.5 -> -2
}

TEST(xnnpack_adapter, RequantizeSaturatesAtBothEnds) {
  EXPECT_EQ(requant1(INT32_MAX, 0.5, 0).y, std::vector<std::int64_t>{127});
  EXPECT_EQ(requant1(INT32_MIN, 0.5, 0).y, std::vector<std::int64_t>{-128});
  EXPECT_EQ(requant1(300, 1.0, -10).y, std::vector<std::int64_t>{127});  // 290 -> 127
  EXPECT_EQ(requant1(INT32_MAX, 0.5, 10, "uint8").y, std::vector<std::int64_t>{255});
  EXPECT_EQ(requant1(-7, 1.0, 5, "uint8").y, std::vector<std::int64_t>{0});  // -2 -> 0
  EXPECT_EQ(requant1(-7, 0.5, 200, "uint8").y, std::vector<std::int64_t>{196});  // -3.5 -> -4, +200
}

TEST(xnnpack_adapter, RequantizeManyElementsInOneCall) {
  const std::vector<std::int64_t> x = {-3, -2, -1, 0, 1, 2, 3, 1000, -1000};
  // scale 0.5: -1.5->-2, -1->-1, -0.5->-0, 0, 0.5->0, 1, 1.5->2, 500->sat, -500->sat; zp 1
  auto r = xnnpack().run("requantize", "xnnpack.fp32", requant_attrs(0.5f, 1, "int8"), {i32("x", x)}, QSPEC_DTYPE_INT8,
                         {static_cast<std::int64_t>(x.size())});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{-1, 0, 1, 1, 1, 2, 3, 127, -128}));
}

// XNNPACK refuses to create the operator for a scale >= 256 or <= 0 (spec: ERROR_IF): the
// adapter reports the library's refusal as a rejection; what it cannot express is UNSUPPORTED.
TEST(xnnpack_adapter, RequantizeReportsRefusalsAndWhatTheLibraryCannotExpress) {
  auto big = requant1(1, 256.0, 0);
  EXPECT_EQ(big.status, QSPEC_STATUS_REJECTED) << big.message;
  EXPECT_NE(big.message.find("unsupported_parameter"), std::string::npos) << big.message;
  EXPECT_EQ(requant1(1, 0.0, 0).status, QSPEC_STATUS_REJECTED);
  EXPECT_EQ(requant1(1, -0.5, 0).status, QSPEC_STATUS_REJECTED);
  EXPECT_EQ(requant1(1, 0.5, 128).status, QSPEC_STATUS_REJECTED);  // zero point beyond int8_t
  auto i16 = requant1(1, 0.5, 0, "int16");
  EXPECT_EQ(i16.status, QSPEC_STATUS_UNSUPPORTED) << i16.message;
  auto other = xnnpack().run("requantize", "gemmlowp.double_round", "{}", {i32("x", {1})}, QSPEC_DTYPE_INT8, {1});
  EXPECT_EQ(other.status, QSPEC_STATUS_UNSUPPORTED);
  EXPECT_EQ(requant1(1, 255.99998, 0).status, QSPEC_STATUS_OK);  // just below 256 is accepted
}

// research table: [.125, .375, .625] with scale .25, zp 3 -> x/s = .5, 1.5, 2.5 -> 0, 2, 2 (ties
// to even) -> 3 5 5 (oneDNN's reorder gives 4 4 6).
TEST(xnnpack_adapter, QuantizeRoundsHalfEvenThenAddsZeroPoint) {
  auto r = xnnpack().run("quantize", "xnnpack.convert",
                         std::string("{\"scale\":\"") + f32_hex(0.25f) + "\",\"zero_point\":3,\"out_dtype\":\"int8\"}",
                         {f32("x", {0.125f, 0.375f, 0.625f, -0.125f, 100.0f, -100.0f})}, QSPEC_DTYPE_INT8, {6});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{3, 5, 5, 3, 127, -128}));
  auto u = xnnpack().run("quantize", "xnnpack.convert",
                         std::string("{\"scale\":\"") + f32_hex(0.5f) + "\",\"zero_point\":128,\"out_dtype\":\"uint8\"}",
                         {f32("x", {0.25f, -0.25f, 0.75f, -70.0f})}, QSPEC_DTYPE_UINT8, {4});
  ASSERT_EQ(u.status, QSPEC_STATUS_OK) << u.message;
  EXPECT_EQ(u.y, (std::vector<std::int64_t>{128, 128, 130, 0}));  // .5->0, -.5->0, 1.5->2, -140->sat
}

// Per channel (qc8, int8 only): x [[-141, 5], [7, -660]] axis 1, scales [0.5, 0.125], zp 59:
// -70.5 -> -70 + 59 = -11; 0.625 -> 1 + 59 = 60; 3.5 -> 4 + 59 = 63; -82.5 -> -82 + 59 = -23.
TEST(xnnpack_adapter, RequantizePerChannelUsesEachChannelsScale) {
  HostTensor x{"x", QSPEC_DTYPE_INT32, {2, 2}, {-141, 5, 7, -660}};
  auto r = xnnpack().run("requantize_per_channel", "xnnpack.fp32",
                         "{\"scales\":[\"" + f32_hex(0.5f) + "\",\"" + f32_hex(0.125f) +
                             "\"],\"axis\":1,\"output_zero_point\":59,\"out_dtype\":\"int8\"}",
                         {x}, QSPEC_DTYPE_INT8, {2, 2});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{-11, 60, 63, -23}));
  auto bad = xnnpack().run("requantize_per_channel", "xnnpack.fp32",
                           "{\"scales\":[\"" + f32_hex(0.5f) + "\",\"" + f32_hex(300.0f) +
                               "\"],\"axis\":1,\"output_zero_point\":0,\"out_dtype\":\"int8\"}",
                           {x}, QSPEC_DTYPE_INT8, {2, 2});
  EXPECT_EQ(bad.status, QSPEC_STATUS_REJECTED) << bad.message;
}

// (q - zp) * scale in float32: (-3 - 1) * 0.25 = -1, (127 - 1) * 0.25 = 31.5, (1 - 1) -> +0.
TEST(xnnpack_adapter, DequantizeSubtractsThenScales) {
  HostTensor x{"x", QSPEC_DTYPE_INT8, {3}, {-3, 127, 1}};
  auto r = xnnpack().run("dequantize", "xnnpack.convert",
                         std::string("{\"scale\":\"") + f32_hex(0.25f) + "\",\"zero_point\":1}", {x},
                         QSPEC_DTYPE_FLOAT32, {3});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{f32_bits(-1.0f), f32_bits(31.5f), f32_bits(0.0f)}));
}

}  // namespace
