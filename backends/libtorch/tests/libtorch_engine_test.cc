// The libtorch adapter's engine selection (QSPEC_LIBTORCH_QENGINE) and its all-conventions NN ops.
//
// A separate binary: the quantized engine is process-wide libtorch state, set when the adapter is
// created. Expected values are hand-derived: quantized::linear on the qnnpack engine computes the
// int32 accumulator exactly and requantizes it with the float32 scale s_in * s_w / s_out, rounding
// half to even, then adds the output zero point.
#include <gtest/gtest.h>

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

TEST(libtorch_engine, AnEngineThisBuildLacksFailsTheCreation) {
  setenv("QSPEC_LIBTORCH_QENGINE", "fbgemm", 1);  // Debian's libtorch is built without FBGEMM
  EXPECT_THROW(PluginClient c(QSPEC_PLUGIN_PATH), std::runtime_error);
  setenv("QSPEC_LIBTORCH_QENGINE", "qnnpack", 1);
}

}  // namespace
