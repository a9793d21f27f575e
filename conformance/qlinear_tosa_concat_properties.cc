// Properties of TOSA's convention of the quantized concatenation (spec/operators_qlinear_tosa_elementwise.md,
// qlinear.concat.tosa), against an independent transliteration on this machine's int64 / binary64:
// the legalization's convertConcatV2Op (`operand_scale != result_scale` on doubles, buildRescale's
// computeMultiplierAndShift with std::frexp / std::round, "SINGLE_ROUND") and the TOSA pseudocode
// (RESCALE: value = in - input_zp, apply_scale_32 without double rounding, + output_zp, clip;
// CONCAT's layout):
// - every (code, input zero point) of int8 for several scale ratios, and random parameter sets
//   (ties, shift caps, saturation), equals the transliteration (exhaustive over the codes);
// - random problems are CONCAT of the inputs mapped code by code (composition);
// - an input with the output's scale is copied whatever its zero point (E-TOSAOP-5);
// - error bound against the exact real value s_x (x - z_x) / s_y;
// - where tflite.reference accepts (int8: the output's parameters) the two conventions agree; on
//   uint8 models (converted to int8 as the legalization's uint8 pass does) they differ, measured;
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
#include "qspec/ref/ops/nn.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// computeMultiplierAndShift(double, 32) of the legalization (TOSA's right shift, capped at 62).
void cms(double d, std::int64_t* m, int* s) {
  int e = 0;
  const double q = std::frexp(d, &e);
  std::int64_t mm = std::llround(q * 2147483648.0);
  if (mm == (std::int64_t{1} << 31)) mm /= 2, ++e;
  int ss = 31 - e;
  if (ss > 62) mm >>= std::min(31, ss - 62), ss = 62;
  *m = mm;
  *s = ss;
}

// convertConcatV2Op + RESCALE.tosac for one int8 code; -1000 marks apply_scale_32's REQUIRE broken.
long long native(long long x, float sx, int zx, float sy, int zy) {
  const double operand_scale = sx, result_scale = sy;
  if (operand_scale == result_scale) return x;  // values_rescaled.push_back(v)
  std::int64_t m = 0;
  int s = 0;
  cms(operand_scale / result_scale, &m, &s);
  const std::int64_t value = x - zx, round = std::int64_t{1} << (s - 1);
  if (value < -round || value >= round) return -1000;
  const auto r = static_cast<std::int64_t>((static_cast<__int128>(value) * m + round) >> s);
  return std::clamp<long long>(r + zy, -128, 127);
}

QConcatParams params(DType t, std::vector<float> sx, std::vector<int> zx, float sy, int zy) {
  QConcatParams p;
  p.type = t;
  for (std::size_t i = 0; i < sx.size(); ++i) {
    p.input_types.push_back(t);
    p.x_scales.push_back(bits(sx[i]));
    p.x_zero_points.emplace_back(zx[i]);
  }
  p.y_scale = bits(sy);
  p.y_zero_point = Int(zy);
  return p;
}

float random_scale(std::mt19937_64& rng, int lo, int hi) {
  std::uniform_int_distribution<int> e(lo, hi);
  std::uniform_int_distribution<std::uint32_t> m(0, (1u << 23) - 1);
  const int ee = e(rng);
  const std::uint32_t mm = m(rng);
  return std::bit_cast<float>(static_cast<std::uint32_t>(ee + 127) << 23 | mm);
}

TEST(qlinear_concat_tosa, EveryCodeAndInputZeroPointIsTheTransliteratedRescale) {
  // Ratios: a half (ties), 3/8, long mantissas, above 1, and below 2^-31 (the shift cap at 62).
  const std::vector<std::pair<float, float>> ratios = {
      {0.5f, 1.0f}, {0.375f, 1.0f}, {0.1f, 0.3f}, {1.75f, 0.125f}, {0x1.555556p-42f, 1.0f}};
  long long n = 0;
  for (const auto& [sx, sy] : ratios)
    for (int zx = -128; zx <= 127; ++zx) {
      const int zy = (zx * 37) % 128;
      const auto f = qlinear_concat_tosa_map(params(DType::I8, {sx}, {zx}, sy, zy), 0);
      for (long long x = -128; x <= 127; ++x, ++n)
        ASSERT_EQ(f(Int(x)), Int(native(x, sx, zx, sy, zy))) << "x " << x << " z_x " << zx << " s_x/s_y " << sx / sy;
    }
  EXPECT_EQ(n, 5LL * 256 * 256);
}

TEST(qlinear_concat_tosa, RandomParameterSetsAreTheTransliteratedRescale) {
  std::mt19937_64 rng(20241);
  std::uniform_int_distribution<int> z(-128, 127);
  long long n = 0;
  for (int i = 0; i < 200; ++i) {
    const float sx = random_scale(rng, -12, -2), sy = random_scale(rng, -12, -2);
    const int zx = z(rng), zy = z(rng);
    const auto f = qlinear_concat_tosa_map(params(DType::I8, {sx}, {zx}, sy, zy), 0);
    for (long long x = -128; x <= 127; ++x, ++n) ASSERT_EQ(f(Int(x)), Int(native(x, sx, zx, sy, zy))) << "set " << i;
  }
  EXPECT_EQ(n, 200LL * 256);
}

TEST(qlinear_concat_tosa, IsTheConcatOfTheRescaledInputs) {
  std::mt19937_64 rng(20242);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  for (int i = 0; i < 150; ++i) {
    const auto rank = static_cast<std::size_t>(in(1, 4));
    const auto ax = static_cast<std::size_t>(in(0, static_cast<long long>(rank) - 1));
    Shape base;
    for (std::size_t d = 0; d < rank; ++d) base.push_back(in(1, 3));
    const float sy = random_scale(rng, -9, -3);
    const int zy = static_cast<int>(in(-128, 127));
    std::vector<float> sx;
    std::vector<int> zx;
    std::vector<IntArray> xs;
    const long long inputs = in(1, 5);
    for (long long k = 0; k < inputs; ++k) {
      Shape s = base;
      s[ax] = in(1, 3);
      IntArray x(s);
      for (auto& v : x.data) v = in(-128, 127);
      xs.push_back(x);
      sx.push_back(in(0, 3) == 0 ? sy : random_scale(rng, -11, -3));
      zx.push_back(static_cast<int>(in(-128, 127)));
    }
    // CONCAT.tosac: for each output index, walk the inputs along the axis (independent layout).
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < ax; ++d) outer *= base[d];
    for (std::size_t d = ax + 1; d < rank; ++d) inner *= base[d];
    std::vector<Int> expect;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::size_t k = 0; k < xs.size(); ++k) {
        const std::int64_t block = xs[k].shape[ax] * inner;
        for (std::int64_t j = 0; j < block; ++j) {
          const auto x = static_cast<long long>(xs[k].data[static_cast<std::size_t>(o * block + j)]);
          expect.emplace_back(native(x, sx[k], zx[k], sy, zy));
        }
      }
    const auto axis = in(0, 1) ? static_cast<long long>(ax) : static_cast<long long>(ax) - static_cast<long long>(rank);
    const IntArray y = qlinear_concat(xs, axis, params(DType::I8, sx, zx, sy, zy), QConcatConvention::Tosa);
    ASSERT_EQ(y.data, expect) << "problem " << i;
  }
}

TEST(qlinear_concat_tosa, AnInputWithTheOutputsScaleIsCopiedWhateverItsZeroPoint) {
  std::mt19937_64 rng(20243);
  std::uniform_int_distribution<int> z(-128, 127);
  for (int i = 0; i < 40; ++i) {
    const float s = random_scale(rng, -20, 5);
    const int zx = z(rng), zy = z(rng);
    const auto f = qlinear_concat_tosa_map(params(DType::I8, {s}, {zx}, s, zy), 0);
    for (long long x = -128; x <= 127; ++x) ASSERT_EQ(f(Int(x)), Int(x)) << "z_x " << zx << " z_y " << zy;
  }
  // The smallest case of E-TOSAOP-5: s = 1, z_x = 0, z_y = 10: code 5 (real 5) stays 5 (real -5).
  EXPECT_EQ(qlinear_concat_tosa_map(params(DType::I8, {1.0f}, {0}, 1.0f, 10), 0)(Int(5)), Int(5));
}

TEST(qlinear_concat_tosa, WithinTheStatedBoundOfTheRealValue) {
  std::mt19937_64 rng(20244);
  std::uniform_int_distribution<int> z(-128, 127);
  long long checked = 0;
  for (int i = 0; i < 80; ++i) {
    const float sx = random_scale(rng, i < 10 ? -50 : -12, -2), sy = random_scale(rng, -12, -2);
    if (sx == sy) continue;
    const int zx = z(rng), zy = z(rng);
    const auto f = qlinear_concat_tosa_map(params(DType::I8, {sx}, {zx}, sy, zy), 0);
    for (long long x = -128; x <= 127; ++x) {
      const Int y = f(Int(x));
      if (y == -128 || y == 127) continue;
      const Rat r = Rat(Int(x - zx)) * f32_value(bits(sx)) / f32_value(bits(sy));
      ASSERT_LE(abs(Rat(y) - (r + zy)), Rat(1, 2) + abs(r) / Rat(pow2(30)) + Rat(1) / Rat(pow2(50)))
          << "x " << x << " set " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000);
}

TEST(qlinear_concat_tosa, AgreesWithTfliteReferenceWhereItAccepts) {
  // TFLite's int8 CONCATENATION accepts only inputs with the output's parameters: both copy.
  std::mt19937_64 rng(20245);
  std::uniform_int_distribution<long long> code(-128, 127);
  for (int i = 0; i < 40; ++i) {
    const float s = random_scale(rng, -12, 0);
    const int zp = static_cast<int>(code(rng));
    IntArray a(Shape{3, 4}), b(Shape{3, 2});
    for (auto& v : a.data) v = code(rng);
    for (auto& v : b.data) v = code(rng);
    const QConcatParams p = params(DType::I8, {s, s}, {zp, zp}, s, zp);
    ASSERT_TRUE(qlinear_concat({a, b}, 1, p, QConcatConvention::Tosa) ==
                qlinear_concat({a, b}, 1, p, QConcatConvention::TfliteReference));
  }
}

TEST(qlinear_concat_tosa, DiffersFromTfliteUint8Requantization) {
  // A uint8 model through the legalization's uint8 -> int8 conversion (codes and zero points - 128):
  // TFLite's ConcatenationWithScaling rounds a float value half away, TOSA the fixed-point value
  // half up; an equal-scale input with another zero point is requantized by TFLite, copied here.
  std::mt19937_64 rng(20246);
  std::uniform_int_distribution<int> z(0, 255);
  std::uniform_int_distribution<int> pick(0, 4);
  long long codes = 0, differ = 0, copied_differ = 0, tie_differ = 0;
  for (int i = 0; i < 400; ++i) {
    // Sets 0 mod 10: equal scales; odd sets: dyadic ratios k / 2^j (exact ties); others random.
    const bool same_scale = i % 10 == 0, dyadic = i % 2 == 1;
    const float sy = dyadic ? std::ldexp(1.0f, -z(rng) % 8 - 2) : random_scale(rng, -9, -3);
    const float k = static_cast<float>(2 * pick(rng) + 1);
    const float sx = same_scale ? sy : dyadic ? std::ldexp(k * sy, -1 - pick(rng) % 3) : random_scale(rng, -10, -2);
    const int zx = z(rng), zy = z(rng);
    const auto tfl = qlinear_concat_map(params(DType::U8, {sx}, {zx}, sy, zy), 0, QConcatConvention::TfliteReference);
    const auto tosa = qlinear_concat_tosa_map(params(DType::I8, {sx}, {zx - 128}, sy, zy - 128), 0);
    for (long long x = 0; x <= 255; ++x, ++codes) {
      const Int a = tfl(Int(x)), b = tosa(Int(x - 128)) + 128;
      if (a == b) continue;
      ++differ;
      if (same_scale) {
        ++copied_differ;
        ASSERT_EQ(b, Int(x)) << "copied";
        continue;
      }
      // Otherwise one code apart, at an exact negative tie (TFLite half away, TOSA half up) or
      // where TFLite's float value (within 2^-21 (|v| + |s_x z_x / s_y|), its clause's bound) and
      // TOSA's fixed-point value (within 2^-30 |v|) straddle a half.
      ASSERT_LE(abs(a - b), Int(1)) << "x " << x << " set " << i;
      const Rat v = Rat(Int(x - zx)) * f32_value(bits(sx)) / f32_value(bits(sy));
      const Rat half = Rat(round_floor(v)) + Rat(1, 2);
      const Rat slack = (abs(v) + abs(Rat(Int(zx)) * f32_value(bits(sx)) / f32_value(bits(sy)))) / Rat(pow2(21)) +
                        abs(v) / Rat(pow2(30));
      ASSERT_LE(abs(v - half), slack) << "x " << x << " set " << i << ": a difference away from a half";
      if (v == half) {
        ASSERT_TRUE(v < 0 && a + 1 == b) << "x " << x << " set " << i << ": an exact tie must be negative";
        ++tie_differ;
      }
    }
  }
  std::printf(
      "uint8 codes %lld: %lld differ (%lld from equal-scale copies, %lld at negative exact ties, %lld near a "
      "half)\n",
      codes, differ, copied_differ, tie_differ, differ - copied_differ - tie_differ);
  EXPECT_GT(copied_differ, 0);
  EXPECT_GT(tie_differ, 0);
  // A negative tie: (x - z_x) s_x / s_y = -2.5: TFLite -3 (half away), TOSA -2 (half up).
  const auto tfl =
      qlinear_concat_map(params(DType::U8, {0.5f}, {10}, 1.0f, 100), 0, QConcatConvention::TfliteReference);
  const auto tosa = qlinear_concat_tosa_map(params(DType::I8, {0.5f}, {-118}, 1.0f, -28), 0);
  EXPECT_EQ(tfl(Int(5)), Int(97));
  EXPECT_EQ(tosa(Int(5 - 128)) + 128, Int(98));
}

TEST(qlinear_concat_tosa, ErrorIfs) {
  IntArray a(Shape{2, 2}), b(Shape{2, 1});
  auto run = [&](const QConcatParams& p, std::int64_t axis) {
    return qlinear_concat({a, b}, axis, p, QConcatConvention::Tosa);
  };
  EXPECT_NO_THROW(run(params(DType::I8, {0.5f, 1.0f}, {0, 0}, 1.0f, 0), 1));
  EXPECT_THROW(run(params(DType::U8, {0.5f, 1.0f}, {0, 0}, 1.0f, 0), 1), ErrorIf);     // uint8
  EXPECT_THROW(run(params(DType::I8, {0.5f, 1.0f}, {128, 0}, 1.0f, 0), 1), ErrorIf);   // input_zp
  EXPECT_THROW(run(params(DType::I8, {1.0f, 1.0f}, {0, -129}, 1.0f, 0), 1), ErrorIf);  // a copied input's zp
  EXPECT_THROW(run(params(DType::I8, {0.5f, 1.0f}, {0, 0}, 1.0f, 128), 1), ErrorIf);   // output_zp
  EXPECT_THROW(run(params(DType::I8, {0x1p29f, 1.0f}, {0, 0}, 1.0f, 0), 1), ErrorIf);  // shift 1
  EXPECT_NO_THROW(run(params(DType::I8, {0x1p28f, 1.0f}, {0, 0}, 1.0f, 0), 1));        // shift 2, codes 0
  EXPECT_THROW(run(params(DType::I8, {0.5f, 1.0f}, {0, 0}, 1.0f, 0), 2), ErrorIf);     // axis = rank
  EXPECT_THROW(run(params(DType::I8, {0.5f, 1.0f}, {0, 0}, 1.0f, 0), 0), ErrorIf);     // extents
  EXPECT_THROW(run(params(DType::I8, {0.5f}, {0}, 1.0f, 0), 1), ErrorIf);              // counts
  IntArray r7(Shape{1, 1, 1, 1, 1, 1, 1});
  EXPECT_THROW(qlinear_concat({r7, r7}, 0, params(DType::I8, {1.0f, 1.0f}, {0, 0}, 1.0f, 0), QConcatConvention::Tosa),
               ErrorIf);
  EXPECT_NO_THROW(qlinear_concat({r7, r7}, 0, params(DType::I8, {1.0f, 1.0f}, {0, 0}, 1.0f, 0),
                                 QConcatConvention::TfliteReference));
}

}  // namespace
