// Reference-backend registrations of the engines' quantized pooling operators
// (spec/operators_qlinear_pool.md): qlinear.avg_pool2d, qlinear.global_avg_pool and
// qlinear.max_pool2d under xnnpack.fp32, onnxruntime, tflite.double_round, onednn
// (spec/operators_qlinear_onednn_pool.md) and armnn.cpuref (spec/operators_qlinear_armnn.md), and
// qlinear.avg_pool2d under tosa.
//
// Tensors, attributes and conventions are named through the catalogue's typed keys; the catalogue
// rejects an attribute a convention does not take (e.g. y_min under onnxruntime).
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using ro::IntArray;
using ro::QPoolConvention;
using Inputs = std::vector<Tensor>;

// An attribute of `n` entries, `d` when it is absent (ERROR_IF another count).
template <std::size_t n>
std::array<std::int64_t, n> fixed(const Attrs& a, const attr::IntArray& key, std::array<std::int64_t, n> d,
                                  bool required = false) {
  if (required && !attr::has(a, key))
    throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " is required");
  const auto v = attr::get_or(a, key, std::vector<std::int64_t>(d.begin(), d.end()));
  if (v.size() != n)
    throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  std::array<std::int64_t, n> out{};
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i];
  return out;
}

template <class A>
ro::QPoolParams scaled_params(const Attrs& a, DType t) {
  ro::QPoolParams p;
  p.type = t;
  p.x_scale = attr::get(a, A::x_scale);
  p.x_zero_point = Int(attr::get(a, A::x_zero_point));
  p.y_scale = attr::get(a, A::y_scale);
  p.y_zero_point = Int(attr::get(a, A::y_zero_point));
  return p;
}
template <class A>
void read_clamp(const Attrs& a, ro::QPoolParams& p) {
  if (attr::has(a, A::y_min)) p.y_min = Int(attr::get(a, A::y_min));
  if (attr::has(a, A::y_max)) p.y_max = Int(attr::get(a, A::y_max));
}

template <class Op>
QPoolConvention convention_of(std::string_view name) {
  if (name == Op::conv::xnnpack_fp32) return QPoolConvention::XnnpackFp32;
  if (name == Op::conv::onnxruntime) return QPoolConvention::OnnxRuntime;
  if (name == Op::conv::onednn) return QPoolConvention::OneDnn;
  if (name == Op::conv::armnn_cpuref) return QPoolConvention::ArmnnCpuref;
  if constexpr (requires { Op::conv::tosa; }) {
    if (name == Op::conv::tosa) return QPoolConvention::Tosa;
  }
  return QPoolConvention::Tflite;
}

OpFn avg_pool2d_fn(QPoolConvention c) {
  return [c](const Attrs& a, const Inputs& in) {
    using Op = cat::qlinear_avg_pool2d;
    const Tensor& x = input(in, Op::in::x);
    ro::QPoolGeometry g;
    g.kernel = fixed<2>(a, Op::attr::kernel, {1, 1}, true);
    g.strides = fixed<2>(a, Op::attr::strides, {1, 1});
    g.pads = fixed<4>(a, Op::attr::pads, {0, 0, 0, 0});
    ro::QPoolParams p = scaled_params<Op::attr>(a, x.dtype);
    read_clamp<Op::attr>(a, p);  // absent under onnxruntime (the catalogue rejects them there)
    const bool include = attr::get_or(a, Op::attr::count_include_pad, false);
    return Inputs{to_tensor(Op::out::y, ro::qlinear_avg_pool2d(to_array(x), g, include, p, c), x.dtype)};
  };
}

OpFn global_avg_pool_fn(QPoolConvention c) {
  return [c](const Attrs& a, const Inputs& in) {
    using Op = cat::qlinear_global_avg_pool;
    const Tensor& x = input(in, Op::in::x);
    ro::QPoolParams p = scaled_params<Op::attr>(a, x.dtype);
    read_clamp<Op::attr>(a, p);
    return Inputs{to_tensor(Op::out::y, ro::qlinear_global_avg_pool(to_array(x), p, c), x.dtype)};
  };
}

OpFn max_pool2d_fn(QPoolConvention c) {
  return [c](const Attrs& a, const Inputs& in) {
    using Op = cat::qlinear_max_pool2d;
    const Tensor& x = input(in, Op::in::x);
    ro::QPoolGeometry g;
    g.kernel = fixed<2>(a, Op::attr::kernel, {1, 1}, true);
    g.strides = fixed<2>(a, Op::attr::strides, {1, 1});
    g.dilations = fixed<2>(a, Op::attr::dilations, {1, 1});
    g.pads = fixed<4>(a, Op::attr::pads, {0, 0, 0, 0});
    ro::QPoolParams p;
    p.type = x.dtype;
    read_clamp<Op::attr>(a, p);
    return Inputs{to_tensor(Op::out::y, ro::qlinear_max_pool2d(to_array(x), g, p, c), x.dtype)};
  };
}

template <class Op>
Registration reg(std::string_view convention, OpFn (*make)(QPoolConvention)) {
  return registration<Op>(convention, make(convention_of<Op>(convention)));
}

using Avg = cat::qlinear_avg_pool2d;
using Gap = cat::qlinear_global_avg_pool;
using Max = cat::qlinear_max_pool2d;
QSPEC_REGISTER_REF_OP(reg<Avg>(Avg::conv::xnnpack_fp32, avg_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Avg>(Avg::conv::onnxruntime, avg_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Avg>(Avg::conv::tflite_double_round, avg_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Gap>(Gap::conv::xnnpack_fp32, global_avg_pool_fn));
QSPEC_REGISTER_REF_OP(reg<Gap>(Gap::conv::onnxruntime, global_avg_pool_fn));
QSPEC_REGISTER_REF_OP(reg<Gap>(Gap::conv::tflite_double_round, global_avg_pool_fn));
QSPEC_REGISTER_REF_OP(reg<Max>(Max::conv::xnnpack_fp32, max_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Max>(Max::conv::onnxruntime, max_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Max>(Max::conv::tflite_double_round, max_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Avg>(Avg::conv::onednn, avg_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Gap>(Gap::conv::onednn, global_avg_pool_fn));
QSPEC_REGISTER_REF_OP(reg<Max>(Max::conv::onednn, max_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Avg>(Avg::conv::armnn_cpuref, avg_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Gap>(Gap::conv::armnn_cpuref, global_avg_pool_fn));
QSPEC_REGISTER_REF_OP(reg<Max>(Max::conv::armnn_cpuref, max_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Avg>(Avg::conv::tosa, avg_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Max>(Max::conv::tosa, max_pool2d_fn));
QSPEC_REGISTER_REF_OP(reg<Gap>(Gap::conv::tosa, global_avg_pool_fn));

}  // namespace
}  // namespace qspec::refops
