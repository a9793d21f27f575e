// Arm NN 20.08 CpuRef's quantized leaky ReLU (spec/operators_qlinear_leaky_relu.md,
// qlinear.leaky_relu.armnn_cpuref): Activation(LeakyReLu) decodes each code to binary32
// (float.dequantize), applies in > 0 ? in : in * alpha in float and encodes with armnn.quantize.
#pragma once

#include <array>
#include <cstdint>

#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace qspec::ref::ops {

// spec: qlinear.leaky_relu.armnn_cpuref
// One code's output; the parameters' ERROR_IFs and REQUIREs are checked on every call.
Int qlinear_leaky_relu_armnn_code(const Int& x, std::uint32_t alpha, const QPoolParams& p);

// spec: qlinear.leaky_relu.armnn_cpuref
// The REQUIREs of the parameters (p.y_min / p.y_max must be absent), then the output of every code
// of p.type (index: the code less the dtype's minimum).
std::array<Int, 256> qlinear_leaky_relu_armnn_table(std::uint32_t alpha, const QPoolParams& p);

// spec: qlinear.leaky_relu.armnn_cpuref
IntArray qlinear_leaky_relu_armnn(const IntArray& x, std::uint32_t alpha, const QPoolParams& p);

}  // namespace qspec::ref::ops
