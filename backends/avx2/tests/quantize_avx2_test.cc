// Quantize / dequantize kernels: the scalar path against hand-derived values and IEEE definitions,
// the AVX2 path against the scalar one on every tail, order of operations and rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "qspec/simd/avx2_kernels.h"
#include "qspec/simd/cpu.h"

namespace qspec::simd {
namespace {

using R = QuantizeParams::Round;
using P = QuantizeParams::Post;

QuantizeParams params(bool divide, float s, bool pre, float pre_zp, R round, P post, std::int64_t zp, OutType out) {
  QuantizeParams p;
  p.divide = divide;
  p.s = s;
  p.pre_add = pre;
  p.pre_zp = pre_zp;
  p.round = round;
  p.post = post;
  p.post_zp = zp;
  p.post_zpf = static_cast<float>(zp);
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  finalize(p);
  return p;
}

// research/third-party-libraries.md: [.125, .375, .625] with scale .25, zero point 3 gives
// 3 5 5 with the zero point added after rounding (XNNPACK, PyTorch) and 4 4 6 before (oneDNN).
TEST(quantize_scalar, ZeroPointBeforeOrAfterRounding) {
  const float xs[] = {0.125f, 0.375f, 0.625f};
  const QuantizeParams after = params(false, 4.0f, false, 0, R::kHalfEven, P::kInt, 3, OutType::I8);
  const QuantizeParams before = params(false, 4.0f, true, 3.0f, R::kHalfEven, P::kNone, 0, OutType::I8);
  const int want_after[] = {3, 5, 5}, want_before[] = {4, 4, 6};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(quantize_one(after, xs[i]), want_after[i]);
    EXPECT_EQ(quantize_one(before, xs[i]), want_before[i]);
  }
}

TEST(quantize_scalar, TiesByRoundingMode) {
  const float xs[] = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f};
  const int even[] = {-2, -2, 0, 0, 2, 2}, away[] = {-3, -2, -1, 1, 2, 3};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(quantize_one(params(true, 1.0f, false, 0, R::kHalfEven, P::kNone, 0, OutType::I8), xs[i]), even[i]);
    EXPECT_EQ(quantize_one(params(true, 1.0f, false, 0, R::kHalfAway, P::kNone, 0, OutType::I8), xs[i]), away[i]);
  }
  // Just below a tie: 0.49999997f must not round up (the classic floor(x + 0.5) bug).
  EXPECT_EQ(quantize_one(params(true, 1.0f, false, 0, R::kHalfAway, P::kNone, 0, OutType::I8), 0.49999997f), 0);
}

TEST(quantize_scalar, SaturationAndInfinity) {
  const QuantizeParams p = params(true, 1e-30f, false, 0, R::kHalfEven, P::kInt, 5, OutType::U8);
  EXPECT_EQ(quantize_one(p, 3e10f), 255);  // x / s overflows to +inf
  EXPECT_EQ(quantize_one(p, -3e10f), 0);
  // A float zero-point addition that rounds: fl32(2147483520 + 100) = 2^31 (floats are 128 apart
  // there), which saturates; fl32(2147483520 + 3) = 2147483520 does not.
  EXPECT_EQ(quantize_one(params(true, 1.0f, false, 0, R::kHalfEven, P::kFloat, 100, OutType::I32), 2147483520.0f),
            INT32_MAX);
  EXPECT_EQ(quantize_one(params(true, 1.0f, false, 0, R::kHalfEven, P::kFloat, 3, OutType::I32), 2147483520.0f),
            2147483520);
}

// Divide vs multiply by the rounded reciprocal: ONNX/TVM/Glow divide, XNNPACK/oneDNN/PyTorch
// multiply by fl32(1/s). Find inputs where the two orders round to different integers on this
// machine's IEEE arithmetic, and check each convention follows its own order.
TEST(quantize_scalar, DivisionVersusReciprocal) {
  const float s = 7.0f, inv = 1.0f / s;  // fl32(1/7) is 4.5e-8 too large: enough to move ties
  const QuantizeParams div = params(true, s, false, 0, R::kHalfEven, P::kNone, 0, OutType::I32);
  const QuantizeParams mul = params(false, inv, false, 0, R::kHalfEven, P::kNone, 0, OutType::I32);
  int differing = 0;
  for (int i = 1; i < 200000; ++i) {
    const float x = static_cast<float>(i) * 0.5f;
    const auto by_div = static_cast<std::int32_t>(std::nearbyint(x / s)),
               by_mul = static_cast<std::int32_t>(std::nearbyint(x * inv));
    ASSERT_EQ(quantize_one(div, x), by_div);
    ASSERT_EQ(quantize_one(mul, x), by_mul);
    differing += by_div != by_mul;
  }
  EXPECT_GT(differing, 0);  // the two orders are distinguishable (else this test could not fail)
}

class Avx2Quantize : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!detect_cpu_features().avx2) GTEST_SKIP() << "no AVX2";
  }
};

void compare(const QuantizeParams& p, const std::vector<float>& x) {
  const std::size_t es = static_cast<std::size_t>(out_size(p.out)), n = x.size();
  std::vector<std::uint8_t> got(n * es + 64, 0xA5), want(n * es + 64, 0xA5);
  avx2::quantize(p, n, x.data(), got.data());
  quantize_scalar(p, n, x.data(), want.data());
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(std::memcmp(got.data() + i * es, want.data() + i * es, es), 0)
        << "element " << i << " x=" << x[i] << " s=" << p.s << " divide=" << p.divide
        << " round=" << static_cast<int>(p.round);
  for (std::size_t i = n * es; i < got.size(); ++i) ASSERT_EQ(got[i], 0xA5) << "wrote past the end";
}

TEST_F(Avx2Quantize, EveryOrderRoundingTailAndType) {
  std::mt19937_64 rng(21);
  const OutType outs[] = {OutType::I8, OutType::U8, OutType::I16, OutType::U16, OutType::I32};
  for (std::size_t n : {1, 7, 8, 9, 31, 32, 33, 100}) {
    for (OutType out : outs)
      for (int variant = 0; variant < 12; ++variant) {
        const float s =
            std::ldexp(1.0f + static_cast<float>(rng() % 1000) / 1000.0f, static_cast<int>(rng() % 20) - 10);
        const std::int64_t zp = static_cast<std::int64_t>(rng() % 300) - 150;
        const QuantizeParams p =
            params(variant % 2 == 0, s, variant % 3 == 0, static_cast<float>(zp),
                   variant % 4 < 2 ? R::kHalfEven : R::kHalfAway, static_cast<P>(variant % 3), zp, out);
        std::vector<float> x(n);
        for (auto& v : x) {
          switch (rng() % 4) {
            case 0: v = (static_cast<float>(rng() % 2001) - 1000.0f) * 0.5f * s; break;  // exact ties
            case 1:
              v = std::ldexp(static_cast<float>(static_cast<std::int64_t>(rng() % 2000001) - 1000000),
                             static_cast<int>(rng() % 30) - 10);
              break;
            case 2: v = (rng() % 2 ? 1 : -1) * 3.0e38f; break;
            default: v = static_cast<float>(static_cast<std::int64_t>(rng() % 4001) - 2000) * 0.37f; break;
          }
        }
        compare(p, x);
      }
  }
}

TEST_F(Avx2Quantize, DequantizeMatchesScalar) {
  std::mt19937_64 rng(22);
  for (std::size_t n : {1, 7, 8, 9, 33, 100}) {
    std::vector<std::int32_t> x(n);
    for (auto& v : x)
      v = static_cast<std::int32_t>(rng() % 4 == 0 ? static_cast<std::int32_t>(rng() >> 1)
                                                   : static_cast<std::int32_t>(rng() % 512) - 256);
    const std::int32_t zp = static_cast<std::int32_t>(rng() % 255) - 128;
    const float s = std::ldexp(1.0f + static_cast<float>(rng() % 1000) / 1000.0f, static_cast<int>(rng() % 20) - 10);
    std::vector<float> got(n), want(n);
    for (auto& v : x) v = v / 2;  // keep x - zp inside int32
    avx2::dequantize(n, x.data(), zp, s, got.data());
    dequantize_scalar(n, x.data(), zp, s, want.data());
    ASSERT_EQ(std::memcmp(got.data(), want.data(), n * 4), 0);
  }
  // |x - zp| > 2^24: the int -> float conversion rounds (to nearest even) before the product.
  const std::int32_t big[] = {16777217, 16777219, -16777219, 33554435, 16777217, 16777217, 16777217, 16777217};
  float y[8], w[8];
  avx2::dequantize(8, big, 0, 1.0f, y);
  dequantize_scalar(8, big, 0, 1.0f, w);
  ASSERT_EQ(std::memcmp(y, w, sizeof y), 0);
  EXPECT_EQ(y[0], 16777216.0f);
  EXPECT_EQ(y[1], 16777220.0f);
}

}  // namespace
}  // namespace qspec::simd
