// Hand tables for Glow's int8 Add, Max, Relu, AvgPool, fusions, rescale folding and the non-fused
// row-wise SLWS (spec/operators_glow.md); every expected value is derived in the comment.
#include <gtest/gtest.h>

#include "ops_arrays.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/glow_elementwise.h"

using namespace qspec::opstest;

namespace {
constexpr std::uint32_t kOne = 0x3f800000u, kHalf = 0x3f000000u, kTwo = 0x40000000u;
}

// Scale 1 on both sides and the output, offsets 0: L16 = L * 2^15, R16 = R * 2^15, sum * 2^-15 =
// L + R exactly: 3 + 4 = 7; 100 + 100 = 200 saturates to 127. Output scale 2: (1 + 2) / 2 = 1.5,
// half away: 2.
TEST(glow_op_add, HandTable) {
  const GlowQParams one{kOne, Int(0)};
  EXPECT_EQ(glow_add(IntArray({1}, Int(3)), one, IntArray({1}, Int(4)), one, one).data[0], Int(7));
  EXPECT_EQ(glow_add(IntArray({1}, Int(100)), one, IntArray({1}, Int(100)), one, one).data[0], Int(127));
  EXPECT_EQ(glow_add(IntArray({1}, Int(1)), one, IntArray({1}, Int(2)), one, GlowQParams{kTwo, Int(0)}).data[0],
            Int(2));
  EXPECT_THROW(glow_add(IntArray({1}, Int(1)), one, IntArray({2}, Int(1)), one, one), ErrorIf);
}

// Max at scale 1/2 for the left, 1 for the right and the output: left code 6 is 3.0 -> 3; right 2
// -> 2: max 3. Relu with equal parameters (offset -5): max(x, -5).
TEST(glow_op_max, HandTable) {
  const GlowQParams half{kHalf, Int(0)}, one{kOne, Int(0)};
  EXPECT_EQ(glow_max(IntArray({1}, Int(6)), half, IntArray({1}, Int(2)), one, one).data[0], Int(3));
}
TEST(glow_op_relu, HandTable) {
  const GlowQParams q{kOne, Int(-5)};
  const IntArray y = glow_relu(IntArray({3}, std::vector<Int>{-10, -5, 7}), q, q);
  EXPECT_EQ(y.data, (std::vector<Int>{-5, -5, 7}));
}

// 2x2 window over [[1, 2], [3, 4]] (NHWC, offsets 0, scales 1): sum 10, area 4, 10 * (1/4) = 2.5,
// half away: 3. With pads (1, 1, 0, 0) and padding not counted, the first window holds only the
// 1: area 1, result 1.
TEST(glow_op_avg_pool, HandTable) {
  const GlowQParams one{kOne, Int(0)};
  const IntArray x({1, 2, 2, 1}, std::vector<Int>{1, 2, 3, 4});
  GlowPoolAttrs a;
  a.kernel = {2, 2};
  EXPECT_EQ(glow_avg_pool(x, one, one, a, true).data[0], Int(3));
  a.pads = {1, 1, 0, 0};
  EXPECT_EQ(glow_avg_pool(x, one, one, a, false).data[0], Int(1));
  EXPECT_EQ(glow_avg_pool(x, one, one, a, true).data[0], Int(0));  // 1 / 4 = 0.25 rounds to 0
}

TEST(glow_op_fused_relu, HandTable) {
  const GlowQParams q{kOne, Int(3)};
  EXPECT_EQ(glow_fused_relu(IntArray({2}, std::vector<Int>{1, 9}), q).data, (std::vector<Int>{3, 9}));
}

// E-GLOWOP-3: FullyConnected of 1 * 1 with the rescale folded (output scale 1) gives 1; unfolded
// through an intermediate scale 2 it is round(1/2) = 1 at scale 2, i.e. 2 after the rescale.
TEST(glow_op_rescale_folding, FoldingChangesTheResult_E_GLOWOP_3) {
  GlowLinearParams p;
  p.input = p.weights = p.bias = p.output = {kOne, Int(0)};
  const IntArray x({1, 1}, Int(1)), w({1, 1}, Int(1)), b({1}, Int(0));
  EXPECT_EQ(glow_fully_connected(x, w, b, p).data[0], Int(1));
  EXPECT_EQ(glow_fully_connected_then_rescale(x, w, b, p, GlowQParams{kTwo, Int(0)}).data[0], Int(2));
}

// One row [10, 20], scale 1/2, offset 1; weight 2: (10 * 0.5 + 1) * 2 = 12, (20 * 0.5 + 1) * 2 = 22.
TEST(glow_op_rowwise_sparse_lengths_weighted_sum, HandTable) {
  const auto y = glow_rowwise_sparse_lengths_weighted_sum(IntArray({1, 2}, std::vector<Int>{10, 20}), {kHalf}, {kOne},
                                                          {kTwo}, {Int(0)}, {Int(1)});
  EXPECT_EQ(f32_value(y.data[0]), Rat(12));
  EXPECT_EQ(f32_value(y.data[1]), Rat(22));
  EXPECT_THROW(glow_rowwise_sparse_lengths_weighted_sum(IntArray({2, 1}, Int(0)), {kHalf}, {kOne, kOne}, {kTwo},
                                                        {Int(0)}, {Int(1)}),
               ErrorIf);
}
