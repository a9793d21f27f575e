// Helpers the engine-operator (qlinear.*) vector generators share: int8/uint8 code ranges and exact tensors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/ref/ops/ndarray.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen::qlinear {

// The code range of an int8 or uint8 tensor.
inline std::int64_t lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
inline std::int64_t hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

// An exact array of `shape` whose flat element i is f(i).
inline ref::ops::IntArray array_of(const std::vector<std::int64_t>& shape,
                                   const std::function<std::int64_t(std::int64_t)>& f) {
  ref::ops::IntArray a(shape);
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = ref::Int(f(static_cast<std::int64_t>(i)));
  return a;
}

// The vector tensor `name` of dtype t holding a's elements.
inline Tensor tensor_of(std::string_view name, DType t, const ref::ops::IntArray& a) {
  std::vector<std::int64_t> d;
  for (const auto& v : a.data) d.push_back(static_cast<std::int64_t>(v));
  return tensor(std::string(name), t, a.shape, d);
}

}  // namespace qspec::vecgen::qlinear
