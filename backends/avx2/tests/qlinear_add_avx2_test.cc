// qlinear.add kernels: the scalar form (add_one) against hand-derived values of each convention's
// arithmetic (its roundings, its ties, ONNX Runtime's fused multiply-add), and the ymm (AVX2 + FMA)
// and zmm kernels against the scalar form over random parameters, random codes, every length 0..65
// and longer ones, and every code pair, int8 and uint8.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "qspec/simd/avx2_kernels.h"
#include "elementwise_kernel_tester.h"
#include "qspec/simd/cpu.h"
#include "x86_levels.h"

namespace qspec::simd {
namespace {

using K = AddParams::Kind;

AddParams base(K kind, bool u8) { return ew_testing::base_params<AddParams>(kind, u8); }

// XNNPACK: a ratio 1 (2^20 at shift 20) and b ratio 1/2, the rounding term 2^19: y = floor(a + b/2 + 1/2).
TEST(qlinear_add_scalar, XnnpackRoundsHalfUp) {
  AddParams p = base(K::kXnnpack, false);
  p.ma = 1 << 20, p.mb = 1 << 19, p.shift = 20, p.bias = 1 << 19;
  EXPECT_EQ(add_one(p, 3, 1), 4);    // 3.5
  EXPECT_EQ(add_one(p, -3, -1), -3); // -3.5
  EXPECT_EQ(add_one(p, 100, 100), 127);  // 150: clamped
  p.zy = 5;
  EXPECT_EQ(add_one(p, 3, 1), 9);
}

// TFLite with s_a = s_b = 1, s_y = 2: the input multipliers are 1/2 (2^30, exponent 0), the output's
// 2 / (2^20 * 2) = 2^-20 (2^30, exponent -19), so y = round((a + b) / 2): half away from zero with
// double rounding (RDBPOT), half up with single rounding.
TEST(qlinear_add_scalar, TfliteTiesByRounding) {
  for (K kind : {K::kTfliteDouble, K::kTfliteSingle}) {
    AddParams p = base(kind, false);
    p.m[0] = p.m[1] = p.m[2] = 1 << 30;
    p.e[0] = p.e[1] = 0, p.e[2] = -19;
    EXPECT_EQ(add_one(p, 1, 2), 2);
    EXPECT_EQ(add_one(p, -1, -2), kind == K::kTfliteDouble ? -2 : -1);
    EXPECT_EQ(add_one(p, 127, 127), 127);
    p.za = 1, p.zy = -3;
    EXPECT_EQ(add_one(p, 7, 2), 1);  // (6 + 2) / 2 - 3
  }
}

// ONNX Runtime rounds half to even; its multiply-adds are fused: 6 fl32(1/3) = 2 + 2^-24 exactly,
// which rounds to 2.0 on its own, so an unfused 2.0 - 1.5 ties to 0, the fused 0.5 + 2^-24 rounds to 1.
TEST(qlinear_add_scalar, OnnxRuntimeFusedAndHalfEven) {
  AddParams p = base(K::kOrt, false);
  p.fa = 0.5f, p.fb = 0.5f, p.fk = 0.0f;
  EXPECT_EQ(add_one(p, 1, 2), 2);  // 1.5
  EXPECT_EQ(add_one(p, 5, 0), 2);  // 2.5
  EXPECT_EQ(add_one(p, -1, 0), 0);  // -0.5
  p.fa = 1.0f / 3.0f, p.fb = 1.0f, p.fk = -1.5f;
  ASSERT_EQ(std::fma(p.fa, 6.0f, p.fk), 0.5f + 0x1.0p-24f);
  EXPECT_EQ(add_one(p, 6, 0), 1);
}

// oneDNN: products, sum and + z_y in binary32, the clamp in float before rounding half to even.
TEST(qlinear_add_scalar, OnednnFloatSteps) {
  AddParams p = base(K::kOnednn, true);
  p.fa = 0.5f, p.fb = 0.25f, p.fk = 3.0f;
  p.lo = 2, p.hi = 200;
  EXPECT_EQ(add_one(p, 1, 2), 4);      // 0.5 + 0.5 + 3 = 4
  EXPECT_EQ(add_one(p, 1, 0), 4);      // 3.5 ties to 4
  EXPECT_EQ(add_one(p, 3, 0), 4);      // 4.5 ties to 4
  EXPECT_EQ(add_one(p, 255, 255), 194);  // 127.5 + 63.75 + 3 = 194.25
  p.fk = -10.0f;
  EXPECT_EQ(add_one(p, 0, 0), 2);  // clamped to lo
}

// ATen: (a - z_a) s_a and (b - z_b) s_b rounded to binary32, their sum times fl32(1 / s_y), rne, + z_y.
TEST(qlinear_add_scalar, PytorchDequantizeSumRequantize) {
  AddParams p = base(K::kPytorch, false);
  p.fa = 0.5f, p.fb = 0.25f, p.fk = 1.0f;
  EXPECT_EQ(add_one(p, 3, 2), 2);   // 1.5 + 0.5
  EXPECT_EQ(add_one(p, 1, 0), 0);   // 0.5 ties to 0
  EXPECT_EQ(add_one(p, 3, 0), 2);   // 1.5 ties to 2
  p.za = 1, p.zb = -2, p.zy = 3, p.fk = 0.5f;
  EXPECT_EQ(add_one(p, 5, 2), 5);   // (2 + 1) * 0.5 = 1.5 -> 2, + 3
  p.fa = 100.0f;
  EXPECT_EQ(add_one(p, 127, 0), 127);  // saturates
  EXPECT_EQ(add_one(p, -128, 0), -128);
}

// Random parameters of each kind inside the kernels' precondition (AddParams::fast).
AddParams random_params(K kind, bool u8, std::mt19937& g) {
  AddParams p = base(kind, u8);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const auto logu = [&](float lo2, float hi2) {
    return std::exp2(std::uniform_real_distribution<float>(lo2, hi2)(g));
  };
  const int clo = u8 ? 0 : -128, chi = u8 ? 255 : 127;
  ew_testing::draw_zero_points_and_clamp(p, u8, g);
  switch (kind) {
    case K::kXnnpack:
      p.shift = uni(13, 30);
      p.ma = uni(0, 1 << 21), p.mb = uni(0, 1 << 21);
      p.bias = static_cast<std::int32_t>((std::int64_t{1} << (p.shift - 1)) - std::int64_t{p.ma} * p.za -
                                         std::int64_t{p.mb} * p.zb);
      break;
    case K::kOrt:
      p.fa = logu(-12, 4), p.fb = logu(-12, 4);
      p.fk = std::uniform_real_distribution<float>(-300.0f, 300.0f)(g);
      p.swap = uni(0, 1) == 1;
      p.lo = clo, p.hi = chi;
      break;
    case K::kTfliteDouble:
    case K::kTfliteSingle:
      for (int i = 0; i < 3; ++i) p.m[i] = uni(1 << 30, INT32_MAX), p.e[i] = uni(-31, 0);
      if (uni(0, 1) == 1) p.e[2] = uni(-24, -16);  // an output scale that keeps results in range
      break;
    case K::kOnednn:
      p.fa = logu(-8, 2), p.fb = logu(-8, 2);
      p.fk = static_cast<float>(p.zy);
      break;
    case K::kPytorch:
      p.fa = logu(-12, 0), p.fb = logu(-12, 0);
      p.fk = 1.0f / logu(-12, 0);
      break;
  }
  return p;
}

std::string name(K kind) {
  switch (kind) {
    case K::kXnnpack: return "xnnpack";
    case K::kOrt: return "onnxruntime";
    case K::kTfliteDouble: return "tflite.double_round";
    case K::kTfliteSingle: return "tflite.single_round";
    case K::kOnednn: return "onednn";
    case K::kPytorch: return "pytorch.onednn";
  }
  return "?";
}

// The kernels this CPU can run: ymm (AVX2 + FMA) and zmm (AVX512F + BW + VL + FMA).
std::vector<testing::WidthKernel<AddFn>> kernels() {
  return testing::ymm_zmm_kernels<AddFn>(avx2::qlinear_add, avx2::qlinear_add_zmm);
}

constexpr K kKinds[] = {K::kXnnpack, K::kOrt, K::kTfliteDouble, K::kTfliteSingle, K::kOnednn, K::kPytorch};

TEST(qlinear_add_avx2, MatchesScalarOnEveryTail) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2 + FMA";
  ew_testing::for_each_draw(
      kKinds, 40, 20261127, name, [](K k, bool u8, int, std::mt19937& g) { return random_params(k, u8, g); },
      [](const AddParams& p, std::mt19937& g, const std::string& what) {
        ew_testing::expect_scalar_on_lengths(kernels(), &add_scalar, p, ew_testing::tail_lengths(), g, what);
      });
}

// Every code pair once (65536 elements: the vector loop, no tail) for each kind and dtype, with
// random parameter sets.
TEST(qlinear_add_avx2, MatchesScalarOnEveryCodePair) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2 + FMA";
  ew_testing::for_each_draw(
      kKinds, 4, 7, name, [](K k, bool u8, int, std::mt19937& g) { return random_params(k, u8, g); },
      [](const AddParams& p, std::mt19937&, const std::string& what) {
        ew_testing::expect_scalar_on_every_code_pair(kernels(), &add_scalar, p, what);
      });
}

// The fused trap of OnnxRuntimeFusedAndHalfEven in the kernel: 40 elements (a vector step and a tail).
TEST(qlinear_add_avx2, OnnxRuntimeFuses) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2 + FMA";
  AddParams p = base(K::kOrt, false);
  p.fa = 1.0f / 3.0f, p.fb = 1.0f, p.fk = -1.5f;
  const std::vector<std::uint8_t> a(40, 6), b(40, 0);
  for (const auto& k : kernels()) {
    std::vector<std::uint8_t> y(40);
    k.fn(p, a.size(), a.data(), b.data(), y.data());
    EXPECT_EQ(y, std::vector<std::uint8_t>(40, 1)) << k.name;
  }
}

}  // namespace
}  // namespace qspec::simd
