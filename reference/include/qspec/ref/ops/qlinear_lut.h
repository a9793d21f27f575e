// Engines' quantized lookup-table activations (spec/operators_qlinear_pool.md, qlinear.leaky_relu):
// a 256-entry table built in binary32 from each code's dequantized value, then y = table[x].
#pragma once

#include <array>
#include <cstdint>

#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace qspec::ref::ops {

enum class QLutConvention { XnnpackFp32, OnnxRuntime };

// spec: qlinear.leaky_relu.xnnpack_fp32
// spec: qlinear.leaky_relu.onnxruntime
// The convention's ERROR_IFs and REQUIREs, then the table of every code of p.type (index: the
// code less the dtype's minimum). alpha is the float32 negative slope.
std::array<Int, 256> qlinear_leaky_relu_table(std::uint32_t alpha, const QPoolParams& p, QLutConvention c);

// spec: qlinear.leaky_relu.xnnpack_fp32
// spec: qlinear.leaky_relu.onnxruntime
IntArray qlinear_leaky_relu(const IntArray& x, std::uint32_t alpha, const QPoolParams& p, QLutConvention c);

}  // namespace qspec::ref::ops
