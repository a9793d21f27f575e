// Reference-backend registrations of the engines' quantized elementwise operators
// (spec/operators_qlinear_elementwise.md): qlinear.add and qlinear.mul under xnnpack.fp32,
// onnxruntime, tflite.double_round, tflite.single_round, armnn.cpuref, pytorch.onednn / pytorch.qnnpack and
// onednn; qlinear.concat under onnxruntime and tflite.reference.
//
// Tensors, attributes and conventions are named through the catalogue's typed keys
// (qspec::cat::qlinear_add / qlinear_mul). Only the conventions with a fused clamp read y_min /
// y_max: the catalogue rejects them in an onnxruntime test.
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using ro::IntArray;
using ro::QEwConvention;
using ro::QEwOp;
using Inputs = std::vector<Tensor>;

// qlinear.add and qlinear.mul have the same tensors and attributes (their keys differ in type only).
template <class Op>
ro::QEwParams params(const Attrs& a, const Tensor& x, const Tensor& y, QEwConvention c) {
  using A = typename Op::attr;
  ro::QEwParams p;
  p.type = x.dtype;
  p.b_type = y.dtype;
  p.a_scale = attr::get(a, A::a_scale);
  p.a_zero_point = Int(attr::get(a, A::a_zero_point));
  p.b_scale = attr::get(a, A::b_scale);
  p.b_zero_point = Int(attr::get(a, A::b_zero_point));
  p.y_scale = attr::get(a, A::y_scale);
  p.y_zero_point = Int(attr::get(a, A::y_zero_point));
  if (c != QEwConvention::OnnxRuntime && c != QEwConvention::ArmnnCpuref) {
    if (attr::has(a, A::y_min)) p.y_min = Int(attr::get(a, A::y_min));
    if (attr::has(a, A::y_max)) p.y_max = Int(attr::get(a, A::y_max));
  }
  return p;
}

template <class Op>
QEwConvention convention_of(std::string_view name) {
  if (name == Op::conv::xnnpack_fp32) return QEwConvention::XnnpackFp32;
  if (name == Op::conv::onnxruntime) return QEwConvention::OnnxRuntime;
  if (name == Op::conv::tflite_double_round) return QEwConvention::TfliteDoubleRound;
  if (name == Op::conv::armnn_cpuref) return QEwConvention::ArmnnCpuref;
  if constexpr (requires { Op::conv::pytorch_onednn; })
    if (name == Op::conv::pytorch_onednn) return QEwConvention::PytorchOnednn;
  if constexpr (requires { Op::conv::pytorch_qnnpack; })
    if (name == Op::conv::pytorch_qnnpack) return QEwConvention::PytorchQnnpack;
  if (name == Op::conv::onednn) return QEwConvention::Onednn;
  if constexpr (requires { Op::conv::tosa; })
    if (name == Op::conv::tosa) return QEwConvention::Tosa;
  return QEwConvention::TfliteSingleRound;
}

template <class Op>
Registration reg(std::string_view convention, QEwOp op) {
  const QEwConvention c = convention_of<Op>(convention);
  return registration<Op>(convention, [c, op](const Attrs& a, const Inputs& in) {
    const Tensor &x = input(in, Op::in::a), &y = input(in, Op::in::b);
    const IntArray out = ro::qlinear_elementwise(op, to_array(x), to_array(y), params<Op>(a, x, y, c), c);
    Tensor t{std::string(Op::out::y), x.dtype, out.shape, {}};
    for (const auto& v : out.data) t.data.push_back(static_cast<std::int64_t>(v));
    return Inputs{t};
  });
}

using Add = cat::qlinear_add;
using Mul = cat::qlinear_mul;
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::xnnpack_fp32, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::onnxruntime, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::tflite_double_round, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::tflite_single_round, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::xnnpack_fp32, QEwOp::Mul));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::onnxruntime, QEwOp::Mul));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::tflite_double_round, QEwOp::Mul));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::tflite_single_round, QEwOp::Mul));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::armnn_cpuref, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::armnn_cpuref, QEwOp::Mul));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::pytorch_onednn, QEwOp::Mul));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::pytorch_onednn, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::pytorch_qnnpack, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::onednn, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::onednn, QEwOp::Mul));
QSPEC_REGISTER_REF_OP(reg<Add>(Add::conv::tosa, QEwOp::Add));
QSPEC_REGISTER_REF_OP(reg<Mul>(Mul::conv::tosa, QEwOp::Mul));

// qlinear.concat: the inputs x0, x1, ... in order, one scale and zero point each.
Registration concat_reg(std::string_view convention) {
  using K = cat::qlinear_concat;
  const auto c = convention == K::conv::onnxruntime      ? ro::QConcatConvention::OnnxRuntime
                 : convention == K::conv::armnn_cpuref   ? ro::QConcatConvention::ArmnnCpuref
                 : convention == K::conv::tosa           ? ro::QConcatConvention::Tosa
                 : convention == K::conv::pytorch_onednn ? ro::QConcatConvention::PytorchOnednn
                                                         : ro::QConcatConvention::TfliteReference;
  return registration<K>(convention, [c](const Attrs& a, const Inputs& in) {
    std::vector<IntArray> xs;
    ro::QConcatParams p;
    for (const auto& t : in) {
      xs.push_back(to_array(t));
      p.input_types.push_back(t.dtype);
    }
    if (!in.empty()) p.type = in.front().dtype;
    p.x_scales = attr::get(a, K::attr::x_scales);
    for (auto z : attr::get(a, K::attr::x_zero_points)) p.x_zero_points.emplace_back(z);
    p.y_scale = attr::get(a, K::attr::y_scale);
    p.y_zero_point = Int(attr::get(a, K::attr::y_zero_point));
    const IntArray out = ro::qlinear_concat(xs, attr::get(a, K::attr::axis), p, c);
    Tensor t{std::string(K::out::y), p.type, out.shape, {}};
    for (const auto& v : out.data) t.data.push_back(static_cast<std::int64_t>(v));
    return Inputs{t};
  });
}
QSPEC_REGISTER_REF_OP(concat_reg(cat::qlinear_concat::conv::onnxruntime));
QSPEC_REGISTER_REF_OP(concat_reg(cat::qlinear_concat::conv::tflite_reference));
QSPEC_REGISTER_REF_OP(concat_reg(cat::qlinear_concat::conv::armnn_cpuref));
QSPEC_REGISTER_REF_OP(concat_reg(cat::qlinear_concat::conv::tosa));
QSPEC_REGISTER_REF_OP(concat_reg(cat::qlinear_concat::conv::pytorch_onednn));

}  // namespace
}  // namespace qspec::refops
