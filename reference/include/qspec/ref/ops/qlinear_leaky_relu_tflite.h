// TFLite's quantized leaky ReLU (spec/operators_qlinear_leaky_relu.md, qlinear.leaky_relu.tflite_*):
// two Q31 multipliers derived in binary32 by LeakyReluPrepare, one per sign of x - z_x, applied by
// MultiplyByQuantizedMultiplier of the default (double rounding) or single-rounding build.
#pragma once

#include <array>
#include <cstdint>

#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace qspec::ref::ops {

// The Prepare step: identity = QuantizeMultiplier(fl32(s_x / s_y)),
// alpha = QuantizeMultiplier(fl32(fl32(s_x alpha) / s_y)).
struct QLeakyReluTfliteMultipliers {
  QuantizedMultiplier identity, alpha;
};

// spec: qlinear.leaky_relu.tflite_double_round
// spec: qlinear.leaky_relu.tflite_single_round
// The ERROR_IFs and REQUIREs of the parameters (p.y_min / p.y_max must be absent), then both multipliers.
QLeakyReluTfliteMultipliers qlinear_leaky_relu_tflite_multipliers(std::uint32_t alpha, const QPoolParams& p,
                                                                  bool single_round);

// spec: qlinear.leaky_relu.tflite_double_round
// spec: qlinear.leaky_relu.tflite_single_round
// The output of every code of p.type (index: the code less the dtype's minimum).
std::array<Int, 256> qlinear_leaky_relu_tflite_table(std::uint32_t alpha, const QPoolParams& p, bool single_round);

// spec: qlinear.leaky_relu.tflite_double_round
// spec: qlinear.leaky_relu.tflite_single_round
IntArray qlinear_leaky_relu_tflite(const IntArray& x, std::uint32_t alpha, const QPoolParams& p, bool single_round);

}  // namespace qspec::ref::ops
