// Hand-derived tables and ERROR_IF rejections for the gemmlowp matmul and TVM QNN operators.
#include <gtest/gtest.h>

#include "ops_arrays.h"
#include "qspec/ref/ops/quantized.h"
#include "qspec/ref/rounding.h"

using namespace qspec::opstest;

namespace {
constexpr std::uint32_t kOne = 0x3f800000, kHalf = 0x3f000000, kQuarter = 0x3e800000;
}

TEST(gemmlowp_matmul, HandTable) {
  GemmlowpMatmulParams p;
  p.multiplier = Int(1) << 30;  // 0.5 in Q31
  // acc = 1*3 + 2*4 = 11; SRDHM(11, 2^30) = half_up(5.5) = 6; RDBPOT(6, 0) = 6.
  EXPECT_EQ(gemmlowp_matmul(ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4}), p), ia({1, 1}, {6}));
  p.lhs_zero_point = 1;  // acc = 0*3 + 1*4 = 4 -> 2
  EXPECT_EQ(gemmlowp_matmul(ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4}), p), ia({1, 1}, {2}));
  p.lhs_zero_point = 2;  // acc = -1*3 + 0 = -3 -> SRDHM = half_up(-1.5) = -1; + zp 0 -> saturates to 0
  EXPECT_EQ(gemmlowp_matmul(ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4}), p), ia({1, 1}, {0}));
  p.result_zero_point = 10;
  EXPECT_EQ(gemmlowp_matmul(ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4}), p), ia({1, 1}, {9}));
  p.shift = 1;  // RDBPOT(-1, 1) = half_away(-0.5) = -1
  EXPECT_EQ(gemmlowp_matmul(ia({1, 2}, {1, 2}), ia({2, 1}, {3, 4}), p), ia({1, 1}, {9}));
  // Saturation at 255: 255*255*2 accumulated, multiplier ~1.
  GemmlowpMatmulParams big;
  big.multiplier = (Int(1) << 31) - 1;
  EXPECT_EQ(gemmlowp_matmul(ia({1, 2}, {255, 255}), ia({2, 1}, {255, 255}), big), ia({1, 1}, {255}));
}
TEST(gemmlowp_matmul, ErrorIf) {
  GemmlowpMatmulParams p;
  EXPECT_THROW(gemmlowp_matmul(ia({1, 2}, {1, 2}), ia({3, 1}, {1, 2, 3}), p), ErrorIf);
  EXPECT_THROW(gemmlowp_matmul(ia({1, 1}, {256}), ia({1, 1}, {1}), p), ErrorIf);
  EXPECT_THROW(gemmlowp_matmul(ia({1, 1}, {-1}), ia({1, 1}, {1}), p), ErrorIf);
  p.lhs_zero_point = 300;
  EXPECT_THROW(gemmlowp_matmul(ia({1, 1}, {1}), ia({1, 1}, {1}), p), ErrorIf);
  p.lhs_zero_point = 0;
  p.result_zero_point = -1;
  EXPECT_THROW(gemmlowp_matmul(ia({1, 1}, {1}), ia({1, 1}, {1}), p), ErrorIf);
}

TEST(tvm_qnn_conv2d, HandTable) {
  TvmQnnParams p;
  p.input_zero_point = 2;
  p.kernel_zero_point = 1;
  EXPECT_EQ(tvm_qnn_conv2d(ia({1, 1, 1, 1}, {5}), ia({1, 1, 1, 1}, {3}), Conv2dAttrs{}, TvmLayout::NCHW_OIHW, p), ia({1, 1, 1, 1}, {6}));
  // Padding holds the input zero point (real 0): X = 7 = zp_in, so every term vanishes.
  Conv2dAttrs a;
  a.padding = {1, 0};
  p.input_zero_point = 7;
  p.kernel_zero_point = 0;
  EXPECT_EQ(tvm_qnn_conv2d(ia({1, 1, 1, 1}, {7}), ia({1, 1, 3, 1}, {1, 1, 1}), a, TvmLayout::NCHW_OIHW, p), ia({1, 1, 1, 1}, {0}));
  // Requantized: acc 6 at scale 0.5 * 0.5 = 0.25 -> 1.5 -> UPWARD 2 (TONEAREST 2), + zp_out 3.
  p.input_zero_point = 2;
  p.kernel_zero_point = 1;
  p.input_scale = kHalf;
  p.kernel_scale = kHalf;
  p.output_scale = kOne;
  p.output_zero_point = 3;
  p.out_dtype = DType::I8;
  EXPECT_EQ(tvm_qnn_conv2d(ia({1, 1, 1, 1}, {5}), ia({1, 1, 1, 1}, {3}), Conv2dAttrs{}, TvmLayout::NCHW_OIHW, p), ia({1, 1, 1, 1}, {5}));
  // acc -6 -> -1.5: UPWARD gives -1, TONEAREST -2.
  p.output_zero_point = 0;
  EXPECT_EQ(tvm_qnn_conv2d(ia({1, 1, 1, 1}, {-1}), ia({1, 1, 1, 1}, {3}), Conv2dAttrs{}, TvmLayout::NCHW_OIHW, p), ia({1, 1, 1, 1}, {-1}));
  p.rounding = TvmRounding::ToNearest;
  EXPECT_EQ(tvm_qnn_conv2d(ia({1, 1, 1, 1}, {-1}), ia({1, 1, 1, 1}, {3}), Conv2dAttrs{}, TvmLayout::NCHW_OIHW, p), ia({1, 1, 1, 1}, {-2}));
}
TEST(tvm_qnn_conv2d, NhwcHwioLayout) {
  // NHWC (1,1,2,2): pixel (0,0) channels (1,2), pixel (0,1) channels (3,4); HWIO (1,1,2,1): weights (10, 100).
  TvmQnnParams p;
  EXPECT_EQ(tvm_qnn_conv2d(ia({1, 1, 2, 2}, {1, 2, 3, 4}), ia({1, 1, 2, 1}, {10, 100}), Conv2dAttrs{}, TvmLayout::NHWC_HWIO, p),
            ia({1, 1, 2, 1}, {210, 430}));
}
TEST(tvm_qnn_conv2d, ErrorIf) {
  TvmQnnParams p;
  p.out_dtype = DType::I16;
  EXPECT_THROW(tvm_qnn_conv2d(ia({1, 1, 1, 1}, {5}), ia({1, 1, 1, 1}, {3}), Conv2dAttrs{}, TvmLayout::NCHW_OIHW, p), ErrorIf);
  p.out_dtype = DType::I32;
  EXPECT_THROW(tvm_qnn_conv2d(ia({1, 1, 1}, {5}), ia({1, 1, 1, 1}, {3}), Conv2dAttrs{}, TvmLayout::NCHW_OIHW, p), ErrorIf);
  EXPECT_THROW(tvm_qnn_conv2d(ia({1, 2, 1, 1}, {5, 5}), ia({1, 1, 1, 1}, {3}), Conv2dAttrs{}, TvmLayout::NCHW_OIHW, p), ErrorIf);
}
TEST(tvm_qnn_dense, HandTable) {
  TvmQnnParams p;
  p.input_zero_point = 1;
  p.kernel_zero_point = -1;
  // (2-1)(3+1) + (4-1)(0+1) = 7
  EXPECT_EQ(tvm_qnn_dense(ia({1, 2}, {2, 4}), ia({1, 2}, {3, 0}), p), ia({1, 1}, {7}));
  p.input_scale = kQuarter;
  p.out_dtype = DType::U8;
  p.output_zero_point = 250;  // 7/4 = 1.75 -> 2, + 250 = 252
  EXPECT_EQ(tvm_qnn_dense(ia({1, 2}, {2, 4}), ia({1, 2}, {3, 0}), p), ia({1, 1}, {252}));
  p.output_zero_point = 255;  // saturates
  EXPECT_EQ(tvm_qnn_dense(ia({1, 2}, {2, 4}), ia({1, 2}, {3, 0}), p), ia({1, 1}, {255}));
}
TEST(tvm_qnn_dense, ErrorIf) {
  TvmQnnParams p;
  EXPECT_THROW(tvm_qnn_dense(ia({1, 2}, {2, 4}), ia({1, 3}, {3, 0, 1}), p), ErrorIf);
  p.out_dtype = DType::U16;
  EXPECT_THROW(tvm_qnn_dense(ia({1, 2}, {2, 4}), ia({1, 2}, {3, 0}), p), ErrorIf);
}
TEST(tvm_qnn_relu, HandTable) { EXPECT_EQ(tvm_qnn_relu(ia({3}, {-5, 3, 9}), Int(3)), ia({3}, {3, 3, 9})); }
TEST(tvm_qnn_max_pool2d, HandTable) {
  Pool2dAttrs a;
  a.kernel = {2, 1};
  a.padding = {1, 0};
  EXPECT_EQ(tvm_qnn_max_pool2d(ia({1, 1, 2, 1}, {-128, -100}), a), ia({1, 1, 3, 1}, {-128, -100, -100}));
}
TEST(tvm_qnn_concatenate, HandTable) {
  // Input 0 at the output parameters passes; input 1 (scale 0.5, zp 0) -> scale 1, zp 3: 5*0.5 = 2.5 -> 3, +3 = 6.
  EXPECT_EQ(tvm_qnn_concatenate({ia({1}, {9}), ia({1}, {5})}, {kOne, kHalf}, {Int(3), Int(0)}, kOne, Int(3), 0, DType::I8),
            ia({2}, {9, 6}));
  EXPECT_THROW(tvm_qnn_concatenate({ia({1}, {9})}, {kOne, kOne}, {Int(0)}, kOne, Int(0), 0, DType::I8), ErrorIf);
}
TEST(tvm_qnn_add, HandTable) {
  // a = 10 at (1, 0) -> 10 + 5; b = 20 at (0.5, 0) -> 10 + 5; 15 + 15 - 5 = 25.
  EXPECT_EQ(tvm_qnn_add(ia({1}, {10}), ia({1}, {20}), kOne, Int(0), kHalf, Int(0), kOne, Int(5), DType::I8), ia({1}, {25}));
  EXPECT_EQ(tvm_qnn_add(ia({1}, {100}), ia({1}, {100}), kOne, Int(0), kOne, Int(0), kOne, Int(0), DType::I8), ia({1}, {127}));
  EXPECT_THROW(tvm_qnn_add(ia({2}, {1, 2}), ia({3}, {1, 2, 3}), kOne, Int(0), kOne, Int(0), kOne, Int(0), DType::I8), ErrorIf);
}

// E-TVM-4: qnn.add requantizes each input to the output scale (one rounding each), then adds: two
// roundings, not one rounding of the exact sum. a = b = 1 at scale 1, output scale 2: each input
// is 1/2, rounded half up to 1, so y = 2, while the exact sum 1/2 + 1/2 = 1 is already an integer.
TEST(tvm_qnn_add, RoundsEachInputThenAdds_E_TVM_4) {
  const std::uint32_t one = 0x3f800000u, two = 0x40000000u;
  const IntArray a({1}, Int(1)), b({1}, Int(1));
  const IntArray y = tvm_qnn_add(a, b, one, Int(0), one, Int(0), two, Int(0), DType::I32);
  EXPECT_EQ(y.data[0], Int(2));
  const Rat exact = (Rat(1) * 1 + Rat(1) * 1) / 2;  // sa (a - za) + sb (b - zb), over s_out
  EXPECT_EQ(round_half_up(exact), Int(1));
  // With the output scale equal to the inputs' the two agree (no rounding at all).
  EXPECT_EQ(tvm_qnn_add(a, b, one, Int(0), one, Int(0), one, Int(0), DType::I32).data[0], Int(2));
}
