// Tensor helpers shared by the reference op files: finding a named input, and per-channel indexing.
//
// Missing or mistyped inputs throw JsonValueError, which qspec/refops.h reads as "this convention
// does not apply to these inputs" (never as an ERROR_IF: a rejection is the clause's to decide).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "qspec/core/tensor.h"

namespace qspec::refops {

// The input called `name`; throws JsonValueError if there is none.
const Tensor& input(const std::vector<Tensor>& inputs, std::string_view name);
// The same, and it must have dtype `dtype`.
const Tensor& input(const std::vector<Tensor>& inputs, std::string_view name, DType dtype);
// The channel of flat (row-major) element i along `axis` of x.
std::size_t channel_of(const Tensor& x, std::size_t i, std::size_t axis);

}  // namespace qspec::refops
