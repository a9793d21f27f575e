// Properties of PyTorch's quantized concatenation and leaky ReLU (spec/operators_qlinear_pytorch_concat.md,
// qlinear.concat.pytorch_onednn and qlinear.leaky_relu.pytorch_onednn):
// - every code of int8 and uint8, for parameter sets of every kind, equals ATen's scalar
//   dequantize_val / quantize_val (and the leaky slope) transliterated on this machine's binary32;
// - random concatenations are mrt.op.concat of the inputs mapped code by code (composition);
// - an input with the output's parameters keeps its codes (qcat_nhwc_kernel's memcpy is the clause);
// - error bounds against the exact real values.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/nn.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/ops/qlinear_lut.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// dequantize_val: (static_cast<float>(q) - zero_point) * scale with a double scale, returned as float.
float dequantize_val(long long q, float s, long long z) {
  return static_cast<float>((static_cast<float>(q) - static_cast<float>(z)) * static_cast<double>(s));
}
// quantize_val (no FBGEMM): zero_point + nearbyint(value * (1.0f / scale)), clamped.
long long quantize_val(float v, float s, long long z, DType t) {
  volatile float inv = 1.0f / s;
  volatile float p = v * inv;
  const float r = static_cast<float>(z) + std::nearbyint(static_cast<float>(p));
  return std::clamp(static_cast<long long>(r), lo_of(t), hi_of(t));
}
long long leaky_native(long long q, float sx, long long zx, float alpha, float sy, long long zy, DType t) {
  const float d = dequantize_val(q, sx, zx);
  volatile float e = d > 0 ? d : d * alpha;
  return quantize_val(e, sy, zy, t);
}

QConcatParams one_input(DType t, float sx, long long zx, float sy, long long zy) {
  QConcatParams p;
  p.type = t;
  p.input_types = {t};
  p.x_scales = {bits(sx)};
  p.x_zero_points = {Int(zx)};
  p.y_scale = bits(sy);
  p.y_zero_point = Int(zy);
  return p;
}

struct Set {
  float sx;
  long long zx;
  float sy;
  long long zy;
  float alpha;
};
// Scales of every kind: dyadic (ties), decimal, a ratio above 2^8 and below 2^-8 (no engine limit),
// the E-LIBTORCH-EW-1 scale 0.1f; zero points at both ends.
const std::vector<Set> kSets = {{0.5f, 3, 1.0f, 0, 0.5f},       {0.25f, -7, 0.5f, 1, 0.125f},
                                {0.1f, 3, 0.2f, 100, 0.01f},    {4.0f, 127, 1.0f, -100, 1.5f},
                                {1.75f, 9, 0.125f, -3, -0.25f}, {0.0078125f, -128, 0.01f, 2, 0.3f},
                                {3e-5f, 0, 1e-2f, 120, 0.1f},   {0x1.000002p-3f, 1, 0.125f, 1, 0x1.fffffep-1f}};

long long clip(long long z, DType t) { return std::clamp(z, lo_of(t), hi_of(t)); }

TEST(qlinear_concat_pytorch_onednn, EveryCodeEqualsTheHardwareTransliteration) {
  long long n = 0;
  for (DType t : {DType::I8, DType::U8})
    for (const Set& s : kSets) {
      const long long zx = clip(s.zx + (t == DType::U8 ? 128 : 0), t), zy = clip(s.zy + (t == DType::U8 ? 128 : 0), t);
      const auto f = qlinear_concat_pytorch_map(one_input(t, s.sx, zx, s.sy, zy), 0);
      for (long long q = lo_of(t); q <= hi_of(t); ++q, ++n)
        ASSERT_EQ(f(Int(q)), Int(quantize_val(dequantize_val(q, s.sx, zx), s.sy, zy, t)))
            << "code " << q << " s_x " << s.sx << " z_x " << zx << " s_y " << s.sy << " z_y " << zy;
    }
  EXPECT_EQ(n, 2LL * 8 * 256);
}

TEST(qlinear_concat_pytorch_onednn, TheOutputsParametersKeepTheCodes) {
  std::mt19937_64 rng(20131);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  for (int i = 0; i < 40; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    const float s = std::bit_cast<float>(static_cast<std::uint32_t>(in(127 - 60, 127 + 30)) << 23 |
                                         static_cast<std::uint32_t>(in(0, (1 << 23) - 1)));
    const long long z = in(lo_of(t), hi_of(t));
    const auto f = qlinear_concat_pytorch_map(one_input(t, s, z, s, z), 0);
    for (long long q = lo_of(t); q <= hi_of(t); ++q) ASSERT_EQ(f(Int(q)), Int(q)) << "scale " << s << " zp " << z;
  }
}

TEST(qlinear_concat_pytorch_onednn, IsTheConcatOfTheRequantizedInputs) {
  std::mt19937_64 rng(20132);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  for (int i = 0; i < 150; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    const auto rank = static_cast<std::size_t>(in(1, 4));
    const auto ax = static_cast<std::size_t>(in(0, static_cast<long long>(rank) - 1));
    Shape base;
    for (std::size_t d = 0; d < rank; ++d) base.push_back(in(1, 3));
    QConcatParams p;
    p.type = t;
    const int ey = static_cast<int>(in(-9, -3));
    const float sy = std::ldexp(1.0f + static_cast<float>(in(0, 255)) / 256.0f, ey);
    p.y_scale = bits(sy);
    p.y_zero_point = Int(in(lo_of(t), hi_of(t)));
    std::vector<IntArray> xs, mapped;
    const long long inputs = in(1, 5);
    for (long long k = 0; k < inputs; ++k) {
      Shape s = base;
      s[ax] = in(1, 3);
      IntArray x(s), m(s);
      const float sx =
          std::ldexp(1.0f + static_cast<float>(in(0, 1 << 20)) / (1 << 20), ey + static_cast<int>(in(-2, 2)));
      const long long zx = in(lo_of(t), hi_of(t));
      for (std::size_t j = 0; j < x.data.size(); ++j) {
        const long long q = in(lo_of(t), hi_of(t));
        x.data[j] = Int(q);
        m.data[j] = Int(quantize_val(dequantize_val(q, sx, zx), sy, static_cast<long long>(p.y_zero_point), t));
      }
      p.input_types.push_back(t);
      p.x_scales.push_back(bits(sx));
      p.x_zero_points.emplace_back(zx);
      xs.push_back(x);
      mapped.push_back(m);
    }
    const auto axis = in(0, 1) ? static_cast<long long>(ax) : static_cast<long long>(ax) - static_cast<long long>(rank);
    ASSERT_TRUE(qlinear_concat(xs, axis, p, QConcatConvention::PytorchOnednn) == concat(mapped, axis))
        << "problem " << i;
  }
}

// An input zero point outside the dtype is an ERROR_IF (quantize_per_tensor rejects it); the output's
// a REQUIRE (the channels-last kernel computes with it).
TEST(qlinear_concat_pytorch_onednn, RejectsInputZeroPointsOutsideTheDtype) {
  EXPECT_THROW(qlinear_concat_pytorch_map(one_input(DType::U8, 1.0f, 256, 1.0f, 0), 0), ErrorIf);
  EXPECT_THROW(qlinear_concat_pytorch_map(one_input(DType::I8, 1.0f, 0, 1.0f, 128), 0), RequireViolated);
  EXPECT_NO_THROW(qlinear_concat_pytorch_map(one_input(DType::I8, 1.0f, -128, 1.0f, 127), 0));
}

// |y - (z_y + r)| <= 1/2 + ((1 + 2^-24)^k - 1) |r| unless saturated: k roundings of relative error 2^-24.
void expect_within(const Int& y, const Rat& r, const Int& zy, DType t, int roundings, long long& checked) {
  if (y == Int(lo_of(t)) || y == Int(hi_of(t))) return;
  Rat g = 1;
  for (int k = 0; k < roundings; ++k) g *= Rat(1) + pow2r(-24);
  const Rat bound = Rat(1, 2) + (g - 1) * (r < 0 ? -r : r);
  const Rat err = Rat(y - zy) - r;
  EXPECT_LE(err < 0 ? -err : err, bound) << "y " << y << " r " << r;
  ++checked;
}

TEST(qlinear_concat_pytorch_onednn, WithinTheStatedBoundOfTheRealValue) {
  std::mt19937_64 rng(20133);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  long long checked = 0;
  for (int i = 0; i < 30; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    const std::uint32_t sx =
        static_cast<std::uint32_t>(in(127 - 12, 127 - 2)) << 23 | static_cast<std::uint32_t>(in(0, (1 << 23) - 1));
    const std::uint32_t sy =
        static_cast<std::uint32_t>(in(127 - 12, 127 - 2)) << 23 | static_cast<std::uint32_t>(in(0, (1 << 23) - 1));
    const long long zx = in(lo_of(t), hi_of(t)), zy = in(lo_of(t), hi_of(t));
    const auto f =
        qlinear_concat_pytorch_map(one_input(t, std::bit_cast<float>(sx), zx, std::bit_cast<float>(sy), zy), 0);
    for (long long q = lo_of(t); q <= hi_of(t); ++q)
      expect_within(f(Int(q)), f32_value(sx) * Rat(q - zx) / f32_value(sy), Int(zy), t, 3, checked);
  }
  EXPECT_GT(checked, 1500);
}

QPoolParams leaky_params(DType t, float sx, long long zx, float sy, long long zy) {
  QPoolParams p;
  p.type = t;
  p.x_scale = bits(sx);
  p.x_zero_point = Int(zx);
  p.y_scale = bits(sy);
  p.y_zero_point = Int(zy);
  return p;
}

TEST(qlinear_leaky_relu_pytorch_onednn, EveryCodeEqualsTheHardwareTransliteration) {
  long long n = 0;
  for (DType t : {DType::I8, DType::U8})
    for (const Set& s : kSets) {
      const long long zx = clip(s.zx + (t == DType::U8 ? 128 : 0), t), zy = clip(s.zy + (t == DType::U8 ? 128 : 0), t);
      const auto table =
          qlinear_leaky_relu_table(bits(s.alpha), leaky_params(t, s.sx, zx, s.sy, zy), QLutConvention::PytorchOnednn);
      for (long long q = lo_of(t); q <= hi_of(t); ++q, ++n)
        ASSERT_EQ(table[static_cast<std::size_t>(q - lo_of(t))], Int(leaky_native(q, s.sx, zx, s.alpha, s.sy, zy, t)))
            << "code " << q << " alpha " << s.alpha;
    }
  EXPECT_EQ(n, 2LL * 8 * 256);
}

// The input's parameters for the output (at::leaky_relu of a quantized tensor): codes at or above
// the zero point are kept.
TEST(qlinear_leaky_relu_pytorch_onednn, TheInputsParametersKeepTheNonNegativeCodes) {
  std::mt19937_64 rng(20134);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  for (int i = 0; i < 25; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    const float s = std::bit_cast<float>(static_cast<std::uint32_t>(in(127 - 30, 127 + 10)) << 23 |
                                         static_cast<std::uint32_t>(in(0, (1 << 23) - 1)));
    const long long z = in(lo_of(t), hi_of(t));
    const auto table =
        qlinear_leaky_relu_table(bits(0.01f), leaky_params(t, s, z, s, z), QLutConvention::PytorchOnednn);
    for (long long q = z; q <= hi_of(t); ++q) ASSERT_EQ(table[static_cast<std::size_t>(q - lo_of(t))], Int(q));
  }
}

TEST(qlinear_leaky_relu_pytorch_onednn, WithinTheStatedBoundOfTheRealValue) {
  std::mt19937_64 rng(20135);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  long long checked = 0;
  for (int i = 0; i < 30; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    auto scale = [&](int lo, int hi) {
      return static_cast<std::uint32_t>(in(127 + lo, 127 + hi)) << 23 |
             static_cast<std::uint32_t>(in(0, (1 << 23) - 1));
    };
    const std::uint32_t sx = scale(-12, -2), sy = scale(-12, -2),
                        alpha = scale(-8, 0) | (in(0, 3) == 0 ? 0x80000000u : 0);
    const long long zx = in(lo_of(t), hi_of(t)), zy = in(lo_of(t), hi_of(t));
    QPoolParams p = leaky_params(t, std::bit_cast<float>(sx), zx, std::bit_cast<float>(sy), zy);
    const auto table = qlinear_leaky_relu_table(alpha, p, QLutConvention::PytorchOnednn);
    for (long long q = lo_of(t); q <= hi_of(t); ++q) {
      const Rat v = f32_value(sx) * Rat(q - zx);
      const Rat f = v >= 0 ? v : f32_value(alpha) * v;
      expect_within(table[static_cast<std::size_t>(q - lo_of(t))], f / f32_value(sy), Int(zy), t, 4, checked);
    }
  }
  EXPECT_GT(checked, 1500);
}

}  // namespace
