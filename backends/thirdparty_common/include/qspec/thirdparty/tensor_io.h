// Typed reading and writing of ABI tensors for adapters (values as int64, checked dtypes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qspec/backend.h"

namespace qspec::thirdparty {

const char* dtype_name(qspec_dtype d);
// Parses "int8", "uint8", ... as used by the out_dtype attribute; throws std::invalid_argument.
qspec_dtype dtype_from_name(const std::string& name);
std::int64_t dtype_min(qspec_dtype d);  // integer dtypes only
std::int64_t dtype_max(qspec_dtype d);

std::int64_t numel(const qspec_tensor& t);
std::vector<std::int64_t> shape_of(const qspec_tensor& t);

// Throws std::invalid_argument unless t has dtype d (names the tensor and both dtypes).
void expect_dtype(const qspec_tensor& t, qspec_dtype d);

// All elements of an integer tensor as int64 (checks the buffer size against the shape).
std::vector<std::int64_t> read_ints(const qspec_tensor& t);
// float32 tensor -> host floats (bit-exact).
std::vector<float> read_f32(const qspec_tensor& t);
// host floats -> float32 tensor (bit-exact).
void write_f32(qspec_tensor& t, const std::vector<float>& values);
// Writes values (each must fit the dtype: a value outside is an adapter bug -> throws).
void write_ints(qspec_tensor& t, const std::vector<std::int64_t>& values);

// Copies between a typed host buffer and an ABI tensor of the same element size.
template <typename T>
std::vector<T> read_as(const qspec_tensor& t) {
  std::vector<T> out;
  for (std::int64_t v : read_ints(t)) out.push_back(static_cast<T>(v));
  return out;
}
template <typename T>
void write_from(qspec_tensor& t, const std::vector<T>& values) {
  write_ints(t, std::vector<std::int64_t>(values.begin(), values.end()));
}

}  // namespace qspec::thirdparty
