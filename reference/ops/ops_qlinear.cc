// Reference-backend registrations of the engines' quantized operators (spec/operators_qlinear.md):
// qlinear.conv2d, qlinear.fully_connected, qlinear.matmul under xnnpack.fp32, onnxruntime,
// tflite.double_round, tflite.single_round, tosa and onednn; conv2d and fully_connected under
// armnn.cpuref, pytorch.qnnpack and pytorch.onednn.
//
// Tensors, attributes and conventions are named through the catalogue's typed keys
// (qspec::cat::qlinear_*; spec/catalogue/qlinear.*.json). Only the conventions that have a fused
// clamp read y_min / y_max: the catalogue rejects them in an onnxruntime test.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/core/qlinear_keys.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/qlinear_convention.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using ro::IntArray;
using ro::QLinearConvention;
using Inputs = std::vector<Tensor>;

const Tensor* optional_input(const Inputs& in, std::string_view name) {
  for (const auto& t : in)
    if (t.name == name) return &t;
  return nullptr;
}

ro::QLinearParams params(const Attrs& a, const QLinearKeys& k, const Tensor& x, const Tensor& w, QLinearConvention c) {
  ro::QLinearParams p;
  p.x_type = x.dtype;
  p.w_type = w.dtype;
  p.x_scale = attr::get(a, k.x_scale);
  p.x_zero_point = Int(attr::get(a, k.x_zero_point));
  p.w_scales = attr::get(a, k.w_scales);  // its count is checked by the convention (ERROR_IF)
  p.w_zero_point = Int(attr::get_or(a, k.w_zero_point, std::int64_t{0}));
  p.y_scale = attr::get(a, k.y_scale);
  p.y_zero_point = Int(attr::get(a, k.y_zero_point));
  if (ro::qlinear_has_clamp(c)) {  // the conventions with a fused clamp
    if (attr::has(a, k.y_min)) p.y_min = Int(attr::get(a, k.y_min));
    if (attr::has(a, k.y_max)) p.y_max = Int(attr::get(a, k.y_max));
  }
  return p;
}

// An attribute of `n` entries, `d` when it is absent (ERROR_IF another count).
template <std::size_t n>
std::array<std::int64_t, n> fixed(const Attrs& a, const attr::IntArray& key, std::array<std::int64_t, n> d) {
  const auto v = attr::get_or(a, key, std::vector<std::int64_t>(d.begin(), d.end()));
  if (v.size() != n)
    throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  std::array<std::int64_t, n> out{};
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i];
  return out;
}

OpFn conv2d_fn(QLinearConvention c) {
  return [c](const Attrs& a, const Inputs& in) {
    using Op = cat::qlinear_conv2d;
    const Tensor &x = input(in, Op::in::x), &w = input(in, Op::in::w);
    const Tensor* b = optional_input(in, Op::in::b);
    ro::QConvGeometry g;
    g.strides = fixed<2>(a, Op::attr::strides, {1, 1});
    g.dilations = fixed<2>(a, Op::attr::dilations, {1, 1});
    g.pads = fixed<4>(a, Op::attr::pads, {0, 0, 0, 0});
    g.groups = attr::get_or(a, Op::attr::groups, std::int64_t{1});
    const IntArray bias = b ? to_array(*b) : IntArray();
    const IntArray y = ro::qlinear_conv2d(to_array(x), to_array(w), b ? &bias : nullptr, g,
                                          params(a, qlinear_keys<Op::attr>, x, w, c), c);
    return Inputs{to_tensor(Op::out::y, y, x.dtype)};
  };
}

OpFn fully_connected_fn(QLinearConvention c) {
  return [c](const Attrs& a, const Inputs& in) {
    using Op = cat::qlinear_fully_connected;
    const Tensor &x = input(in, Op::in::x), &w = input(in, Op::in::w);
    const Tensor* b = optional_input(in, Op::in::b);
    const IntArray bias = b ? to_array(*b) : IntArray();
    const IntArray y = ro::qlinear_fully_connected(to_array(x), to_array(w), b ? &bias : nullptr,
                                                   params(a, qlinear_keys<Op::attr>, x, w, c), c);
    return Inputs{to_tensor(Op::out::y, y, x.dtype)};
  };
}

OpFn matmul_fn(QLinearConvention c) {
  return [c](const Attrs& a, const Inputs& in) {
    using Op = cat::qlinear_matmul;
    const Tensor &x = input(in, Op::in::a), &w = input(in, Op::in::b);
    const IntArray y = ro::qlinear_matmul(to_array(x), to_array(w), params(a, qlinear_matmul_keys, x, w, c), c);
    return Inputs{to_tensor(Op::out::y, y, x.dtype)};
  };
}

template <class Op>
Registration reg(std::string_view convention, OpFn (*make)(QLinearConvention)) {
  return registration<Op>(convention, make(qlinear_convention_of(convention)));
}

QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::xnnpack_fp32, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::onnxruntime, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::xnnpack_fp32,
                                                        fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::onnxruntime,
                                                        fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_matmul>(cat::qlinear_matmul::conv::xnnpack_fp32, matmul_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_matmul>(cat::qlinear_matmul::conv::onnxruntime, matmul_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::tflite_double_round, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::tflite_single_round, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::tflite_double_round,
                                                        fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::tflite_single_round,
                                                        fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_matmul>(cat::qlinear_matmul::conv::tflite_double_round, matmul_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_matmul>(cat::qlinear_matmul::conv::tflite_single_round, matmul_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::tosa, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::tosa, fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_matmul>(cat::qlinear_matmul::conv::tosa, matmul_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::onednn, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::onednn,
                                                        fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_matmul>(cat::qlinear_matmul::conv::onednn, matmul_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::armnn_cpuref, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::armnn_cpuref,
                                                        fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::pytorch_qnnpack, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::pytorch_qnnpack,
                                                        fully_connected_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::pytorch_onednn, conv2d_fn));
QSPEC_REGISTER_REF_OP(reg<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::pytorch_onednn,
                                                        fully_connected_fn));

}  // namespace
}  // namespace qspec::refops
