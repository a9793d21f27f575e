// Integer element types, their ranges, MRT's symmetric PREC-bit ranges, and saturation.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "qspec/core/tensor.h"
#include "qspec/ref/exact.h"

namespace qspec::ref {

// The element types of vectors and of the backend ABI: the one DType of core (qspec/core/tensor.h).
using qspec::DType;
using qspec::dtype_from_name;
using qspec::dtype_name;
inline bool is_integer(DType t) { return !is_float(t); }

struct Range {
  Int lo, hi;
};

// spec: types.int_range
// [lo, hi] of an integer dtype: two's complement for signed, [0, 2^b - 1] for unsigned.
Range int_range(DType t);

// spec: types.mrt_sym_range
// MRT / CVM precision p: the symmetric range [-(2^(p-1)-1), 2^(p-1)-1]. ERROR_IF p < 1 or p > 32
// (CVM rejects such precision attributes).
Range mrt_sym_range(int prec);

// spec: sat.clamp
// sat(v, [lo, hi]) = min(max(v, lo), hi). REQUIRE lo <= hi.
Int saturate(const Int& v, const Range& r);
inline Int saturate(const Int& v, DType t) { return saturate(v, int_range(t)); }

}  // namespace qspec::ref
