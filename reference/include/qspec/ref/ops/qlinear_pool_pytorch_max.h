// PyTorch 1.13's quantized max pooling under the onednn and qnnpack engines
// (spec/operators_qlinear_pytorch_pool.md): ATen's kernels (the taps inside the window, from the
// dtype's lowest) or, for uint8 under qnnpack, QNNPACK's border-clamped taps. y keeps x's parameters.
#pragma once

#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/ops/qlinear_pool_pytorch.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

// spec: qlinear.max_pool2d.pytorch_onednn
// spec: qlinear.max_pool2d.pytorch_qnnpack
// at::max_pool2d's checks (ERROR_IF): symmetric pads, each pad <= floor(kernel / 2); and for uint8
// under qnnpack (QNNPACK's operator) ERROR_IF a 1x1 kernel.
void qlinear_pytorch_maxpool_check(const QPoolGeometry& g, DType t, QPoolTorchEngine engine);

// spec: qlinear.pool.window
// spec: qlinear.max_pool2d.pytorch_onednn
// spec: qlinear.max_pool2d.pytorch_qnnpack
// at::max_pool2d on a quantized tensor of dtype t under `engine` (ceil_mode false). uint8 under
// qnnpack: the maximum over all K taps at their border-clamped positions; otherwise the maximum over
// the taps inside, lowest(t) where none is.
IntArray qlinear_max_pool2d_pytorch(const IntArray& x, const QPoolGeometry& g, DType t, QPoolTorchEngine engine);

}  // namespace qspec::ref::ops
