// A minimal exact tensor for the operator reference: a row-major shape plus a flat vector of values.
//
// The element type is a template parameter so the same operator text runs on exact integers
// (Int), exact rationals (Rat, the "real formalization") and std::int64_t (fast exhaustive
// checks). Nothing here rounds: every operator built on it is exact in its element type.
#pragma once

#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "qspec/ref/exact.h"

namespace qspec::ref::ops {

using Shape = std::vector<std::int64_t>;

inline std::int64_t shape_numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// Appends piecewise: GCC 12 at -O3 raises a false -Wrestrict on `const char* + std::string&&`
// inside std::string (GCC PR 105329).
inline std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(s[i]);
  }
  out += ')';
  return out;
}

template <class T>
struct NdArray {
  Shape shape;
  std::vector<T> data;

  NdArray() = default;
  explicit NdArray(Shape s, const T& fill = T(0)) : shape(std::move(s)), data(static_cast<std::size_t>(shape_numel(shape)), fill) {}
  NdArray(Shape s, std::vector<T> d) : shape(std::move(s)), data(std::move(d)) {
    QSPEC_REQUIRE(static_cast<std::int64_t>(data.size()) == shape_numel(shape), "NdArray: data length matches the shape");
  }

  int rank() const { return static_cast<int>(shape.size()); }
  std::int64_t numel() const { return static_cast<std::int64_t>(data.size()); }
  std::int64_t dim(int i) const { return shape[static_cast<std::size_t>(i)]; }

  // Row-major linear offset of a full index: sum_j idx[j] * prod_{i>j} shape[i] (the flatten formula).
  std::int64_t offset(const Shape& idx) const {
    std::int64_t off = 0;
    for (std::size_t j = 0; j < shape.size(); ++j) off = off * shape[j] + idx[j];
    return off;
  }
  T& at(const Shape& idx) { return data[static_cast<std::size_t>(offset(idx))]; }
  const T& at(const Shape& idx) const { return data[static_cast<std::size_t>(offset(idx))]; }
  // Rank-4 shorthand (N, C, H, W) for the 2-D operators.
  T& at4(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
    return data[static_cast<std::size_t>(((a * shape[1] + b) * shape[2] + c) * shape[3] + d)];
  }
  const T& at4(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) const {
    return data[static_cast<std::size_t>(((a * shape[1] + b) * shape[2] + c) * shape[3] + d)];
  }
  const T& at2(std::int64_t a, std::int64_t b) const { return data[static_cast<std::size_t>(a * shape[1] + b)]; }
  T& at2(std::int64_t a, std::int64_t b) { return data[static_cast<std::size_t>(a * shape[1] + b)]; }

  bool operator==(const NdArray& o) const { return shape == o.shape && data == o.data; }
};

using IntArray = NdArray<Int>;
using RatArray = NdArray<Rat>;

// The multi-index of linear offset `off` in `shape` (inverse of NdArray::offset).
inline Shape unravel(std::int64_t off, const Shape& shape) {
  Shape idx(shape.size());
  for (std::size_t j = shape.size(); j-- > 0;) {
    idx[j] = shape[j] ? off % shape[j] : 0;
    off = shape[j] ? off / shape[j] : 0;
  }
  return idx;
}

// Elementwise map to another element type (e.g. dequantization Int -> Rat).
template <class U, class T, class F>
NdArray<U> map_array(const NdArray<T>& a, F f) {
  NdArray<U> out;
  out.shape = a.shape;
  out.data.reserve(a.data.size());
  for (const auto& v : a.data) out.data.push_back(f(v));
  return out;
}

}  // namespace qspec::ref::ops
