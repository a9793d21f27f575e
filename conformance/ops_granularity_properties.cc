// Channel split / channel merge (spec/granularity.md): split -> per-slice operator -> merge equals the
// operator on the whole tensor, for every operator and step; the document's literal slice does not.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ops_arrays.h"
#include "ops_counterexample.h"
#include "qspec/ref/ops/granularity.h"
#include "qspec/ref/ops/mrt_expansion.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

RC_GTEST_PROP(mrt_granularity_channel_split, ConcatOfSlicesIsIdentity, ()) {
  const int rank = *rc::gen::inRange(1, 5);
  Shape s;
  for (int i = 0; i < rank; ++i) s.push_back(*rc::gen::inRange(1, 6));
  const IntArray x = draw_array(s, -1000, 1000);
  const std::int64_t axis = *rc::gen::inRange(0, rank), step = *rc::gen::inRange(1, 7);
  const auto parts = channel_split(x, axis, step);
  RC_ASSERT(static_cast<std::int64_t>(parts.size()) == (s[static_cast<std::size_t>(axis)] + step - 1) / step);
  RC_ASSERT(channel_merge_concat(parts, axis) == x);
}

// pad, relu and max Pooling act on each channel alone: split on C, apply, concat on C.
RC_GTEST_PROP(mrt_granularity_channel_merge, ConcatMergeForChannelwiseOps, ()) {
  const Shape s{*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 7), *rc::gen::inRange(2, 6), *rc::gen::inRange(2, 6)};
  const IntArray x = draw_array(s, -127, 127);
  const std::int64_t step = *rc::gen::inRange(1, 7);
  const auto parts = channel_split(x, 1, step);
  const PadWidth pw{*rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3)};
  Pool2dAttrs pa;
  pa.kernel = {2, 2};
  pa.stride = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
  pa.padding = {*rc::gen::inRange(0, 2), *rc::gen::inRange(0, 2)};
  std::vector<IntArray> padded, relued, pooled;
  for (const auto& p : parts) {
    padded.push_back(pad2d(p, pw));
    relued.push_back(relu(p));
    pooled.push_back(max_pool2d(p, pa));
  }
  RC_ASSERT(channel_merge_concat(padded, 1) == pad2d(x, pw));
  RC_ASSERT(channel_merge_concat(relued, 1) == relu(x));
  RC_ASSERT(channel_merge_concat(pooled, 1) == max_pool2d(x, pa));
}

// Convolution: add_n of per-slice convolutions (num_group = 1), per-group add_n then concat (> 1).
RC_GTEST_PROP(mrt_granularity_conv2d_channelwise, EqualsWholeConvolution, ()) {
  const ConvCase c = draw_conv_case();
  const IntArray x = draw_array(c.x, -127, 127), w = draw_array(c.w, -127, 127);
  const std::int64_t step = *rc::gen::inRange(1, 5);
  const IntArray whole = conv2d(x, w, c.attrs);
  QSPEC_RECORD_COUNTEREXAMPLE(rec, "mrt_granularity_conv2d_channelwise.EqualsWholeConvolution", "mrt.conv2d_channelwise",
                              "mrt", {"mrt.granularity.conv2d_channelwise"}, conv_attrs_json(c.attrs, Int(0)),
                              {{"x", x}, {"w", w}}, {{"y", whole}});
  RC_ASSERT(conv2d_channelwise(x, w, c.attrs, step) == whole);
}

// Channel-wise quantization: each slice of X has its own scale; the per-slice partial results, each
// divided by its own scale sc_xi * sc_w, sum to the real Convolution of the dequantized input.
RC_GTEST_PROP(mrt_granularity_conv2d_channelwise, PerSliceScalesSumToReal, ()) {
  ConvCase c = draw_conv_case(1);
  const IntArray x = draw_array(c.x, -127, 127), w = draw_array(c.w, -127, 127);
  const std::int64_t step = *rc::gen::inRange(1, 4);
  const Rat sw(*rc::gen::inRange(1, 100), *rc::gen::inRange(1, 100));
  const auto xs = channel_split(x, 1, step), ws = channel_split(w, 1, step);
  std::vector<Rat> sx;
  for (std::size_t i = 0; i < xs.size(); ++i) sx.emplace_back(*rc::gen::inRange(1, 100), *rc::gen::inRange(1, 100));
  // The real input: channel j of slice i is Xq / sx_i.
  RatArray xr(x.shape);
  for (std::int64_t off = 0; off < x.numel(); ++off) {
    const auto idx = unravel(off, x.shape);
    xr.data[static_cast<std::size_t>(off)] = Rat(x.data[static_cast<std::size_t>(off)]) / sx[static_cast<std::size_t>(idx[1] / step)];
  }
  const RatArray real = conv2d(xr, map_array<Rat>(w, [&](const Int& v) { return Rat(v) / sw; }), c.attrs);
  RatArray sum(real.shape);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const IntArray yi = conv2d(xs[i], ws[i], c.attrs);
    for (std::size_t k = 0; k < sum.data.size(); ++k) sum.data[k] += Rat(yi.data[k]) / (sx[i] * sw);
  }
  RC_ASSERT(sum == real);
}

// The seed's slice, read literally (step on the channel axis, -1 elsewhere), loses channels and
// reverses the other axes: E-OPS-4.
TEST(mrt_granularity_channel_split, DocumentSliceLosesChannels) {
  const IntArray x = iota_array({1, 4, 1, 2});
  const auto doc = channel_split_as_written(x, 1, 2);
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[0].shape, (Shape{1, 1, 1, 2}));  // channel 0 only: channel 1 is skipped by step 2
  EXPECT_EQ(doc[0], ia({1, 1, 1, 2}, {1, 0}));    // and W is reversed by step -1
  EXPECT_NE(channel_merge_concat(doc, 1), x);
  EXPECT_EQ(channel_merge_concat(channel_split(x, 1, 2), 1), x);
}
TEST(mrt_granularity_channel_split, ErrorIf) {
  EXPECT_THROW(channel_split(iota_array({2, 2}), 1, 0), ErrorIf);
  EXPECT_THROW(channel_split(iota_array({2, 2}), 2, 1), ErrorIf);
}
TEST(mrt_granularity_channel_merge, HandTable) {
  EXPECT_EQ(channel_merge_add_n<Int>({ia({1}, {2}), ia({1}, {3}), ia({1}, {-1})}), ia({1}, {4}));
  EXPECT_EQ(channel_merge_concat<Int>({ia({1, 1}, {2}), ia({1, 2}, {3, 4})}, 1), ia({1, 3}, {2, 3, 4}));
}
TEST(mrt_granularity_conv2d_channelwise, HandTable) {
  // C = 3, step 2: slices {0,1} and {2}; 1x1 kernel: Y = sum_c X[c] W[c].
  const IntArray x = ia({1, 3, 1, 1}, {1, 2, 3}), w = ia({1, 3, 1, 1}, {10, 100, 1000});
  EXPECT_EQ(conv2d_channelwise(x, w, Conv2dAttrs{}, 2), ia({1, 1, 1, 1}, {3210}));
  EXPECT_THROW(conv2d_channelwise(x, w, Conv2dAttrs{}, 0), ErrorIf);
}

// The seed's "split W to match X", the other way round: W channel-wise (one scale per slice of its
// input channels), X layer-wise (one scale): X is split with the same step so the slices pair up,
// and the per-slice results at their own scales sum to the real Convolution.
RC_GTEST_PROP(mrt_granularity_conv2d_channelwise, LayerwiseXIsSplitToMatchChannelwiseW, ()) {
  ConvCase c = draw_conv_case(1);
  const IntArray x = draw_array(c.x, -127, 127), w = draw_array(c.w, -127, 127);
  const std::int64_t step = *rc::gen::inRange(1, 4);
  const Rat sx(*rc::gen::inRange(1, 100), *rc::gen::inRange(1, 100));
  const auto xs = channel_split(x, 1, step), ws = channel_split(w, 1, step);
  RC_ASSERT(xs.size() == ws.size());
  std::vector<Rat> sw;
  for (std::size_t i = 0; i < ws.size(); ++i) sw.emplace_back(*rc::gen::inRange(1, 100), *rc::gen::inRange(1, 100));
  RatArray wr(w.shape);
  for (std::int64_t off = 0; off < w.numel(); ++off) {
    const auto idx = unravel(off, w.shape);
    wr.data[static_cast<std::size_t>(off)] =
        Rat(w.data[static_cast<std::size_t>(off)]) / sw[static_cast<std::size_t>(idx[1] / step)];
  }
  const RatArray real = conv2d(map_array<Rat>(x, [&](const Int& v) { return Rat(v) / sx; }), wr, c.attrs);
  RatArray sum(real.shape);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const IntArray yi = conv2d(xs[i], ws[i], c.attrs);
    for (std::size_t k = 0; k < sum.data.size(); ++k) sum.data[k] += Rat(yi.data[k]) / (sx * sw[i]);
  }
  RC_ASSERT(sum == real);
}
