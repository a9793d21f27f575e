// Integer dtype ranges, MRT symmetric ranges, and the saturating clamp.
#include "qspec/ref/types.h"

namespace qspec::ref {

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
