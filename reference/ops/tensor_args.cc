// Tensor helpers shared by the reference op files (qspec/refops/tensor_args.h).
#include "qspec/refops/tensor_args.h"

#include <string>

#include "qspec/core/json_values.h"

namespace qspec::refops {

const Tensor& input(const std::vector<Tensor>& inputs, std::string_view name) {
  for (const auto& t : inputs)
    if (t.name == name) return t;
  throw JsonValueError("missing input tensor '" + std::string(name) + "'");
}

const Tensor& input(const std::vector<Tensor>& inputs, std::string_view name, DType dtype) {
  const Tensor& t = input(inputs, name);
  if (t.dtype != dtype)
    throw JsonValueError("input '" + std::string(name) + "' must be " + std::string(dtype_name(dtype)));
  return t;
}

std::size_t channel_of(const Tensor& x, std::size_t i, std::size_t axis) {
  std::size_t inner = 1;
  for (std::size_t d = axis + 1; d < x.shape.size(); ++d) inner *= static_cast<std::size_t>(x.shape[d]);
  return (i / inner) % static_cast<std::size_t>(x.shape[axis]);
}

}  // namespace qspec::refops
