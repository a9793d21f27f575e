// Glow's quantized Transpose and Concat (glow.op.transpose_concat): the selections against hand
// tables and an independent index computation, the verifier's ERROR_IFs, and the commutation of
// quantize / dequantize with both that lets Glow move a conversion across them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/glow.h"
#include "qspec/ref/ops/glow_data_movement.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }

// A scale 2^e (1 + k 2^-3) and an int8 offset.
GlowQParams draw_params() {
  const auto e = static_cast<std::uint32_t>(*rc::gen::inRange(-8, 3) + 127);
  const auto k = static_cast<std::uint32_t>(*rc::gen::inRange(0, 8));
  return {(e << 23) | (k << 20), Int(*rc::gen::inRange(-128, 128))};
}

Shape draw_shape(std::size_t rank) {
  Shape s;
  for (std::size_t i = 0; i < rank; ++i) s.push_back(*rc::gen::inRange<std::int64_t>(1, 4));
  return s;
}

std::vector<std::int64_t> draw_permutation(std::size_t rank) {
  std::vector<std::int64_t> p(rank);
  std::iota(p.begin(), p.end(), 0);
  for (std::size_t i = rank; i > 1; --i) std::swap(p[i - 1], p[*rc::gen::inRange<std::size_t>(0, i)]);
  return p;
}

// Float32 bit patterns of values up to a few hundred codes of `p`, some of them exact ties.
NdArray<std::uint32_t> draw_floats(const Shape& shape, const GlowQParams& p) {
  NdArray<std::uint32_t> f(shape);
  const float scale = std::bit_cast<float>(p.scale);
  for (auto& v : f.data) {
    const int halves = *rc::gen::inRange(-600, 601);
    const int noise = *rc::gen::inRange(-3, 4);
    v = F(scale * static_cast<float>(halves) / 2.0f + static_cast<float>(noise) * scale / 64.0f);
  }
  return f;
}

NdArray<std::uint32_t> dequantize_all(const IntArray& q, const GlowQParams& p) {
  return map_array<std::uint32_t>(q, [&](const Int& v) { return glow_dequantize(v, p); });
}
IntArray quantize_all(const NdArray<std::uint32_t>& f, const GlowQParams& p) {
  return map_array<Int>(f, [&](std::uint32_t v) { return glow_quantize(v, p, DType::I8); });
}

}  // namespace

TEST(glow_op_transpose_concat, HandTable) {
  // (2, 3) -> (3, 2).
  EXPECT_EQ(glow_transpose(ia({2, 3}, {1, 2, 3, 4, 5, 6}), {1, 0}), ia({3, 2}, {1, 4, 2, 5, 3, 6}));
  // (2, 1, 3) by (2, 0, 1): Y.shape = (3, 2, 1), Y[c, a, b] = X[a, b, c].
  EXPECT_EQ(glow_transpose(ia({2, 1, 3}, {1, 2, 3, 4, 5, 6}), {2, 0, 1}), ia({3, 2, 1}, {1, 4, 2, 5, 3, 6}));
  // The identity permutation and rank 1 change nothing.
  EXPECT_EQ(glow_transpose(ia({2, 2}, {7, -8, 9, -10}), {0, 1}), ia({2, 2}, {7, -8, 9, -10}));
  EXPECT_EQ(glow_transpose(ia({3}, {1, 2, 3}), {0}), ia({3}, {1, 2, 3}));
  // Concat along dim 1 of (2, 1) and (2, 2).
  EXPECT_EQ(glow_concat(std::vector<IntArray>{ia({2, 1}, {1, 2}), ia({2, 2}, {3, 4, 5, 6})}, 1),
            ia({2, 3}, {1, 3, 4, 2, 5, 6}));
}

TEST(glow_op_transpose_concat, ErrorIf) {
  const GlowQParams a{F(0.5f), Int(3)}, b{F(0.5f), Int(4)}, c{F(0.25f), Int(3)};
  EXPECT_NO_THROW(glow_check_same_params({a, a}, a));
  EXPECT_THROW(glow_check_same_params({a, b}, a), ErrorIf);                          // an offset differs
  EXPECT_THROW(glow_check_same_params({a}, c), ErrorIf);                             // the output's scale differs
  EXPECT_THROW(glow_transpose(ia({2, 3}, {1, 2, 3, 4, 5, 6}), {0, 0}), ErrorIf);     // not a permutation
  EXPECT_THROW(glow_transpose(ia({2, 3}, {1, 2, 3, 4, 5, 6}), {1, 2}), ErrorIf);     // axis out of range
  EXPECT_THROW(glow_transpose(ia({2, 3}, {1, 2, 3, 4, 5, 6}), {1, 0, 2}), ErrorIf);  // one entry per axis
  EXPECT_THROW(glow_concat(std::vector<IntArray>{ia({2}, {1, 2})}, -1), ErrorIf);    // Glow's dim is unsigned
  EXPECT_THROW(glow_concat(std::vector<IntArray>{ia({2, 1}, {1, 2}), ia({3, 1}, {3, 4, 5})}, 1), ErrorIf);
}

// The selection, computed independently: through the strides of X, each output element is the
// input element whose index is the output index permuted back.
RC_GTEST_PROP(glow_op_transpose_concat, TransposeMovesEachElementByTheShuffle, ()) {
  const auto rank = *rc::gen::inRange<std::size_t>(1, 5);
  const Shape shape = draw_shape(rank);
  const auto shuffle = draw_permutation(rank);
  const IntArray x = draw_array(shape, -128, 127);
  const IntArray y = glow_transpose(x, shuffle);
  std::vector<std::int64_t> stride(rank, 1);
  for (std::size_t k = rank - 1; k > 0; --k) stride[k - 1] = stride[k] * shape[k];
  for (std::size_t k = 0; k < rank; ++k) RC_ASSERT(y.shape[k] == shape[static_cast<std::size_t>(shuffle[k])]);
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    std::int64_t rest = off, src = 0;
    for (std::size_t k = rank; k-- > 0;) {
      const std::int64_t i = rest % y.shape[k];
      rest /= y.shape[k];
      src += i * stride[static_cast<std::size_t>(shuffle[k])];
    }
    RC_ASSERT(y.data[static_cast<std::size_t>(off)] == x.data[static_cast<std::size_t>(src)]);
  }
}

// Converting before or after a Transpose gives the same bits: dequantize of codes and quantize of
// float32 values, each with the one set of parameters.
RC_GTEST_PROP(glow_op_transpose_concat, ConversionsCommuteWithTranspose, ()) {
  const auto rank = *rc::gen::inRange<std::size_t>(1, 5);
  const Shape shape = draw_shape(rank);
  const auto shuffle = draw_permutation(rank);
  const GlowQParams p = draw_params();
  const IntArray q = draw_array(shape, -128, 127);
  RC_ASSERT(dequantize_all(glow_transpose(q, shuffle), p).data == glow_transpose(dequantize_all(q, p), shuffle).data);
  const NdArray<std::uint32_t> f = draw_floats(shape, p);
  RC_ASSERT(quantize_all(glow_transpose(f, shuffle), p).data == glow_transpose(quantize_all(f, p), shuffle).data);
}

RC_GTEST_PROP(glow_op_transpose_concat, ConversionsCommuteWithConcat, ()) {
  const auto rank = *rc::gen::inRange<std::size_t>(1, 4);
  const Shape base = draw_shape(rank);
  const auto dim = *rc::gen::inRange<std::int64_t>(0, static_cast<std::int64_t>(rank));
  const GlowQParams p = draw_params();
  const int n = *rc::gen::inRange(1, 4);
  std::vector<IntArray> qs;
  std::vector<NdArray<std::uint32_t>> fs, dq;
  std::vector<IntArray> qf;
  for (int i = 0; i < n; ++i) {
    Shape s = base;
    s[static_cast<std::size_t>(dim)] = *rc::gen::inRange<std::int64_t>(1, 4);
    qs.push_back(draw_array(s, -128, 127));
    fs.push_back(draw_floats(s, p));
    dq.push_back(dequantize_all(qs.back(), p));
    qf.push_back(quantize_all(fs.back(), p));
  }
  glow_check_same_params(std::vector<GlowQParams>(static_cast<std::size_t>(n), p), p);
  RC_ASSERT(dequantize_all(glow_concat(qs, dim), p).data == glow_concat(dq, dim).data);
  RC_ASSERT(quantize_all(glow_concat(fs, dim), p).data == glow_concat(qf, dim).data);
}
