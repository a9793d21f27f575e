// Reference-backend registrations of the engines' lookup-table activations
// (spec/operators_qlinear_pool.md): qlinear.leaky_relu under xnnpack.fp32 and onnxruntime.
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/qlinear_lut.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using Op = cat::qlinear_leaky_relu;
using Inputs = std::vector<Tensor>;

OpFn leaky_relu_fn(ro::QLutConvention c) {
  return [c](const Attrs& a, const Inputs& in) {
    const Tensor& x = input(in, Op::in::x);
    ro::QPoolParams p;
    p.type = x.dtype;
    p.x_scale = attr::get(a, Op::attr::x_scale);
    p.x_zero_point = Int(attr::get(a, Op::attr::x_zero_point));
    p.y_scale = attr::get(a, Op::attr::y_scale);
    p.y_zero_point = Int(attr::get(a, Op::attr::y_zero_point));
    if (attr::has(a, Op::attr::y_min)) p.y_min = Int(attr::get(a, Op::attr::y_min));
    if (attr::has(a, Op::attr::y_max)) p.y_max = Int(attr::get(a, Op::attr::y_max));
    ro::IntArray xa(x.shape);
    for (std::size_t i = 0; i < x.data.size(); ++i) xa.data[i] = Int(x.data[i]);
    const ro::IntArray y = ro::qlinear_leaky_relu(xa, attr::get(a, Op::attr::alpha), p, c);
    Tensor t{std::string(Op::out::y), x.dtype, y.shape, {}};
    for (const auto& v : y.data) t.data.push_back(static_cast<std::int64_t>(v));
    return Inputs{t};
  };
}

QSPEC_REGISTER_REF_OP(registration<Op>(Op::conv::xnnpack_fp32, leaky_relu_fn(ro::QLutConvention::XnnpackFp32)));
QSPEC_REGISTER_REF_OP(registration<Op>(Op::conv::onnxruntime, leaky_relu_fn(ro::QLutConvention::OnnxRuntime)));
QSPEC_REGISTER_REF_OP(registration<Op>(Op::conv::pytorch_onednn, leaky_relu_fn(ro::QLutConvention::PytorchOnednn)));

}  // namespace
}  // namespace qspec::refops
