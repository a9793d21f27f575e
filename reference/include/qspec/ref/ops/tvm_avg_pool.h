// TVM's quantized average pooling (spec/operators_tvm.md, tvm.qnn.avg_pool2d): requantize or upcast
// to int32 output codes, pad with integer 0, window sum, truncating division, clip.
#pragma once

#include <array>
#include <cstdint>

#include "qspec/ref/ops/nn.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

struct TvmAvgPoolAttrs {
  Pair pool_size{1, 1};
  Pair strides{1, 1};
  Pair dilation{1, 1};
  std::array<std::int64_t, 4> padding{0, 0, 0, 0};  // top, left, bottom, right
  bool count_include_pad = false;
  bool nhwc = false;  // layout NHWC (else NCHW)
};

struct TvmAvgPoolParams {
  std::uint32_t input_scale = 0x3f800000, output_scale = 0x3f800000;  // float32 bits
  Int input_zero_point{0}, output_zero_point{0};
  DType dtype = DType::I8;  // input and output: int8 or uint8
};

// spec: tvm.qnn.avg_pool2d
// (N, C, OH, OW) (or NHWC), OH = floor((H + pt + pb - DH(KH-1) - 1) / SH) + 1; ERROR_IF rank != 4,
// pool size / stride / dilation < 1, a negative pad, or no output position.
Shape tvm_avg_pool2d_output_shape(const Shape& x, const TvmAvgPoolAttrs& a);

// spec: tvm.qnn.avg_pool2d
// R = int32(X) if the parameters are equal, else tvm.requantize(X -> output params, UPWARD, int32);
// S = sum of R over the window inside the input (padding is integer 0); n = KH KW if
// count_include_pad else max(1, positions inside); Y = sat(round_trunc(S / n)).
// ERROR_IF dtype not int8/uint8 and the shape errors above.
IntArray tvm_qnn_avg_pool2d(const IntArray& x, const TvmAvgPoolParams& p, const TvmAvgPoolAttrs& a);

}  // namespace qspec::ref::ops
