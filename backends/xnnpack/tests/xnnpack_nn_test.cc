// XNNPACK's pooling, copy-based concat and (all-conventions) fully connected / convolution / add through
// the adapter's ABI, on hand-derived cases.
#include <gtest/gtest.h>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& xnnpack() {
  static PluginClient c(QSPEC_PLUGIN_PATH, kAllConventions);
  return c;
}

std::vector<std::int64_t> ok(const Result& r) {
  EXPECT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  return r.y;
}

TEST(tvm_qnn_max_pool2d, NchwThroughNhwcAndPadding) {
  // 1x2x2x2 (two channels): 2x2 window, stride 2, padding 1 -> 2x2 windows per channel.
  HostTensor x{"data", QSPEC_DTYPE_INT8, {1, 2, 2, 2}, {-5, 7, 0, -1, 100, -100, -128, 3}};
  EXPECT_EQ(ok(xnnpack().run("tvm.qnn.max_pool2d", "tvm", "{\"kernel\":[2,2],\"strides\":[2,2],\"padding\":[1,1]}", {x},
                             QSPEC_DTYPE_INT8, {1, 2, 2, 2})),
            (std::vector<std::int64_t>{-5, 7, 0, -1, 100, -100, -128, 3}));
  // 2x2 window without padding: one output per channel.
  EXPECT_EQ(ok(xnnpack().run("tvm.qnn.max_pool2d", "tvm", "{\"kernel\":[2,2]}", {x}, QSPEC_DTYPE_INT8, {1, 2, 1, 1})),
            (std::vector<std::int64_t>{7, 100}));
  EXPECT_EQ(xnnpack().run("tvm.qnn.max_pool2d", "tvm", "{\"kernel\":[1,1]}", {x}, QSPEC_DTYPE_INT8, {1, 2, 2, 2}).status,
            QSPEC_STATUS_UNSUPPORTED);  // XNNPACK refuses 1x1 pooling
}

TEST(mrt_op_concat, StridedCopies) {
  HostTensor a{"x0", QSPEC_DTYPE_INT8, {2, 1}, {1, -2}};
  HostTensor b{"x1", QSPEC_DTYPE_INT8, {2, 2}, {30, 40, -50, 60}};
  EXPECT_EQ(ok(xnnpack().run("concat", "mrt", "{\"axis\":1}", {a, b}, QSPEC_DTYPE_INT8, {2, 3})),
            (std::vector<std::int64_t>{1, 30, 40, -2, -50, 60}));
  HostTensor c{"x0", QSPEC_DTYPE_INT32, {1, 2}, {100000, -7}};
  EXPECT_EQ(ok(xnnpack().run("concat", "mrt", "{\"axis\":0}", {c, c}, QSPEC_DTYPE_INT32, {2, 2})),
            (std::vector<std::int64_t>{100000, -7, 100000, -7}));
  HostTensor bad{"x1", QSPEC_DTYPE_INT8, {3, 2}, {0, 0, 0, 0, 0, 0}};
  EXPECT_EQ(xnnpack().run("concat", "mrt", "{\"axis\":1}", {a, bad}, QSPEC_DTYPE_INT8, {2, 3}).status, QSPEC_STATUS_REJECTED);
}

// dense: x [[10, -3]] izp 0, w [[1, 2], [3, -4]] (symmetric): acc = 4, 42; scale 0.5*0.5/0.25 = 1
// -> 4, 42; + ozp 1. Then a tie: scales 0.5*1/1 = 0.5: 2 and 21 -> rne(2) = 2, rne(21) = 21 -> +1.
TEST(tvm_qnn_dense, XnnpackFullyConnectedWithItsEpilogue) {
  HostTensor x{"data", QSPEC_DTYPE_INT8, {1, 2}, {10, -3}};
  HostTensor w{"weight", QSPEC_DTYPE_INT8, {2, 2}, {1, 2, 3, -4}};
  auto attrs = [](const char* is, const char* ks, const char* os) {
    return std::string("{\"input_scale\":\"") + is + "\",\"kernel_scale\":\"" + ks + "\",\"output_scale\":\"" + os +
           "\",\"output_zero_point\":1,\"out_dtype\":\"int8\"}";
  };
  EXPECT_EQ(ok(xnnpack().run("tvm.qnn.dense", "tvm", attrs("0x3f000000", "0x3f000000", "0x3e800000"), {x, w}, QSPEC_DTYPE_INT8,
                             {1, 2})),
            (std::vector<std::int64_t>{5, 43}));
  // 0.25 * 1 / 1: 4 * 0.25 = 1, 42 * 0.25 = 10.5 -> 10 (half even), + 1.
  EXPECT_EQ(ok(xnnpack().run("tvm.qnn.dense", "tvm", attrs("0x3e800000", "0x3f800000", "0x3f800000"), {x, w}, QSPEC_DTYPE_INT8,
                             {1, 2})),
            (std::vector<std::int64_t>{2, 11}));
}

// conv: 1x1x2x2 input [[1, 2], [3, 4]] izp 1, 1x1x2x2 kernel of ones, no padding: acc = 0+1+2+3 = 6;
// scales 1 -> 6 + ozp 1 = 7. NHWC/HWIO gives the same.
TEST(tvm_qnn_conv2d, XnnpackConvolutionBothLayouts) {
  const std::string attrs =
      "\"input_zero_point\":1,\"input_scale\":\"0x3f800000\",\"kernel_scale\":\"0x3f800000\",\"output_scale\":\"0x3f800000\","
      "\"output_zero_point\":1,\"out_dtype\":\"int8\"";
  HostTensor x{"data", QSPEC_DTYPE_INT8, {1, 1, 2, 2}, {1, 2, 3, 4}};
  HostTensor w{"kernel", QSPEC_DTYPE_INT8, {1, 1, 2, 2}, {1, 1, 1, 1}};
  EXPECT_EQ(ok(xnnpack().run("tvm.qnn.conv2d", "tvm", "{" + attrs + "}", {x, w}, QSPEC_DTYPE_INT8, {1, 1, 1, 1})),
            std::vector<std::int64_t>{7});
  HostTensor xn{"data", QSPEC_DTYPE_INT8, {1, 2, 2, 1}, {1, 2, 3, 4}};
  HostTensor wn{"kernel", QSPEC_DTYPE_INT8, {2, 2, 1, 1}, {1, 1, 1, 1}};
  EXPECT_EQ(ok(xnnpack().run("tvm.qnn.conv2d", "tvm", "{\"data_layout\":\"NHWC\"," + attrs + "}", {xn, wn}, QSPEC_DTYPE_INT8,
                             {1, 1, 1, 1})),
            std::vector<std::int64_t>{7});
}

// add: lhs -43 (zp -2, scale 0.5) and rhs -106 (zp 0, scale 0.25) are -20.5 and -26.5; the exact
// sum -47 at output scale 1 and zp 1 is -46. XNNPACK rounds the sum once: -46 (TVM rounds each
// requantized input first and gives -45).
TEST(tvm_qnn_add, XnnpackRoundsTheSumOnce) {
  HostTensor a{"lhs", QSPEC_DTYPE_INT8, {1}, {-43}};
  HostTensor b{"rhs", QSPEC_DTYPE_INT8, {1}, {-106}};
  EXPECT_EQ(ok(xnnpack().run("tvm.qnn.add", "tvm",
                             "{\"lhs_scale\":\"0x3f000000\",\"lhs_zero_point\":-2,\"rhs_scale\":\"0x3e800000\",\"rhs_zero_point\":0,"
                             "\"output_scale\":\"0x3f800000\",\"output_zero_point\":1,\"out_dtype\":\"int8\"}",
                             {a, b}, QSPEC_DTYPE_INT8, {1})),
            std::vector<std::int64_t>{-46});
}

}  // namespace
