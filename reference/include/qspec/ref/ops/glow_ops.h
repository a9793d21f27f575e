// Glow's quantized operators (spec/operators_glow.md) as its Interpreter computes them, exactly.
//
// The arithmetic operators (FullyConnected, Convolution, RowwiseQuantizedFullyConnected,
// FusedRowwiseQuantizedSparseLengthsWeightedSum, RescaleQuantized) model every float32 step of
// InterpreterNodes.cpp with ieee.h. The operators that keep their input's quantization
// parameters (Reshape, Slice, Gather, TopK, MaxPool) are selections: they are templates so
// the same text runs on integer codes (Int) and on their real values (Rat), which is how the
// properties show that they commute with dequantization.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "qspec/ref/glow.h"
#include "qspec/ref/ops/nn.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

// Parameters of the four tensors of a quantized FullyConnected / Convolution, and the element
// types: `elem` (input, weights, output) is int8 (Acc int32) or int16 (Acc int64); `bias_type`
// is `elem` or int32.
struct GlowLinearParams {
  GlowQParams input{0x3f800000u, Int(0)}, weights{0x3f800000u, Int(0)}, bias{0x3f800000u, Int(0)},
      output{0x3f800000u, Int(0)};
  DType elem = DType::I8;
  DType bias_type = DType::I32;
};

// spec: glow.op.fully_connected
// ERROR_IF (elem, bias_type) is not int8/int8, int8/int32, int16/int16 or int16/int32.
void glow_check_linear_types(DType elem, DType bias_type);

// spec: glow.op.fully_connected
// acc = sum_k (W[k,m] - o_w)(X[n,k] - o_x); p = fl32(s_w * s_x);
// B = half_away(fl32(fl32(b - o_b) * fl32(s_b / p))); t = acc + B;
// Y = sat_E(fl32(half_away(fl32(fl32(t) * fl32(p / s_y))) + fl32(o_y))) -- offset AFTER the rounding.
// X (N,K), W (K,M), bias (M). ERROR_IF shapes/types; REQUIRE no Acc overflow, finite floats.
IntArray glow_fully_connected(const IntArray& x, const IntArray& w, const IntArray& bias, const GlowLinearParams& p);

struct GlowConvAttrs {
  Pair stride{1, 1};
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};  // top, left, bottom, right (PaddingTLBR)
  Pair dilation{1, 1};
  std::int64_t group = 1;
};

// spec: glow.op.convolution
// (N, OH, OW, O) with OH = floor((H + pt + pb - DH(KH-1) - 1) / SH) + 1; ERROR_IF shapes/attributes.
Shape glow_convolution_output_shape(const Shape& x, const Shape& w, const Shape& bias, const GlowConvAttrs& a);

// spec: glow.op.convolution
// NHWC input, (O, KH, KW, C/g) filter; padding skipped (= real 0); bias as glow.op.fully_connected;
// Y = sat_E(half_away(fl32(fl32(fl32(t) * fl32(p / s_y)) + fl32(o_y)))) -- offset BEFORE the rounding.
IntArray glow_convolution(const IntArray& x, const IntArray& w, const IntArray& bias, const GlowConvAttrs& a,
                          const GlowLinearParams& p);

// spec: glow.op.rowwise_fully_connected
// W (M,K) with per-row float32 scales[m] and int32 offsets[m]; p_m = fl32(scales[m] * s_x); then as
// glow.op.convolution's output step (offset before the rounding). `p.weights` is not used.
IntArray glow_rowwise_fully_connected(const IntArray& x, const IntArray& w, const std::vector<std::uint32_t>& scales,
                                      const std::vector<Int>& offsets, const IntArray& bias, const GlowLinearParams& p);

// spec: glow.op.fused_rowwise_sparse_lengths_weighted_sum
// data: uint8 codes (R, C + 8) with each row's float32 scale and offset in its last 8 bytes
// (little-endian). Segment i: a = +0; for each position j of the segment, in order,
// a = fl32(a + fl32(fl32(fl32(q * scale) + offset) * weights[j])). Returns float32 bits (S, C).
// ERROR_IF shapes/lengths; REQUIRE indices in range, finite values.
NdArray<std::uint32_t> glow_fused_rowwise_sparse_lengths_weighted_sum(const IntArray& data,
                                                                      const std::vector<std::uint32_t>& weights,
                                                                      const std::vector<Int>& indices,
                                                                      const std::vector<Int>& lengths);

// spec: glow.op.rowwise_sparse_lengths_weighted_sum
// The non-fused RowwiseQuantizedSparseLengthsWeightedSum: data uint8 (R, C), and each row's float32
// scale and offset in their own tensors (scales[r], offsets[r]); otherwise the arithmetic of
// glow.op.fused_rowwise_sparse_lengths_weighted_sum. ERROR_IF shapes/lengths.
NdArray<std::uint32_t> glow_rowwise_sparse_lengths_weighted_sum(
    const IntArray& data, const std::vector<std::uint32_t>& scales, const std::vector<std::uint32_t>& offsets,
    const std::vector<std::uint32_t>& weights, const std::vector<Int>& indices, const std::vector<Int>& lengths);

enum class GlowBackend { Interpreter, Cpu };

// spec: glow.op.rescale
// Elementwise glow.rescale_float (Interpreter) or glow.rescale_integer (CPU), int8 to int8.
IntArray glow_rescale(const IntArray& x, const GlowQParams& in, const GlowQParams& out, GlowBackend backend);

// spec: glow.op.keeps_input_qparams
// The parameters Glow gives the output of LRN, Slice, Reshape, TopK, Gather and MaxPool: the
// input's, whatever was requested. REQUIRE the input scale finite and positive.
GlowQParams glow_keeps_input_qparams(const GlowQParams& input, const GlowQParams& requested_output);

// ---- The selections (spec: glow.op.keeps_input_qparams) ----------------------------------------

// spec: glow.op.keeps_input_qparams
// Reshape: ERROR_IF an entry of `shape` is < 1 or the element counts differ.
void glow_check_reshape(const Shape& x, const Shape& shape);

// spec: glow.op.keeps_input_qparams
// Reshape: the same elements in the same row-major order.
template <class T>
NdArray<T> glow_reshape(const NdArray<T>& x, const Shape& shape) {
  glow_check_reshape(x.shape, shape);
  return NdArray<T>(shape, x.data);
}

// spec: glow.op.keeps_input_qparams
// Slice: ERROR_IF start/size lack one entry per axis, start < 0, size < 1, start + size > dim.
void glow_check_slice(const Shape& x, const Shape& start, const Shape& size);

// spec: glow.op.keeps_input_qparams
// Slice: Y[i] = X[start + i].
template <class T>
NdArray<T> glow_slice(const NdArray<T>& x, const Shape& start, const Shape& size) {
  glow_check_slice(x.shape, start, size);
  NdArray<T> y(size);
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    Shape idx = unravel(off, size);
    for (std::size_t j = 0; j < idx.size(); ++j) idx[j] += start[j];
    y.data[static_cast<std::size_t>(off)] = x.at(idx);
  }
  return y;
}

// spec: glow.op.keeps_input_qparams
// Gather: X.shape[:b] + indices.shape + X.shape[b+1:]; ERROR_IF b < 0 or b >= rank(X).
Shape glow_gather_output_shape(const Shape& x, const Shape& indices, std::int64_t batch_dims);

// spec: glow.op.keeps_input_qparams
// Gather: Y[s, j, u] = X[s, I[j], u] for s over X's first b axes, j over I's axes, u over X's
// axes after b. REQUIRE 0 <= I[j] < X.shape[b].
template <class T>
NdArray<T> glow_gather(const NdArray<T>& x, const NdArray<std::int64_t>& indices, std::int64_t batch_dims) {
  NdArray<T> y(glow_gather_output_shape(x.shape, indices.shape, batch_dims));
  const auto b = static_cast<std::size_t>(batch_dims);
  const std::size_t ri = indices.shape.size();
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    const Shape out = unravel(off, y.shape);
    Shape in(x.shape.size());
    for (std::size_t k = 0; k < b; ++k) in[k] = out[k];
    Shape j(out.begin() + static_cast<std::ptrdiff_t>(b), out.begin() + static_cast<std::ptrdiff_t>(b + ri));
    const std::int64_t sel = indices.at(j);
    QSPEC_REQUIRE(sel >= 0 && sel < x.shape[b], "glow.gather: index within the gathered axis");
    in[b] = sel;
    for (std::size_t k = b + 1; k < x.shape.size(); ++k) in[k] = out[k - 1 + ri];
    y.data[static_cast<std::size_t>(off)] = x.at(in);
  }
  return y;
}

// spec: glow.op.keeps_input_qparams
// TopK: ERROR_IF rank 0 or k not in [1, last dim].
void glow_check_topk(const Shape& x, std::int64_t k);

// spec: glow.op.keeps_input_qparams
// TopK along the last axis: the k largest values, descending; equal values by ascending position
// (fwdTopK's comparator). Returns (values, indices).
template <class T>
std::pair<NdArray<T>, NdArray<std::int64_t>> glow_topk(const NdArray<T>& x, std::int64_t k) {
  glow_check_topk(x.shape, k);
  const std::int64_t n = x.shape.back();
  Shape out = x.shape;
  out.back() = k;
  NdArray<T> values(out);
  NdArray<std::int64_t> indices(out);
  for (std::int64_t row = 0; row < x.numel() / n; ++row) {
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    const auto at = [&](std::int64_t i) -> const T& { return x.data[static_cast<std::size_t>(row * n + i)]; };
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      if (at(a) != at(b)) return at(b) < at(a);
      return a < b;
    });
    for (std::int64_t i = 0; i < k; ++i) {
      values.data[static_cast<std::size_t>(row * k + i)] = at(order[static_cast<std::size_t>(i)]);
      indices.data[static_cast<std::size_t>(row * k + i)] = order[static_cast<std::size_t>(i)];
    }
  }
  return {values, indices};
}

struct GlowPoolAttrs {
  Pair kernel{1, 1};
  Pair stride{1, 1};
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};  // top, left, bottom, right
};

// spec: glow.op.keeps_input_qparams
// MaxPool: (N, OH, OW, C), OH = floor((H + pt + pb - KH) / SH) + 1; ERROR_IF rank != 4, kernel or
// stride < 1, pad < 0, or H + pt + pb < KH (likewise W).
Shape glow_max_pool_output_shape(const Shape& x, const GlowPoolAttrs& a);

// spec: glow.op.keeps_input_qparams
// MaxPool, NHWC: the max over the window's positions inside the input; `empty` (the code of real 0,
// Glow's output offset) for a window entirely in the padding.
template <class T>
NdArray<T> glow_max_pool(const NdArray<T>& x, const GlowPoolAttrs& a, const T& empty) {
  NdArray<T> y(glow_max_pool_output_shape(x.shape, a));
  const std::int64_t H = x.dim(1), W = x.dim(2);
  for (std::int64_t n = 0; n < y.dim(0); ++n)
    for (std::int64_t p = 0; p < y.dim(1); ++p)
      for (std::int64_t q = 0; q < y.dim(2); ++q)
        for (std::int64_t c = 0; c < y.dim(3); ++c) {
          std::optional<T> best;
          for (std::int64_t fx = 0; fx < a.kernel[0]; ++fx)
            for (std::int64_t fy = 0; fy < a.kernel[1]; ++fy) {
              const std::int64_t h = p * a.stride[0] - a.pads[0] + fx, w = q * a.stride[1] - a.pads[1] + fy;
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              const T& v = x.at4(n, h, w, c);
              if (!best || *best < v) best = v;
            }
          y.at4(n, p, q, c) = best ? *best : empty;
        }
  return y;
}

}  // namespace qspec::ref::ops
