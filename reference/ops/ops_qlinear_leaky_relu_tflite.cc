// Reference-backend registrations of TFLite's quantized leaky ReLU
// (spec/operators_qlinear_leaky_relu.md): qlinear.leaky_relu under tflite.double_round and tflite.single_round.
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/qlinear_leaky_relu_tflite.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using Op = cat::qlinear_leaky_relu;
using Inputs = std::vector<Tensor>;

OpFn leaky_relu_tflite_fn(bool single_round) {
  return [single_round](const Attrs& a, const Inputs& in) {
    const Tensor& x = input(in, Op::in::x);
    ro::QPoolParams p;
    p.type = x.dtype;
    p.x_scale = attr::get(a, Op::attr::x_scale);
    p.x_zero_point = Int(attr::get(a, Op::attr::x_zero_point));
    p.y_scale = attr::get(a, Op::attr::y_scale);
    p.y_zero_point = Int(attr::get(a, Op::attr::y_zero_point));
    ro::IntArray xa(x.shape);
    for (std::size_t i = 0; i < x.data.size(); ++i) xa.data[i] = Int(x.data[i]);
    const ro::IntArray y = ro::qlinear_leaky_relu_tflite(xa, attr::get(a, Op::attr::alpha), p, single_round);
    Tensor t{std::string(Op::out::y), x.dtype, y.shape, {}};
    for (const auto& v : y.data) t.data.push_back(static_cast<std::int64_t>(v));
    return Inputs{t};
  };
}

QSPEC_REGISTER_REF_OP(registration<Op>(Op::conv::tflite_double_round, leaky_relu_tflite_fn(false)));
QSPEC_REGISTER_REF_OP(registration<Op>(Op::conv::tflite_single_round, leaky_relu_tflite_fn(true)));

}  // namespace
}  // namespace qspec::refops
