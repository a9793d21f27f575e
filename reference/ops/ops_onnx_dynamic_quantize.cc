// Reference ops for ONNX DynamicQuantizeLinear: its parameter choice as a convention of choose_quant_params.
//
// Tensors: spec/catalogue/choose_quant_params.json; float32 values travel as bit patterns.
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using Choose = cat::choose_quant_params;

std::vector<Tensor> choose_params(const Attrs&, const std::vector<Tensor>& inputs) {
  const Tensor& range = input(inputs, Choose::in::range, DType::F32);
  if (range.data.size() != 2) throw JsonValueError("input 'range' must hold (min, max)");
  const auto p = ref::onnx_dynamic_quantize_linear_params(static_cast<std::uint32_t>(range.data[0]),
                                                          static_cast<std::uint32_t>(range.data[1]));
  return {Tensor{std::string(Choose::out::scale), DType::F32, {1}, {static_cast<std::int64_t>(p.scale_bits)}},
          Tensor{std::string(Choose::out::zero_point), DType::U8, {1}, {static_cast<std::int64_t>(p.zero_point)}}};
}

QSPEC_REGISTER_REF_OP(registration<Choose>(Choose::conv::onnx_dynamic_quantize_linear, choose_params));

}  // namespace
}  // namespace qspec::refops
