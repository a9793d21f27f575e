// Reference ops for gemmlowp's example quantization code: choose_quant_params, quantize, dequantize.
//
// Tensors and attributes: spec/catalogue/{choose_quant_params,quantize,dequantize}.json; float32
// values travel as bit patterns (the scale attribute is float32 bits, "0x3c008081").
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;
using Choose = cat::choose_quant_params;
using Quantize = cat::quantize;
using Dequantize = cat::dequantize;

std::uint32_t f32_bits(std::int64_t stored) { return static_cast<std::uint32_t>(stored); }

std::vector<Tensor> choose_params(const Attrs&, const std::vector<Tensor>& inputs) {
  const Tensor& range = input(inputs, Choose::in::range, DType::F32);
  if (range.data.size() != 2) throw JsonValueError("input 'range' must hold (min, max)");
  const auto p = ref::gemmlowp_choose_params(f32_bits(range.data[0]), f32_bits(range.data[1]));
  return {Tensor{std::string(Choose::out::scale), DType::F32, {1}, {static_cast<std::int64_t>(p.scale_bits)}},
          Tensor{std::string(Choose::out::zero_point), DType::U8, {1}, {static_cast<std::int64_t>(p.zero_point)}}};
}

std::vector<Tensor> quantize(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  const Tensor& x = input(inputs, Quantize::in::x, DType::F32);
  const std::uint32_t scale = attr::get(attrs, Quantize::attr::scale);
  const Int zp(attr::get(attrs, Quantize::attr::zero_point));
  Tensor y{std::string(Quantize::out::y), DType::U8, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::gemmlowp_quantize(f32_bits(v), scale, zp)));
  return {y};
}

std::vector<Tensor> dequantize(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  const Tensor& x = input(inputs, Dequantize::in::x, DType::U8);
  const std::uint32_t scale = attr::get(attrs, Dequantize::attr::scale);
  const Int zp(attr::get(attrs, Dequantize::attr::zero_point));
  Tensor y{std::string(Dequantize::out::y), DType::F32, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::gemmlowp_dequantize(Int(v), scale, zp)));
  return {y};
}

QSPEC_REGISTER_REF_OP(registration<Choose>(Choose::conv::gemmlowp_choose_params, choose_params));
QSPEC_REGISTER_REF_OP(registration<Quantize>(Quantize::conv::gemmlowp_quantize, quantize));
QSPEC_REGISTER_REF_OP(registration<Dequantize>(Dequantize::conv::gemmlowp_dequantize, dequantize));

}  // namespace
}  // namespace qspec::refops
