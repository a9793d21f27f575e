// The libtorch adapter through the C ABI on hand-derived cases (research/third-party-libraries.md).
//
// Expected values are derived by hand from PyTorch 1.13's documented formulas, NOT read back from
// the library: quantize = sat(nearbyint(x * fl32(1 / scale)) + zp) (ties to even, zero point added
// after rounding); requantize_from_int = sat(zp + lrintf(float(acc) * float(m))); dequantize =
// fl32(q - zp) * scale; max pooling and concatenation are exact.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <tuple>
#include <vector>

#include "plugin_client.h"

namespace {
using namespace qspec::thirdparty::testing;

const PluginClient& torch() {
  static PluginClient c(QSPEC_PLUGIN_PATH);
  return c;
}

std::string q_attrs(float scale, long zp) {
  return std::string("{\"scale\":\"") + f32_hex(scale) + "\",\"zero_point\":" + std::to_string(zp) + "}";
}
std::string rq_attrs(float scale, long zp, const char* out) {
  return std::string("{\"scale\":\"") + f32_hex(scale) + "\",\"output_zero_point\":" + std::to_string(zp) +
         ",\"out_dtype\":\"" + out + "\"}";
}
Result requant1(std::int64_t acc, float m, long zp, qspec_dtype d = QSPEC_DTYPE_INT8) {
  const char* out = d == QSPEC_DTYPE_INT8 ? "int8" : d == QSPEC_DTYPE_UINT8 ? "uint8" : "int32";
  return torch().run("requantize", "pytorch.requantize_from_int", rq_attrs(m, zp, out), {i32("x", {acc})}, d, {1});
}
HostTensor i32_4d(std::vector<std::int64_t> shape, std::vector<std::int64_t> v) {
  return HostTensor{"x", QSPEC_DTYPE_INT32, std::move(shape), std::move(v)};
}

TEST(libtorch_adapter, ClaimsThePytorchConventions) {
  EXPECT_TRUE(torch().supports("quantize", "pytorch.quantize_per_tensor"));
  EXPECT_TRUE(torch().supports("quantize_per_channel", "pytorch.quantize_per_channel"));
  EXPECT_TRUE(torch().supports("dequantize", "pytorch.dequantize"));
  EXPECT_TRUE(torch().supports("requantize", "pytorch.requantize_from_int"));
  EXPECT_TRUE(torch().supports("max_pool2d", "mrt"));
  EXPECT_FALSE(torch().supports("requantize", "xnnpack.fp32"));
  EXPECT_FALSE(torch().supports("quantize", "onednn.reorder"));
  // TVM's dense is computed only in the all-conventions mode (libtorch requantizes its own way).
  EXPECT_FALSE(torch().supports("tvm.qnn.dense", "tvm"));
}

// pytorch.qnnpack is the qnnpack engine's arithmetic: the default engine (onednn in Debian's
// build) computes linear / conv2d another way (errata E-LIBTORCH-QLINEAR-3, -5): pytorch.onednn.
TEST(libtorch_adapter, TheDefaultEngineClaimsPytorchOnednnNotPytorchQnnpack) {
  if (std::string(torch().backend().version).find("qengine onednn") == std::string::npos)
    GTEST_SKIP() << "the engine is not onednn: " << torch().backend().version;
  EXPECT_FALSE(torch().supports("qlinear.fully_connected", "pytorch.qnnpack"));
  EXPECT_FALSE(torch().supports("qlinear.conv2d", "pytorch.qnnpack"));
  EXPECT_TRUE(torch().supports("qlinear.fully_connected", "pytorch.onednn"));
  EXPECT_TRUE(torch().supports("qlinear.conv2d", "pytorch.onednn"));
}

std::string onednn_fc_attrs(float x_scale, int x_zp, float w_scale, float y_scale, int y_zp) {
  return std::string("{\"x_scale\":\"") + f32_hex(x_scale) + "\",\"x_zero_point\":" + std::to_string(x_zp) +
         ",\"w_scales\":[\"" + f32_hex(w_scale) + "\"],\"y_scale\":\"" + f32_hex(y_scale) +
         "\",\"y_zero_point\":" + std::to_string(y_zp) + "}";
}

// The onednn engine caches primitives keyed without the zero points (E-LIBTORCH-QLINEAR-1): two
// calls with the same shapes and scales and other zero points must each get their own. Scales 1:
// x = [10, 0, ...] (7 taps), w = [3, 0, ...]: (10 - 2) 3 + 5 = 29, then (10 - 4) 3 + 50 = 68
// (libtorch alone gives 29 twice), then the first again: 29.
TEST(libtorch_adapter, OnednnLinearUsesEachCallsZeroPoints) {
  if (std::string(torch().backend().version).find("qengine onednn") == std::string::npos)
    GTEST_SKIP() << "the engine is not onednn: " << torch().backend().version;
  std::vector<std::int64_t> xv(7, 0), wv(7, 0);
  xv[0] = 10, wv[0] = 3;
  const HostTensor x{"x", QSPEC_DTYPE_UINT8, {1, 7}, xv}, w{"w", QSPEC_DTYPE_INT8, {1, 7}, wv};
  for (auto [zx, zy, want] : {std::tuple{2, 5, 29}, std::tuple{4, 50, 68}, std::tuple{2, 5, 29}}) {
    auto r = torch().run("qlinear.fully_connected", "pytorch.onednn", onednn_fc_attrs(1.0f, zx, 1.0f, 1.0f, zy), {x, w},
                         QSPEC_DTYPE_UINT8, {1, 1});
    ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
    EXPECT_EQ(r.y, std::vector<std::int64_t>{want}) << "x_zero_point " << zx << ", y_zero_point " << zy;
  }
}

// The int32 bias 7 with x_scale 3: the engine adds fl32(b_f c) with c = fl32(fl32(1 / 3) 1), so the
// adapter must hand over a b_f with fl32(b_f c) = 7; acc 1 + 7 = 8, M = fl32(fl32(1 / 3) / c) = 1:
// 8 + y_zero_point 0 = 8. A zero point of the weights is refused (symmetric weights only).
TEST(libtorch_adapter, OnednnLinearAddsTheVectorsInt32BiasAndRefusesWeightZeroPoints) {
  if (std::string(torch().backend().version).find("qengine onednn") == std::string::npos)
    GTEST_SKIP() << "the engine is not onednn: " << torch().backend().version;
  const HostTensor x{"x", QSPEC_DTYPE_UINT8, {1, 1}, {1}}, w{"w", QSPEC_DTYPE_INT8, {1, 1}, {1}};
  const HostTensor b{"b", QSPEC_DTYPE_INT32, {1}, {7}};
  auto r = torch().run("qlinear.fully_connected", "pytorch.onednn", onednn_fc_attrs(3.0f, 0, 1.0f, 3.0f, 0), {x, w, b},
                       QSPEC_DTYPE_UINT8, {1, 1});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, std::vector<std::int64_t>{8});
  std::string wzp = onednn_fc_attrs(1.0f, 0, 1.0f, 1.0f, 0);
  wzp.insert(wzp.size() - 1, ",\"w_zero_point\":2");
  auto z = torch().run("qlinear.fully_connected", "pytorch.onednn", wzp, {x, w}, QSPEC_DTYPE_UINT8, {1, 1});
  EXPECT_EQ(z.status, QSPEC_STATUS_REJECTED) << z.message;
}

// The research table: x / s = .5, 1.5, 2.5 with s = .25, zp 3 -> rne 0, 2, 2 -> 3, 5, 5 (oneDNN,
// adding zp first, gives 4, 4, 6). -0.125 / .25 = -.5 -> -0 -> 3; 100 / .25 = 400 -> 127.
TEST(libtorch_adapter, QuantizeRoundsHalfEvenThenAddsTheZeroPoint) {
  auto r = torch().run("quantize", "pytorch.quantize_per_tensor", q_attrs(0.25f, 3),
                       {f32("x", {0.125f, 0.375f, 0.625f, -0.125f, 100.0f, -100.0f})}, QSPEC_DTYPE_INT8, {6});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{3, 5, 5, 3, 127, -128}));
}

// scale 0.1f: fl32(1 / 0.1f) = 10.0f exactly? 1 / 0.100000001490116 = 9.99999985..., nearest float
// 10.0f. x = 0.25f -> 2.5 -> 2 (even); x = 0.35f (0.3499999940) -> 3.499999940 * ... -> fl32 3.5 -> 4.
TEST(libtorch_adapter, QuantizeMultipliesByTheFloatReciprocal) {
  auto r = torch().run("quantize", "pytorch.quantize_per_tensor", q_attrs(0.1f, 0), {f32("x", {0.25f, 0.35f})},
                       QSPEC_DTYPE_INT8, {2});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{2, 4}));
}

TEST(libtorch_adapter, QuantizeToUint8AndInt32) {
  auto u = torch().run("quantize", "pytorch.quantize_per_tensor", q_attrs(0.5f, 200),
                       {f32("x", {100.0f, -0.75f, -200.0f})}, QSPEC_DTYPE_UINT8, {3});
  ASSERT_EQ(u.status, QSPEC_STATUS_OK) << u.message;
  EXPECT_EQ(u.y, (std::vector<std::int64_t>{255, 198, 0}));  // 400 -> sat; -1.5 -> -2; -400 -> sat
  auto i = torch().run("quantize", "pytorch.quantize_per_tensor", q_attrs(1.0f, -5), {f32("x", {100000.5f, -2.5f})},
                       QSPEC_DTYPE_INT32, {2});
  ASSERT_EQ(i.status, QSPEC_STATUS_OK) << i.message;
  EXPECT_EQ(i.y, (std::vector<std::int64_t>{99995, -7}));  // 100000.5 -> 100000; -2.5 -> -2
}

// checkZeroPoint: a zero point outside the quantized type is the spec's ERROR_IF: rejected. A dtype
// libtorch has no quantized type for is UNSUPPORTED.
TEST(libtorch_adapter, QuantizeRejectsAZeroPointOutsideTheTypeAndRefusesInt16) {
  std::string attrs = q_attrs(1.0f, 128);
  auto big = torch().run("quantize", "pytorch.quantize_per_tensor", attrs, {f32("x", {1.0f})}, QSPEC_DTYPE_INT8, {1});
  EXPECT_EQ(big.status, QSPEC_STATUS_REJECTED) << big.message;
  auto i16 = torch().run("quantize", "pytorch.quantize_per_tensor", q_attrs(1.0f, 0), {f32("x", {1.0f})},
                         QSPEC_DTYPE_INT16, {1});
  EXPECT_EQ(i16.status, QSPEC_STATUS_UNSUPPORTED) << i16.message;
}

// Outside PyTorch's contract (errata E-FLOAT-2, a REQUIRE of float.pytorch_quantize_per_tensor):
// 1e30 / .5 = 2e30 has no int64 value; x86's float -> int64 conversion returns INT64_MIN, which
// quantize_val's clamp takes to the LOW end: -128 for qint8 where saturation would give 127.
TEST(libtorch_adapter, QuantizeBeyondInt64SaturatesLow) {
  auto r = torch().run("quantize", "pytorch.quantize_per_tensor", q_attrs(0.5f, 0), {f32("x", {1e30f, 100.0f})},
                       QSPEC_DTYPE_INT8, {2});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{-128, 127}));
}

// Channel 0: scale .5, zp 0: .25 -> .5 -> 0, .75 -> 1.5 -> 2. Channel 1: scale .25, zp 1:
// .125 -> .5 -> 0 -> 1, -.375 -> -1.5 -> -2 -> -1.
TEST(libtorch_adapter, QuantizePerChannelUsesEachChannelsParameters) {
  HostTensor x{"x", QSPEC_DTYPE_FLOAT32, {2, 2}, {}};
  for (float f : {0.25f, 0.75f, 0.125f, -0.375f}) x.data.push_back(f32_bits(f));
  const std::string attrs = std::string("{\"axis\":0,\"scales\":[\"") + f32_hex(0.5f) + "\",\"" + f32_hex(0.25f) +
                            "\"],\"zero_points\":[0,1],\"out_dtype\":\"int8\"}";
  auto r = torch().run("quantize_per_channel", "pytorch.quantize_per_channel", attrs, {x}, QSPEC_DTYPE_INT8, {2, 2});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{0, 2, 1, -1}));
  const std::string bad_axis = std::string("{\"axis\":2,\"scales\":[\"") + f32_hex(0.5f) + "\",\"" + f32_hex(0.25f) +
                               "\"],\"zero_points\":[0,1],\"out_dtype\":\"int8\"}";
  EXPECT_EQ(torch()
                .run("quantize_per_channel", "pytorch.quantize_per_channel", bad_axis, {x}, QSPEC_DTYPE_INT8, {2, 2})
                .status,
            QSPEC_STATUS_REJECTED);
}

// (q - zp) * scale: (-128 - 1) * .5 = -64.5, (0 - 1) * .5 = -.5, (127 - 1) * .5 = 63.
TEST(libtorch_adapter, DequantizeSubtractsThenScales) {
  HostTensor x{"x", QSPEC_DTYPE_INT8, {3}, {-128, 0, 127}};
  auto r = torch().run("dequantize", "pytorch.dequantize", q_attrs(0.5f, 1), {x}, QSPEC_DTYPE_FLOAT32, {3});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{f32_bits(-64.5f), f32_bits(-0.5f), f32_bits(63.0f)}));
}

// lrintf(acc * m) + zp: -141 * .5 = -70.5 -> -70 (even) + 59 = -11 (oneDNN: -12); 5 * .5 -> 2;
// 7 * .5 -> 4; -5 * .5 -> -2.
TEST(libtorch_adapter, RequantizeRoundsHalfEvenBeforeTheZeroPoint) {
  EXPECT_EQ(requant1(-141, 0.5f, 59).y, std::vector<std::int64_t>{-11});
  EXPECT_EQ(requant1(-114, 0.25f, -82).y, std::vector<std::int64_t>{-110});
  EXPECT_EQ(requant1(5, 0.5f, 0).y, std::vector<std::int64_t>{2});
  EXPECT_EQ(requant1(7, 0.5f, 0).y, std::vector<std::int64_t>{4});
  EXPECT_EQ(requant1(-5, 0.5f, 0).y, std::vector<std::int64_t>{-2});
}

// float(acc) rounds accumulators above 2^24: 16777217 -> 16777216.0f; * 1 -> 16777216 + 0.
TEST(libtorch_adapter, RequantizeConvertsTheAccumulatorToFloat) {
  EXPECT_EQ(requant1(16777217, 1.0f, 0, QSPEC_DTYPE_INT32).y, std::vector<std::int64_t>{16777216});
  EXPECT_EQ(requant1(INT32_MAX, 0.5f, 0).y, std::vector<std::int64_t>{127});
  EXPECT_EQ(requant1(INT32_MIN, 0.5f, 0).y, std::vector<std::int64_t>{-128});
  EXPECT_EQ(requant1(-7, 0.5f, 200, QSPEC_DTYPE_UINT8).y, std::vector<std::int64_t>{196});  // -3.5 -> -4
}

// Max pooling of qint32 is exact: 16777217 and 16777216 are one float32 apart only after rounding.
TEST(libtorch_adapter, MaxPoolOfInt32IsExact) {
  auto r = torch().run("max_pool2d", "mrt", "{\"kernel\":[2,2],\"strides\":[2,2],\"padding\":[0,0]}",
                       {i32_4d({1, 1, 2, 2}, {16777216, 16777217, -5, INT32_MIN})}, QSPEC_DTYPE_INT32, {1, 1, 1, 1});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, std::vector<std::int64_t>{16777217});
}

// libtorch's pooling shape check wants padding <= kernel / 2: a wider padding is inexpressible.
TEST(libtorch_adapter, MaxPoolWithPaddingAboveHalfTheKernelIsUnsupported) {
  auto r = torch().run("max_pool2d", "mrt", "{\"kernel\":[2,2],\"strides\":[1,1],\"padding\":[0,2]}",
                       {i32_4d({1, 1, 2, 2}, {1, 2, 3, 4})}, QSPEC_DTYPE_INT32, {1, 1, 1, 5});
  EXPECT_EQ(r.status, QSPEC_STATUS_UNSUPPORTED) << r.message;
}

// Library bug (errata E-LIBTORCH-1): at::cat of quantized tensors dequantizes every input to float32,
// concatenates, and quantizes again (quantized_cat_impl's general path), even when every input has
// the output's scale and zero point. qint32 codes beyond 2^24 come back rounded: fl32(16777217) is
// 16777216 (the tie goes to the even significand). Concatenation must be exact (mrt.op.concat);
// the shipped mrt concat vectors never hold such values, so conformance_libtorch cannot see it.
TEST(libtorch_concat, Int32RoundsThroughFloat) {
  HostTensor a{"x0", QSPEC_DTYPE_INT32, {1}, {16777217}}, b{"x1", QSPEC_DTYPE_INT32, {2}, {INT32_MAX, INT32_MIN}};
  auto r = torch().run("concat", "mrt", "{\"axis\":0}", {a, b}, QSPEC_DTYPE_INT32, {3});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{16777216, INT32_MAX, INT32_MIN}));
}

// Below 2^24 (and at the int32 extremes, which float32 rounds and the quantizer saturates back)
// the round trip is exact.
TEST(libtorch_concat, Int32BelowTwoToThe24IsExact) {
  HostTensor a{"x0", QSPEC_DTYPE_INT32, {2}, {16777216, -16777215}}, b{"x1", QSPEC_DTYPE_INT32, {1}, {-1}};
  auto r = torch().run("concat", "mrt", "{\"axis\":0}", {a, b}, QSPEC_DTYPE_INT32, {3});
  ASSERT_EQ(r.status, QSPEC_STATUS_OK) << r.message;
  EXPECT_EQ(r.y, (std::vector<std::int64_t>{16777216, -16777215, -1}));
}

// quantized::add of uint8 operands whose a_zero_point is -1: libtorch's
// _make_per_tensor_quantized_tensor takes it (the adapter's way of building operands) and computes,
// where a user's torch.quantize_per_tensor refuses it; the adapter refuses it as the user's call
// would (the vectors' "a_zero_point -1 does not fit uint8" was "accepted an invalid input"). The
// same operands with a_zero_point 0 are computed: 1 + 3, 2 + 4.
TEST(libtorch_adapter, BinaryOpsRefuseAnOperandZeroPointOutsideTheDtype) {
  const char* conv = std::string(torch().backend().version).find("qengine qnnpack") == std::string::npos
                         ? "pytorch.onednn"
                         : "pytorch.qnnpack";
  const HostTensor a{"a", QSPEC_DTYPE_UINT8, {2}, {1, 2}}, b{"b", QSPEC_DTYPE_UINT8, {2}, {3, 4}};
  const std::string one = f32_hex(1.0f);
  auto attrs = [&](int za) {
    return std::string("{\"a_scale\":\"") + one + "\",\"a_zero_point\":" + std::to_string(za) + ",\"b_scale\":\"" +
           one + "\",\"b_zero_point\":0,\"y_scale\":\"" + one + "\",\"y_zero_point\":0}";
  };
  auto bad = torch().run("qlinear.add", conv, attrs(-1), {a, b}, QSPEC_DTYPE_UINT8, {2});
  EXPECT_EQ(bad.status, QSPEC_STATUS_REJECTED) << bad.message;
  auto badmul = torch().run("qlinear.mul", "pytorch.onednn", attrs(-1), {a, b}, QSPEC_DTYPE_UINT8, {2});
  EXPECT_EQ(badmul.status, QSPEC_STATUS_REJECTED) << badmul.message;
  auto ok = torch().run("qlinear.add", conv, attrs(0), {a, b}, QSPEC_DTYPE_UINT8, {2});
  ASSERT_EQ(ok.status, QSPEC_STATUS_OK) << ok.message;
  EXPECT_EQ(ok.y, (std::vector<std::int64_t>{4, 6}));
}

}  // namespace
