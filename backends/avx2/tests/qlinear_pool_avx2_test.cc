// Average-pooling kernels: the scalar form (pool_one) against hand-derived values of each convention's
// window arithmetic (its roundings, its ties, its divisor at a padded edge), and the ymm (AVX2) and
// zmm kernels against pool_scalar over random parameters and codes, every channel count 0..65 (two
// 16-lane steps, four 8-lane ones and every tail) and window shapes with padding on every side
// (padding-excluded counts from 1 to K), int8 and uint8.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "qspec/simd/avx2_kernels.h"
#include "qspec/simd/cpu.h"
#include "elementwise_kernel_tester.h"
#include "x86_levels.h"

namespace qspec::simd {
namespace {

using K = PoolParams::Kind;

PoolParams base(K kind, bool u8) { return ew_testing::base_params<PoolParams>(kind, u8); }

std::int32_t one(const PoolParams& p, std::vector<std::int32_t> taps) { return pool_one(p, taps.data(), taps.size()); }

// XNNPACK's windowed kernel: S = 1/4 (mult 2^23, shift 25); acc = sum (X - zx) times S rounded half
// away from zero (2.5 -> 3, -2.5 -> -3), + zy, clamped; an empty window gives zy.
TEST(qlinear_pool_scalar, XnnpackRoundsHalfAway) {
  PoolParams p = base(K::kXnnpack, true);
  p.mult = 1u << 23, p.shift = 25, p.zx = 10, p.zy = 100;
  EXPECT_EQ(one(p, {12, 13, 13, 12}), 100 + 3);  // acc 10: 2.5
  EXPECT_EQ(one(p, {8, 7, 7, 8}), 100 - 3);      // acc -10: -2.5
  EXPECT_EQ(one(p, {11, 11, 11, 10}), 100 + 1);  // acc 3: 0.75
  EXPECT_EQ(one(p, {}), 100);
  p.hi = 101;
  EXPECT_EQ(one(p, {12, 13, 13, 12}), 101);
}

// The fp32 epilogue rounds half to even: acc 10 S = 2.5 -> 2, acc 14 S = 3.5 -> 4.
TEST(qlinear_pool_scalar, Fp32RoundsHalfEven) {
  PoolParams p = base(K::kFp32, false);
  p.scale = 0.25f, p.zx = -1, p.zy = 3;
  EXPECT_EQ(one(p, {1, 2, 2, 1}), 3 + 2);  // acc 10
  EXPECT_EQ(one(p, {2, 2, 2, 4}), 3 + 4);  // acc 14
  EXPECT_EQ(one(p, {-1, -1, -1, -1}), 3);  // acc 0
}

// ATen's average (per_count): fl32(1 / fl32(c)) per window, c = K or the taps inside. Two taps of
// X - zx = 2, 3 in a 2x2 window: 5 / 2 = 2.5 -> 2 without the padding, 5 / 4 = 1.25 -> 1 with it.
TEST(qlinear_pool_scalar, AtenDivisorPerWindow) {
  PoolParams p = base(K::kFp32, false);
  p.per_count = true, p.zx = p.zy = -4;
  p.g.kh = p.g.kw = 2;
  EXPECT_EQ(one(p, {-2, -1}), -4 + 2);
  p.include = true;
  EXPECT_EQ(one(p, {-2, -1}), -4 + 1);
}

// oneDNN: the jit kernels multiply by fl32(1/14) = (1/14)(1 + 4.5e-8), which takes the tie
// 91 / 14 = 6.5 past it (7); ref_pooling's division keeps the tie and rounds it to even (6).
TEST(qlinear_pool_scalar, OnednnReciprocalBreaksTheTie) {
  ASSERT_EQ(91.0f * (1.0f / 14.0f), 6.5f + 0x1.0p-21f);
  PoolParams p = base(K::kOnednn, false);
  p.g.kh = 2, p.g.kw = 7;
  const std::vector<std::int32_t> taps = {6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7};
  p.jit = true;
  EXPECT_EQ(one(p, taps), 7);
  p.jit = false;
  EXPECT_EQ(one(p, taps), 6);
}

// ONNX Runtime: the dequantized taps summed in binary32, divided by K (counting the padding) or by
// the taps inside, / y_scale, + zy before rne (ties to even). Two taps of X - zx = 1 in a 2x2
// window with xs = ys = 1: 2 / 4 + 10 = 10.5 -> 10 counting the padding, 2 / 2 + 10 = 11 without.
TEST(qlinear_pool_scalar, OnnxRuntimeDivisorAndHalfEven) {
  PoolParams p = base(K::kOrt, false);
  p.xs = 1.0f, p.ys = 1.0f, p.zx = 2, p.zy = 10, p.fzy = 10.0f;
  p.g.kh = p.g.kw = 2;
  p.include = true;
  EXPECT_EQ(one(p, {3, 3}), 10);
  p.include = false;
  EXPECT_EQ(one(p, {3, 3}), 11);
  EXPECT_EQ(one(p, {5, 4}), 12);  // (3 + 2) / 2 + 10 = 12.5 -> 12
  EXPECT_EQ(one(p, {5, 6}), 14);  // (3 + 4) / 2 + 10 = 13.5 -> 14
  p.ys = 0.01f;
  EXPECT_EQ(one(p, {5, 6}), 127);  // saturates
}

// TFLite: the codes' sum over the taps inside, rounded half away from zero (7/2 -> 4, -7/2 -> -4,
// 5/3 -> 2, -5/3 -> -2), then the fused clamp.
TEST(qlinear_pool_scalar, TfliteRoundsHalfAwayOverTapsInside) {
  PoolParams p = base(K::kTflite, false);
  EXPECT_EQ(one(p, {3, 4}), 4);
  EXPECT_EQ(one(p, {-3, -4}), -4);
  EXPECT_EQ(one(p, {1, 2, 2}), 2);
  EXPECT_EQ(one(p, {-1, -2, -2}), -2);
  EXPECT_EQ(one(p, {1, 1, 2, 2}), 2);  // 1.5 -> 2
  p.lo = -1;
  EXPECT_EQ(one(p, {-3, -4}), -1);
}

// TFLite's int8 Mean: MBQM first (s_x / s_y = 1/2: multiplier 2^30, exponent 0), then the rounded
// division by n, + zy: acc 6 -> MBQM 3 -> 3 / 4 = 0.75 -> 1; acc -6 -> -3 -> -1; acc 5 -> 2.5 -> 3
// (SRDHM's tie away from zero) -> 3 / 4 -> 1; acc 2 -> 1 -> 1/4 -> 0.
TEST(qlinear_pool_scalar, TfliteMeanRoundsTwice) {
  PoolParams p = base(K::kTfliteMean, false);
  p.qm = 1 << 30, p.left = 0, p.right = 0, p.zx = 1, p.zy = 5;
  EXPECT_EQ(one(p, {2, 3, 3, 2}), 5 + 1);    // acc 6
  EXPECT_EQ(one(p, {0, -1, -1, 0}), 5 - 1);  // acc -6
  EXPECT_EQ(one(p, {3, 2, 2, 2}), 5 + 1);    // acc 5
  EXPECT_EQ(one(p, {2, 2, 1, 1}), 5);        // acc 2
}

// Random parameters of each kind inside the kernels' precondition (PoolParams::fast).
PoolParams random_params(K kind, bool u8, std::mt19937& g) {
  PoolParams p = base(kind, u8);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const auto logu = [&](float lo2, float hi2) { return std::exp2(std::uniform_real_distribution<float>(lo2, hi2)(g)); };
  const int clo = u8 ? 0 : -128, chi = u8 ? 255 : 127;
  p.zx = uni(clo, chi), p.zy = uni(clo, chi);
  p.lo = uni(clo, chi), p.hi = uni(clo, chi);
  if (p.lo > p.hi) std::swap(p.lo, p.hi);
  if (uni(0, 3) == 0) p.lo = clo, p.hi = chi;
  switch (kind) {
    case K::kXnnpack: {
      const float S = logu(-14, 2);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &S, 4);
      p.mult = (bits & 0x7fffffu) | 0x800000u, p.shift = static_cast<int>(150 - (bits >> 23));
      break;
    }
    case K::kFp32:
      p.scale = logu(-14, 2);
      p.per_count = uni(0, 1) == 1, p.include = uni(0, 1) == 1;
      break;
    case K::kOrt:
      p.xs = logu(-10, 2), p.ys = logu(-10, 2), p.fzy = static_cast<float>(p.zy), p.include = uni(0, 1) == 1;
      p.lo = clo, p.hi = chi;
      break;
    case K::kTflite: p.zx = p.zy = 0; break;
    case K::kOnednn: p.zx = p.zy = 0, p.include = uni(0, 1) == 1, p.jit = uni(0, 1) == 1; break;
    case K::kTfliteMean:
      p.qm = uni(1 << 30, INT32_MAX);
      p.left = 0, p.right = uni(0, 8);
      p.lo = -128, p.hi = 127;
      break;
  }
  return p;
}

std::string name(K kind) {
  switch (kind) {
    case K::kXnnpack: return "xnnpack";
    case K::kFp32: return "fp32";
    case K::kOrt: return "onnxruntime";
    case K::kTflite: return "tflite";
    case K::kTfliteMean: return "tflite.mean";
    case K::kOnednn: return "onednn";
  }
  return "?";
}

// The kernels this CPU can run: ymm (AVX2 + FMA) and zmm (AVX512F + BW + VL + FMA).
std::vector<testing::WidthKernel<PoolFn>> kernels() {
  return testing::ymm_zmm_kernels<PoolFn>(avx2::qlinear_pool, avx2::qlinear_pool_zmm);
}

// Window shapes: 3x3 stride 1 pad 1 (corner counts 4, edges 6), 2x3 stride 2 asymmetric pads, a 3x2
// window with top and bottom pads that leave one row inside, a global window (K = H W), and top pads
// as tall as the window, whose first row of windows lies in the padding (XNNPACK's kinds only).
struct Shape {
  std::int64_t h, w, kh, kw, sh, sw, pt, pl, pb, pr;
};
const Shape kShapes[] = {{5, 4, 3, 3, 1, 1, 1, 1, 1, 1},
                         {5, 6, 2, 3, 2, 2, 1, 0, 0, 2},
                         {3, 3, 3, 2, 1, 2, 2, 1, 2, 1},
                         {3, 4, 3, 4, 1, 1, 0, 0, 0, 0},
                         {2, 3, 2, 2, 1, 1, 2, 0, 0, 1}};

PoolGeom geom(const Shape& s, std::int64_t c) {
  PoolGeom g;
  g.n = 2, g.h = s.h, g.w = s.w, g.c = c, g.kh = s.kh, g.kw = s.kw, g.sh = s.sh, g.sw = s.sw, g.pt = s.pt, g.pl = s.pl;
  g.oh = (s.h + s.pt + s.pb - s.kh) / s.sh + 1;
  g.ow = (s.w + s.pl + s.pr - s.kw) / s.sw + 1;
  return g;
}

TEST(qlinear_pool_avx2, MatchesScalarOnEveryChannelCountAndWindow) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2 + FMA";
  std::mt19937 g(20261127);
  std::uniform_int_distribution<int> byte(0, 255);
  for (K kind : {K::kXnnpack, K::kFp32, K::kOrt, K::kTflite, K::kTfliteMean, K::kOnednn})
    for (bool u8 : {false, true})
      for (const Shape& s : kShapes) {
        if (kind == K::kTfliteMean && (s.pt || s.pl || s.pb || s.pr || s.kh != s.h)) continue;  // global only
        if ((kind == K::kOrt || kind == K::kTflite) && s.pt >= s.kh) continue;                  // a window without taps
        for (int draw = 0; draw < 6; ++draw) {
          PoolParams p = random_params(kind, u8, g);
          for (std::int64_t c = 0; c <= 65; ++c) {
            p.g = geom(s, c);
            const std::size_t nx = static_cast<std::size_t>(p.g.n * p.g.h * p.g.w * c);
            const std::size_t ny = static_cast<std::size_t>(p.g.n * p.g.oh * p.g.ow * c);
            std::vector<std::uint8_t> x(nx + 1), want(ny + 1, 0xA5), got(ny + 1, 0xA5);
            for (auto& v : x) v = static_cast<std::uint8_t>(byte(g));
            pool_scalar(p, x.data(), want.data());
            for (const auto& k : kernels()) {
              k.fn(p, x.data(), got.data());
              ASSERT_EQ(got, want) << k.name << " " << name(kind) << (u8 ? " uint8" : " int8") << " window " << s.kh
                                   << "x" << s.kw << " draw " << draw << " channels " << c;
            }
          }
        }
      }
}

// The ties of each kind in the kernels, on 40 channels (two zmm steps, one partial): every tap holds
// the same codes, so the lanes must agree with the hand-derived scalar values above.
TEST(qlinear_pool_avx2, TiesInTheKernels) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2 + FMA";
  const std::int64_t C = 40;
  const auto run = [&](PoolParams p, std::int64_t h, std::int64_t w, std::vector<std::uint8_t> pixel_codes,
                       std::int32_t want) {
    p.g.n = 1, p.g.h = h, p.g.w = w, p.g.c = C, p.g.kh = h, p.g.kw = w, p.g.oh = p.g.ow = 1;
    std::vector<std::uint8_t> x;
    for (auto code : pixel_codes) x.insert(x.end(), static_cast<std::size_t>(C), code);
    for (const auto& k : kernels()) {
      std::vector<std::uint8_t> y(C);
      k.fn(p, x.data(), y.data());
      EXPECT_EQ(y, std::vector<std::uint8_t>(C, static_cast<std::uint8_t>(want))) << k.name << " " << name(p.kind);
    }
  };
  PoolParams xnn = base(K::kXnnpack, true);
  xnn.mult = 1u << 23, xnn.shift = 25, xnn.zx = 10, xnn.zy = 100;
  run(xnn, 2, 2, {12, 13, 13, 12}, 103);
  run(xnn, 2, 2, {8, 7, 7, 8}, 97);
  PoolParams f = base(K::kFp32, false);
  f.scale = 0.25f, f.zx = -1, f.zy = 3;
  run(f, 2, 2, {1, 2, 2, 1}, 5);
  PoolParams t = base(K::kTflite, false);
  run(t, 1, 2, {static_cast<std::uint8_t>(-3), static_cast<std::uint8_t>(-4)}, -4);
  PoolParams m = base(K::kTfliteMean, false);
  m.qm = 1 << 30, m.zx = 1, m.zy = 5;
  run(m, 2, 2, {3, 2, 2, 2}, 6);
  PoolParams d = base(K::kOnednn, false);
  d.jit = true;
  run(d, 2, 7, {6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7}, 7);
  d.jit = false;
  run(d, 2, 7, {6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7}, 6);
}

}  // namespace
}  // namespace qspec::simd
