// Reference ops for gemmlowp's example quantization code: choose_quant_params, quantize, dequantize.
//
// Vocabulary (spec/gemmlowp.md, "Vector attributes of the gemmlowp-specific ops"): float32
// values travel as bit patterns; the scale attribute is float32 bits ("0x3c008081").
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/core/json_values.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;

const Tensor& input_of(const std::vector<Tensor>& inputs, const char* name, DType dtype) {
  const Tensor* t = nullptr;
  for (const auto& in : inputs)
    if (in.name == name) t = &in;
  if (!t && !inputs.empty()) t = &inputs[0];
  if (!t) throw JsonValueError(std::string("missing input tensor '") + name + "'");
  if (t->dtype != dtype) throw JsonValueError(std::string("input '") + name + "' must be " + std::string(dtype_name(dtype)));
  return *t;
}

std::uint32_t f32_bits(std::int64_t stored) { return static_cast<std::uint32_t>(stored); }

QSPEC_REGISTER_REF_OP({.op = "choose_quant_params",
                       .convention = "gemmlowp.choose_params",
                       .fn = [](const Attrs&, const std::vector<Tensor>& inputs) {
                         const Tensor& range = input_of(inputs, "range", DType::F32);
                         if (range.data.size() != 2) throw JsonValueError("input 'range' must hold (min, max)");
                         const auto p = ref::gemmlowp_choose_params(f32_bits(range.data[0]), f32_bits(range.data[1]));
                         return std::vector<Tensor>{
                             Tensor{"scale", DType::F32, {1}, {static_cast<std::int64_t>(p.scale_bits)}},
                             Tensor{"zero_point", DType::U8, {1}, {static_cast<std::int64_t>(p.zero_point)}}};
                       }});

QSPEC_REGISTER_REF_OP({.op = "quantize",
                       .convention = "gemmlowp.quantize",
                       .fn = [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
                         const Tensor& x = input_of(inputs, "x", DType::F32);
                         const std::uint32_t scale = attr_f32(attrs, "scale");
                         const Int zp(attr_int(attrs, "zero_point"));
                         Tensor y{"y", DType::U8, x.shape, {}};
                         for (auto v : x.data)
                           y.data.push_back(static_cast<std::int64_t>(ref::gemmlowp_quantize(f32_bits(v), scale, zp)));
                         return std::vector<Tensor>{y};
                       }});

QSPEC_REGISTER_REF_OP({.op = "dequantize",
                       .convention = "gemmlowp.dequantize",
                       .fn = [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
                         const Tensor& x = input_of(inputs, "x", DType::U8);
                         const std::uint32_t scale = attr_f32(attrs, "scale");
                         const Int zp(attr_int(attrs, "zero_point"));
                         Tensor y{"y", DType::F32, x.shape, {}};
                         for (auto v : x.data)
                           y.data.push_back(static_cast<std::int64_t>(ref::gemmlowp_dequantize(Int(v), scale, zp)));
                         return std::vector<Tensor>{y};
                       }});

}  // namespace
}  // namespace qspec::refops
