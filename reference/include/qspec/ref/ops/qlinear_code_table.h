// How an 8-bit elementwise activation that is a function of the code alone applies its 256 outputs
// (spec/operators_qlinear_leaky_relu.md): y = table[x - min(T)], the codes REQUIRE'd in T.
#pragma once

#include <array>

#include "qspec/ref/exact.h"
#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

inline IntArray apply_code_table(const IntArray& x, const std::array<Int, 256>& table, DType t) {
  const Range r = int_range(t);
  IntArray y = x;
  for (auto& v : y.data) {
    QSPEC_REQUIRE(v >= r.lo && v <= r.hi, "an 8-bit activation: x codes lie in the dtype");
    v = table[static_cast<std::size_t>(static_cast<long long>(v - r.lo))];
  }
  return y;
}

}  // namespace qspec::ref::ops
