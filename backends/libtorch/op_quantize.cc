// quantize / quantize_per_channel / dequantize / requantize through libtorch's own entry points.
//
// at::quantize_per_tensor and at::quantize_per_channel compute, in this Debian build without
// FBGEMM, quantize_val: inv = 1.0f / float(scale); zp + nearbyint(x * inv), clamped
// (float.pytorch_quantize_per_tensor). at::dequantize computes (q - zp) * scale in float
// (float.dequantize). requantize has no tensor op: at::native::requantize_from_int (exported
// TORCH_API, declared in the internal header ATen/native/quantized/AffineQuantizerBase.h) is the
// scalar the quantized kernels use: zp + lrintf(float(src) * float(multiplier)), clamped.
#include <ATen/native/quantized/AffineQuantizerBase.h>
#include <ATen/ops/dequantize.h>
#include <ATen/ops/quantize_per_channel.h>
#include <ATen/ops/quantize_per_tensor.h>
#include <ATen/ops/tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "torch_util.h"

namespace qspec::libtorch_adapter {

using namespace thirdparty;

void run_quantize(const Call& call) {
  const QuantizeParams p = read_quantize_params(call.attrs, call.first_output().dtype);
  qspec_tensor& yt = call.output(cat::quantize::out::y);
  if (yt.dtype != p.out_dtype) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  const c10::ScalarType qt = quantized_type(p.out_dtype);
  const at::Tensor x = float_tensor(call.input(cat::quantize::in::x));
  // PyTorch takes the scale as a double; the float32 attribute converts exactly.
  const at::Tensor q = guarded(call, "at::quantize_per_tensor(scale=" + std::to_string(p.scale()) + ", zero_point=" +
                                         std::to_string(p.zero_point) + ")",
                               [&] { return at::quantize_per_tensor(x, static_cast<double>(p.scale()), p.zero_point, qt); });
  write_int_repr(yt, q);
}

void run_quantize_per_channel(const Call& call) {
  using Op = cat::quantize_per_channel;
  const qspec_dtype out = attr::has(call.attrs, Op::attr::out_dtype)
                              ? to_abi_dtype(attr::get(call.attrs, Op::attr::out_dtype))
                              : call.first_output().dtype;
  qspec_tensor& yt = call.output(Op::out::y);
  if (yt.dtype != out) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  const c10::ScalarType qt = quantized_type(out);
  const at::Tensor x = float_tensor(call.input(Op::in::x));
  std::vector<double> scales;
  for (std::uint32_t s : attr::get(call.attrs, Op::attr::scales)) scales.push_back(static_cast<double>(f32_from_bits(s)));
  const std::vector<std::int64_t> zps = attr::get(call.attrs, Op::attr::zero_points);
  const std::int64_t axis = attr::get(call.attrs, Op::attr::axis);
  const at::Tensor st = at::tensor(scales, at::TensorOptions().dtype(c10::kDouble));
  const at::Tensor zt = at::tensor(zps, at::TensorOptions().dtype(c10::kLong));
  const at::Tensor q = guarded(call, "at::quantize_per_channel(axis=" + std::to_string(axis) + ")",
                               [&] { return at::quantize_per_channel(x, st, zt, axis, qt); });
  write_int_repr(yt, q);
}

void run_dequantize(const Call& call) {
  using Op = cat::dequantize;
  const qspec_tensor& xt = call.input(Op::in::x);
  qspec_tensor& yt = call.output(Op::out::y);
  expect_dtype(yt, QSPEC_DTYPE_FLOAT32);
  const double scale = static_cast<double>(f32_from_bits(attr::get(call.attrs, Op::attr::scale)));
  const std::int64_t zp = attr::get(call.attrs, Op::attr::zero_point);
  quantized_type(xt.dtype);  // Unsupported for a dtype libtorch cannot hold quantized
  const std::string what = "at::dequantize(scale=" + std::to_string(scale) + ", zero_point=" + std::to_string(zp) + ")";
  const at::Tensor y = guarded(call, what, [&] { return at::dequantize(quantized_tensor(xt, scale, zp)); });
  write_float(yt, y);
}

namespace {
template <typename Q>
std::vector<std::int64_t> requantize_all(const std::vector<std::int32_t>& x, double m, std::int64_t zp) {
  std::vector<std::int64_t> y;
  y.reserve(x.size());
  for (std::int32_t v : x) y.push_back(at::native::requantize_from_int<Q>(m, zp, v).val_);
  return y;
}
}  // namespace

void run_requantize(const Call& call) {
  const RequantParams p = read_requant_params(call.attrs);
  qspec_tensor& yt = call.output(cat::requantize::out::y);
  if (yt.dtype != p.out_dtype) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  quantized_type(p.out_dtype);  // Unsupported for int16 and the like
  const std::vector<std::int32_t> x = p.accumulators(read_accumulator_input(call.input(cat::requantize::in::x)));
  // The library's multiplier is a double that requantize_from_int narrows to float: the vector's
  // float32 scale (its own convention) converts exactly; other forms go through as_f32_scale().
  const double m = static_cast<double>(p.as_f32_scale());
  std::vector<std::int64_t> y;
  switch (p.out_dtype) {
    case QSPEC_DTYPE_INT8: y = requantize_all<c10::qint8>(x, m, p.output_zero_point); break;
    case QSPEC_DTYPE_UINT8: y = requantize_all<c10::quint8>(x, m, p.output_zero_point); break;
    default: y = requantize_all<c10::qint32>(x, m, p.output_zero_point); break;
  }
  write_ints(yt, y);
}

}  // namespace qspec::libtorch_adapter
