// Glow's quantized Transpose and Concat: selections of codes at the inputs' own parameters, across
// which a quantize or dequantize can move (spec/operators_glow.md, glow.op.transpose_concat).
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/ref/glow.h"
#include "qspec/ref/ops/nn.h"

namespace qspec::ref::ops {

// spec: glow.op.transpose_concat
// Glow's verifier: ERROR_IF an input's (scale, offset) differs from the output's.
void glow_check_same_params(const std::vector<GlowQParams>& inputs, const GlowQParams& output);

// spec: glow.op.transpose_concat
// Transpose's output shape, Y.shape[k] = X.shape[shuffle[k]]; ERROR_IF `shuffle` is not a
// permutation of [0, rank).
Shape glow_transpose_output_shape(const Shape& x, const std::vector<std::int64_t>& shuffle);

// spec: glow.op.transpose_concat
// Transpose: Y[i] = X[j] with j[shuffle[k]] = i[k].
template <class T>
NdArray<T> glow_transpose(const NdArray<T>& x, const std::vector<std::int64_t>& shuffle) {
  NdArray<T> y(glow_transpose_output_shape(x.shape, shuffle));
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    const Shape out = unravel(off, y.shape);
    Shape in(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) in[static_cast<std::size_t>(shuffle[k])] = out[k];
    y.data[static_cast<std::size_t>(off)] = x.at(in);
  }
  return y;
}

// spec: glow.op.transpose_concat
// Concat's dim: ERROR_IF dim < 0 (Glow's is unsigned; the rest is mrt.op.concat's check).
void glow_check_concat_dim(std::int64_t dim);

// spec: glow.op.transpose_concat
// Concat along `dim`: the inputs laid one after another (mrt.op.concat).
template <class T>
NdArray<T> glow_concat(const std::vector<NdArray<T>>& xs, std::int64_t dim) {
  glow_check_concat_dim(dim);
  return concat(xs, dim);
}

}  // namespace qspec::ref::ops
