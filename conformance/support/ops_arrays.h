// Test helpers for the operator reference: literal arrays, conversions and RapidCheck draws.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "qspec/ref/ops/nn.h"

namespace qspec::opstest {

using namespace qspec::ref;
using namespace qspec::ref::ops;

inline IntArray ia(Shape s, std::initializer_list<long long> v) {
  std::vector<Int> d;
  for (auto x : v) d.emplace_back(x);
  return IntArray(std::move(s), std::move(d));
}

inline IntArray iota_array(Shape s, long long start = 0) {
  IntArray a(std::move(s));
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = Int(start + static_cast<long long>(i));
  return a;
}

inline RatArray to_rat(const IntArray& a) {
  return map_array<Rat>(a, [](const Int& v) { return Rat(v); });
}

template <class T>
NdArray<std::int64_t> to_i64(const NdArray<T>& a) {
  return map_array<std::int64_t>(a, [](const T& v) { return static_cast<std::int64_t>(v); });
}

inline IntArray from_i64(const NdArray<std::int64_t>& a) {
  return map_array<Int>(a, [](std::int64_t v) { return Int(v); });
}

// Inside a RapidCheck property: a tensor of `shape` with elements uniform in [lo, hi].
inline IntArray draw_array(const Shape& shape, long long lo, long long hi) {
  const auto n = static_cast<std::size_t>(shape_numel(shape));
  const auto v = *rc::gen::container<std::vector<long long>>(n, rc::gen::inRange<long long>(lo, hi + 1));
  IntArray a(shape);
  for (std::size_t i = 0; i < n; ++i) a.data[i] = Int(v[i]);
  return a;
}

// A valid small Convolution problem: shapes and attributes with at least one output position.
struct ConvCase {
  Shape x, w;
  Conv2dAttrs attrs;
};

inline ConvCase draw_conv_case(int max_groups = 3) {
  ConvCase c;
  const long long n = *rc::gen::inRange(1, 3), groups = *rc::gen::inRange(1, max_groups + 1);
  const long long ic = *rc::gen::inRange(1, 4), opg = *rc::gen::inRange(1, 3);
  const long long kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
  c.attrs.groups = groups;
  c.attrs.stride = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
  c.attrs.dilation = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
  c.attrs.padding = {*rc::gen::inRange(0, 4), *rc::gen::inRange(0, 4)};
  const long long eh = c.attrs.dilation[0] * (kh - 1) + 1, ew = c.attrs.dilation[1] * (kw - 1) + 1;
  const long long h = std::max<long long>(1, eh - 2 * c.attrs.padding[0]) + *rc::gen::inRange(0, 4);
  const long long w = std::max<long long>(1, ew - 2 * c.attrs.padding[1]) + *rc::gen::inRange(0, 4);
  c.x = {n, groups * ic, h, w};
  c.w = {groups * opg, ic, kh, kw};
  return c;
}

inline Pool2dAttrs draw_pool_attrs() {
  Pool2dAttrs a;
  a.kernel = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
  a.stride = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
  a.padding = {*rc::gen::inRange<std::int64_t>(0, a.kernel[0]), *rc::gen::inRange<std::int64_t>(0, a.kernel[1])};
  return a;
}

}  // namespace qspec::opstest
