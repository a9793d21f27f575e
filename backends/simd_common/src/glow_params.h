// Internal to simd_common: Glow's integer rescale parameters, shared by the rescale and params ops.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qspec/simd/backend_core.h"

namespace qspec::simd::glow {

struct Rescale {
  int pre = 0, post = 0;
  std::int64_t s = 1;
};
// quantizeScaleOffset32To8's (pre, post, S) for a positive finite float32 scale.
Rescale rescale_params(float scale);

// RescaleQuantized of n int32 codes to int8: the CPU backend's integer transform (integer = true)
// or the Interpreter's quantize(dequantize(x)) in float32.
void rescale_run(const KernelSet& k, bool integer, const std::int32_t* xs, std::size_t n, float in_s, std::int64_t izp,
                 float out_s, std::int64_t ozp, void* y_int8);

}  // namespace qspec::simd::glow
