// PyTorch 1.13's quantized global average pooling under the onednn and qnnpack engines
// (spec/operators_qlinear_pytorch_pool.md): adaptive_avg_pool2d(x, 1) on a channels-last tensor,
// ATen's adaptive kernel or, for uint8 under qnnpack, QNNPACK's average pooling over the whole
// image (and x.mean((2, 3)), QNNPACK's global average pooling: the same function). y keeps x's
// parameters.
#pragma once

#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/ops/qlinear_pool_pytorch.h"

namespace qspec::ref::ops {

// spec: qlinear.pool.window
// spec: qlinear.global_avg_pool.pytorch_onednn
// spec: qlinear.global_avg_pool.pytorch_qnnpack
// One output per (n, c): acc = sum (x - z_x) over H W; ATen: m = fl32(fl32(x_s / x_s) / fl32(H W));
// QNNPACK (uint8 under qnnpack, H W > 1): S = fl32(x_s / fl32(x_s fl32(H W))); then
// sat(rne(fl32(fl32(acc) m)) + z_x). p.type, p.x_scale and p.x_zero_point are read.
IntArray qlinear_global_avg_pool_pytorch(const IntArray& x, const QPoolParams& p, QPoolTorchEngine engine);

}  // namespace qspec::ref::ops
