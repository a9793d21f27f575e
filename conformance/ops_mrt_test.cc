// Hand-derived tables and ERROR_IF rejections for the MRT operators (spec/operators_mrt.md).
#include <gtest/gtest.h>

#include "ops_arrays.h"
#include "qspec/ref/ops/mrt_avg_pool.h"
#include "qspec/ref/ops/mrt_expansion.h"

using namespace qspec::opstest;

namespace {
IntArray x3x3() { return ia({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }
}  // namespace

// Y[p,q] = X[p,q] - X[p+1,q+1] for W = [[1,0],[0,-1]]: every 2x2 window gives -4.
TEST(mrt_op_conv2d, HandTableNoPadding) {
  EXPECT_EQ(conv2d(x3x3(), ia({1, 1, 2, 2}, {1, 0, 0, -1}), Conv2dAttrs{}), ia({1, 1, 2, 2}, {-4, -4, -4, -4}));
}
// Padding 1: the output grows to 4x4 (the seed's size formula, which omits padding, gives 2x2).
TEST(mrt_op_conv2d, HandTablePaddingGrowsOutput) {
  Conv2dAttrs a;
  a.padding = {1, 1};
  EXPECT_EQ(conv2d(x3x3(), ia({1, 1, 2, 2}, {1, 0, 0, -1}), a),
            ia({1, 1, 4, 4}, {-1, -2, -3, 0, -4, -4, -4, 3, -7, -4, -4, 6, 0, 7, 8, 9}));
  EXPECT_EQ(conv2d_output_shape({1, 1, 3, 3}, {1, 1, 2, 2}, a), (Shape{1, 1, 4, 4}));
}
// Stride 2, dilation 2, X[h,w] = 5h + w, W = ones(2,2): Y = X[2p,2q] + X[2p,2q+2] + X[2p+2,2q] + X[2p+2,2q+2].
TEST(mrt_op_conv2d, HandTableStrideDilation) {
  Conv2dAttrs a;
  a.stride = {2, 2};
  a.dilation = {2, 2};
  EXPECT_EQ(conv2d(iota_array({1, 1, 5, 5}), ia({1, 1, 2, 2}, {1, 1, 1, 1}), a), ia({1, 1, 2, 2}, {24, 32, 64, 72}));
}
TEST(mrt_op_conv2d, HandTableGroups) {
  Conv2dAttrs a;
  a.groups = 2;
  EXPECT_EQ(conv2d(ia({1, 2, 1, 1}, {3, 5}), ia({2, 1, 1, 1}, {2, 7}), a), ia({1, 2, 1, 1}, {6, 35}));
  // The same weights as one group of two input channels mix both: Y = 3*2 + 5*7 = 41.
  EXPECT_EQ(conv2d(ia({1, 2, 1, 1}, {3, 5}), ia({1, 2, 1, 1}, {2, 7}), Conv2dAttrs{}), ia({1, 1, 1, 1}, {41}));
}
// A pad value other than 0 (the zero-point integer of an affine input) fills the border.
TEST(mrt_op_conv2d, PadValue) {
  Conv2dAttrs a;
  a.padding = {1, 0};
  EXPECT_EQ(conv2d(ia({1, 1, 1, 1}, {4}), ia({1, 1, 3, 1}, {1, 10, 100}), a, Int(-2)), ia({1, 1, 1, 1}, {-2 + 40 - 200}));
}
TEST(mrt_op_conv2d, ErrorIf) {
  Conv2dAttrs a;
  EXPECT_THROW(conv2d_output_shape({1, 1, 3}, {1, 1, 1, 1}, a), ErrorIf);
  EXPECT_THROW(conv2d_output_shape({1, 3, 3, 3}, {1, 1, 1, 1}, a), ErrorIf);  // C != IC * groups
  a.groups = 2;
  EXPECT_THROW(conv2d_output_shape({1, 3, 3, 3}, {2, 1, 1, 1}, a), ErrorIf);  // C % groups
  EXPECT_THROW(conv2d_output_shape({1, 4, 3, 3}, {3, 2, 1, 1}, a), ErrorIf);  // O % groups
  a = Conv2dAttrs{};
  a.stride = {0, 1};
  EXPECT_THROW(conv2d_output_shape({1, 1, 3, 3}, {1, 1, 1, 1}, a), ErrorIf);
  a = Conv2dAttrs{};
  a.dilation = {1, 0};
  EXPECT_THROW(conv2d_output_shape({1, 1, 3, 3}, {1, 1, 1, 1}, a), ErrorIf);
  a = Conv2dAttrs{};
  a.padding = {-1, 0};
  EXPECT_THROW(conv2d_output_shape({1, 1, 3, 3}, {1, 1, 1, 1}, a), ErrorIf);
  a = Conv2dAttrs{};
  a.dilation = {2, 1};  // effective kernel 5 > 3
  EXPECT_THROW(conv2d_output_shape({1, 1, 3, 3}, {1, 1, 3, 1}, a), ErrorIf);
  a.padding = {1, 0};  // padded input 5 fits the effective kernel 5
  EXPECT_EQ(conv2d_output_shape({1, 1, 3, 3}, {1, 1, 3, 1}, a), (Shape{1, 1, 1, 3}));
  a = Conv2dAttrs{};
  a.groups = 0;
  EXPECT_THROW(conv2d_output_shape({1, 1, 3, 3}, {1, 1, 1, 1}, a), ErrorIf);
}

TEST(mrt_op_pad, HandTable) {
  const auto p = pad_width_from({0, 0, 0, 0, 1, 0, 0, 2});
  EXPECT_EQ(pad2d(ia({1, 1, 1, 1}, {5}), p), ia({1, 1, 2, 3}, {0, 0, 0, 5, 0, 0}));
  EXPECT_EQ(pad2d(ia({1, 1, 1, 1}, {5}), p, Int(-9)), ia({1, 1, 2, 3}, {-9, -9, -9, 5, -9, -9}));
}
TEST(mrt_op_pad, ErrorIf) {
  EXPECT_THROW(pad_width_from({0, 1, 0, 0, 1, 1, 1, 1}), ErrorIf);  // pads N
  EXPECT_THROW(pad_width_from({0, 0, 1, 0, 1, 1, 1, 1}), ErrorIf);  // pads C
  EXPECT_THROW(pad_width_from({0, 0, 0, 0, -1, 1, 1, 1}), ErrorIf);
  EXPECT_THROW(pad_width_from({0, 0, 0, 0, 1, 1}), ErrorIf);
  EXPECT_THROW(pad2d_output_shape({1, 1, 1}, PadWidth{}), ErrorIf);
}

TEST(mrt_op_relu, HandTable) {
  EXPECT_EQ(relu(ia({4}, {-3, 0, 2, -1})), ia({4}, {0, 0, 2, 0}));
  EXPECT_EQ(relu(ia({3}, {-3, 5, 7}), Int(5)), ia({3}, {5, 5, 7}));
}

TEST(mrt_op_max_pool2d, HandTable) {
  Pool2dAttrs a;
  a.kernel = {2, 2};
  EXPECT_EQ(max_pool2d(x3x3(), a), ia({1, 1, 2, 2}, {5, 6, 8, 9}));
  a.stride = {2, 2};
  a.padding = {1, 1};
  EXPECT_EQ(max_pool2d(x3x3(), a), ia({1, 1, 2, 2}, {1, 3, 7, 9}));
  // Negative inputs: the padding (INT_MIN / -infinity) never wins a window.
  IntArray neg = x3x3();
  for (auto& v : neg.data) v = -v;
  EXPECT_EQ(max_pool2d(neg, a), ia({1, 1, 2, 2}, {-1, -2, -4, -5}));
}
TEST(mrt_op_max_pool2d, ErrorIf) {
  Pool2dAttrs a;
  a.kernel = {2, 2};
  a.padding = {2, 0};  // a window entirely inside the padding
  EXPECT_THROW(max_pool2d_output_shape({1, 1, 3, 3}, a), ErrorIf);
  a.padding = {0, 0};
  a.stride = {0, 1};
  EXPECT_THROW(max_pool2d_output_shape({1, 1, 3, 3}, a), ErrorIf);
  a.stride = {1, 1};
  a.kernel = {4, 1};
  EXPECT_THROW(max_pool2d_output_shape({1, 1, 3, 3}, a), ErrorIf);
  a.kernel = {0, 1};
  EXPECT_THROW(max_pool2d_output_shape({1, 1, 3, 3}, a), ErrorIf);
  EXPECT_THROW(max_pool2d_output_shape({1, 3, 3}, Pool2dAttrs{}), ErrorIf);
}

TEST(mrt_op_fully_connected, HandTable) {
  EXPECT_EQ(fully_connected(ia({2, 3}, {1, 2, 3, -1, 0, 1}), ia({2, 3}, {1, 1, 1, 2, -1, 0})), ia({2, 2}, {6, 0, 0, -2}));
}
TEST(mrt_op_fully_connected, ErrorIf) {
  EXPECT_THROW(fully_connected_output_shape({2, 3}, {2, 4}), ErrorIf);
  EXPECT_THROW(fully_connected_output_shape({2, 3, 1}, {2, 3}), ErrorIf);
  EXPECT_THROW(fully_connected_output_shape({3}, {2, 3}), ErrorIf);
}

TEST(mrt_op_broadcast_add, HandTable) {
  EXPECT_EQ(broadcast_add(ia({2, 1}, {1, 2}), ia({3}, {10, 20, 30})), ia({2, 3}, {11, 21, 31, 12, 22, 32}));
  EXPECT_EQ(broadcast_add(ia({}, {7}), ia({2}, {1, 2})), ia({2}, {8, 9}));
  EXPECT_EQ(broadcast_add(ia({1, 2, 1}, {1, 2}), ia({3, 1, 1}, {10, 20, 30})).shape, (Shape{3, 2, 1}));
}
TEST(mrt_op_broadcast_add, ErrorIf) {
  EXPECT_THROW(broadcast_shape({2, 3}, {4}), ErrorIf);
  EXPECT_THROW(broadcast_shape({2, 1}, {3, 2}), ErrorIf);
}

TEST(mrt_op_elemwise_add, HandTable) { EXPECT_EQ(elemwise_add(ia({2}, {1, -5}), ia({2}, {3, 4})), ia({2}, {4, -1})); }
TEST(mrt_op_elemwise_add, ErrorIf) { EXPECT_THROW(elemwise_add(ia({2}, {1, 2}), ia({2, 1}, {1, 2})), ErrorIf); }

TEST(mrt_op_add_n, HandTable) {
  EXPECT_EQ(add_n<Int>({ia({2}, {1, 2}), ia({2}, {10, 20}), ia({2}, {100, 200})}), ia({2}, {111, 222}));
}
TEST(mrt_op_add_n, ErrorIf) {
  EXPECT_THROW(add_n<Int>({}), ErrorIf);
  EXPECT_THROW(add_n<Int>({ia({2}, {1, 2}), ia({1}, {1})}), ErrorIf);
}

TEST(mrt_op_concat, HandTable) {
  EXPECT_EQ(concat<Int>({ia({1, 2}, {1, 2}), ia({1, 1}, {3})}, 1), ia({1, 3}, {1, 2, 3}));
  EXPECT_EQ(concat<Int>({ia({1, 2}, {1, 2}), ia({1, 1}, {3})}, -1), ia({1, 3}, {1, 2, 3}));
  EXPECT_EQ(concat<Int>({ia({1, 2}, {1, 2}), ia({2, 2}, {3, 4, 5, 6})}, 0), ia({3, 2}, {1, 2, 3, 4, 5, 6}));
}
TEST(mrt_op_concat, ErrorIf) {
  EXPECT_THROW(concat<Int>({ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4})}, 1), ErrorIf);
  EXPECT_THROW(concat<Int>({ia({1, 2}, {1, 2})}, 2), ErrorIf);
  EXPECT_THROW(concat<Int>({ia({1, 2}, {1, 2})}, -3), ErrorIf);
  EXPECT_THROW(concat<Int>({ia({1, 2}, {1, 2}), ia({2}, {3, 4})}, 0), ErrorIf);
  EXPECT_THROW(concat<Int>({}, 0), ErrorIf);
}

TEST(mrt_op_flatten, HandTable) {
  EXPECT_EQ(flatten(iota_array({2, 3, 2})), iota_array({2, 6}));
  EXPECT_EQ(flatten(iota_array({5})), iota_array({5, 1}));
}
TEST(mrt_op_flatten, ErrorIf) { EXPECT_THROW(flatten(ia({}, {1})), ErrorIf); }

TEST(mrt_op_slice, HandTable) {
  const IntArray x = iota_array({10});
  auto sl = [&](std::optional<std::int64_t> b, std::optional<std::int64_t> e, std::int64_t s) { return slice(x, {SliceAxis{b, e, s}}); };
  EXPECT_EQ(sl(2, 8, 3), ia({2}, {2, 5}));
  EXPECT_EQ(sl({}, {}, -1), ia({10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(sl(-3, {}, 1), ia({3}, {7, 8, 9}));
  EXPECT_EQ(sl(8, 2, -2), ia({3}, {8, 6, 4}));
  EXPECT_EQ(sl(20, {}, 1), ia({0}, {}));
  EXPECT_EQ(sl(-20, 2, 1), ia({2}, {0, 1}));
  EXPECT_EQ(sl(5, -20, -3), ia({2}, {5, 2}));
  // 2-D: rows from 1, columns reversed; the missing trailing axis of a 3-entry slice is whole.
  EXPECT_EQ(slice(iota_array({3, 2}), {SliceAxis{1, {}, 1}, SliceAxis{{}, {}, -1}}), ia({2, 2}, {3, 2, 5, 4}));
  EXPECT_EQ(slice(iota_array({3, 2}), {SliceAxis{1, 2, 1}}), ia({1, 2}, {2, 3}));
}
TEST(mrt_op_slice, ErrorIf) {
  EXPECT_THROW(slice(iota_array({3}), {SliceAxis{0, 1, 0}}), ErrorIf);
  EXPECT_THROW(slice(iota_array({3}), {SliceAxis{}, SliceAxis{}}), ErrorIf);
}

// realize rounds half up (cvm_right_shift) and clips to the symmetric range: -1.5 -> -1, -2.5 -> -2.
TEST(mrt_realize, RationalFormHandTable) {
  EXPECT_EQ(realize(Int(3), Int(1), -1, 8), 2);
  EXPECT_EQ(realize(Int(-3), Int(1), -1, 8), -1);
  EXPECT_EQ(realize(Int(-5), Int(1), -1, 8), -2);
  EXPECT_EQ(realize(Int(5), Int(3), -2, 8), 4);  // 15/4 = 3.75
  EXPECT_EQ(realize(Int(3), Int(3), 2, 8), 36);
  EXPECT_EQ(realize(Int(200), Int(1), 0, 8), 127);
  EXPECT_EQ(realize(Int(-200), Int(1), 0, 8), -127);
  EXPECT_EQ(realize(Int(1), Int(1), 0, 1), 0);  // precision 1 holds only 0
}
TEST(mrt_realize, RationalFormErrorIf) {
  EXPECT_THROW(realize(Int(1), Int(0), 0, 8), ErrorIf);
  EXPECT_THROW(realize(Int(1), Int(1), 0, 0), ErrorIf);
  EXPECT_THROW(realize(Int(1), Int(1), 0, 33), ErrorIf);
}

TEST(mrt_op_quantize_scale, HandTable) {
  // 3/2 -> 2 and 5/2 -> 3 (ties up), then added.
  EXPECT_EQ(quantize_scale({ia({1}, {3}), ia({1}, {5})}, {Int(1), Int(1)}, {-1, -1}, 16, CombineOp::ElemwiseAdd), ia({1}, {5}));
  EXPECT_EQ(quantize_scale({ia({1}, {3}), ia({2}, {5, -5})}, {Int(1), Int(3)}, {0, -1}, 16, CombineOp::Concat, 0),
            ia({3}, {3, 8, -7}));
  EXPECT_EQ(quantize_scale({ia({1}, {100}), ia({1}, {100}), ia({1}, {100})}, {Int(1), Int(1), Int(1)}, {0, 0, 0}, 8,
                           CombineOp::AddN),
            ia({1}, {300}));
  EXPECT_EQ(quantize_scale({ia({2, 1}, {1, 2}), ia({2}, {10, 20})}, {Int(1), Int(1)}, {0, 0}, 8, CombineOp::BroadcastAdd),
            ia({2, 2}, {11, 21, 12, 22}));
}
TEST(mrt_op_quantize_scale, ErrorIf) {
  EXPECT_THROW(quantize_scale({ia({1}, {3})}, {Int(1), Int(1)}, {0, 0}, 16, CombineOp::AddN), ErrorIf);
  EXPECT_THROW(quantize_scale({ia({1}, {3})}, {Int(1)}, {0}, 16, CombineOp::ElemwiseAdd), ErrorIf);
  EXPECT_THROW(quantize_scale({}, {}, {}, 16, CombineOp::AddN), ErrorIf);
  EXPECT_THROW(quantize_scale({ia({1}, {3}), ia({1}, {3})}, {Int(1), Int(1)}, {0, 0}, 40, CombineOp::AddN), ErrorIf);
}

// The operand convention of the expansions: q / sc + zp / zsc.
TEST(mrt_dequantize, ExpansionOperand) {
  OperandQ p;
  p.scale = Rat(4);
  p.zp = 3;
  p.zp_scale = Rat(10);
  EXPECT_EQ(dequantize(Int(2), p), Rat(1, 2) + Rat(3, 10));
  EXPECT_EQ(dequantize(Int(-8), OperandQ{}), Rat(-8));
}

// avg Pooling as MRT rewrites it. 2x2 window over [[1, 2], [3, 4]]: the mean is 5/2; the integer
// expansion at weight precision 8 is 127 * (1 + 2 + 3 + 4) = 1270, at scale 127 * 4 per unit of X.
// A 1x1 input [5] with a 2x2 window and padding 2: the window at the centre rows/cols holds 5 and
// three padded zeros (mean 5/4, expansion 635); the corner window is all padding (0).
TEST(mrt_op_avg_pool2d, HandTable) {
  Pool2dAttrs a;
  a.kernel = {2, 2};
  const IntArray x({1, 1, 2, 2}, std::vector<Int>{1, 2, 3, 4});
  EXPECT_EQ(avg_pool2d_expand(x, a, 8).data[0], Int(1270));
  EXPECT_EQ(avg_pool2d_expand(x, a, 16).data[0], Int(32767 * 10));
  EXPECT_EQ(avg_pool2d_real(map_array<Rat>(x, [](const Int& v) { return Rat(v); }), a).data[0], Rat(5, 2));
  Pool2dAttrs p;
  p.kernel = {2, 2};
  p.padding = {2, 2};
  const IntArray y = avg_pool2d_expand(IntArray({1, 1, 1, 1}, Int(5)), p, 8);
  ASSERT_EQ(y.shape, (Shape{1, 1, 4, 4}));
  EXPECT_EQ(y.at4(0, 0, 0, 0), Int(0));    // all padding
  EXPECT_EQ(y.at4(0, 0, 1, 1), Int(635));  // 5 and three padded zeros
  EXPECT_THROW(avg_pool2d_expand(x, a, 1), ErrorIf);
  Pool2dAttrs big;
  big.kernel = {3, 3};
  EXPECT_THROW(avg_pool2d_expand(x, big, 8), ErrorIf);
}
