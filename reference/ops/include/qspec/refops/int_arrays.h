// Conversions between a vector's Tensor (int64 codes) and the reference's exact IntArray, shared by the op files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "qspec/core/tensor.h"
#include "qspec/ref/ops/ndarray.h"

namespace qspec::refops {

// The tensor's elements as exact integers, same shape.
inline ref::ops::IntArray to_array(const Tensor& t) {
  ref::ops::IntArray a(t.shape);
  for (std::size_t i = 0; i < t.data.size(); ++i) a.data[i] = ref::Int(t.data[i]);
  return a;
}

// An output tensor of `dtype` (the op's clause guarantees its elements fit it).
inline Tensor to_tensor(std::string_view name, const ref::ops::IntArray& a, DType dtype) {
  Tensor t{std::string(name), dtype, a.shape, {}};
  for (const auto& v : a.data) t.data.push_back(static_cast<std::int64_t>(v));
  return t;
}

}  // namespace qspec::refops
