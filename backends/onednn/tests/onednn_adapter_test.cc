// The oneDNN adapter through the C ABI on hand-derived cases (research/third-party-libraries.md).
//
// Expected values are derived by hand from oneDNN 2.6's documented reorder arithmetic, NOT read
// back from the library: y = sat(rne(float(x) * scale + zp)) -- the zero point is added BEFORE
// rounding half to even; quantize uses output scale 1/s the same way.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

// oneDNN's OpenMP runtime reads OMP_NUM_THREADS when the plugin loads it: single-threaded tests.
const int kSingleThreaded = setenv("OMP_NUM_THREADS", "1", 0);

const PluginClient& onednn() {
  static PluginClient c(QSPEC_PLUGIN_PATH);
  return c;
}

Result requant(std::vector<std::int64_t> x, double m, int zp, const char* out = "int8") {
  const std::string o = out;
  const qspec_dtype d = o == "int8" ? QSPEC_DTYPE_INT8 : o == "uint8" ? QSPEC_DTYPE_UINT8 : o == "int16" ? QSPEC_DTYPE_INT16
                                                                                                         : QSPEC_DTYPE_INT32;
  const auto n = static_cast<std::int64_t>(x.size());
  return onednn().run("requantize", "onednn.fp32",
                      std::string("{\"scale\":\"") + f32_hex(static_cast<float>(m)) + "\",\"output_zero_point\":" +
                          std::to_string(zp) + ",\"out_dtype\":\"" + o + "\"}",
                      {i32("x", std::move(x))}, d, {n});
}

std::vector<std::int64_t> y_of(const Result& r) {
  EXPECT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  return r.y;
}

TEST(onednn_adapter, ClaimsItsOwnConventionsOnly) {
  (void)kSingleThreaded;
  EXPECT_TRUE(onednn().supports("requantize", "onednn.fp32"));
  EXPECT_TRUE(onednn().supports("quantize", "onednn.reorder"));
  EXPECT_FALSE(onednn().supports("requantize", "xnnpack.fp32"));
  EXPECT_FALSE(onednn().supports("quantize", "xnnpack.convert"));
  EXPECT_NE(onednn().capabilities().find("onednn.fp32"), std::string::npos);
}

// research "Set A": 132 * 0.29896 - 40 = -0.537 -> -1; -259 * 0.28729 + 33 = -41.41 -> -41;
// 954 * 0.13150 - 17 = 108.45 -> 108 (gemmlowp gives 0, -42, 109).
TEST(onednn_adapter, RequantizeNonTieCasesFromTheResearchTable) {
  EXPECT_EQ(y_of(requant({132}, 0.29896437721483315, -40)), std::vector<std::int64_t>{-1});
  EXPECT_EQ(y_of(requant({-259}, 0.28729139751963778, 33)), std::vector<std::int64_t>{-41});
  EXPECT_EQ(y_of(requant({954}, 0.13149719637195767, -17)), std::vector<std::int64_t>{108});
}

// Ties after adding the zero point: -141/2 + 59 = -11.5 -> -12 (XNNPACK: -11); -114/4 - 82 =
// -110.5 -> -110; -660/8 + 19 = -63.5 -> -64 (XNNPACK: -63); 2.5 -> 2, 3.5 -> 4, -2.5 -> -2.
TEST(onednn_adapter, RequantizeRoundsHalfEvenAfterTheZeroPoint) {
  EXPECT_EQ(y_of(requant({-141}, 0.5, 59)), std::vector<std::int64_t>{-12});
  EXPECT_EQ(y_of(requant({-114}, 0.25, -82)), std::vector<std::int64_t>{-110});
  EXPECT_EQ(y_of(requant({-660}, 0.125, 19)), std::vector<std::int64_t>{-64});
  EXPECT_EQ(y_of(requant({5, 7, -5}, 0.5, 0)), (std::vector<std::int64_t>{2, 4, -2}));
}

TEST(onednn_adapter, RequantizeSaturatesAtBothEnds) {
  EXPECT_EQ(y_of(requant({INT32_MAX, INT32_MIN, 300}, 0.5, 0)), (std::vector<std::int64_t>{127, -128, 127}));
  EXPECT_EQ(y_of(requant({INT32_MAX, -7, -7}, 0.5, 10, "uint8")), (std::vector<std::int64_t>{255, 6, 6}));  // -3.5+10=6.5->6
}

TEST(onednn_adapter, RequantizeReportsWhatTheLibraryCannotExpress) {
  const Result r = requant({1}, 0.5, 0, "int16");
  EXPECT_EQ(r.status, QSPEC_STATUS_UNSUPPORTED) << r.message;
  EXPECT_NE(r.message.find("int16"), std::string::npos) << r.message;
}

// research table: [.125, .375, .625] / .25 + 3 = 3.5, 4.5, 5.5 -> 4 4 6 (XNNPACK: 3 5 5).
TEST(onednn_adapter, QuantizeAddsTheZeroPointBeforeRounding) {
  auto r = onednn().run("quantize", "onednn.reorder",
                        std::string("{\"scale\":\"") + f32_hex(0.25f) + "\",\"zero_point\":3,\"out_dtype\":\"int8\"}",
                        {f32("x", {0.125f, 0.375f, 0.625f, -0.125f, 100.0f, -100.0f})}, QSPEC_DTYPE_INT8, {6});
  EXPECT_EQ(y_of(r), (std::vector<std::int64_t>{4, 4, 6, 2, 127, -128}));  // -.5+3 = 2.5 -> 2
  auto u = onednn().run("quantize", "onednn.reorder",
                        std::string("{\"scale\":\"") + f32_hex(0.5f) + "\",\"zero_point\":128,\"out_dtype\":\"uint8\"}",
                        {f32("x", {0.25f, -0.25f, 0.75f, -70.0f})}, QSPEC_DTYPE_UINT8, {4});
  EXPECT_EQ(y_of(u), (std::vector<std::int64_t>{128, 128, 130, 0}));  // 128.5->128, 127.5->128, 129.5->130
}

}  // namespace
