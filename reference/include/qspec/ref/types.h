// Integer element types, their ranges, MRT's symmetric PREC-bit ranges, and saturation.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "qspec/ref/exact.h"

namespace qspec::ref {

// The element types of vectors and of the backend ABI. F32/F64 values travel as IEEE bit patterns.
enum class DType { I8, U8, I16, U16, I32, I64, F32, F64 };

std::string_view dtype_name(DType t);               // "int8", ..., "float32"
std::optional<DType> dtype_from_name(std::string_view name);
bool is_integer(DType t);

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
