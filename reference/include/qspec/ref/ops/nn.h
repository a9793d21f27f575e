// The operators of the MRT document (seed 000) in their real formalization, generic over the ring.
//
// Each template runs on Rat (the real formalization over exact rationals), on Int (the integer
// expansion, where the same formula is evaluated on quantized values) and on std::int64_t (fast
// exhaustive checks). Shape and attribute checks are not templates: they live in
// reference/src/ops_mrt_shapes.cc and throw ErrorIf (spec/operators_mrt.md, ERROR_IF lines).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "qspec/ref/ops/ndarray.h"

namespace qspec::ref::ops {

using Pair = std::array<std::int64_t, 2>;

struct Conv2dAttrs {
  Pair stride{1, 1};
  Pair padding{0, 0};  // symmetric: PH rows above and below, PW columns left and right
  Pair dilation{1, 1};
  std::int64_t groups = 1;
};

// spec: mrt.op.conv2d
// Output shape (N, O, OH, OW), OH = floor((H + 2PH - DH(KH-1) - 1) / SH) + 1; ERROR_IF on bad shapes/attributes.
Shape conv2d_output_shape(const Shape& x, const Shape& w, const Conv2dAttrs& a);

// spec: mrt.op.conv2d
// Y[n,o,p,q] = sum_{i<IC} sum_{ki<KH} sum_{kj<KW} Xp[n, g*IC + i, p*SH + ki*DH - PH, q*SW + kj*DW - PW] * W[o,i,ki,kj]
// with IC = C/groups, g = floor(o / (O/groups)), and Xp = X inside the input, `pad_value` outside
// (0 for the real formalization; the integer whose real value is 0 for a zero-point input).
template <class T>
NdArray<T> conv2d(const NdArray<T>& x, const NdArray<T>& w, const Conv2dAttrs& a, const T& pad_value = T(0)) {
  NdArray<T> y(conv2d_output_shape(x.shape, w.shape, a));
  const std::int64_t N = x.dim(0), H = x.dim(2), W = x.dim(3);
  const std::int64_t O = w.dim(0), IC = w.dim(1), KH = w.dim(2), KW = w.dim(3);
  const std::int64_t OPG = O / a.groups;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t p = 0; p < y.dim(2); ++p)
        for (std::int64_t q = 0; q < y.dim(3); ++q) {
          T acc(0);
          const std::int64_t g = o / OPG;
          for (std::int64_t i = 0; i < IC; ++i)
            for (std::int64_t ki = 0; ki < KH; ++ki)
              for (std::int64_t kj = 0; kj < KW; ++kj) {
                const std::int64_t h = p * a.stride[0] + ki * a.dilation[0] - a.padding[0];
                const std::int64_t v = q * a.stride[1] + kj * a.dilation[1] - a.padding[1];
                const bool inside = 0 <= h && h < H && 0 <= v && v < W;
                const T& xv = inside ? x.at4(n, g * IC + i, h, v) : pad_value;
                acc += xv * w.at4(o, i, ki, kj);
              }
          y.at4(n, o, p, q) = acc;
        }
  return y;
}

struct PadWidth {  // MXNet pad_width restricted to H and W: (0,0,0,0,PH1,PH2,PW1,PW2)
  std::int64_t h1 = 0, h2 = 0, w1 = 0, w2 = 0;
};

// spec: mrt.op.pad
// Reads an 8-entry MXNet pad_width; ERROR_IF it pads N or C, has a negative entry, or has another length.
PadWidth pad_width_from(const std::vector<std::int64_t>& pad_width);
// spec: mrt.op.pad
// ERROR_IF x is not rank 4.
Shape pad2d_output_shape(const Shape& x, const PadWidth& p);

// spec: mrt.op.pad
// Y[n,c,h,w] = X[n,c,h-PH1,w-PW1] inside, `value` outside (constant mode).
template <class T>
NdArray<T> pad2d(const NdArray<T>& x, const PadWidth& p, const T& value = T(0)) {
  NdArray<T> y(pad2d_output_shape(x.shape, p), value);
  for (std::int64_t n = 0; n < x.dim(0); ++n)
    for (std::int64_t c = 0; c < x.dim(1); ++c)
      for (std::int64_t h = 0; h < x.dim(2); ++h)
        for (std::int64_t w = 0; w < x.dim(3); ++w) y.at4(n, c, h + p.h1, w + p.w1) = x.at4(n, c, h, w);
  return y;
}

// spec: mrt.op.relu
// Y = max(floor, X) elementwise; floor = 0 is relu. (A zero-point input needs floor = the integer of real 0.)
template <class T>
NdArray<T> relu(const NdArray<T>& x, const T& floor = T(0)) {
  NdArray<T> y = x;
  for (auto& v : y.data)
    if (v < floor) v = floor;
  return y;
}

struct Pool2dAttrs {
  Pair kernel{1, 1};
  Pair stride{1, 1};
  Pair padding{0, 0};
};

// spec: mrt.op.max_pool2d
// (N, C, floor((H + 2PH - KH)/SH) + 1, floor((W + 2PW - KW)/SW) + 1); ERROR_IF PH >= KH or PW >= KW
// (a window entirely in the padding has no value: its max would be the pad value INT_MIN / -inf).
Shape max_pool2d_output_shape(const Shape& x, const Pool2dAttrs& a);

// spec: mrt.op.max_pool2d
// Y[n,c,p,q] = max of X[n,c,h,w] over h in [p*SH - PH, p*SH - PH + KH), w in [q*SW - PW, q*SW - PW + KW)
// restricted to the input: padding with -infinity (the document's INT_MIN) never wins.
template <class T>
NdArray<T> max_pool2d(const NdArray<T>& x, const Pool2dAttrs& a) {
  NdArray<T> y(max_pool2d_output_shape(x.shape, a));
  for (std::int64_t n = 0; n < y.dim(0); ++n)
    for (std::int64_t c = 0; c < y.dim(1); ++c)
      for (std::int64_t p = 0; p < y.dim(2); ++p)
        for (std::int64_t q = 0; q < y.dim(3); ++q) {
          std::optional<T> best;
          for (std::int64_t h = p * a.stride[0] - a.padding[0]; h < p * a.stride[0] - a.padding[0] + a.kernel[0]; ++h)
            for (std::int64_t w = q * a.stride[1] - a.padding[1]; w < q * a.stride[1] - a.padding[1] + a.kernel[1]; ++w) {
              if (h < 0 || h >= x.dim(2) || w < 0 || w >= x.dim(3)) continue;
              const T& v = x.at4(n, c, h, w);
              if (!best || *best < v) best = v;
            }
          y.at4(n, c, p, q) = *best;  // non-empty: the ERROR_IF on padding guarantees an input element
        }
  return y;
}

// spec: mrt.op.fully_connected
// (N, M); ERROR_IF X is not (N, K) or W is not (M, K).
Shape fully_connected_output_shape(const Shape& x, const Shape& w);

// spec: mrt.op.fully_connected
// Y[n,m] = sum_{i<K} X[n,i] * W[m,i].
template <class T>
NdArray<T> fully_connected(const NdArray<T>& x, const NdArray<T>& w) {
  NdArray<T> y(fully_connected_output_shape(x.shape, w.shape));
  for (std::int64_t n = 0; n < y.dim(0); ++n)
    for (std::int64_t m = 0; m < y.dim(1); ++m) {
      T acc(0);
      for (std::int64_t i = 0; i < x.dim(1); ++i) acc += x.at2(n, i) * w.at2(m, i);
      y.at2(n, m) = acc;
    }
  return y;
}

// spec: mrt.op.broadcast_add
// Right-aligned (NumPy) broadcasting: ranks may differ; each aligned pair of dims is equal or one is 1.
Shape broadcast_shape(const Shape& a, const Shape& b);

// spec: mrt.op.broadcast_add
// Y[i] = A[i'] + B[i''] where i' (i'') is i right-aligned to A's (B's) rank with broadcast dims at 0.
template <class T>
NdArray<T> broadcast_add(const NdArray<T>& a, const NdArray<T>& b) {
  NdArray<T> y(broadcast_shape(a.shape, b.shape));
  const std::size_t r = y.shape.size();
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    const Shape idx = unravel(off, y.shape);
    Shape ia(a.shape.size()), ib(b.shape.size());
    for (std::size_t j = 0; j < ia.size(); ++j) ia[j] = a.shape[j] == 1 ? 0 : idx[r - ia.size() + j];
    for (std::size_t j = 0; j < ib.size(); ++j) ib[j] = b.shape[j] == 1 ? 0 : idx[r - ib.size() + j];
    y.data[static_cast<std::size_t>(off)] = a.at(ia) + b.at(ib);
  }
  return y;
}

// spec: mrt.op.elemwise_add
// ERROR_IF the shapes differ.
void check_same_shape(const Shape& a, const Shape& b, const char* op);

// spec: mrt.op.elemwise_add
// Y = A + B elementwise, same shape.
template <class T>
NdArray<T> elemwise_add(const NdArray<T>& a, const NdArray<T>& b) {
  check_same_shape(a.shape, b.shape, "elemwise_add");
  NdArray<T> y = a;
  for (std::size_t i = 0; i < y.data.size(); ++i) y.data[i] += b.data[i];
  return y;
}

// spec: mrt.op.add_n
// ERROR_IF there is no input or the shapes differ.
void check_add_n(const std::vector<Shape>& shapes);

// spec: mrt.op.add_n
// Y = X_0 + X_1 + ... + X_{N-1}, summed left to right (the order matters only for bit widths).
template <class T>
NdArray<T> add_n(const std::vector<NdArray<T>>& xs) {
  std::vector<Shape> shapes;
  for (const auto& x : xs) shapes.push_back(x.shape);
  check_add_n(shapes);
  NdArray<T> y = xs[0];
  for (std::size_t k = 1; k < xs.size(); ++k)
    for (std::size_t i = 0; i < y.data.size(); ++i) y.data[i] += xs[k].data[i];
  return y;
}

// spec: mrt.op.concat
// Output shape; ERROR_IF no input, ranks differ, axis outside [-rank, rank), or a non-axis dim differs.
// Returns the normalized axis through `axis_out`.
Shape concat_output_shape(const std::vector<Shape>& shapes, std::int64_t axis, int* axis_out);

// spec: mrt.op.concat
// Y is the inputs laid one after another along `axis` (negative counts from the end).
template <class T>
NdArray<T> concat(const std::vector<NdArray<T>>& xs, std::int64_t axis) {
  std::vector<Shape> shapes;
  for (const auto& x : xs) shapes.push_back(x.shape);
  int ax = 0;
  NdArray<T> y(concat_output_shape(shapes, axis, &ax));
  std::int64_t base = 0;
  for (const auto& x : xs) {
    for (std::int64_t off = 0; off < x.numel(); ++off) {
      Shape idx = unravel(off, x.shape);
      idx[static_cast<std::size_t>(ax)] += base;
      y.at(idx) = x.data[static_cast<std::size_t>(off)];
    }
    base += x.dim(ax);
  }
  return y;
}

// spec: mrt.op.flatten
// (M0, M1*...*M_{r-1}) (MXNet Flatten keeps the first axis); ERROR_IF rank 0.
Shape flatten_output_shape(const Shape& x);

// spec: mrt.op.flatten
// Y[m0, sum_{j>=1} m_j prod_{i>j} M_i] = X[m0, ..., m_{r-1}]: row-major order is unchanged.
template <class T>
NdArray<T> flatten(const NdArray<T>& x) {
  return NdArray<T>(flatten_output_shape(x.shape), x.data);
}

// One axis of a slice: MXNet/NumPy begin/end/step, each of begin and end possibly None.
struct SliceAxis {
  std::optional<std::int64_t> begin, end;
  std::int64_t step = 1;
};
struct SliceRange {  // the resolved indices along one axis: start, start + step, ... (count of them)
  std::int64_t start = 0, step = 1, count = 0;
};

// spec: mrt.op.slice
// Resolves begin/end/step per axis (NumPy rules, see the clause); missing trailing axes take the
// whole axis. ERROR_IF step == 0 or more axes than the rank.
std::vector<SliceRange> slice_ranges(const Shape& x, const std::vector<SliceAxis>& axes);

// spec: mrt.op.slice
// Y[j_0, ..., j_{r-1}] = X[start_0 + j_0 step_0, ..., start_{r-1} + j_{r-1} step_{r-1}].
template <class T>
NdArray<T> slice(const NdArray<T>& x, const std::vector<SliceAxis>& axes) {
  const auto ranges = slice_ranges(x.shape, axes);
  Shape out;
  for (const auto& r : ranges) out.push_back(r.count);
  NdArray<T> y(out);
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    Shape idx = unravel(off, out);
    for (std::size_t j = 0; j < idx.size(); ++j) idx[j] = ranges[j].start + idx[j] * ranges[j].step;
    y.data[static_cast<std::size_t>(off)] = x.at(idx);
  }
  return y;
}

}  // namespace qspec::ref::ops
