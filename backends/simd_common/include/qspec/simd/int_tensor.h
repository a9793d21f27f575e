// Integer tensors of any integer dtype read into int64 (and written back with a range check), for
// the exact integer operators whose vectors use int32 or int64 elements.
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/backend.h"

namespace qspec::simd {

struct IntArray {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> data;
  std::int64_t dim(std::size_t i) const { return shape[i]; }
  std::int64_t numel() const;
};

// Reads any integer tensor; throws std::invalid_argument for float tensors.
IntArray read_int(const qspec_tensor& t);
// Writes `values` into an int8..int64 output of the same element count; throws
// std::invalid_argument if the shape differs, and std::runtime_error if a value does not fit.
void write_int(qspec_tensor& t, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& values);

// True if every element lies in [lo, hi].
bool all_within(const std::vector<std::int64_t>& v, std::int64_t lo, std::int64_t hi);

}  // namespace qspec::simd
