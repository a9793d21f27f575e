// Reference ops for ONNX DynamicQuantizeLinear: the operator, and its parameter choice as a convention of
// choose_quant_params.
//
// Tensors: spec/catalogue/{onnx.dynamic_quantize_linear,choose_quant_params}.json; float32 values travel
// as bit patterns.
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/exact.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using Choose = cat::choose_quant_params;
using Dql = cat::onnx_dynamic_quantize_linear;

std::uint32_t bits_of(std::int64_t stored) { return static_cast<std::uint32_t>(stored); }

std::vector<Tensor> choose_params(const Attrs&, const std::vector<Tensor>& inputs) {
  const Tensor& range = input(inputs, Choose::in::range, DType::F32);
  if (range.data.size() != 2) throw JsonValueError("input 'range' must hold (min, max)");
  const auto p = ref::onnx_dynamic_quantize_linear_params(bits_of(range.data[0]), bits_of(range.data[1]));
  return {Tensor{std::string(Choose::out::scale), DType::F32, {1}, {static_cast<std::int64_t>(p.scale_bits)}},
          Tensor{std::string(Choose::out::zero_point), DType::U8, {1}, {static_cast<std::int64_t>(p.zero_point)}}};
}

// The operator: the parameters from the data's minimum and maximum (compared as reals: the sign of
// a zero changes nothing, float.onnx_dynamic_quantize_linear_params), then QuantizeLinear to uint8.
std::vector<Tensor> dynamic_quantize_linear(const Attrs&, const std::vector<Tensor>& inputs) {
  const Tensor& x = input(inputs, Dql::in::x, DType::F32);
  if (x.data.empty()) throw JsonValueError("input 'x' must hold at least one element");
  std::uint32_t mn = bits_of(x.data[0]), mx = mn;
  for (auto v : x.data) {
    const std::uint32_t b = bits_of(v);
    QSPEC_REQUIRE(ref::float_is_finite(b, ref::kBinary32), "float.onnx_quantize_linear: finite input");
    if (ref::f32_value(b) < ref::f32_value(mn)) mn = b;
    if (ref::f32_value(mx) < ref::f32_value(b)) mx = b;
  }
  const auto p = ref::onnx_dynamic_quantize_linear_params(mn, mx);
  Tensor y{std::string(Dql::out::y), DType::U8, x.shape, {}};
  for (auto v : x.data)
    y.data.push_back(
        static_cast<std::int64_t>(ref::onnx_quantize_linear(bits_of(v), p.scale_bits, p.zero_point, DType::U8)));
  return {y, Tensor{std::string(Dql::out::y_scale), DType::F32, {1}, {static_cast<std::int64_t>(p.scale_bits)}},
          Tensor{std::string(Dql::out::y_zero_point), DType::U8, {1}, {static_cast<std::int64_t>(p.zero_point)}}};
}

QSPEC_REGISTER_REF_OP(registration<Choose>(Choose::conv::onnx_dynamic_quantize_linear, choose_params));
QSPEC_REGISTER_REF_OP(registration<Dql>(Dql::conv::onnx, dynamic_quantize_linear));

}  // namespace
}  // namespace qspec::refops
