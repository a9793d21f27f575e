// Glow's quantized int8 element-wise operators and average pooling, as its Interpreter computes
// them, and the compositions the Caffe2 loader builds from them (ConvRelu, SumRelu,
// AveragePoolRelu) and the rescale folding (spec/operators_glow.md).
#pragma once

#include <array>
#include <cstdint>

#include "qspec/ref/glow.h"
#include "qspec/ref/ops/glow_ops.h"
#include "qspec/ref/ops/nn.h"

namespace qspec::ref::ops {

// spec: glow.op.add
// fwdElementAddInstI8Impl: each side to 16-bit codes at 2^-15, L16 = half_away(fl32(fl32(l - o_l)
// * fl32(s_l / 2^-15))), the same for r; t = L16 + R16; y = sat_i8(half_away(fl32(fl32(fl32(t) *
// fl32(2^-15 / s_y)) + fl32(o_y)))). Same shapes; int8 codes; REQUIRE finite floats.
IntArray glow_add(const IntArray& lhs, const GlowQParams& lq, const IntArray& rhs, const GlowQParams& rq,
                  const GlowQParams& out);

// spec: glow.op.max
// fwdElementMaxInstI8Impl: both sides converted to the output parameters (glow.dequantize then
// glow.quantize to int8), then the integer max.
IntArray glow_max(const IntArray& lhs, const GlowQParams& lq, const IntArray& rhs, const GlowQParams& rq,
                  const GlowQParams& out);

// spec: glow.op.relu
// Glow lowers Relu to Max(Splat(0.0, output type), input): y = max(glow.quantize(0, out),
// convert(x)) with convert as in glow.op.max.
IntArray glow_relu(const IntArray& x, const GlowQParams& xq, const GlowQParams& out);

// spec: glow.op.avg_pool
// fwdAvgPoolInstI8Impl, NHWC int8: per window sum = sum of (x - o_x) over the positions inside,
// area = KH KW minus the padded positions unless count_include_pads; y = sat_i8(o_y) if area = 0,
// else sat_i8(half_away(fl32(fl32(fl32(sum) * fl32(fl32(s_x / s_y) / area)) + fl32(o_y)))).
// (The MaxPool attributes of glow_ops.h; count_include_pads is AvgPool's own flag.)
IntArray glow_avg_pool(const IntArray& x, const GlowQParams& xq, const GlowQParams& out, const GlowPoolAttrs& a,
                       bool count_include_pads);

// spec: glow.op.fused_relu
// Caffe2's Int8ConvRelu, Int8SumRelu and Int8AveragePoolRelu, as Glow loads them: the operator
// with its output parameters, then glow.op.relu with input and output parameters equal.
IntArray glow_fused_relu(const IntArray& y, const GlowQParams& out);

// spec: glow.op.rescale_folding
// The unfolded pair: glow.op.fully_connected with output parameters `mid`, then glow.op.rescale
// to `p.output`. Folding gives glow.op.fully_connected with `p.output` directly.
IntArray glow_fully_connected_then_rescale(const IntArray& x, const IntArray& w, const IntArray& bias,
                                           const GlowLinearParams& p, const GlowQParams& mid);

}  // namespace qspec::ref::ops
