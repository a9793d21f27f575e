// Properties of TOSA's convention of the quantized global average pooling (spec/operators_qlinear_pool.md,
// qlinear.global_avg_pool.tosa), against an independent transliteration on this machine's int64 /
// binary64 of the legalization's convertReduceMeanOp (computeMultiplierAndShift with std::frexp /
// std::round, 63 - clz(n), the int64 division of the multiplier) and of the TOSA pseudocode
// (RESCALE by (2^30, 30), REDUCE_SUM per axis, RESCALE with apply_scale_32 DOUBLE_ROUND, clip):
// - every window sum of every image size 1..16 for several scale ratios (exhaustive);
// - random tensors are the RESCALE / REDUCE_SUM / RESCALE loop nest (composition);
// - error bound against the exact real mean;
// - the differences from tflite.double_round on the same inputs, measured;
// - every ERROR_IF of the clause.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

struct Native {
  std::int64_t m;
  int s;
};

// convertReduceMeanOp's output (multiplier, shift) for n reduced elements.
Native native_scale(float sx, float sy, std::int64_t n) {
  int e = 0;
  const double q = std::frexp(static_cast<double>(sx) / static_cast<double>(sy), &e);
  std::int64_t m = std::llround(q * 2147483648.0);
  if (m == (std::int64_t{1} << 31)) m /= 2, ++e;
  int s = 31 - e;
  if (s > 62) m >>= std::min(31, s - 62), s = 62;
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(n));
  k = std::min(k, 32);
  k = std::min(k, 62 - s);
  return {static_cast<std::int32_t>((m << k) / n), s + k};
}

// RESCALE (scale32, DOUBLE_ROUND, input_zp 0) of an int32 sum to int8 with output_zp zy.
long long native_rescale(std::int64_t acc, const Native& k, int zy) {
  __int128 round = static_cast<__int128>(1) << (k.s - 1);
  if (k.s > 31) round += acc >= 0 ? (1LL << 30) : -(1LL << 30);
  const auto r = static_cast<std::int64_t>((static_cast<__int128>(acc) * k.m + round) >> k.s);
  return std::clamp<long long>(r + zy, -128, 127);
}

QPoolParams params(float sx, int zx, float sy, int zy) {
  QPoolParams p;
  p.type = DType::I8;
  p.x_scale = bits(sx);
  p.y_scale = bits(sy);
  p.x_zero_point = Int(zx);
  p.y_zero_point = Int(zy);
  return p;
}

TEST(qlinear_global_avg_pool_tosa, EveryWindowSumIsTheTransliteratedLowering) {
  const std::vector<std::pair<float, float>> ratios = {
      {1.0f, 1.0f}, {0.75f, 1.0f}, {0.1f, 0.3f}, {3.0f, 0.25f}, {0x1p-40f, 1.0f}};
  long long n_checked = 0;
  for (const auto& [sx, sy] : ratios)
    for (std::int64_t n = 1; n <= 16; ++n) {
      const QPoolParams p = params(sx, 0, sy, -3);
      const QuantizedMultiplier m = qlinear_tosa_mean_scale(p, n);
      const Native k = native_scale(sx, sy, n);
      ASSERT_EQ(m.multiplier, Int(k.m)) << "n " << n;
      ASSERT_EQ(m.shift, k.s) << "n " << n;
      for (std::int64_t acc = -255 * n; acc <= 255 * n; ++acc, ++n_checked)
        ASSERT_EQ(qlinear_tosa_mean_output(Int(acc), m, p), Int(native_rescale(acc, k, -3)))
            << "acc " << acc << " n " << n << " ratio " << sx / sy;
    }
  EXPECT_EQ(n_checked, 5LL * (510 * 136 + 16));
}

TEST(qlinear_global_avg_pool_tosa, IsTheRescaleReduceSumRescaleLoopNest) {
  std::mt19937_64 rng(20251);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  for (int i = 0; i < 120; ++i) {
    const Shape shape{in(1, 2), in(1, 6), in(1, 6), in(1, 4)};
    IntArray x(shape);
    for (auto& v : x.data) v = in(-128, 127);
    const float sx = std::ldexp(1.0f + static_cast<float>(in(0, 1 << 20)) / (1 << 20), static_cast<int>(in(-10, -2)));
    const float sy = std::ldexp(1.0f + static_cast<float>(in(0, 1 << 20)) / (1 << 20), static_cast<int>(in(-10, -2)));
    const int zx = static_cast<int>(in(-128, 127)), zy = static_cast<int>(in(-128, 127));
    const IntArray y = qlinear_global_avg_pool(x, params(sx, zx, sy, zy), QPoolConvention::Tosa);
    const std::int64_t N = shape[0], H = shape[1], W = shape[2], C = shape[3];
    const Native k = native_scale(sx, sy, H * W);
    ASSERT_EQ(y.shape, (Shape{N, 1, 1, C}));
    for (std::int64_t b = 0; b < N; ++b)
      for (std::int64_t c = 0; c < C; ++c) {
        std::int64_t acc = 0;
        for (std::int64_t w = 0; w < W; ++w) {  // REDUCE_SUM axis 1 (H) per column, then axis 2
          std::int64_t column = 0;
          for (std::int64_t h = 0; h < H; ++h) {
            const auto code =
                static_cast<std::int64_t>(x.data[static_cast<std::size_t>(((b * H + h) * W + w) * C + c)]);
            column += ((code - zx) * (1LL << 30) + (1LL << 29)) >> 30;  // RESCALE by (2^30, 30)
          }
          acc += column;
        }
        ASSERT_EQ(y.data[static_cast<std::size_t>(b * C + c)], Int(native_rescale(acc, k, zy))) << "problem " << i;
      }
  }
}

TEST(qlinear_global_avg_pool_tosa, WithinTheStatedBoundOfTheRealMean) {
  std::mt19937_64 rng(20252);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  long long checked = 0;
  for (int i = 0; i < 300; ++i) {
    const auto sx = std::bit_cast<float>(static_cast<std::uint32_t>(in(127 - 12, 127 - 2)) << 23 |
                                         static_cast<std::uint32_t>(in(0, (1 << 23) - 1)));
    const auto sy = std::bit_cast<float>(static_cast<std::uint32_t>(in(127 - 12, 127 - 2)) << 23 |
                                         static_cast<std::uint32_t>(in(0, (1 << 23) - 1)));
    const std::int64_t n = in(1, 64);
    const int zy = static_cast<int>(in(-128, 127));
    const QPoolParams p = params(sx, 0, sy, zy);
    const QuantizedMultiplier m = qlinear_tosa_mean_scale(p, n);
    for (int j = 0; j < 40; ++j) {
      const Int acc(in(-255 * n, 255 * n));
      const Int y = qlinear_tosa_mean_output(acc, m, p);
      if (y == -128 || y == 127) continue;
      const Rat mean = Rat(acc) * f32_value(bits(sx)) / (f32_value(bits(sy)) * Rat(Int(n)));
      const Rat two_s = Rat(pow2(static_cast<unsigned>(m.shift)));
      Rat bound = Rat(1, 2) + abs(Rat(acc)) / two_s + abs(mean) / Rat(pow2(30));
      if (m.shift > 31) bound += Rat(pow2(31)) / two_s;
      ASSERT_LE(abs(Rat(y) - (mean + zy)), bound) << "acc " << acc << " n " << n;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000);
}

TEST(qlinear_global_avg_pool_tosa, DiffersFromTfliteDoubleRoundMeasured) {
  long long sums = 0, differ = 0;
  for (const auto& [sx, sy] : std::vector<std::pair<float, float>>{{1.0f, 1.0f}, {0.75f, 1.0f}, {0.1f, 0.3f}})
    for (std::int64_t n : {1, 2, 3, 4, 5, 9, 16, 49}) {
      const QPoolParams p = params(sx, 0, sy, 0);
      const QuantizedMultiplier m = qlinear_tosa_mean_scale(p, n);
      for (std::int64_t acc = -255 * n; acc <= 255 * n; ++acc, ++sums) {
        const Int a = qlinear_tosa_mean_output(Int(acc), m, p), b = qlinear_tflite_mean_output(Int(acc), n, p);
        if (a == b) continue;
        ++differ;
        ASSERT_LE(abs(a - b), Int(1)) << "acc " << acc << " n " << n;
        if (n == 1 && sx == sy) ADD_FAILURE() << "n = 1 at ratio 1 is exact in both: acc " << acc;
      }
    }
  std::printf("window sums %lld: tosa and tflite.double_round differ on %lld\n", sums, differ);
  EXPECT_GT(differ, 0);
  // The clause's example: codes {-1, 0}, equal parameters: TFLite -1 (half away), TOSA 0 (half up).
  const QPoolParams p = params(1.0f, 0, 1.0f, 0);
  EXPECT_EQ(qlinear_tflite_mean_output(Int(-1), 2, p), Int(-1));
  EXPECT_EQ(qlinear_tosa_mean_output(Int(-1), qlinear_tosa_mean_scale(p, 2), p), Int(0));
}

TEST(qlinear_global_avg_pool_tosa, ErrorIfs) {
  IntArray x(Shape{1, 2, 2, 1});
  EXPECT_NO_THROW(qlinear_global_avg_pool(x, params(0.5f, 0, 1.0f, 0), QPoolConvention::Tosa));
  QPoolParams u8 = params(0.5f, 0, 1.0f, 0);
  u8.type = DType::U8;
  EXPECT_THROW(qlinear_global_avg_pool(x, u8, QPoolConvention::Tosa), ErrorIf);
  EXPECT_THROW(qlinear_global_avg_pool(x, params(0.5f, 128, 1.0f, 0), QPoolConvention::Tosa), ErrorIf);
  EXPECT_THROW(qlinear_global_avg_pool(x, params(0.5f, 0, 1.0f, -129), QPoolConvention::Tosa), ErrorIf);
  QPoolParams clamp = params(0.5f, 0, 1.0f, 0);
  clamp.y_min = Int(0);
  EXPECT_THROW(qlinear_global_avg_pool(x, clamp, QPoolConvention::Tosa), ErrorIf);
  EXPECT_THROW(qlinear_global_avg_pool(IntArray(Shape{2, 2, 2}), params(0.5f, 0, 1.0f, 0), QPoolConvention::Tosa),
               ErrorIf);
  // The legalization ignores computeMultiplierAndShift's failure: a ratio 2^29 with n = 1 is a
  // RESCALE with shift 1, which TOSA leaves undefined (REQUIRE), not an error.
  EXPECT_THROW(qlinear_global_avg_pool(IntArray(Shape{1, 1, 1, 1}), params(0x1p29f, 0, 1.0f, 0), QPoolConvention::Tosa),
               RequireViolated);
}

}  // namespace
