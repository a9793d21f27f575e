// Engines' quantized lookup-table activations (spec/operators_qlinear_pool.md, qlinear.leaky_relu):
// a 256-entry table built in binary32 from each code's dequantized value, then y = table[x].
#pragma once

#include <array>
#include <cstdint>

#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace qspec::ref::ops {

enum class QLutConvention { XnnpackFp32, OnnxRuntime, PytorchOnednn };

// spec: qlinear.leaky_relu.xnnpack_fp32
// spec: qlinear.leaky_relu.onnxruntime
// The convention's ERROR_IFs and REQUIREs, then the table of every code of p.type (index: the
// code less the dtype's minimum). alpha is the float32 negative slope.
std::array<Int, 256> qlinear_leaky_relu_table(std::uint32_t alpha, const QPoolParams& p, QLutConvention c);

// spec: qlinear.leaky_relu.pytorch_onednn
// PyTorch 1.13's ATen leaky_qrelu_out_kernel (spec/operators_qlinear_pytorch_concat.md) as a table of
// every code: d = fl32((x - z_x) s_x), e = d > 0 ? d : fl32(d alpha), sat(rne(fl32(e fl32(1 / s_y))) + z_y).
std::array<Int, 256> qlinear_leaky_relu_pytorch_table(std::uint32_t alpha, const QPoolParams& p);

// spec: qlinear.leaky_relu.xnnpack_fp32
// spec: qlinear.leaky_relu.onnxruntime
// spec: qlinear.leaky_relu.pytorch_onednn
IntArray qlinear_leaky_relu(const IntArray& x, std::uint32_t alpha, const QPoolParams& p, QLutConvention c);

}  // namespace qspec::ref::ops
