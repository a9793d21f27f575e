// Properties of Arm NN's CpuRef Concat on quantized tensors (spec/operators_qlinear_armnn.md,
// qlinear.concat.armnn_cpuref):
// - every code of int8 and uint8, for parameter sets of every kind (offsets outside the dtype
//   included), equals armnn::Quantize(armnn::Dequantize(x)) evaluated on this machine's binary32;
// - random problems are mrt.op.concat of the inputs mapped code by code (composition);
// - an input with the output's parameters is copied, for random scales and offsets;
// - error bound against the exact real value s_i (x - z_i) / s_y.
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

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// Concatenate.cpp's encoder.Set(decoder.Get()) on the hardware: armnn::Dequantize, armnn::Quantize.
long long native(long long x, float sx, std::int32_t zx, float sy, std::int32_t zy, DType t) {
  const float v = static_cast<float>(static_cast<std::int32_t>(x) - zx) * sx;
  const float w = std::min(std::max(static_cast<float>(zy) + std::round(v / sy), static_cast<float>(lo_of(t))),
                           static_cast<float>(hi_of(t)));
  return static_cast<long long>(w);
}

QConcatParams one_input(DType t, float sx, std::int32_t zx, float sy, std::int32_t zy) {
  QConcatParams p;
  p.type = t;
  p.input_types = {t};
  p.x_scales = {bits(sx)};
  p.x_zero_points = {Int(zx)};
  p.y_scale = bits(sy);
  p.y_zero_point = Int(zy);
  return p;
}

IntArray every_code(DType t) {
  IntArray x(Shape{256});
  for (long long q = 0; q < 256; ++q) x.data[static_cast<std::size_t>(q)] = lo_of(t) + q;
  return x;
}

// Every code of the dtype through input 0's code map (the operator needs two inputs: the map is
// what it applies to each).
IntArray map_codes(const QConcatParams& p) {
  IntArray y = every_code(p.type);
  const auto f = qlinear_concat_armnn_map(p, 0);
  for (auto& v : y.data) v = f(v);
  return y;
}

TEST(qlinear_concat_armnn_cpuref, EveryCodeEqualsTheHardwareTransliteration) {
  struct Set {
    float sx;
    std::int32_t zx;
    float sy;
    std::int32_t zy;
  };
  const std::vector<Set> sets = {{0.5f, 3, 1.0f, 0},         {0.25f, -7, 0.5f, 1},          {0.1f, 0, 0.3f, 5},
                                 {4.0f, 128, 1.0f, 100},     {1.75f, 9, 0.125f, -3},        {0.0078125f, 300, 0.01f, 2},
                                 {3e-5f, -1000, 1e-5f, 200}, {0x1.000002p-3f, 1, 0.125f, 1}};
  long long n = 0;
  for (DType t : {DType::I8, DType::U8})
    for (const Set& s : sets) {
      const IntArray y = map_codes(one_input(t, s.sx, s.zx, s.sy, s.zy));
      for (long long q = 0; q < 256; ++q, ++n)
        ASSERT_EQ(y.data[static_cast<std::size_t>(q)], Int(native(lo_of(t) + q, s.sx, s.zx, s.sy, s.zy, t)))
            << "code " << lo_of(t) + q << " s_x " << s.sx << " z_x " << s.zx;
    }
  EXPECT_EQ(n, 2LL * 8 * 256);
}

TEST(qlinear_concat_armnn_cpuref, TheOutputsParametersGiveACopy) {
  std::mt19937_64 rng(20084);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  for (int i = 0; i < 60; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    const float s = std::bit_cast<float>(static_cast<std::uint32_t>(in(127 - 60, 127 + 30)) << 23 |
                                         static_cast<std::uint32_t>(in(0, (1 << 23) - 1)));
    const auto z = static_cast<std::int32_t>(in(lo_of(t), hi_of(t)));
    const IntArray x = every_code(t);
    ASSERT_TRUE(map_codes(one_input(t, s, z, s, z)) == x) << "scale " << s << " offset " << z;
  }
}

TEST(qlinear_concat_armnn_cpuref, IsTheConcatOfTheHardwareRequantizedInputs) {
  std::mt19937_64 rng(20085);
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
    p.y_scale = bits(std::ldexp(1.0f + static_cast<float>(in(0, 255)) / 256.0f, ey));
    p.y_zero_point = Int(in(lo_of(t), hi_of(t)));
    std::vector<IntArray> xs, mapped;
    const long long inputs = in(2, 5);
    for (long long k = 0; k < inputs; ++k) {
      Shape s = base;
      s[ax] = in(1, 3);
      IntArray x(s), m(s);
      const float sx =
          std::ldexp(1.0f + static_cast<float>(in(0, 1 << 20)) / (1 << 20), ey + static_cast<int>(in(-2, 2)));
      const auto zx = static_cast<std::int32_t>(in(lo_of(t) - 50, hi_of(t) + 50));
      for (std::size_t j = 0; j < x.data.size(); ++j) {
        x.data[j] = in(lo_of(t), hi_of(t));
        m.data[j] = native(static_cast<long long>(x.data[j]), sx, zx, std::bit_cast<float>(p.y_scale),
                           static_cast<std::int32_t>(p.y_zero_point), t);
      }
      p.input_types.push_back(t);
      p.x_scales.push_back(bits(sx));
      p.x_zero_points.emplace_back(zx);
      xs.push_back(x);
      mapped.push_back(m);
    }
    const auto axis = in(0, 1) ? static_cast<long long>(ax) : static_cast<long long>(ax) - static_cast<long long>(rank);
    ASSERT_TRUE(qlinear_concat(xs, axis, p, QConcatConvention::ArmnnCpuref) == concat(mapped, axis)) << "problem " << i;
  }
}

TEST(qlinear_concat_armnn_cpuref, WithinTheStatedBoundOfTheRealValue) {
  std::mt19937_64 rng(20086);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  const Rat bound_rel(1, 1 << 22);
  long long checked = 0;
  for (int i = 0; i < 60; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    const std::uint32_t sx =
        static_cast<std::uint32_t>(in(127 - 12, 127 - 2)) << 23 | static_cast<std::uint32_t>(in(0, (1 << 23) - 1));
    const std::uint32_t sy =
        static_cast<std::uint32_t>(in(127 - 12, 127 - 2)) << 23 | static_cast<std::uint32_t>(in(0, (1 << 23) - 1));
    const auto zx = static_cast<std::int32_t>(in(lo_of(t), hi_of(t)));
    const auto zy = static_cast<std::int32_t>(in(lo_of(t), hi_of(t)));
    QConcatParams p = one_input(t, std::bit_cast<float>(sx), zx, std::bit_cast<float>(sy), zy);
    const IntArray y = map_codes(p);
    for (long long q = 0; q < 256; ++q) {
      const Int v = y.data[static_cast<std::size_t>(q)];
      if (v == lo_of(t) || v == hi_of(t)) continue;
      const Rat r = Rat(Int(lo_of(t) + q - zx)) * f32_value(sx) / f32_value(sy);
      ASSERT_LE(abs(Rat(v) - (r + zy)), Rat(1, 2) + bound_rel * abs(r)) << "code " << lo_of(t) + q;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(qlinear_concat_armnn_cpuref, OneInputIsAnError) {
  const QConcatParams p = one_input(DType::U8, 0.5f, 3, 1.0f, 0);
  EXPECT_THROW(qlinear_concat({every_code(DType::U8)}, 0, p, QConcatConvention::ArmnnCpuref), ErrorIf);
}

}  // namespace
