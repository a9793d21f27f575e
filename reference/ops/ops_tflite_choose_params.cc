// Reference-backend registration of TFLite's ChooseQuantizationParams (op choose_quant_params,
// convention tflite): float64 range in, float64 scale and int32 zero point out.
#include <string>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/tflite_choose_params.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using K = cat::choose_quant_params;

std::vector<Tensor> choose_params(const Attrs& a, const std::vector<Tensor>& in) {
  const Tensor& range = input(in, K::in::range, DType::F64);
  if (range.data.size() != 2) throw JsonValueError("input 'range' must hold (rmin, rmax)");
  const DType t = attr::get(a, K::attr::dtype);
  const bool narrow = attr::get_or(a, K::attr::narrow_range, false);
  const auto p = ref::tflite_choose_quantization_params(static_cast<std::uint64_t>(range.data[0]),
                                                        static_cast<std::uint64_t>(range.data[1]),
                                                        static_cast<ref::DType>(static_cast<int>(t)), narrow);
  return {Tensor{std::string(K::out::scale), DType::F64, {1}, {static_cast<std::int64_t>(p.scale)}},
          Tensor{std::string(K::out::zero_point), DType::I32, {1}, {static_cast<std::int64_t>(p.zero_point)}}};
}
QSPEC_REGISTER_REF_OP(registration<K>(K::conv::tflite, choose_params));

}  // namespace
}  // namespace qspec::refops
