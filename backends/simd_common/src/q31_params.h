// Internal to simd_common: the requantization kernel parameters of one Q31 (multiplier, shift)
// under TFLite's and TOSA's roundings (spec/tflite_tosa.md), shared by the requantize handlers
// and the quantized operators (qlinear.tflite).
#pragma once

#include <cstdint>

#include "qspec/simd/requant.h"

namespace qspec::simd {

enum class Q31Rounding { kTfliteDouble, kTfliteSingle, kTosaDouble };

// The kernel parameters of M 2^(shift - 31) (zp, out, qmin, qmax left to the caller, not finalized).
// A shift outside the clause's REQUIRE throws Unsupported.
RequantParams q31_requant_params(Q31Rounding rounding, std::int64_t multiplier, std::int64_t shift);

}  // namespace qspec::simd
