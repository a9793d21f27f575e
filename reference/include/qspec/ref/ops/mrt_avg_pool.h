// MRT's average pooling: rewritten into a depthwise Convolution whose weight is the constant
// 1 / (KH KW) (spec/operators_mrt.md mrt.op.avg_pool2d).
#pragma once

#include "qspec/ref/ops/nn.h"

namespace qspec::ref::ops {

// spec: mrt.op.avg_pool2d
// The real formalization: the mean over each KH x KW window, padded positions counted as 0
// (count_include_pad, MXNet's default). ERROR_IF the shapes or attributes are invalid.
RatArray avg_pool2d_real(const RatArray& x, const Pool2dAttrs& a);

// spec: mrt.op.avg_pool2d
// The integer expansion MRT runs: the depthwise Convolution of Xq with every weight at
// a = 2^(weight_prec - 1) - 1 (the constant 1/(KH KW) quantized symmetrically at weight_prec: it
// is its own maximum), i.e. a * (window sum of Xq), at scale sc_x * a * KH * KW.
// ERROR_IF weight_prec outside [2, 32] (at 1 every weight is 0).
IntArray avg_pool2d_expand(const IntArray& xq, const Pool2dAttrs& a, int weight_prec);

// The attributes of that depthwise Convolution (stride, padding, groups = C).
Conv2dAttrs avg_pool2d_as_conv_attrs(const Shape& x, const Pool2dAttrs& a);

}  // namespace qspec::ref::ops
