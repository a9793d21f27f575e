// requantize / requantize_per_channel (xnnpack.fp32) through XNNPACK operators whose bias is the accumulator.
//
// XNNPACK exports no standalone requantization (its requantize functions are hidden symbols),
// so the adapter uses the smallest operators that end in the epilogue every GEMM kernel uses:
// - per tensor: a fully_connected_nc_qs8/qu8 with one input channel, a zero kernel, bias = x,
//   input_scale = scale and kernel_scale = output_scale = 1 (so XNNPACK's float32
//   input_scale * kernel_scale / output_scale is exactly `scale`). Output channel n computes
//   acc = bias[n] + 0 = x[n] and requantizes it with the library's own kernel.
// - per channel: a 1x1 convolution2d_nhwc_qc8 per position, bias = that position's channels,
//   kernel_scale[c] = scales[c] (input and output scale 1). qc8 exists for int8 only.
// XNNPACK refuses a requantization scale >= 256 (unsupported parameter) and a scale that is not
// a positive normal float (invalid parameter): the spec's ERROR_IF, reported as rejections.
#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/thirdparty/channel_view.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "xnn_util.h"

namespace qspec::xnnpack_adapter {
namespace {
using namespace thirdparty;

template <typename T>
std::vector<std::int64_t> requantize_fc(const Call& call, const std::vector<std::int32_t>& x, float scale, std::int64_t zp) {
  const std::size_t n = x.size();
  std::vector<T> kernel(n, 0), output(n, 0);
  const T input[1] = {0};
  Operator op;
  constexpr bool kSigned = std::is_same_v<T, std::int8_t>;
  const std::string what = std::string("xnn_create_fully_connected_nc_") + (kSigned ? "qs8" : "qu8") +
                           "(input_scale=" + std::to_string(scale) + ", kernel_scale=1, output_scale=1, output_zero_point=" +
                           std::to_string(zp) + ")";
  if constexpr (kSigned) {
    check_create(call,
                 xnn_create_fully_connected_nc_qs8(/*input_channels=*/1, /*output_channels=*/n, /*input_stride=*/1,
                                                   /*output_stride=*/n, /*input_zero_point=*/0, /*input_scale=*/scale,
                                                   /*kernel_scale=*/1.0f, kernel.data(), x.data(),
                                                   static_cast<std::int8_t>(zp), /*output_scale=*/1.0f, INT8_MIN, INT8_MAX,
                                                   /*flags=*/0, op.out()),
                 what);
    check(xnn_setup_fully_connected_nc_qs8(op.get(), /*batch_size=*/1, input, output.data(), nullptr),
          "xnn_setup_fully_connected_nc_qs8");
  } else {
    check_create(call,
                 xnn_create_fully_connected_nc_qu8(1, n, 1, n, /*input_zero_point=*/0, scale, /*kernel_zero_point=*/0,
                                                   1.0f, kernel.data(), x.data(), static_cast<std::uint8_t>(zp), 1.0f, 0,
                                                   UINT8_MAX, 0, op.out()),
                 what);
    check(xnn_setup_fully_connected_nc_qu8(op.get(), 1, input, output.data(), nullptr),
          "xnn_setup_fully_connected_nc_qu8");
  }
  check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
  return std::vector<std::int64_t>(output.begin(), output.end());
}

// out_dtype int8/uint8 and a zero point the API's int8_t/uint8_t parameter can hold.
void check_out(const Call& call, qspec_dtype out, std::int64_t zp, const qspec_tensor& yt) {
  if (yt.dtype != out) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  if (out != QSPEC_DTYPE_INT8 && out != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("XNNPACK quantized operators produce int8 (qs8) or uint8 (qu8), not ") + dtype_name(out));
  if (zp < dtype_min(out) || zp > dtype_max(out))
    call.refuse("XNNPACK's API takes the output zero point as " + std::string(out == QSPEC_DTYPE_INT8 ? "int8_t" : "uint8_t") +
                ", which cannot hold " + std::to_string(zp));
}

}  // namespace

void run_requantize(const Call& call) {
  const RequantParams p = read_requant_params(call.attrs);
  const qspec_tensor& xt = call.input(cat::requantize::in::x);
  qspec_tensor& yt = call.output(cat::requantize::out::y);
  check_out(call, p.out_dtype, p.output_zero_point, yt);
  const std::vector<std::int32_t> x = p.accumulators(read_accumulator_input(xt));
  if (x.empty()) return;  // XNNPACK rejects zero output channels; nothing to compute
  const float scale = p.as_f32_scale();
  write_ints(yt, p.out_dtype == QSPEC_DTYPE_INT8 ? requantize_fc<std::int8_t>(call, x, scale, p.output_zero_point)
                                                 : requantize_fc<std::uint8_t>(call, x, scale, p.output_zero_point));
}

void run_requantize_per_channel(const Call& call) {
  using Op = cat::requantize_per_channel;
  const qspec_tensor& xt = call.input(Op::in::x);
  qspec_tensor& yt = call.output(Op::out::y);
  const ChannelView view(xt, channel_axis(call, xt));
  // One float32 scale per channel (the vector's own; other conventions' translated per channel).
  const std::vector<RequantParams> ps = read_per_channel_params(call, view.channels());
  const qspec_dtype out = ps.empty() ? to_abi_dtype(attr::get(call.attrs, Op::attr::out_dtype)) : ps[0].out_dtype;
  const std::int64_t zp = ps.empty() ? 0 : ps[0].output_zero_point;
  for (const auto& p : ps)
    if (p.output_zero_point != zp) throw Unsupported("XNNPACK takes one output zero point for all channels");
  check_out(call, out, zp, yt);
  if (out != QSPEC_DTYPE_INT8) throw Unsupported("XNNPACK has per-channel (qc8) operators for int8 outputs only");
  std::vector<float> scales;
  for (const auto& p : ps) scales.push_back(p.as_f32_scale());
  // Input zero points (TVM's per-channel form) are subtracted from each channel's accumulators.
  std::vector<std::int32_t> x = read_accumulator_input(xt);
  for (std::int64_t c = 0; c < view.channels(); ++c)
    view.scatter(c, ps[static_cast<std::size_t>(c)].accumulators(view.gather(x, c)), x);
  std::vector<std::int64_t> y(x.size());
  if (x.empty()) return write_ints(yt, y);
  const std::size_t c = static_cast<std::size_t>(view.channels());
  const std::vector<std::int8_t> kernel(c, 0);  // [oc][kh=1][kw=1][ic=1]
  for (std::int64_t pos = 0; pos < view.positions(); ++pos) {
    const std::vector<std::int32_t> bias = view.gather_position(x, pos);
    Operator op;
    check_create(call,
                 xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, /*kernel=*/1, 1, /*subsampling=*/1, 1, /*dilation=*/1, 1,
                                                   /*groups=*/1, /*group_input_channels=*/1, /*group_output_channels=*/c,
                                                   /*input_channel_stride=*/1, /*output_channel_stride=*/c,
                                                   /*input_zero_point=*/0, /*input_scale=*/1.0f, scales.data(),
                                                   kernel.data(), bias.data(), static_cast<std::int8_t>(zp),
                                                   /*output_scale=*/1.0f, INT8_MIN, INT8_MAX, 0, op.out()),
                 "xnn_create_convolution2d_nhwc_qc8 (per-channel kernel scales)");
    const std::int8_t input[1] = {0};
    std::vector<std::int8_t> output(c);
    check(xnn_setup_convolution2d_nhwc_qc8(op.get(), /*batch=*/1, /*height=*/1, /*width=*/1, input, output.data(), nullptr),
          "xnn_setup_convolution2d_nhwc_qc8");
    check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
    view.scatter_position(pos, std::vector<std::int64_t>(output.begin(), output.end()), y);
  }
  write_ints(yt, y);
}

}  // namespace qspec::xnnpack_adapter
