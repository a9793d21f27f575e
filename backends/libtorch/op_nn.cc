// libtorch's quantized NN operators on qspec's NN ops: max pooling and concatenation (mrt / TVM
// max pool: exact, native claims) and, in the all-conventions mode only, TVM's dense, conv2d, add
// and concatenate computed by quantized::linear / conv2d / add / cat with libtorch's own
// requantization.
//
// The quantized operators are not in ATen's C++ API: they are called by name through the
// dispatcher (c10::Dispatcher findSchemaOrThrow + callBoxed), as TorchScript does; the prepacked
// weights are custom-class IValues. The onednn engine (Debian's default) accepts only quint8
// activations, so int8 data is handed over as the same real values in quint8 (q + 128 with zero
// point zp + 128), and the int8 output taken back the same way: an exact change of
// representation (the shift is even, so no tie changes side). Weights are qint8; a uint8 kernel
// becomes qint8 the same way (q - 128, zp - 128).
#include <ATen/core/ivalue.h>
#include <ATen/ops/_make_per_tensor_quantized_tensor.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/max_pool2d.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/layout.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "qspec/thirdparty/window_attrs.h"
#include "torch_util.h"

namespace qspec::libtorch_adapter {
namespace {
using namespace thirdparty;

std::int64_t int_or(const nlohmann::ordered_json& a, const attr::Int& key, std::int64_t d) {
  return attr::get_or(a, key, d);
}
double f32_attr(const nlohmann::ordered_json& a, const attr::F32& key) {
  return static_cast<double>(f32_from_bits(attr::get(a, key)));
}

// Values and zero point moved by `shift` (+128: int8 -> uint8; -128: uint8 -> int8).
std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& v, std::int64_t shift) {
  std::vector<std::int64_t> out(v);
  for (auto& x : out) x += shift;
  return out;
}

// A quantized tensor of `type` holding `values` (already in the type's range) with `shape`.
at::Tensor make_quantized(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& shape,
                          c10::ScalarType qtype, double scale, std::int64_t zp) {
  const c10::ScalarType it = qtype == c10::kQInt8 ? c10::kChar : qtype == c10::kQUInt8 ? c10::kByte : c10::kInt;
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(it));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (it == c10::kChar)
      t.data_ptr<std::int8_t>()[i] = static_cast<std::int8_t>(values[i]);
    else if (it == c10::kByte)
      t.data_ptr<std::uint8_t>()[i] = static_cast<std::uint8_t>(values[i]);
    else
      t.data_ptr<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
  }
  return at::_make_per_tensor_quantized_tensor(t, scale, zp);
}

// Activations as quint8 (int8 data shifted by +128, see the file comment).
at::Tensor activation(const Call& call, const std::vector<std::int64_t>& v, const std::vector<std::int64_t>& shape,
                      qspec_dtype d, double scale, std::int64_t zp) {
  if (d == QSPEC_DTYPE_UINT8)
    return guarded(call, "quint8 activation", [&] { return make_quantized(v, shape, c10::kQUInt8, scale, zp); });
  if (d != QSPEC_DTYPE_INT8)
    throw Unsupported(std::string("libtorch's quantized linear / conv take 8-bit data, not ") + dtype_name(d));
  return guarded(call, "quint8 activation",
                 [&] { return make_quantized(shifted(v, 128), shape, c10::kQUInt8, scale, zp + 128); });
}

// Weights as qint8 (uint8 weights shifted by -128).
at::Tensor weight(const Call& call, const std::vector<std::int64_t>& v, const std::vector<std::int64_t>& shape,
                  qspec_dtype d, double scale, std::int64_t zp) {
  if (d == QSPEC_DTYPE_INT8)
    return guarded(call, "qint8 weight", [&] { return make_quantized(v, shape, c10::kQInt8, scale, zp); });
  if (d != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("libtorch's quantized weights are 8-bit, not ") + dtype_name(d));
  return guarded(call, "qint8 weight",
                 [&] { return make_quantized(shifted(v, -128), shape, c10::kQInt8, scale, zp - 128); });
}

// The quint8 result of linear / conv as the vector's int8 / uint8 output values.
std::vector<std::int64_t> output_values(const at::Tensor& q, qspec_dtype out) {
  const at::Tensor r = q.int_repr().contiguous();
  std::vector<std::int64_t> v(static_cast<std::size_t>(r.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = r.data_ptr<std::uint8_t>()[i] - (out == QSPEC_DTYPE_INT8 ? 128 : 0);
  return v;
}

void requantizing_output(const Call& call, qspec_dtype out) {
  if (out == QSPEC_DTYPE_INT32)
    throw Unsupported("libtorch's quantized linear / conv2d always requantize to 8 bits: no int32 accumulator output");
  if (out != QSPEC_DTYPE_INT8 && out != QSPEC_DTYPE_UINT8) call.refuse("out_dtype must be int8, uint8 or int32");
}

}  // namespace

void run_max_pool2d(const Call& call, const PoolKeys& keys) {
  if (call.inputs.size() != 1) call.refuse("max_pool2d takes one input");
  const qspec_tensor& xt = call.inputs[0];
  qspec_tensor& yt = call.first_output();
  quantized_type(xt.dtype);
  if (call.has_outputs() && yt.dtype != xt.dtype)
    throw Unsupported("libtorch's quantized max_pool2d keeps the data type");
  if (xt.rank != 4) call.refuse("max_pool2d needs NCHW data");
  const auto k = window_pair(call, keys.kernel, 1, 1), s = window_pair(call, keys.strides, 1, 1),
             p = window_pair(call, keys.padding, 0, 0);
  // libtorch's pooling shape check (documented for nn.MaxPool2d: "padding should be at most half of
  // the kernel size") refuses a wider padding with a TORCH_CHECK; the window arithmetic is then
  // inexpressible in libtorch, not invalid, so it is UNSUPPORTED rather than a rejection.
  for (int d = 0; d < 2; ++d)
    if (p[d] > k[d] / 2)
      throw Unsupported("libtorch's max_pool2d needs padding <= kernel / 2 (padding " + std::to_string(p[d]) +
                        ", kernel " + std::to_string(k[d]) + ")");
  // Scale 1, zero point 0: max pooling never looks at the quantization parameters.
  const at::Tensor x = guarded(call, "quantized input", [&] { return quantized_tensor(xt, 1.0, 0); });
  const at::Tensor y = guarded(call, "at::max_pool2d", [&] {
    return at::max_pool2d(x, {k[0], k[1]}, {s[0], s[1]}, {p[0], p[1]}, /*dilation=*/{1, 1}, /*ceil_mode=*/false);
  });
  write_int_repr(yt, y);
}

void run_concat(const Call& call) {
  if (call.inputs.empty()) call.refuse("concat needs inputs");
  qspec_tensor& yt = call.first_output();
  std::vector<at::Tensor> xs;
  for (const auto& t : call.inputs)
    xs.push_back(guarded(call, "quantized input", [&] { return quantized_tensor(t, 1.0, 0); }));
  const std::int64_t axis = int_or(call.attrs, cat::concat::attr::axis, 1);
  const at::Tensor y = guarded(call, "at::cat", [&] { return at::cat(xs, axis); });
  if (call.has_outputs() && yt.dtype != call.inputs[0].dtype)
    throw Unsupported("libtorch's quantized cat keeps the data type");
  write_int_repr(yt, y);
}

void run_tvm_concatenate(const Call& call) {
  using A = cat::tvm_qnn_concatenate::attr;
  if (call.inputs.empty()) call.refuse("concatenate needs inputs");
  qspec_tensor& yt = call.first_output();
  const std::vector<std::uint32_t> scales = attr::get(call.attrs, A::input_scales);
  const std::vector<std::int64_t> zps = attr::get(call.attrs, A::input_zero_points);
  if (scales.size() != call.inputs.size() || zps.size() != call.inputs.size())
    call.refuse("one input scale and zero point per input");
  c10::List<at::Tensor> xs;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    const double s = static_cast<double>(f32_from_bits(scales[i]));
    const std::int64_t z = zps[i];
    xs.push_back(guarded(call, "quantized input", [&] { return quantized_tensor(call.inputs[i], s, z); }));
  }
  if (call.has_outputs() && yt.dtype != call.inputs[0].dtype)
    throw Unsupported("libtorch's quantized cat keeps the data type");
  const at::Tensor y = call_op(call, "quantized::cat", "",
                               {xs, int_or(call.attrs, A::axis, 1), f32_attr(call.attrs, A::output_scale),
                                int_or(call.attrs, A::output_zero_point, 0)})
                           .toTensor();
  write_int_repr(yt, y);
}

void run_tvm_add(const Call& call) {
  using K = cat::tvm_qnn_add;
  using A = K::attr;
  const qspec_tensor &a = call.input(K::in::lhs), &b = call.input(K::in::rhs);
  qspec_tensor& yt = call.first_output();
  if (a.dtype != b.dtype || (call.has_outputs() && yt.dtype != a.dtype))
    throw Unsupported("libtorch's quantized::add takes and returns one quantized type");
  const at::Tensor qa = guarded(call, "lhs", [&] {
    return quantized_tensor(a, f32_attr(call.attrs, A::lhs_scale), int_or(call.attrs, A::lhs_zero_point, 0));
  });
  const at::Tensor qb = guarded(call, "rhs", [&] {
    return quantized_tensor(b, f32_attr(call.attrs, A::rhs_scale), int_or(call.attrs, A::rhs_zero_point, 0));
  });
  const at::Tensor y =
      call_op(call, "quantized::add", "",
              {qa, qb, f32_attr(call.attrs, A::output_scale), int_or(call.attrs, A::output_zero_point, 0)})
          .toTensor();
  write_int_repr(yt, y);
}

void run_tvm_dense(const Call& call) {
  using K = cat::tvm_qnn_dense;
  using A = K::attr;
  const qspec_tensor &xt = call.input(K::in::data), &wt = call.input(K::in::weight);
  qspec_tensor& yt = call.output(K::out::y);
  requantizing_output(call, yt.dtype);
  if (xt.rank != 2 || wt.rank != 2 || xt.shape[1] != wt.shape[1])
    call.refuse("dense needs data (N,K) and weight (M,K)");
  const at::Tensor x = activation(call, read_ints(xt), shape_of(xt), xt.dtype, f32_attr(call.attrs, A::input_scale),
                                  int_or(call.attrs, A::input_zero_point, 0));
  const at::Tensor w = weight(call, read_ints(wt), shape_of(wt), wt.dtype, f32_attr(call.attrs, A::kernel_scale),
                              int_or(call.attrs, A::kernel_zero_point, 0));
  const c10::IValue packed = call_op(call, "quantized::linear_prepack", "", {w, c10::IValue()});
  const std::int64_t ozp = int_or(call.attrs, A::output_zero_point, 0) + (yt.dtype == QSPEC_DTYPE_INT8 ? 128 : 0);
  const at::Tensor y =
      call_op(call, "quantized::linear", "", {x, packed, f32_attr(call.attrs, A::output_scale), ozp}).toTensor();
  write_ints(yt, output_values(y, yt.dtype));
}

void run_tvm_conv2d(const Call& call) {
  using K = cat::tvm_qnn_conv2d;
  using A = K::attr;
  const qspec_tensor &xt = call.input(K::in::data), &wt = call.input(K::in::kernel);
  qspec_tensor& yt = call.output(K::out::y);
  requantizing_output(call, yt.dtype);
  if (xt.rank != 4 || wt.rank != 4) call.refuse("conv2d needs 4-D data and kernel");
  const auto st = window_pair(call, A::strides, 1, 1), pad = window_pair(call, A::padding, 0, 0),
             dil = window_pair(call, A::dilation, 1, 1);
  const std::int64_t groups = int_or(call.attrs, A::groups, 1);
  const bool nhwc = attr::get_or(call.attrs, A::data_layout, A::data_layout_is::NCHW) == A::data_layout_is::NHWC;
  // To NCHW data and OIHW weights (libtorch's logical layouts).
  std::vector<std::int64_t> xs = shape_of(xt), ws = shape_of(wt);
  const std::vector<std::int64_t> xv = nhwc ? permute4(read_ints(xt), shape_of(xt), kNhwcToNchw, xs) : read_ints(xt);
  const std::vector<std::int64_t> wv = nhwc ? permute4(read_ints(wt), shape_of(wt), kHwioToOihw, ws) : read_ints(wt);
  const at::Tensor x = activation(call, xv, xs, xt.dtype, f32_attr(call.attrs, A::input_scale),
                                  int_or(call.attrs, A::input_zero_point, 0));
  const at::Tensor w = weight(call, wv, ws, wt.dtype, f32_attr(call.attrs, A::kernel_scale),
                              int_or(call.attrs, A::kernel_zero_point, 0));
  const c10::IValue packed =
      call_op(call, "quantized::conv2d_prepack", "",
              {w, c10::IValue(), c10::List<std::int64_t>({st[0], st[1]}), c10::List<std::int64_t>({pad[0], pad[1]}),
               c10::List<std::int64_t>({dil[0], dil[1]}), groups});
  const std::int64_t ozp = int_or(call.attrs, A::output_zero_point, 0) + (yt.dtype == QSPEC_DTYPE_INT8 ? 128 : 0);
  const at::Tensor y =
      call_op(call, "quantized::conv2d", "new", {x, packed, f32_attr(call.attrs, A::output_scale), ozp}).toTensor();
  std::vector<std::int64_t> v = output_values(y, yt.dtype), s;
  if (nhwc) v = permute4(v, y.sizes().vec(), kNchwToNhwc, s);
  write_ints(yt, v);
}

}  // namespace qspec::libtorch_adapter
