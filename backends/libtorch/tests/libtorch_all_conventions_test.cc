// The libtorch adapter in the all-conventions mode on the default (onednn) engine: TVM's add,
// concatenate and dense computed by libtorch's own quantized operators, on hand-derived cases.
//
// A separate binary: the engine is chosen when the backend is created. Expected
// values follow libtorch's documented arithmetic, NOT read back from the library:
//   quantized::add   dequantize both inputs to float32, add, quantize the sum once
//                    (nearbyint(sum * fl32(1 / s)) + zp);
//   quantized::cat   dequantize every input to float32, quantize with the output parameters;
//   quantized::linear (onednn) sat(rne(acc * s + zp)): the zero point before rounding.
#include <gtest/gtest.h>

#include <cstdlib>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& torch_all() {
  static PluginClient* c = [] {
    unsetenv("QSPEC_LIBTORCH_QENGINE");
    return new PluginClient(QSPEC_PLUGIN_PATH, kAllConventions);
  }();
  return *c;
}

HostTensor i8(const char* name, std::vector<std::int64_t> shape, std::vector<std::int64_t> v) {
  return HostTensor{name, QSPEC_DTYPE_INT8, std::move(shape), std::move(v)};
}

TEST(libtorch_all_conventions, TheDefaultEngineIsOnednn) {
  EXPECT_NE(std::string(torch_all().backend().version).find("qengine onednn"), std::string::npos)
      << torch_all().backend().version;
  EXPECT_TRUE(torch_all().supports("tvm.qnn.add", "tvm"));
}

// lhs [1, 3] at scale .5 + rhs [0, 0]: float sums .5 and 1.5, quantized once at scale 1: 0 and 2
// (half to even). TVM rounds each requantized input first (.5 -> 1 under TONEAREST).
TEST(libtorch_all_conventions, AddQuantizesTheFloatSumOnce) {
  const std::string attrs = std::string("{\"lhs_scale\":\"") + f32_hex(0.5f) + "\",\"lhs_zero_point\":0,\"rhs_scale\":\"" +
                            f32_hex(0.5f) + "\",\"rhs_zero_point\":0,\"output_scale\":\"" + f32_hex(1.0f) +
                            "\",\"output_zero_point\":0,\"out_dtype\":\"int8\"}";
  auto r = torch_all().run("tvm.qnn.add", "tvm", attrs, {i8("lhs", {2}, {1, 3}), i8("rhs", {2}, {0, 0})}, QSPEC_DTYPE_INT8, {2});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{0, 2}));
}

// x0 [1, 3, -5] at scale .5, zero point 1: reals 0, 1, -3; output scale 2, zero point 3: 0, .5,
// -1.5 -> 0, 0, -2 (half to even) -> 3, 3, 1.
TEST(libtorch_all_conventions, ConcatenateRequantizesThroughFloat) {
  const std::string attrs = std::string("{\"input_scales\":[\"") + f32_hex(0.5f) + "\"],\"input_zero_points\":[1]," +
                            "\"output_scale\":\"" + f32_hex(2.0f) + "\",\"output_zero_point\":3,\"axis\":0,\"out_dtype\":\"int8\"}";
  auto r = torch_all().run("tvm.qnn.concatenate", "tvm", attrs, {i8("x0", {3}, {1, 3, -5})}, QSPEC_DTYPE_INT8, {3});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{3, 3, 1}));
}

// data [[2, -3, 7]] . weights [1, 1, 1], [2, 0, -1] = 6, -3; scale .5: 3, -1.5; zero point 11 added
// before rounding: 14, rne(9.5) = 10 (the qnnpack engine gives rne(-1.5) + 11 = 9).
TEST(libtorch_all_conventions, OnednnLinearAddsTheZeroPointBeforeRounding) {
  const std::string attrs = std::string("{\"input_scale\":\"") + f32_hex(0.5f) + "\",\"input_zero_point\":0,\"kernel_scale\":\"" +
                            f32_hex(1.0f) + "\",\"kernel_zero_point\":0,\"output_scale\":\"" + f32_hex(1.0f) +
                            "\",\"output_zero_point\":11,\"out_dtype\":\"int8\"}";
  auto r = torch_all().run("tvm.qnn.dense", "tvm", attrs,
                           {i8("data", {1, 3}, {2, -3, 7}), i8("weight", {2, 3}, {1, 1, 1, 2, 0, -1})}, QSPEC_DTYPE_INT8, {1, 2});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{14, 10}));
}

// The onednn engine rejects weight zero points: in the all-conventions mode that is "cannot
// express" (UNSUPPORTED), never a silent pass.
TEST(libtorch_all_conventions, OnednnRefusesAWeightZeroPoint) {
  const std::string attrs = std::string("{\"input_scale\":\"") + f32_hex(1.0f) + "\",\"input_zero_point\":0,\"kernel_scale\":\"" +
                            f32_hex(1.0f) + "\",\"kernel_zero_point\":1,\"output_scale\":\"" + f32_hex(1.0f) +
                            "\",\"output_zero_point\":0,\"out_dtype\":\"int8\"}";
  auto r = torch_all().run("tvm.qnn.dense", "tvm", attrs, {i8("data", {1, 1}, {1}), i8("weight", {1, 1}, {1})},
                           QSPEC_DTYPE_INT8, {1, 1});
  EXPECT_EQ(r.status, QSPEC_STATUS_UNSUPPORTED) << r.message;
}

}  // namespace
