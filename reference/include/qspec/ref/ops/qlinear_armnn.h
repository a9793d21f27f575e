// Arm NN 20.08 CpuRef's quantized convolution and fully connected layers (spec/operators_qlinear_armnn.md,
// qlinear.armnn_cpuref): every operand dequantized to binary32, products summed in float in the
// workload's loop order, the bias last, then armnn::Quantize (divide, round half away, + offset, clamp).
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/ref/ops/qlinear.h"

namespace qspec::ref::ops {

// spec: qlinear.armnn_cpuref
// armnn::Dequantize: fl32(float(q - zp) * scale) (q - zp is exact in binary32 for 8-bit codes).
std::uint32_t armnn_dequantize(const Int& q, const Int& zero_point, std::uint32_t scale);

// spec: qlinear.armnn_cpuref
// armnn::Quantize<T>: v = fl32(value / scale), R = round half away from zero (std::round), then
// clamp(R + zp) to T's range in float (equal to the integer saturation: the bounds are integers).
// An infinite quotient saturates. REQUIRE value finite, scale finite and nonzero.
Int armnn_quantize(std::uint32_t value, std::uint32_t scale, const Int& zero_point, DType t);

// The binary32 sums of one layer, before armnn::Quantize (NHWC / (N, O) order), for the tie count
// of the vector generators and the composition properties.
struct ArmnnSums {
  Shape shape;
  std::vector<std::uint32_t> sums;
};

// spec: qlinear.armnn_cpuref
// The ERROR_IFs of the convention (dtypes, one weight scale, groups 1 or C) and the float sums of a
// convolution (ConvImpl.cpp Convolve: per output, sum over input channel c, then ky, then kx of
// fl32(w~ * x~), taps in the padding skipped, then + the dequantized bias).
ArmnnSums armnn_conv2d_sums(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                            const QLinearParams& p);

// spec: qlinear.armnn_cpuref
// FullyConnected.cpp: per (n, o), sum over k in order of fl32(w~[o,k] * x~[n,k]), then + bias~[o].
ArmnnSums armnn_fully_connected_sums(const IntArray& x, const IntArray& w, const IntArray* bias,
                                     const QLinearParams& p);

// spec: qlinear.armnn_cpuref
// The whole layers: armnn_quantize of every sum with (y_scale, y_zero_point) in x's dtype.
IntArray qlinear_armnn_conv2d(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                              const QLinearParams& p);
IntArray qlinear_armnn_fully_connected(const IntArray& x, const IntArray& w, const IntArray* bias,
                                       const QLinearParams& p);

}  // namespace qspec::ref::ops
