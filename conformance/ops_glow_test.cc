// Hand-derived tables, Glow's own test example and ERROR_IF rejections for Glow's operators (spec/operators_glow.md).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/glow_ops.h"

using namespace qspec::opstest;

namespace {
std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
GlowQParams P(float scale, int offset) { return {F(scale), Int(offset)}; }
GlowLinearParams unit(DType bias = DType::I32) {
  GlowLinearParams p;
  p.input = p.weights = p.bias = p.output = P(1.0f, 0);
  p.bias_type = bias;
  return p;
}
IntArray fc_as_conv_input(const IntArray& x) { return IntArray({x.shape[0], 1, 1, x.shape[1]}, x.data); }
}  // namespace

// x = [[1, 2]], W = [[3], [4]] (K = 2, M = 1): 1*3 + 2*4 = 11; with o_x = 1, o_w = -1:
// (3+1)(1-1) + (4+1)(2-1) = 5; bias 7 at the matmul scale adds 7.
TEST(glow_op_fully_connected, HandTable) {
  EXPECT_EQ(glow_fully_connected(ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4}), ia({1}, {0}), unit()), ia({1, 1}, {11}));
  GlowLinearParams p = unit();
  p.input.offset = 1;
  p.weights.offset = -1;
  EXPECT_EQ(glow_fully_connected(ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4}), ia({1}, {7}), p), ia({1, 1}, {12}));
  // Two rows, two outputs, output scale 4 and offset -3: acc = [[1*1 + 2*2, 1*-1 + 2*3], [3 + 8, -3 + 12]] = [[5, 5], [11, 9]];
  // 5/4 = 1.25 -> 1, 11/4 = 2.75 -> 3, 9/4 = 2.25 -> 2; then - 3.
  GlowLinearParams q = unit();
  q.output = P(4.0f, -3);
  EXPECT_EQ(glow_fully_connected(ia({2, 2}, {1, 2, 3, 4}), ia({2, 2}, {1, -1, 2, 3}), ia({2}, {0, 0}), q), ia({2, 2}, {-2, -2, 0, -1}));
}

// E-GLOWOP-1: acc = -1 at matmul scale 0.5 and output (1.0, offset 1): fl32(t) * r = -0.5 exactly.
// FullyConnected rounds first: round(-0.5) + 1 = -1 + 1 = 0. The Convolution (and RowwiseFC) add
// the offset first: round(-0.5 + 1) = round(0.5) = 1. The real value is 0.5: both are a nearest integer.
TEST(glow_op_fully_connected, OffsetAddedAfterRoundingUnlikeConvolution) {
  GlowLinearParams p = unit();
  p.input = P(0.5f, 0);
  p.bias = P(0.5f, 0);
  p.output = P(1.0f, 1);
  const IntArray x = ia({1, 1}, {-1}), w = ia({1, 1}, {1}), b = ia({1}, {0});
  EXPECT_EQ(glow_fully_connected(x, w, b, p), ia({1, 1}, {0}));
  EXPECT_EQ(glow_convolution(fc_as_conv_input(x), ia({1, 1, 1, 1}, {1}), b, GlowConvAttrs{}, p), ia({1, 1, 1, 1}, {1}));
  EXPECT_EQ(glow_rowwise_fully_connected(x, ia({1, 1}, {1}), {F(1.0f)}, {Int(0)}, b, p), ia({1, 1}, {1}));
  // With offset 0 the three agree (round(v) + 0 = round(v + 0)).
  p.output.offset = 0;
  EXPECT_EQ(glow_fully_connected(x, w, b, p), ia({1, 1}, {-1}));
  EXPECT_EQ(glow_convolution(fc_as_conv_input(x), ia({1, 1, 1, 1}, {1}), b, GlowConvAttrs{}, p), ia({1, 1, 1, 1}, {-1}));
}

// An int32 bias beyond 2^24 at the matmul scale (ratio exactly 1) still loses bits in float(bias):
// 26345471 = 201 * 2^17 - 1 is a tie between 26345470 and 26345472 and rounds to the even 26345472,
// so with output scale 2^18 the result is round(100.5) = 101, where the exact 100.49999619 gives 100.
TEST(glow_op_fully_connected, LargeInt32BiasIsRoundedToFloat) {
  GlowLinearParams p = unit();
  p.output = P(262144.0f, 0);
  EXPECT_EQ(glow_fully_connected(ia({1, 1}, {0}), ia({1, 1}, {0}), ia({1}, {26345471}), p), ia({1, 1}, {101}));
  EXPECT_EQ(glow_fully_connected(ia({1, 1}, {0}), ia({1, 1}, {0}), ia({1}, {26345470}), p), ia({1, 1}, {100}));
}

// float(sum): t = 17301504 - 1 = 17301503 is odd above 2^24 and rounds (tie, to even) to
// 17301504; times 2^-20 that is 16.5 -> 17, where the exact t / 2^20 = 16.4999990 gives 16.
TEST(glow_op_fully_connected, FloatSumRoundsLargeAccumulators) {
  GlowLinearParams p = unit();
  p.output = P(1048576.0f, 0);
  EXPECT_EQ(glow_fully_connected(ia({1, 1}, {1}), ia({1, 1}, {-1}), ia({1}, {17301504}), p), ia({1, 1}, {17}));
}

TEST(glow_op_fully_connected, SaturationAndInt16) {
  EXPECT_EQ(glow_fully_connected(ia({1, 2}, {127, 127}), ia({2, 1}, {127, 127}), ia({1}, {0}), unit()), ia({1, 1}, {127}));
  EXPECT_EQ(glow_fully_connected(ia({1, 2}, {127, -128}), ia({2, 1}, {-128, 127}), ia({1}, {0}), unit()), ia({1, 1}, {-128}));
  GlowLinearParams p = unit(DType::I16);
  p.elem = DType::I16;
  // 32767 * 32767 * 2 = 2147352578 fits int64 (and int32); int16 output saturates at 32767.
  EXPECT_EQ(glow_fully_connected(ia({1, 2}, {32767, 32767}), ia({2, 1}, {32767, 32767}), ia({1}, {0}), p), ia({1, 1}, {32767}));
  p.output = P(131072.0f, 0);  // float(2147352578) = 2147352576 = 16383 * 2^17 -> 16383 (exact: 16383.0000153)
  EXPECT_EQ(glow_fully_connected(ia({1, 2}, {32767, 32767}), ia({2, 1}, {32767, 32767}), ia({1}, {0}), p), ia({1, 1}, {16383}));
}

TEST(glow_op_fully_connected, ErrorIf) {
  EXPECT_THROW(glow_fully_connected(ia({1, 2}, {1, 2}), ia({3, 1}, {1, 2, 3}), ia({1}, {0}), unit()), ErrorIf);
  EXPECT_THROW(glow_fully_connected(ia({1, 2}, {1, 2}), ia({2, 1}, {1, 2}), ia({2}, {0, 0}), unit()), ErrorIf);
  EXPECT_THROW(glow_fully_connected(ia({1, 1, 2}, {1, 2}), ia({2, 1}, {1, 2}), ia({1}, {0}), unit()), ErrorIf);
  EXPECT_THROW(glow_fully_connected(ia({1, 1}, {1}), ia({1, 1}, {1}), ia({1}, {0}), unit(DType::I16)), ErrorIf);  // int8 with int16 bias
  GlowLinearParams p = unit();
  p.elem = DType::U8;
  EXPECT_THROW(glow_fully_connected(ia({1, 1}, {1}), ia({1, 1}, {1}), ia({1}, {0}), p), ErrorIf);
  // Outside the REQUIREs: an int32 accumulator overflow is undefined in Glow, so the reference refuses.
  EXPECT_THROW(glow_fully_connected(ia({1, 1}, {0}), ia({1, 1}, {0}), ia({1}, {2147483647}), [] {
                 GlowLinearParams q = unit();
                 q.bias = P(2.0f, 0);  // B = 2^32 - 2 does not fit int32
                 return q;
               }()),
               RequireViolated);
}

// X (1,3,3,1) = 1..9, filter [[1, 0], [0, -1]]: every 2x2 window gives x[p][q] - x[p+1][q+1] = -4.
TEST(glow_op_convolution, HandTable) {
  const IntArray x = ia({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(glow_convolution(x, ia({1, 2, 2, 1}, {1, 0, 0, -1}), ia({1}, {0}), GlowConvAttrs{}, unit()),
            ia({1, 2, 2, 1}, {-4, -4, -4, -4}));
  // Asymmetric pads top 1, left 0, bottom 0, right 1: OH = (3 + 1 - 2) + 1 = 3, OW = 3.
  GlowConvAttrs a;
  a.pads = {1, 0, 0, 1};
  EXPECT_EQ(glow_convolution_output_shape({1, 3, 3, 1}, {1, 2, 2, 1}, {1}, a), (Shape{1, 3, 3, 1}));
  EXPECT_EQ(glow_convolution(x, ia({1, 2, 2, 1}, {1, 0, 0, -1}), ia({1}, {0}), a, unit()),
            ia({1, 3, 3, 1}, {-2, -3, 0, -4, -4, 3, -4, -4, 6}));
}

// Padding is skipped, which is padding with the input offset: with o_x = 5 the padded border
// contributes (5 - 5) * w = 0, the same as padding X - 5 with zeros.
TEST(glow_op_convolution, PaddingIsTheCodeOfRealZero) {
  GlowLinearParams p = unit();
  p.input.offset = 5;
  GlowConvAttrs a;
  a.pads = {1, 1, 1, 1};
  // One 1x1 input 9 under a 3x3 all-ones filter: only the centre tap meets the input: 9 - 5 = 4.
  EXPECT_EQ(glow_convolution(ia({1, 1, 1, 1}, {9}), ia({1, 3, 3, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}), ia({1}, {0}), a, p),
            ia({1, 1, 1, 1}, {4}));
}

TEST(glow_op_convolution, GroupsDilationStride) {
  GlowConvAttrs a;
  a.group = 2;
  // Channels (3, 5), filters [[2]] and [[7]] per group: 6 and 35.
  EXPECT_EQ(glow_convolution(ia({1, 1, 1, 2}, {3, 5}), ia({2, 1, 1, 1}, {2, 7}), ia({2}, {0, 0}), a, unit()), ia({1, 1, 1, 2}, {6, 35}));
  // Stride 2, dilation 2 on X[h][w] = 5h + w (5x5), ones(2x2): X[2p][2q] + X[2p][2q+2] + X[2p+2][2q] + X[2p+2][2q+2].
  GlowConvAttrs s;
  s.stride = {2, 2};
  s.dilation = {2, 2};
  GlowLinearParams p = unit();
  p.output = P(4.0f, 0);  // divide by 4 so the sums stay in int8: {24, 32, 64, 72} / 4
  EXPECT_EQ(glow_convolution(iota_array({1, 5, 5, 1}), ia({1, 2, 2, 1}, {1, 1, 1, 1}), ia({1}, {0}), s, p), ia({1, 2, 2, 1}, {6, 8, 16, 18}));
}

TEST(glow_op_convolution, ErrorIf) {
  GlowConvAttrs a;
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3}, {1, 1, 1, 1}, {1}, a), ErrorIf);
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3, 3}, {1, 1, 1, 1}, {1}, a), ErrorIf);  // depth * group != C
  EXPECT_THROW(glow_convolution_output_shape({1, 2, 2, 1}, {1, 3, 3, 1}, {1}, a), ErrorIf);  // kernel > input
  EXPECT_THROW(glow_convolution_output_shape({1, 2, 2, 1}, {1, 1, 1, 1}, {2}, a), ErrorIf);  // bias != (O)
  a.group = 2;
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3, 3}, {2, 1, 1, 1}, {2}, a), ErrorIf);  // C % group
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3, 4}, {3, 1, 1, 2}, {3}, a), ErrorIf);  // O % group
  a = GlowConvAttrs{};
  a.pads = {0, -1, 0, 0};
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3, 1}, {1, 1, 1, 1}, {1}, a), ErrorIf);
  a = GlowConvAttrs{};
  a.stride = {1, 0};
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3, 1}, {1, 1, 1, 1}, {1}, a), ErrorIf);
  a = GlowConvAttrs{};
  a.dilation = {0, 1};
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3, 1}, {1, 1, 1, 1}, {1}, a), ErrorIf);
  a = GlowConvAttrs{};
  a.dilation = {3, 1};  // dilated kernel 4 > 3
  EXPECT_THROW(glow_convolution_output_shape({1, 3, 3, 1}, {1, 2, 1, 1}, {1}, a), ErrorIf);
}

// Row m uses its own (scale, offset): rows (1.0, 0) and (0.5, 2), input (1.0, 0), x = [4, 6]:
// row 0: 4*1 + 6*1 = 10; row 1: ((3-2)*4 + (6-2)*6) * 0.5 = 28 * 0.5 = 14.
TEST(glow_op_rowwise_fully_connected, HandTable) {
  GlowLinearParams p = unit();
  EXPECT_EQ(glow_rowwise_fully_connected(ia({1, 2}, {4, 6}), ia({2, 2}, {1, 1, 3, 6}), {F(1.0f), F(0.5f)}, {Int(0), Int(2)},
                                         ia({2}, {0, 0}), p),
            ia({1, 2}, {10, 14}));
  // The bias is rescaled per row: bias scale 0.5 with row scales 1.0 and 0.5: B = 8 * 0.5 = 4 and 8 * 1 = 8.
  p.bias = P(0.5f, 0);
  EXPECT_EQ(glow_rowwise_fully_connected(ia({1, 2}, {4, 6}), ia({2, 2}, {1, 1, 3, 6}), {F(1.0f), F(0.5f)}, {Int(0), Int(2)},
                                         ia({2}, {8, 8}), p),
            ia({1, 2}, {14, 18}));
}

TEST(glow_op_rowwise_fully_connected, ErrorIf) {
  const auto p = unit();
  EXPECT_THROW(glow_rowwise_fully_connected(ia({1, 2}, {1, 2}), ia({1, 1}, {1}), {F(1.0f)}, {Int(0)}, ia({1}, {0}), p), ErrorIf);
  EXPECT_THROW(glow_rowwise_fully_connected(ia({1, 1}, {1}), ia({2, 1}, {1, 2}), {F(1.0f)}, {Int(0), Int(0)}, ia({2}, {0, 0}), p), ErrorIf);
  EXPECT_THROW(glow_rowwise_fully_connected(ia({1, 1}, {1}), ia({1, 1}, {1}), {F(1.0f)}, {Int(0), Int(0)}, ia({1}, {0}), p), ErrorIf);
  EXPECT_THROW(glow_rowwise_fully_connected(ia({1, 1}, {1}), ia({1, 1}, {1}), {F(1.0f)}, {Int(0)}, ia({2}, {0, 0}), p), ErrorIf);
}

namespace {
// A fused row: codes then the little-endian float32 scale and offset.
void fused_row(std::vector<Int>& d, std::vector<int> codes, float scale, float offset) {
  for (int c : codes) d.emplace_back(c);
  for (std::uint32_t v : {F(scale), F(offset)})
    for (int i = 0; i < 4; ++i) d.emplace_back(static_cast<int>((v >> (8 * i)) & 0xffu));
}
std::vector<std::uint32_t> fs(std::initializer_list<float> v) {
  std::vector<std::uint32_t> out;
  for (float f : v) out.push_back(F(f));
  return out;
}
std::vector<Int> is(std::initializer_list<int> v) { return std::vector<Int>(v.begin(), v.end()); }
}  // namespace

// The example in Glow's FusedRowwiseQuantizedSparseLengthsWeightedSum tests (OperatorTest.cpp):
// DATA [[2.0], [-0.5], [13]], WEIGHTS [3, 1, 0, 0, 0, 0, 2, -0.5], INDICES [1, 0, 2, 0, 1, 2, 2, 0],
// LENGTHS [3, 0, 3, 2] -> [0.5, 0, 0, 25]. One-column rows quantize exactly (scale 1.0, offset =
// the value, code 0), so every step here is exact: -0.5*3 + 2*1 + 13*0 = 0.5; 0; 0; 13*2 + 2*-0.5 = 25.
TEST(glow_op_fused_rowwise_sparse_lengths_weighted_sum, GlowUnitTestExample) {
  std::vector<Int> d;
  for (float v : {2.0f, -0.5f, 13.0f}) {
    const auto q = glow_fused_rowwise_quantize_row({F(v)});
    EXPECT_EQ(q.q, is({0}));
    EXPECT_EQ(q.scale, F(1.0f));
    EXPECT_EQ(q.offset, F(v));
    fused_row(d, {0}, 1.0f, v);
  }
  const auto y = glow_fused_rowwise_sparse_lengths_weighted_sum(IntArray({3, 9}, d), fs({3, 1, 0, 0, 0, 0, 2, -0.5f}),
                                                                 is({1, 0, 2, 0, 1, 2, 2, 0}), is({3, 0, 3, 2}));
  EXPECT_EQ(y.shape, (Shape{4, 1}));
  EXPECT_EQ(y.data, fs({0.5f, 0.0f, 0.0f, 25.0f}));
  EXPECT_EQ(y.data[2], 0u);  // +0, never -0: the accumulator starts at +0 and x + (-0) = x
}

// The float32 accumulation follows the index order: (2^24 + 1) - 2^24 = 0 (the 1 is absorbed),
// (2^24 - 2^24) + 1 = 1.
TEST(glow_op_fused_rowwise_sparse_lengths_weighted_sum, SumIsInIndexOrder) {
  std::vector<Int> d;
  fused_row(d, {0}, 1.0f, 16777216.0f);
  fused_row(d, {0}, 1.0f, 1.0f);
  fused_row(d, {0}, 1.0f, -16777216.0f);
  const auto y = glow_fused_rowwise_sparse_lengths_weighted_sum(IntArray({3, 9}, d), fs({1, 1, 1, 1, 1, 1}), is({0, 1, 2, 0, 2, 1}),
                                                                 is({3, 3}));
  EXPECT_EQ(y.data, fs({0.0f, 1.0f}));
}

// A multi-column row: codes (0, 255, 17), scale 1/16, offset -0.5: values -0.5, 15.4375, 0.5625;
// weight 2 and the row twice (weights 2, -1): 1 * value each.
TEST(glow_op_fused_rowwise_sparse_lengths_weighted_sum, HandTable) {
  std::vector<Int> d;
  fused_row(d, {0, 255, 17}, 0.0625f, -0.5f);
  const auto y = glow_fused_rowwise_sparse_lengths_weighted_sum(IntArray({1, 11}, d), fs({2, -1}), is({0, 0}), is({2}));
  EXPECT_EQ(y.data, fs({-0.5f, 15.4375f, 0.5625f}));
}

TEST(glow_op_fused_rowwise_sparse_lengths_weighted_sum, ErrorIf) {
  std::vector<Int> d;
  fused_row(d, {1}, 1.0f, 0.0f);
  const IntArray data({1, 9}, d);
  EXPECT_THROW(glow_fused_rowwise_sparse_lengths_weighted_sum(IntArray({1, 8}, std::vector<Int>(8, Int(0))), fs({1}), is({0}), is({1})), ErrorIf);
  EXPECT_THROW(glow_fused_rowwise_sparse_lengths_weighted_sum(data, fs({1, 1}), is({0}), is({1})), ErrorIf);
  EXPECT_THROW(glow_fused_rowwise_sparse_lengths_weighted_sum(data, fs({1}), is({0}), is({2, -1})), ErrorIf);
  EXPECT_THROW(glow_fused_rowwise_sparse_lengths_weighted_sum(data, fs({1}), is({0}), is({2})), ErrorIf);
  EXPECT_THROW(glow_fused_rowwise_sparse_lengths_weighted_sum(data, fs({1}), is({1}), is({1})), RequireViolated);  // row 1 of 1
}

TEST(glow_op_rescale, ElementwiseScalarClauses) {
  const GlowQParams in = P(0.25f, -3), out = P(0.1f, 7);
  const IntArray x = iota_array({2, 3, 4}, -12);
  const IntArray yi = glow_rescale(x, in, out, GlowBackend::Interpreter), yc = glow_rescale(x, in, out, GlowBackend::Cpu);
  ASSERT_EQ(yi.shape, x.shape);
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    EXPECT_EQ(yi.data[i], glow_rescale_float(x.data[i], in, out));
    EXPECT_EQ(yc.data[i], glow_rescale_integer(x.data[i], in, out));
  }
  // A hand value: x = 5: (5 + 3) * 0.25 = 2.0; 2.0 / 0.1 = 20 (float32: 19.999998 or 20) + 7 -> 27.
  EXPECT_EQ(glow_rescale(ia({1}, {5}), in, out, GlowBackend::Interpreter), ia({1}, {27}));
  EXPECT_THROW(glow_rescale(ia({1}, {200}), in, out, GlowBackend::Interpreter), RequireViolated);  // not an int8 code
}

TEST(glow_op_keeps_input_qparams, ParametersAreTheInputs) {
  const GlowQParams in = P(0.02f, -5), requested = P(0.5f, 100);
  const GlowQParams got = glow_keeps_input_qparams(in, requested);
  EXPECT_EQ(got.scale, in.scale);
  EXPECT_EQ(got.offset, in.offset);
  EXPECT_THROW(glow_keeps_input_qparams(P(-1.0f, 0), requested), RequireViolated);
}

TEST(glow_op_keeps_input_qparams, ReshapeSliceGather) {
  const IntArray x = iota_array({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  EXPECT_EQ(glow_reshape(x, {3, 2}), ia({3, 2}, {0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(glow_slice(x, {1, 1}, {1, 2}), ia({1, 2}, {4, 5}));
  EXPECT_EQ(glow_slice(x, {0, 2}, {2, 1}), ia({2, 1}, {2, 5}));
  // Gather axis 0 with indices [[1, 1], [0, 1]]: rows repeated, shape (2, 2, 3).
  EXPECT_EQ(glow_gather(x, NdArray<std::int64_t>({2, 2}, {1, 1, 0, 1}), 0),
            ia({2, 2, 3}, {3, 4, 5, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  // batch_dims 1: the same indices [2, 0] pick columns of every row.
  EXPECT_EQ(glow_gather(x, NdArray<std::int64_t>({2}, {2, 0}), 1), ia({2, 2}, {2, 0, 5, 3}));
  EXPECT_THROW(glow_reshape(x, {4}), ErrorIf);
  EXPECT_THROW(glow_slice(x, {1, 2}, {1, 2}), ErrorIf);
  EXPECT_THROW(glow_slice(x, {0}, {1}), ErrorIf);
  EXPECT_THROW(glow_gather(x, NdArray<std::int64_t>({1}, {0}), 2), ErrorIf);
  EXPECT_THROW(glow_gather(x, NdArray<std::int64_t>({1}, {2}), 0), RequireViolated);
}

TEST(glow_op_keeps_input_qparams, TopKOrdersTiesByPosition) {
  const auto [v, i] = glow_topk(ia({2, 5}, {3, 7, 3, 7, -1, 0, 0, 0, 0, 0}), 3);
  EXPECT_EQ(v, ia({2, 3}, {7, 7, 3, 0, 0, 0}));
  EXPECT_EQ(i.data, (std::vector<std::int64_t>{1, 3, 0, 0, 1, 2}));
  EXPECT_THROW(glow_topk(ia({2}, {1, 2}), 3), ErrorIf);
  EXPECT_THROW(glow_topk(ia({2}, {1, 2}), 0), ErrorIf);
}

// MaxPool 2x2, pads 1 on every side over a 2x2 input (NHWC, C = 1): OH = OW = (2 + 2 - 2) + 1 = 3;
// windows meet 1, 2 or 4 inputs. With pads 2 and stride 3 the first window is padding only: the
// output is the offset (-7), Glow's "return 0" in real terms: OH = (2 + 4 - 2) / 3 + 1 = 2 and only
// the window at (1, 1) meets the input (its rows and columns [1, 3)).
TEST(glow_op_keeps_input_qparams, MaxPool) {
  GlowPoolAttrs a;
  a.kernel = {2, 2};
  a.pads = {1, 1, 1, 1};
  EXPECT_EQ(glow_max_pool(ia({1, 2, 2, 1}, {-5, 9, 4, -128}), a, Int(-7)), ia({1, 3, 3, 1}, {-5, 9, 9, 4, 9, 9, 4, 4, -128}));
  GlowPoolAttrs e;
  e.kernel = {2, 2};
  e.stride = {3, 3};
  e.pads = {2, 2, 2, 2};
  EXPECT_EQ(glow_max_pool(ia({1, 2, 2, 1}, {-5, 9, 4, -128}), e, Int(-7)), ia({1, 2, 2, 1}, {-7, -7, -7, -128}));
  GlowPoolAttrs bad;
  bad.kernel = {3, 1};
  EXPECT_THROW(glow_max_pool(ia({1, 2, 2, 1}, {1, 2, 3, 4}), bad, Int(0)), ErrorIf);
  bad = GlowPoolAttrs{};
  bad.pads = {0, 0, -1, 0};
  EXPECT_THROW(glow_max_pool(ia({1, 2, 2, 1}, {1, 2, 3, 4}), bad, Int(0)), ErrorIf);
  EXPECT_THROW(glow_max_pool(ia({2, 2, 1}, {1, 2, 3, 4}), GlowPoolAttrs{}, Int(0)), ErrorIf);
}
