// Hand-derived tables, an independent int64 transliteration and ERROR_IFs for TVM's quantized average pooling (tvm.qnn.avg_pool2d).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ops/tvm_avg_pool.h"

using namespace qspec::opstest;

namespace {
std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
TvmAvgPoolParams same(DType t, int zp = 0) {
  TvmAvgPoolParams p;
  p.dtype = t;
  p.input_zero_point = p.output_zero_point = Int(zp);
  return p;
}
TvmAvgPoolAttrs pool(std::int64_t kh, std::int64_t kw) {
  TvmAvgPoolAttrs a;
  a.pool_size = {kh, kw};
  return a;
}

// TOPI's avg pool on int32 codes as C++ would run it: int64 sums and the `/` operator (truncation).
std::vector<long long> topi_avg_nchw(const std::vector<long long>& x, long long N, long long C, long long H, long long W,
                                     const TvmAvgPoolAttrs& a, long long lo, long long hi) {
  const long long OH = (H + a.padding[0] + a.padding[2] - a.dilation[0] * (a.pool_size[0] - 1) - 1) / a.strides[0] + 1;
  const long long OW = (W + a.padding[1] + a.padding[3] - a.dilation[1] * (a.pool_size[1] - 1) - 1) / a.strides[1] + 1;
  std::vector<long long> y;
  for (long long n = 0; n < N; ++n)
    for (long long c = 0; c < C; ++c)
      for (long long p = 0; p < OH; ++p)
        for (long long q = 0; q < OW; ++q) {
          long long sum = 0, inside = 0;
          for (long long i = 0; i < a.pool_size[0]; ++i)
            for (long long j = 0; j < a.pool_size[1]; ++j) {
              const long long h = p * a.strides[0] - a.padding[0] + i * a.dilation[0];
              const long long w = q * a.strides[1] - a.padding[1] + j * a.dilation[1];
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              sum += x[static_cast<std::size_t>(((n * C + c) * H + h) * W + w)];
              ++inside;
            }
          const long long div = a.count_include_pad ? a.pool_size[0] * a.pool_size[1] : (inside > 0 ? inside : 1);
          const long long v = sum / div;
          y.push_back(v < lo ? lo : v > hi ? hi : v);
        }
  return y;
}
}  // namespace

// The window sum of codes is divided with truncation toward zero: uint8 [1, 2] -> 3 / 2 = 1, int8
// [-1, -2] -> -3 / 2 = -1 (toward zero). TFLite's own int8 kernel rounds half away from zero,
// (-3 - 1) / 2 = -2 (E-TVMPOOL-2).
TEST(tvm_qnn_avg_pool2d, TruncatesTheCodeSum) {
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 1, 2}, {1, 2}), same(DType::U8), pool(1, 2)), ia({1, 1, 1, 1}, {1}));
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 1, 2}, {-1, -2}), same(DType::I8), pool(1, 2)), ia({1, 1, 1, 1}, {-1}));
  const long long acc = -3, n = 2;
  const long long tflite = acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
  EXPECT_EQ(tflite, -2);
  // The same real average -1.5 s with zero point 10: codes [9, 8] -> 17 / 2 = 8, i.e. real -2 s (floored),
  // where zero point 0 gave -1 s (truncated): the rounding of the real value depends on the zero point.
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 1, 2}, {9, 8}), same(DType::I8, 10), pool(1, 2)), ia({1, 1, 1, 1}, {8}));
}

// E-TVMPOOL-1: the padding is the integer 0 among output codes. One uint8 code 100 with zero point
// 100 (real 0) under a 2x2 window with padding 1: count_include_pad averages 100 + 0 + 0 + 0 = 25
// (real -75 s); without it, n = 1 and the result is 100 (real 0). A window of padding only gives 0.
TEST(tvm_qnn_avg_pool2d, PaddingIsTheIntegerZero) {
  TvmAvgPoolAttrs a = pool(2, 2);
  a.padding = {1, 1, 1, 1};
  a.count_include_pad = true;
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 1, 1}, {100}), same(DType::U8, 100), a), ia({1, 1, 2, 2}, {25, 25, 25, 25}));
  a.count_include_pad = false;
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 1, 1}, {100}), same(DType::U8, 100), a), ia({1, 1, 2, 2}, {100, 100, 100, 100}));
  TvmAvgPoolAttrs e = pool(1, 1);
  e.strides = {2, 2};
  e.padding = {1, 1, 0, 0};
  e.nhwc = true;
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 2, 2, 1}, {5, 6, 7, 8}), same(DType::I8, -20), e), ia({1, 2, 2, 1}, {0, 0, 0, 8}));
}

// Different parameters: requantized to int32 output codes first. Scale 2 -> 1 (exact multiplier 2),
// zero point 3 -> -3: q' = 2 (q - 3) - 3: -128 -> -265, 127 -> 245, 10 -> 11, 11 -> 13; sum 4, / 4 = 1.
// The codes may leave int8 before the average and are clipped only at the end.
TEST(tvm_qnn_avg_pool2d, RequantizesBeforeAveraging) {
  TvmAvgPoolParams p;
  p.dtype = DType::I8;
  p.input_scale = F(2.0f);
  p.input_zero_point = 3;
  p.output_zero_point = -3;
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 2, 2}, {-128, 127, 10, 11}), p, pool(2, 2)), ia({1, 1, 1, 1}, {1}));
  TvmAvgPoolParams q = same(DType::I8);
  q.output_scale = F(0.5f);
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 1, 2}, {127, 126}), q, pool(1, 2)), ia({1, 1, 1, 1}, {127}));  // 253 clips
  // Equal scales, different zero points: still requantized (q - 5 + 0).
  TvmAvgPoolParams z = same(DType::U8);
  z.input_zero_point = 5;
  EXPECT_EQ(tvm_qnn_avg_pool2d(ia({1, 1, 1, 2}, {5, 7}), z, pool(1, 2)), ia({1, 1, 1, 1}, {1}));
}

// Against TOPI's loop written with int64 and C++ `/`, over random upcast cases of both dtypes, both
// count_include_pad settings, strides, dilation and asymmetric padding; NHWC gives the transposed result.
TEST(tvm_qnn_avg_pool2d, MatchesInt64TruncatingLoopAndLayouts) {
  std::mt19937_64 rng(20261121);
  auto u = [&](long long lo, long long hi) { return lo + static_cast<long long>(rng() % static_cast<unsigned long long>(hi - lo + 1)); };
  for (int iter = 0; iter < 300; ++iter) {
    TvmAvgPoolAttrs a;
    a.pool_size = {u(1, 3), u(1, 3)};
    a.strides = {u(1, 3), u(1, 3)};
    a.dilation = {u(1, 2), u(1, 2)};
    for (auto& p : a.padding) p = u(0, 2);
    a.count_include_pad = u(0, 1) == 1;
    const long long eh = a.dilation[0] * (a.pool_size[0] - 1) + 1, ew = a.dilation[1] * (a.pool_size[1] - 1) + 1;
    const long long N = u(1, 2), C = u(1, 3);
    const long long H = std::max(1LL, eh - a.padding[0] - a.padding[2]) + u(0, 3), W = std::max(1LL, ew - a.padding[1] - a.padding[3]) + u(0, 3);
    const DType t = u(0, 1) ? DType::I8 : DType::U8;
    const long long lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
    std::vector<long long> x(static_cast<std::size_t>(N * C * H * W));
    for (auto& v : x) v = u(lo, hi);
    IntArray xa({N, C, H, W});
    for (std::size_t i = 0; i < x.size(); ++i) xa.data[i] = Int(x[i]);
    const IntArray y = tvm_qnn_avg_pool2d(xa, same(t, static_cast<int>(u(lo, hi))), a);
    const auto want = topi_avg_nchw(x, N, C, H, W, a, lo, hi);
    ASSERT_EQ(y.data.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(y.data[i], Int(want[i])) << "case " << iter << " element " << i;
    // NHWC: the transposed input gives the transposed output.
    IntArray xn({N, H, W, C});
    for (long long n = 0; n < N; ++n)
      for (long long c = 0; c < C; ++c)
        for (long long h = 0; h < H; ++h)
          for (long long w = 0; w < W; ++w) xn.at4(n, h, w, c) = xa.at4(n, c, h, w);
    TvmAvgPoolAttrs an = a;
    an.nhwc = true;
    const IntArray yn = tvm_qnn_avg_pool2d(xn, same(t), an);
    for (long long n = 0; n < N; ++n)
      for (long long c = 0; c < C; ++c)
        for (long long p = 0; p < y.dim(2); ++p)
          for (long long q = 0; q < y.dim(3); ++q) ASSERT_EQ(yn.at4(n, p, q, c), y.at4(n, c, p, q));
  }
}

TEST(tvm_qnn_avg_pool2d, ErrorIf) {
  EXPECT_THROW(tvm_avg_pool2d_output_shape({1, 1, 2}, pool(1, 1)), ErrorIf);
  EXPECT_THROW(tvm_avg_pool2d_output_shape({1, 1, 2, 2}, pool(3, 1)), ErrorIf);
  EXPECT_THROW(tvm_avg_pool2d_output_shape({1, 1, 2, 2}, pool(0, 1)), ErrorIf);
  TvmAvgPoolAttrs a = pool(1, 1);
  a.strides = {1, 0};
  EXPECT_THROW(tvm_avg_pool2d_output_shape({1, 1, 2, 2}, a), ErrorIf);
  a = pool(1, 1);
  a.padding = {0, 0, -1, 0};
  EXPECT_THROW(tvm_avg_pool2d_output_shape({1, 1, 2, 2}, a), ErrorIf);
  a = pool(2, 1);
  a.dilation = {2, 1};  // dilated window 3 > 2
  EXPECT_THROW(tvm_avg_pool2d_output_shape({1, 1, 2, 2}, a), ErrorIf);
  EXPECT_THROW(tvm_qnn_avg_pool2d(ia({1, 1, 1, 1}, {0}), same(DType::I16), pool(1, 1)), ErrorIf);
  EXPECT_EQ(tvm_avg_pool2d_output_shape({1, 5, 7, 3}, [] {
              TvmAvgPoolAttrs n = pool(3, 2);
              n.nhwc = true;
              n.strides = {2, 2};
              n.padding = {1, 0, 0, 1};
              return n;
            }()),
            (Shape{1, 2, 4, 3}));  // OH = (5 + 1 - 3) / 2 + 1 = 2, OW = (7 + 1 - 2) / 2 + 1 = 4
}
