// Exact reference of TVM's quantized average pooling (tvm.qnn.avg_pool2d, spec/operators_tvm.md).
#include "qspec/ref/ops/tvm_avg_pool.h"

#include <algorithm>
#include <string>

#include "qspec/ref/rounding.h"
#include "qspec/ref/tvm_qnn.h"

namespace qspec::ref::ops {
namespace {

// The input's H and W axes for the layout.
int h_axis(const TvmAvgPoolAttrs& a) { return a.nhwc ? 1 : 2; }
int w_axis(const TvmAvgPoolAttrs& a) { return a.nhwc ? 2 : 3; }

// Number of window taps start + i * d (i < k) inside [0, n).
std::int64_t taps_inside(std::int64_t start, std::int64_t k, std::int64_t d, std::int64_t n) {
  std::int64_t c = 0;
  for (std::int64_t i = 0; i < k; ++i) c += (start + i * d >= 0 && start + i * d < n) ? 1 : 0;
  return c;
}

}  // namespace

// spec: tvm.qnn.avg_pool2d
Shape tvm_avg_pool2d_output_shape(const Shape& x, const TvmAvgPoolAttrs& a) {
  QSPEC_ERROR_IF(x.size() != 4, "tvm.qnn.avg_pool2d: input must have rank 4, got " + shape_str(x));
  for (auto d : x) QSPEC_ERROR_IF(d < 1, "tvm.qnn.avg_pool2d: input has an empty dimension " + shape_str(x));
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(a.pool_size[i] < 1, "tvm.qnn.avg_pool2d: pool_size must be >= 1");
    QSPEC_ERROR_IF(a.strides[i] < 1, "tvm.qnn.avg_pool2d: strides must be >= 1");
    QSPEC_ERROR_IF(a.dilation[i] < 1, "tvm.qnn.avg_pool2d: dilation must be >= 1");
  }
  for (auto p : a.padding) QSPEC_ERROR_IF(p < 0, "tvm.qnn.avg_pool2d: padding must be >= 0");
  const std::int64_t H = x[static_cast<std::size_t>(h_axis(a))], W = x[static_cast<std::size_t>(w_axis(a))];
  const std::int64_t eh = a.dilation[0] * (a.pool_size[0] - 1) + 1, ew = a.dilation[1] * (a.pool_size[1] - 1) + 1;
  const std::int64_t ph = H + a.padding[0] + a.padding[2], pw = W + a.padding[1] + a.padding[3];
  QSPEC_ERROR_IF(ph < eh || pw < ew, "tvm.qnn.avg_pool2d: dilated window larger than the padded input (no output position)");
  Shape out = x;
  out[static_cast<std::size_t>(h_axis(a))] = (ph - eh) / a.strides[0] + 1;
  out[static_cast<std::size_t>(w_axis(a))] = (pw - ew) / a.strides[1] + 1;
  return out;
}

// spec: tvm.qnn.avg_pool2d
IntArray tvm_qnn_avg_pool2d(const IntArray& x, const TvmAvgPoolParams& p, const TvmAvgPoolAttrs& a) {
  QSPEC_ERROR_IF(p.dtype != DType::I8 && p.dtype != DType::U8, "tvm.qnn.avg_pool2d: data must be int8 or uint8");
  IntArray y(tvm_avg_pool2d_output_shape(x.shape, a));
  for (const auto& v : x.data) QSPEC_REQUIRE(v >= int_range(p.dtype).lo && v <= int_range(p.dtype).hi, "tvm.qnn.avg_pool2d: codes in the dtype");

  // Step 1, RequantizeOrUpcast: output codes in int32.
  const bool same = p.input_scale == p.output_scale && p.input_zero_point == p.output_zero_point;
  IntArray r = x;
  if (!same)
    for (auto& v : r.data)
      v = tvm_requantize(v, p.input_scale, p.input_zero_point, p.output_scale, p.output_zero_point, TvmRounding::Upward, DType::I32);

  // Steps 2-4: the output index with its H and W entries moved over the window.
  const int ha = h_axis(a), wa = w_axis(a);
  const std::int64_t H = x.dim(ha), W = x.dim(wa);
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    const Shape o = unravel(off, y.shape);
    const std::int64_t h0 = o[static_cast<std::size_t>(ha)] * a.strides[0] - a.padding[0];
    const std::int64_t w0 = o[static_cast<std::size_t>(wa)] * a.strides[1] - a.padding[1];
    Int sum(0);
    for (std::int64_t i = 0; i < a.pool_size[0]; ++i)
      for (std::int64_t j = 0; j < a.pool_size[1]; ++j) {
        const std::int64_t h = h0 + i * a.dilation[0], w = w0 + j * a.dilation[1];
        if (h < 0 || h >= H || w < 0 || w >= W) continue;  // padding: integer 0
        Shape in = o;
        in[static_cast<std::size_t>(ha)] = h;
        in[static_cast<std::size_t>(wa)] = w;
        sum += r.at(in);
      }
    QSPEC_REQUIRE(sum >= int_range(DType::I32).lo && sum <= int_range(DType::I32).hi, "tvm.qnn.avg_pool2d: window sum in int32");
    const std::int64_t inside = taps_inside(h0, a.pool_size[0], a.dilation[0], H) * taps_inside(w0, a.pool_size[1], a.dilation[1], W);
    const std::int64_t n = a.count_include_pad ? a.pool_size[0] * a.pool_size[1] : std::max<std::int64_t>(1, inside);
    y.data[static_cast<std::size_t>(off)] = saturate(round_trunc(Rat(sum, Int(n))), p.dtype);
  }
  return y;
}

}  // namespace qspec::ref::ops
