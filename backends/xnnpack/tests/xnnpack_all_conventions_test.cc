// The all-conventions mode (the run option of --all-conventions) of the XNNPACK adapter through its ABI.
//
// In this mode the adapter claims every convention of the ops it implements and computes each
// with XNNPACK's own arithmetic after translating the parameters; a refusal of a translated
// parameter set is UNSUPPORTED, not a rejection. Expected values are hand-derived from
// XNNPACK's fp32 epilogue: sat(rne(float(x) * scale) + zp).
#include <gtest/gtest.h>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& xnnpack() {
  static PluginClient c(QSPEC_PLUGIN_PATH, kAllConventions);
  return c;
}

TEST(xnnpack_all_conventions, ClaimsEveryConventionOfItsOps) {
  EXPECT_TRUE(xnnpack().supports("requantize", "gemmlowp.double_round"));
  EXPECT_TRUE(xnnpack().supports("requantize", "onednn.fp32"));
  EXPECT_TRUE(xnnpack().supports("quantize", "onnx.quantize_linear"));
  EXPECT_FALSE(xnnpack().supports("conv2d_made_up_op", "xnnpack.fp32"));
  EXPECT_NE(xnnpack().capabilities().find("all-conventions mode"), std::string::npos);
}

// gemmlowp.double_round M = 2^30, shift -1 is m = 1/4, exactly a float32. x = 5: gemmlowp gives
// 2 (1.25 double-rounded), XNNPACK rne(1.25) = 1; x = -6: -1.5 -> -2 both ways; + zp 0.
TEST(xnnpack_all_conventions, FixedPointParametersBecomeTheFloatScale) {
  auto r = xnnpack().run("requantize", "gemmlowp.double_round",
                         "{\"multiplier\":1073741824,\"shift\":-1,\"output_zero_point\":0,\"out_dtype\":\"int8\"}",
                         {i32("x", {5, -6, 2})}, QSPEC_DTYPE_INT8, {3});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{1, -2, 0}));  // 2 * 0.25 = 0.5 -> 0 (even)
}

// TVM form: (x - input_zero_point) * fl32(input_scale / output_scale): (13 - 3) * (1/4) = 2.5 -> 2.
TEST(xnnpack_all_conventions, RatioParametersSubtractTheInputZeroPoint) {
  auto r = xnnpack().run("requantize", "tvm.upward",
                         "{\"input_scale\":\"" + f32_hex(0.5f) + "\",\"output_scale\":\"" + f32_hex(2.0f) +
                             "\",\"input_zero_point\":3,\"output_zero_point\":1,\"out_dtype\":\"int8\"}",
                         {i32("x", {13})}, QSPEC_DTYPE_INT8, {1});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, std::vector<std::int64_t>{3});
}

// A translated multiplier >= 256 is something XNNPACK cannot express: UNSUPPORTED, not REJECTED.
TEST(xnnpack_all_conventions, TranslatedRefusalsAreUnsupported) {
  auto r = xnnpack().run("requantize", "gemmlowp.double_round",
                         "{\"multiplier\":1073741824,\"shift\":10,\"output_zero_point\":0,\"out_dtype\":\"int8\"}",
                         {i32("x", {1})}, QSPEC_DTYPE_INT8, {1});  // m = 512
  EXPECT_EQ(r.status, QSPEC_STATUS_UNSUPPORTED) << r.message;
  auto own = xnnpack().run("requantize", "xnnpack.fp32",
                           "{\"scale\":\"" + f32_hex(512.0f) + "\",\"output_zero_point\":0,\"out_dtype\":\"int8\"}",
                           {i32("x", {1})}, QSPEC_DTYPE_INT8, {1});
  EXPECT_EQ(own.status, QSPEC_STATUS_REJECTED) << own.message;
}

}  // namespace
