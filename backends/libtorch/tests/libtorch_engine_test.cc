// The libtorch adapter's engine selection (QSPEC_LIBTORCH_QENGINE) and its all-conventions NN ops.
//
// A separate binary: the quantized engine is process-wide libtorch state, set when the adapter is
// created. Expected values are hand-derived: quantized::linear on the qnnpack engine computes the
// int32 accumulator exactly and requantizes it with the float32 scale s_in * s_w / s_out, rounding
// half to even, then adds the output zero point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& qnnpack() {
  static PluginClient* c = [] {
    setenv("QSPEC_LIBTORCH_QENGINE", "qnnpack", 1);
    return new PluginClient(QSPEC_PLUGIN_PATH, kAllConventions);
  }();
  return *c;
}

std::string dense_attrs(float in_scale, float out_scale, int out_zp) {
  return std::string("{\"input_scale\":\"") + f32_hex(in_scale) + "\",\"input_zero_point\":0,\"kernel_scale\":\"" +
         f32_hex(1.0f) + "\",\"kernel_zero_point\":0,\"output_scale\":\"" + f32_hex(out_scale) +
         "\",\"output_zero_point\":" + std::to_string(out_zp) + ",\"out_dtype\":\"int8\"}";
}

TEST(libtorch_engine, TheVersionNamesTheSelectedEngine) {
  EXPECT_NE(std::string(qnnpack().backend().version).find("qengine qnnpack"), std::string::npos)
      << qnnpack().backend().version;
}

// data [[2, -3, 7]] . weight rows [1, 1, 1] and [2, 0, -1] = 6 and -3; scale 1: 6, -3.
// With input scale .5: 3 and -1.5 -> -2 (half to even) ; output zero point 10: 13, 8.
TEST(libtorch_engine, QnnpackLinearRequantizesHalfEven) {
  HostTensor x{"data", QSPEC_DTYPE_INT8, {1, 3}, {2, -3, 7}};
  HostTensor w{"weight", QSPEC_DTYPE_INT8, {2, 3}, {1, 1, 1, 2, 0, -1}};
  auto r = qnnpack().run("tvm.qnn.dense", "tvm", dense_attrs(1.0f, 1.0f, 0), {x, w}, QSPEC_DTYPE_INT8, {1, 2});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{6, -3}));
  auto h = qnnpack().run("tvm.qnn.dense", "tvm", dense_attrs(0.5f, 1.0f, 10), {x, w}, QSPEC_DTYPE_INT8, {1, 2});
  ASSERT_EQ(h.status, QSPEC_STATUS_OK) << h.message;
  EXPECT_EQ(h.y, (std::vector<std::int64_t>{13, 8}));
}

// No libtorch engine returns the int32 accumulator: UNSUPPORTED, never a silent pass.
TEST(libtorch_engine, Int32DenseOutputIsUnsupported) {
  HostTensor x{"data", QSPEC_DTYPE_INT8, {1, 1}, {1}}, w{"weight", QSPEC_DTYPE_INT8, {1, 1}, {1}};
  auto r = qnnpack().run("tvm.qnn.dense", "tvm", dense_attrs(1.0f, 1.0f, 0), {x, w}, QSPEC_DTYPE_INT32, {1, 1});
  EXPECT_EQ(r.status, QSPEC_STATUS_UNSUPPORTED) << r.message;
}

std::string fc_attrs(float x_scale, int x_zp, float w_scale, float y_scale, int y_zp) {
  return std::string("{\"x_scale\":\"") + f32_hex(x_scale) + "\",\"x_zero_point\":" + std::to_string(x_zp) +
         ",\"w_scales\":[\"" + f32_hex(w_scale) + "\"],\"w_zero_point\":0,\"y_scale\":\"" + f32_hex(y_scale) +
         "\",\"y_zero_point\":" + std::to_string(y_zp) + "}";
}

TEST(libtorch_engine, TheQnnpackEngineClaimsThePytorchQnnpackConvention) {
  EXPECT_TRUE(qnnpack().supports("qlinear.fully_connected", "pytorch.qnnpack"));
  EXPECT_TRUE(qnnpack().supports("qlinear.conv2d", "pytorch.qnnpack"));
}

// x = [[1]], w = [[1]], x_scale 3, w_scale 1, y_scale 3, bias 7: PyTorch quantizes its float bias with
// the reciprocal fl32(1 / 3) (not exact), so the adapter must find a float that lands on 7; the
// accumulator 1 + 7 = 8 times S = 1 (3 * fl32(1 / 3) rounds to 1 in float32) gives 8.
TEST(libtorch_engine, QnnpackLinearAddsTheVectorsInt32BiasExactly) {
  HostTensor x{"x", QSPEC_DTYPE_INT8, {1, 1}, {1}}, w{"w", QSPEC_DTYPE_INT8, {1, 1}, {1}};
  for (const std::int64_t b : {7, -7, 1000001, -123457}) {
    auto r = qnnpack().run("qlinear.fully_connected", "pytorch.qnnpack", fc_attrs(3.0f, 0, 1.0f, 3.0f, 0),
                           {x, w, i32("b", {b})}, QSPEC_DTYPE_INT8, {1, 1});
    ASSERT_EQ(r.status, QSPEC_STATUS_OK) << b << ": " << r.message;
    EXPECT_EQ(r.y, (std::vector<std::int64_t>{std::clamp<std::int64_t>(1 + b, -128, 127)})) << b;
  }
  // uint8 x: 1 + 7 = 8 again (z_x = 0).
  HostTensor xu{"x", QSPEC_DTYPE_UINT8, {1, 1}, {1}};
  auto u = qnnpack().run("qlinear.fully_connected", "pytorch.qnnpack", fc_attrs(3.0f, 0, 1.0f, 3.0f, 0),
                         {xu, w, i32("b", {7})}, QSPEC_DTYPE_UINT8, {1, 1});
  ASSERT_EQ(u.status, QSPEC_STATUS_OK) << u.message;
  EXPECT_EQ(u.y, (std::vector<std::int64_t>{8}));
}

// With scales 1 the bias is taken as a float32 as it is: 2^24 + 1 has none (UNSUPPORTED, with the
// reason), 2^24 + 2 has one.
TEST(libtorch_engine, QnnpackLinearDeclinesABiasNoFloatReaches) {
  HostTensor x{"x", QSPEC_DTYPE_INT8, {1, 1}, {0}}, w{"w", QSPEC_DTYPE_INT8, {1, 1}, {0}};
  auto r = qnnpack().run("qlinear.fully_connected", "pytorch.qnnpack", fc_attrs(1.0f, 0, 1.0f, 1.0f, 0),
                         {x, w, i32("b", {(1 << 24) + 1})}, QSPEC_DTYPE_INT8, {1, 1});
  EXPECT_EQ(r.status, QSPEC_STATUS_UNSUPPORTED) << r.message;
  EXPECT_NE(r.message.find("no float32 bias"), std::string::npos) << r.message;
  auto ok = qnnpack().run("qlinear.fully_connected", "pytorch.qnnpack", fc_attrs(1.0f, 0, 1.0f, 1.0f, 0),
                          {x, w, i32("b", {(1 << 24) + 2})}, QSPEC_DTYPE_INT8, {1, 1});
  ASSERT_EQ(ok.status, QSPEC_STATUS_OK) << ok.message;
  EXPECT_EQ(ok.y, (std::vector<std::int64_t>{127}));
}

// A qint8 activation zero point of 128 is refused, as quantize_per_tensor refuses it (the tensors
// are built from the codes, which skips PyTorch's check; regression: it was computed).
TEST(libtorch_engine, QnnpackLinearRejectsAZeroPointOutsideTheActivationType) {
  HostTensor x{"x", QSPEC_DTYPE_INT8, {1, 1}, {127}}, w{"w", QSPEC_DTYPE_INT8, {1, 1}, {1}};
  auto r = qnnpack().run("qlinear.fully_connected", "pytorch.qnnpack", fc_attrs(1.0f, 128, 1.0f, 2.0f, 0), {x, w},
                         QSPEC_DTYPE_INT8, {1, 1});
  EXPECT_EQ(r.status, QSPEC_STATUS_REJECTED) << r.message;
}

TEST(libtorch_engine, AnEngineThisBuildLacksFailsTheCreation) {
  setenv("QSPEC_LIBTORCH_QENGINE", "fbgemm", 1);  // Debian's libtorch is built without FBGEMM
  EXPECT_THROW(PluginClient c(QSPEC_PLUGIN_PATH), std::runtime_error);
  setenv("QSPEC_LIBTORCH_QENGINE", "qnnpack", 1);
}

}  // namespace
