// Reference-backend registration of TFLite's ChooseQuantizationParams (op choose_quant_params,
// convention tflite): float64 range in, float64 scale and int32 zero point out.
#include <string>

#include "qspec/core/json_values.h"
#include "qspec/ref/tflite_choose_params.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

QSPEC_REGISTER_REF_OP(
    {.op = "choose_quant_params",
     .convention = "tflite",
     .fn = [](const Attrs& a, const std::vector<Tensor>& in) -> std::vector<Tensor> {
       if (in.size() != 1 || in[0].dtype != DType::F64 || in[0].data.size() != 2)
         throw JsonValueError("choose_quant_params: one float64 input 'range' of (rmin, rmax)");
       const auto t = dtype_from_name(attr_str(a, "dtype"));
       if (!t) throw ref::ErrorIf("ERROR_IF: unknown dtype");
       const bool narrow = a.contains("narrow_range") && a.at("narrow_range").get<bool>();
       const auto p = ref::tflite_choose_quantization_params(static_cast<std::uint64_t>(in[0].data[0]),
                                                             static_cast<std::uint64_t>(in[0].data[1]),
                                                             static_cast<ref::DType>(static_cast<int>(*t)), narrow);
       return {Tensor{"scale", DType::F64, {1}, {static_cast<std::int64_t>(p.scale)}},
               Tensor{"zero_point", DType::I32, {1}, {static_cast<std::int64_t>(p.zero_point)}}};
     }});

}  // namespace
}  // namespace qspec::refops
