// MRT channel-wise quantization: channel split (slice), per-slice operator, channel merge (seed 000,
// "Granularity"); spec/granularity.md.
#pragma once

#include <vector>

#include "qspec/ref/ops/nn.h"

namespace qspec::ref::ops {

// spec: mrt.granularity.channel_split
// ERROR_IF step < 1 or axis outside [0, rank).
void check_channel_split(const Shape& x, std::int64_t axis, std::int64_t step);

// spec: mrt.granularity.channel_split
// X_i = slice(X, begin = i on `axis`, end = min(i + step, C), step 1 on every axis) for i = 0, step, 2 step, ...
// (contiguous groups of `step` channels; the last group is shorter when step does not divide C).
template <class T>
std::vector<NdArray<T>> channel_split(const NdArray<T>& x, std::int64_t axis, std::int64_t step) {
  check_channel_split(x.shape, axis, step);
  std::vector<NdArray<T>> parts;
  for (std::int64_t i = 0; i < x.dim(static_cast<int>(axis)); i += step) {
    std::vector<SliceAxis> axes(static_cast<std::size_t>(x.rank()));
    axes[static_cast<std::size_t>(axis)] = SliceAxis{i, i + step, 1};
    parts.push_back(slice(x, axes));
  }
  return parts;
}

// spec: mrt.granularity.channel_split
// The document's slice read literally: begin i / end i + step / step `step` on the channel axis and
// step -1 (begin/end None) on every other axis. Kept to reproduce erratum E-OPS-4 (it keeps one
// channel per group and reverses the other axes).
template <class T>
std::vector<NdArray<T>> channel_split_as_written(const NdArray<T>& x, std::int64_t axis, std::int64_t step) {
  check_channel_split(x.shape, axis, step);
  std::vector<NdArray<T>> parts;
  for (std::int64_t i = 0; i < x.dim(static_cast<int>(axis)); i += step) {
    std::vector<SliceAxis> axes(static_cast<std::size_t>(x.rank()), SliceAxis{std::nullopt, std::nullopt, -1});
    axes[static_cast<std::size_t>(axis)] = SliceAxis{i, i + step, step};
    parts.push_back(slice(x, axes));
  }
  return parts;
}

// spec: mrt.granularity.channel_merge
// concat merge (pad, relu, Pooling, and any operator that maps channels to channels): concat(parts, axis).
template <class T>
NdArray<T> channel_merge_concat(const std::vector<NdArray<T>>& parts, std::int64_t axis) {
  return concat(parts, axis);
}

// spec: mrt.granularity.channel_merge
// add_n merge (Convolution, num_group = 1): the sum of the per-slice partial results.
template <class T>
NdArray<T> channel_merge_add_n(const std::vector<NdArray<T>>& parts) {
  return add_n(parts);
}

// spec: mrt.granularity.conv2d_channelwise
// Channel-wise Convolution: num_group = 1: split X on C and W on its input-channel axis with the same
// step, convolve slice with slice, merge with add_n. num_group = G > 1: for each group g the same on
// X's channels [g IC, (g+1) IC) and W's output channels [g OPG, (g+1) OPG), then concat the G results
// along the output-channel axis.
template <class T>
NdArray<T> conv2d_channelwise(const NdArray<T>& x, const NdArray<T>& w, const Conv2dAttrs& a, std::int64_t step,
                              const T& pad_value = T(0)) {
  conv2d_output_shape(x.shape, w.shape, a);  // the whole problem's ERROR_IFs
  check_channel_split(w.shape, 1, step);
  const std::int64_t G = a.groups, IC = w.dim(1), OPG = w.dim(0) / G;
  Conv2dAttrs one = a;
  one.groups = 1;
  std::vector<NdArray<T>> per_group;
  for (std::int64_t g = 0; g < G; ++g) {
    const NdArray<T> xg = slice(x, {SliceAxis{}, SliceAxis{g * IC, (g + 1) * IC, 1}});
    const NdArray<T> wg = slice(w, {SliceAxis{g * OPG, (g + 1) * OPG, 1}});
    const auto xs = channel_split(xg, 1, step), ws = channel_split(wg, 1, step);
    std::vector<NdArray<T>> partial;
    for (std::size_t i = 0; i < xs.size(); ++i) partial.push_back(conv2d(xs[i], ws[i], one, pad_value));
    per_group.push_back(channel_merge_add_n(partial));
  }
  return G == 1 ? per_group[0] : channel_merge_concat(per_group, 1);
}

}  // namespace qspec::ref::ops
