// Internal to simd_common: TVM's requantization (qnn.requantize) as kShiftRound parameters, shared
// by the requantize handlers and the QNN operators that end in a requantize.
#pragma once

#include <cstdint>

#include "qspec/backend_common/q31.h"
#include "qspec/simd/requant.h"

namespace qspec::simd::tvm {

// The real multiplier multiplier * 2^(shift - 31) (qspec/backend_common/q31.h).
using Multiplier = q31::Q31;

// GetFixedPointMultiplierShift(double(in) / double(out)): q31::frexp_q31 (frexp, std::round, carry).
Multiplier multiplier(float in_s, float out_s);

// x' = x - izp; one rounding (UPWARD: half up, TONEAREST: half away) of x' * M * 2^(e - 31); + ozp;
// clip to `out` (TVM skips the clip for int32, equal inside its REQUIREs). Throws Unsupported
// outside the kernels' domain (outside tvm.requantize's REQUIREs).
RequantParams params(const Multiplier& fm, bool to_nearest, std::int64_t izp, std::int64_t ozp, OutType out);

// The per-tensor form: bitwise-equal scales skip the multiplication (M = 2^30, e = 1 is that
// identity), otherwise multiplier(in_s, out_s).
RequantParams per_tensor(float in_s, float out_s, bool to_nearest, std::int64_t izp, std::int64_t ozp, OutType out);

}  // namespace qspec::simd::tvm
