// PyTorch 1.13's quantized avg_pool2d (spec/operators_qlinear_pool.md): the window clause, the
// argument checks of at::avg_pool2d (and QNNPACK's for uint8 under the qnnpack engine), then the
// kernel's float steps in binary32 via ieee.h.
#include <string>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool_pytorch.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {

// spec: qlinear.avg_pool2d.pytorch_onednn
std::uint32_t qlinear_pytorch_aten_avgpool_multiplier(std::uint32_t x_scale, std::int64_t d) {
  // float multiplier = input_scale / output_scale / divide_factor (the output's scale is x's).
  return f32_div(f32_div(x_scale, x_scale), f32_from_int(Int(d)));
}

// spec: qlinear.avg_pool2d.pytorch_qnnpack
std::uint32_t qlinear_pytorch_qnnpack_avgpool_scale(std::uint32_t x_scale, std::int64_t k) {
  QSPEC_ERROR_IF(k == 1,
                 "pytorch.qnnpack: 1x1 pooling is meaningless (failed to create QNNPACK Average Pooling operator)");
  QSPEC_ERROR_IF(k >= (std::int64_t{1} << 24),
                 "pytorch.qnnpack: the number of elements in the pooling area must be below 2**24");
  // input_scale / (output_scale * (float) pooling_size), output_scale = input_scale.
  const std::uint32_t s = f32_div(x_scale, f32_mul(x_scale, f32_from_int(Int(k))));
  QSPEC_REQUIRE(f32_value(s) >= pow2r(-32) && f32_value(s) < 256,
                "pytorch.qnnpack: 2^-32 <= S < 256 (pytorch_qnnp_compute_avgpool_quantization_params asserts)");
  return s;
}

// spec: qlinear.avg_pool2d.pytorch_onednn
// spec: qlinear.avg_pool2d.pytorch_qnnpack
Int qlinear_pytorch_avgpool_output(const Int& acc, std::uint32_t m, const Int& zero_point, DType t) {
  // |acc| < 2^31 and m <= 1: the product is finite; cvtps2dq / nearbyint round half to even.
  const std::uint32_t v = f32_mul(f32_from_int(acc), m);
  return saturate(round_half_even(f32_value(v)) + zero_point, int_range(t));
}

// spec: qlinear.pool.window
// spec: qlinear.avg_pool2d.pytorch_onednn
// spec: qlinear.avg_pool2d.pytorch_qnnpack
IntArray qlinear_avg_pool2d_pytorch(const IntArray& x, const QPoolGeometry& g, bool count_include_pad,
                                    const QPoolParams& p, QPoolTorchEngine engine) {
  const std::string op = "qlinear.avg_pool2d (pytorch)";
  QSPEC_ERROR_IF(g.dilations[0] != 1 || g.dilations[1] != 1, op + ": average pooling has no dilation");
  const auto [oh, ow] = qlinear_pool_out_size(x.shape, g);
  QSPEC_ERROR_IF(g.pads[0] != g.pads[2] || g.pads[1] != g.pads[3],
                 op + ": avg_pool2d takes one padding per dimension (top = bottom, left = right)");
  for (std::size_t a = 0; a < 2; ++a)
    QSPEC_ERROR_IF(2 * g.pads[a] > g.kernel[a], op + ": pad should be at most half of kernel size");
  QSPEC_ERROR_IF(p.type != DType::I8 && p.type != DType::U8, op + ": x must be int8 or uint8");
  const Range r = int_range(p.type);
  QSPEC_ERROR_IF(p.x_zero_point < r.lo || p.x_zero_point > r.hi, op + ": x_zero_point must fit x's dtype");
  QSPEC_REQUIRE(float_is_finite(p.x_scale, kBinary32) && f32_value(p.x_scale) > 0,
                op + ": x_scale finite and positive");
  for (const auto& v : x.data) QSPEC_REQUIRE(v >= r.lo && v <= r.hi, op + ": x codes lie in x's dtype");
  const std::int64_t K = g.kernel[0] * g.kernel[1];
  // The qnnpack engine sends quint8 to QNNPACK (always / K); qint8 runs ATen's kernel.
  const bool qnnpack = engine == QPoolTorchEngine::Qnnpack && p.type == DType::U8;
  const std::uint32_t qnnpack_scale = qnnpack ? qlinear_pytorch_qnnpack_avgpool_scale(p.x_scale, K) : 0;
  const auto windows = qlinear_pool_window_codes(x, g, oh, ow);
  IntArray y(Shape{x.dim(0), oh, ow, x.dim(3)});
  for (std::size_t i = 0; i < windows.size(); ++i) {
    Int acc(0);
    for (const auto& v : windows[i]) acc += v - p.x_zero_point;  // padded taps are x_zp: 0
    QSPEC_REQUIRE(acc >= int_range(DType::I32).lo && acc <= int_range(DType::I32).hi,
                  op + ": the window sum fits int32");
    const std::int64_t d = count_include_pad ? K : static_cast<std::int64_t>(windows[i].size());
    const std::uint32_t m = qnnpack ? qnnpack_scale : qlinear_pytorch_aten_avgpool_multiplier(p.x_scale, d);
    y.data[i] = qlinear_pytorch_avgpool_output(acc, m, p.x_zero_point, p.type);
  }
  return y;
}

}  // namespace qspec::ref::ops
