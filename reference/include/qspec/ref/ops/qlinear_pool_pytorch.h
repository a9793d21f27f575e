// PyTorch 1.13's quantized average pooling under the onednn and qnnpack engines
// (spec/operators_qlinear_pool.md, "PyTorch 1.13 (libtorch)"): qlinear.pool.window's window sums
// with ATen's channels-last kernel or QNNPACK's average pooling. The output keeps x's parameters.
#pragma once

#include <cstdint>

#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

enum class QPoolTorchEngine { Onednn, Qnnpack };

// spec: qlinear.avg_pool2d.pytorch_onednn
// ATen's multiplier m = fl32(fl32(x_s / x_s) / fl32(d)) (input_scale / output_scale / divide_factor
// with the output keeping the input's scale).
std::uint32_t qlinear_pytorch_aten_avgpool_multiplier(std::uint32_t x_scale, std::int64_t d);

// spec: qlinear.avg_pool2d.pytorch_qnnpack
// QNNPACK's S = fl32(x_s / fl32(x_s * fl32(K))); ERROR_IF K = 1 or K >= 2^24; REQUIRE 2^-32 <= S < 256.
std::uint32_t qlinear_pytorch_qnnpack_avgpool_scale(std::uint32_t x_scale, std::int64_t k);

// spec: qlinear.avg_pool2d.pytorch_onednn
// spec: qlinear.avg_pool2d.pytorch_qnnpack
// Both kernels' epilogue: sat_T(rne(fl32(fl32(acc) * m)) + z) (the zero point after the rounding).
Int qlinear_pytorch_avgpool_output(const Int& acc, std::uint32_t m, const Int& zero_point, DType t);

// spec: qlinear.pool.window
// spec: qlinear.avg_pool2d.pytorch_onednn
// spec: qlinear.avg_pool2d.pytorch_qnnpack
// at::avg_pool2d on a channels-last quantized tensor under `engine` (ceil_mode false, no divisor
// override). p.type, p.x_scale and p.x_zero_point are read; y has x's parameters.
IntArray qlinear_avg_pool2d_pytorch(const IntArray& x, const QPoolGeometry& g, bool count_include_pad,
                                    const QPoolParams& p, QPoolTorchEngine engine);

}  // namespace qspec::ref::ops
