// The all-conventions mode of the gemmlowp adapter: float scales become TFLite's QuantizeMultiplier.
//
// Expected values are hand-derived: scale 0.25 -> frexp = 0.5 * 2^-1 -> M = 2^30, shift -1;
// then gemmlowp's double rounding (spec/gemmlowp.md): x = 5 -> SRDHM 2.5 -> 3 -> RDBPOT 1.5 -> 2.
#include <gtest/gtest.h>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& gemmlowp() {
  static PluginClient c(QSPEC_PLUGIN_PATH, kAllConventions);
  return c;
}

TEST(gemmlowp_all_conventions, FloatScaleBecomesQuantizeMultiplier) {
  ASSERT_TRUE(gemmlowp().supports("requantize", "xnnpack.fp32"));
  auto r = gemmlowp().run("requantize", "xnnpack.fp32",
                          "{\"scale\":\"" + f32_hex(0.25f) + "\",\"output_zero_point\":-1,\"out_dtype\":\"int8\"}",
                          {i32("x", {5, -5, 400, -600})}, QSPEC_DTYPE_INT8, {4});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  // 5 -> 2; -5: SRDHM -2.5 -> -2, RDBPOT -1; 400 -> 100; -600 -> -150; each - 1, clamped.
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{1, -2, 99, -128}));
}

// The legacy stage is a convention gemmlowp implements itself: it stays native in this mode.
TEST(gemmlowp_all_conventions, NativeConventionsStayNative) {
  auto r = gemmlowp().run("requantize", "gemmlowp.legacy_uint8_scale",
                          "{\"result_offset\":0,\"result_mult_int\":1,\"result_shift\":1,\"out_dtype\":\"int32\"}",
                          {i32("x", {-3})}, QSPEC_DTYPE_INT32, {1});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, std::vector<std::int64_t>{-2});
}

}  // namespace
