// Integer dtype names and ranges, MRT symmetric ranges, and the saturating clamp.
#include "qspec/ref/types.h"

#include <array>
#include <utility>

namespace qspec::ref {
namespace {
constexpr std::array<std::pair<DType, std::string_view>, 8> kNames = {{{DType::I8, "int8"},
                                                                        {DType::U8, "uint8"},
                                                                        {DType::I16, "int16"},
                                                                        {DType::U16, "uint16"},
                                                                        {DType::I32, "int32"},
                                                                        {DType::I64, "int64"},
                                                                        {DType::F32, "float32"},
                                                                        {DType::F64, "float64"}}};
}  // namespace

std::string_view dtype_name(DType t) {
  for (const auto& [d, n] : kNames)
    if (d == t) return n;
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& [d, n] : kNames)
    if (n == name) return d;
  return std::nullopt;
}

bool is_integer(DType t) { return t != DType::F32 && t != DType::F64; }

// spec: types.int_range
Range int_range(DType t) {
  switch (t) {
    case DType::I8: return {-pow2(7), pow2(7) - 1};
    case DType::U8: return {0, pow2(8) - 1};
    case DType::I16: return {-pow2(15), pow2(15) - 1};
    case DType::U16: return {0, pow2(16) - 1};
    case DType::I32: return {-pow2(31), pow2(31) - 1};
    case DType::I64: return {-pow2(63), pow2(63) - 1};
    case DType::F32:
    case DType::F64: break;
  }
  throw RequireViolated("int_range of a non-integer dtype");
}

// spec: types.mrt_sym_range
Range mrt_sym_range(int prec) {
  QSPEC_ERROR_IF(prec < 1 || prec > 32, "types.mrt_sym_range: precision must be in [1, 32]");
  const Int alpha = pow2(static_cast<unsigned>(prec - 1)) - 1;
  return {-alpha, alpha};
}

// spec: sat.clamp
Int saturate(const Int& v, const Range& r) {
  QSPEC_REQUIRE(r.lo <= r.hi, "sat.clamp: lo <= hi");
  if (v < r.lo) return r.lo;
  if (v > r.hi) return r.hi;
  return v;
}

}  // namespace qspec::ref
