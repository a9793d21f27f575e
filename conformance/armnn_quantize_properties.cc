// Properties of Arm NN's CpuRef Quantize and Dequantize layers (spec/operators_qlinear_armnn.md,
// armnn.quantize and the armnn.cpuref convention of dequantize, which is float.dequantize):
// - quantize: exact ties k + 1/2 (power-of-two scales, every division exact) go away from zero and
//   then take the offset, inside and outside the type; the reference equals armnn::Quantize's
//   float expression evaluated on this machine's binary32 hardware on random, saturating and
//   infinite inputs with offsets anywhere in int32; the error bound against the exact x / s;
// - dequantize: every code of int8 and uint8, for scales of every kind and offsets inside and
//   outside the type, equals the native float32 product and (for |q - zp| <= 2^24) the exact
//   product rounded once.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "qspec/ref/armnn_quantize.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"

namespace {

using namespace qspec::ref;

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

// armnn::Quantize<T> (TypesUtils.cpp) on this machine's float32 arithmetic.
long long native_quantize(float x, float s, std::int32_t zp, DType t) {
  const float lo = static_cast<float>(lo_of(t)), hi = static_cast<float>(hi_of(t));
  const float w = std::min(std::max(static_cast<float>(zp) + static_cast<float>(std::round(x / s)), lo), hi);
  return static_cast<long long>(w);
}

TEST(armnn_quantize, TiesGoAwayFromZeroThenTheOffset) {
  long long ties = 0;
  for (DType t : {DType::I8, DType::U8})
    for (int e : {1, 3, 10})
      for (long long zp : {-1000LL, -128LL, -3LL, 0LL, 3LL, 127LL, 128LL, 255LL, 1001LL})
        for (long long k = -400; k <= 400; ++k) {
          const float s = std::ldexp(1.0f, -e);
          // x = (k + 1/2) s exactly: (2k + 1) 2^-(e+1) has a short mantissa.
          const float x = std::ldexp(static_cast<float>(2 * k + 1), -e - 1);
          const long long away = k >= 0 ? k + 1 : k;
          const long long want = std::clamp(away + zp, lo_of(t), hi_of(t));
          ASSERT_EQ(armnn_quantize_layer(bits(x), bits(s), Int(zp), t), Int(want))
              << "k " << k << " e " << e << " zp " << zp;
          ++ties;
        }
  EXPECT_EQ(ties, 2 * 3 * 9 * 801);
}

TEST(armnn_quantize, EqualsTheNativeFloatSteps) {
  std::mt19937_64 rng(2008);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  long long infinite = 0, saturated = 0, far_offsets = 0;
  for (int i = 0; i < 20000; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    // Positive normal scales over a wide exponent range, long mantissas.
    const std::uint32_t sb =
        static_cast<std::uint32_t>(in(127 - 40, 127 + 20)) << 23 | static_cast<std::uint32_t>(in(0, (1 << 23) - 1));
    std::int32_t zp = static_cast<std::int32_t>(in(lo_of(t), hi_of(t)));
    if (in(0, 9) == 0) {
      zp = static_cast<std::int32_t>(in(-(1LL << 31), (1LL << 31) - 1));
      ++far_offsets;
    }
    std::uint32_t xb = static_cast<std::uint32_t>(in(0, 0xffffffffLL));
    const int kind = static_cast<int>(in(0, 9));
    if (kind == 0) xb = in(0, 1) ? 0x7f800000u : 0xff800000u;
    if (kind >= 5) {  // near the output range: x = (k + f) s
      const float s = std::bit_cast<float>(sb);
      xb = bits(static_cast<float>(in(-300, 300)) * s + static_cast<float>(in(-4, 4)) * s / 8.0f);
    }
    if (std::isnan(std::bit_cast<float>(xb))) continue;
    const long long want = native_quantize(std::bit_cast<float>(xb), std::bit_cast<float>(sb), zp, t);
    ASSERT_EQ(armnn_quantize_layer(xb, sb, Int(zp), t), Int(want))
        << std::hex << "x 0x" << xb << " s 0x" << sb << std::dec << " zp " << zp;
    infinite += std::isinf(std::bit_cast<float>(xb)) ? 1 : 0;
    saturated += want == lo_of(t) || want == hi_of(t) ? 1 : 0;
  }
  EXPECT_GT(infinite, 0);
  EXPECT_GT(saturated, 0);
  EXPECT_GT(far_offsets, 0);
}

TEST(armnn_quantize, WithinHalfPlusOneRoundingOfTheRealValue) {
  std::mt19937_64 rng(2009);
  auto in = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  const Rat u(1, 1 << 24);
  long long checked = 0;
  for (int i = 0; i < 4000; ++i) {
    const DType t = in(0, 1) ? DType::I8 : DType::U8;
    const std::uint32_t sb =
        static_cast<std::uint32_t>(in(127 - 20, 127 + 5)) << 23 | static_cast<std::uint32_t>(in(0, (1 << 23) - 1));
    const long long zp = in(lo_of(t), hi_of(t));
    const Rat s = f32_value(sb);
    const std::uint32_t xb = f32_round((Rat(in(lo_of(t) - zp - 2, hi_of(t) - zp + 2)) + Rat(in(0, 1023), 1024)) * s);
    const Rat q = f32_value(xb) / s;
    const Int y = armnn_quantize_layer(xb, sb, Int(zp), t);
    if (y == lo_of(t) || y == hi_of(t)) continue;
    const Rat err = abs(Rat(y) - (q + zp));
    ASSERT_LE(err, Rat(1, 2) + u * abs(q)) << "x 0x" << std::hex << xb << " s 0x" << sb;
    ++checked;
  }
  EXPECT_GT(checked, 2000);
}

TEST(armnn_quantize, NanInputsAndZeroScalesAreOutsideTheClause) {
  EXPECT_THROW(armnn_quantize_layer(0x7fc00000u, bits(0.5f), Int(0), DType::I8), RequireViolated);
  EXPECT_THROW(armnn_quantize_layer(bits(1.0f), bits(0.0f), Int(0), DType::U8), RequireViolated);
}

TEST(armnn_dequantize, EveryCodeEqualsTheNativeProduct) {
  const std::vector<float> scales = {0.5f, 0.1f, 1.75f, 0x1p-10f, 1e-37f, 3e36f, 0.0078125f, 12345.678f};
  const std::vector<std::int32_t> zps = {0, 3, -128, 127, 128, 255, -100000, 33554433, -33554431};
  long long rounded_differences = 0, n = 0;
  for (DType t : {DType::I8, DType::U8})
    for (float s : scales)
      for (std::int32_t zp : zps)
        for (long long q = lo_of(t); q <= hi_of(t); ++q) {
          // armnn::Dequantize: numeric_cast<float>(value - offset) * scale.
          const float native = static_cast<float>(static_cast<std::int32_t>(q) - zp) * s;
          const std::uint32_t got = float_dequantize(Int(q), Int(zp), bits(s));
          ASSERT_EQ(got, bits(native)) << "q " << q << " zp " << zp << " s " << s;
          const Int d = Int(q) - zp;
          if (abs(d) <= pow2(24) && std::isfinite(native))
            ASSERT_EQ(got, f32_round(Rat(d) * f32_value(bits(s)))) << "q " << q << " zp " << zp << " s " << s;
          else
            ++rounded_differences;
          ++n;
        }
  EXPECT_EQ(n, 2LL * 8 * 9 * 256);
  EXPECT_GT(rounded_differences, 0);
}

}  // namespace
