// Every 8-bit code through each quantizer and dequantizer, reference vs the machine's IEEE arithmetic.
//
// For int8 and uint8, a grid of scales and zero points, and every code q of the type, the inputs
// are the code's own real point fl32((q - zp) s), the half-way point to the next code
// fl32((q - zp + 1/2) s) and that point's two float32 neighbours -- exactly where the
// conventions' rounding orders part. Each convention is float-specified, so the machine running
// the library's formula with real floats is an independent oracle for the exact reference.
// Also checked: quantize(dequantize(q)) == q for every code.
//
// CI slice: 8 scales x 5 zero points per type. QSPEC_EXHAUSTIVE_FULL=1 runs 48 scales x 16
// zero points per type (about 10x longer).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/glow.h"
#include "qspec/ref/tvm_qnn.h"

using namespace qspec::ref;

namespace {

std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
float V(std::uint32_t b) { return std::bit_cast<float>(b); }

// One IEEE operation per call (a volatile store forbids fused multiply-add contraction).
float hmul(float a, float b) {
  volatile float r = a * b;
  return r;
}
float hdiv(float a, float b) {
  volatile float r = a / b;
  return r;
}
float hadd(float a, float b) {
  volatile float r = a + b;
  return r;
}

bool full() { return qspec::test::exhaustive_full(); }

struct Grid {
  std::vector<float> scales;
  std::vector<std::int64_t> zps_i8, zps_u8;
};

Grid grid() {
  Grid g;
  // Exact reciprocals, inexact ones, tiny and large: the CI slice.
  g.scales = {0.5f, 0.1f, 1.75f, 3.0f, 0x1p-10f, 0.0123f, 7.3e-5f, 0.37f};
  g.zps_i8 = {-128, -1, 0, 3, 127};
  g.zps_u8 = {0, 1, 128, 131, 255};
  if (full()) {
    for (int i = 0; i < 40; ++i) g.scales.push_back(std::ldexp(1.0f + static_cast<float>((i * 2654435761u) % 8388608u) / 8388608.0f, -14 + i % 16));
    for (std::int64_t z : {-100, -64, -7, 1, 5, 64, 100, 126, -127, -2, 2}) g.zps_i8.push_back(z);
    for (std::int64_t z : {2, 5, 64, 100, 127, 129, 200, 250, 254, 3, 7}) g.zps_u8.push_back(z);
  }
  return g;
}

struct Range8 {
  DType t;
  std::int64_t lo, hi;
};
const Range8 kTypes[] = {{DType::I8, -128, 127}, {DType::U8, 0, 255}};

std::int64_t sat(std::int64_t v, const Range8& r) { return std::clamp(v, r.lo, r.hi); }

// The inputs of code q: its real point, the half-way point above it and that point's neighbours.
std::vector<float> inputs_of(std::int64_t q, std::int64_t zp, float s) {
  const Rat sv = f32_value(F(s));
  const float on = V(f32_round(Rat(q - zp) * sv));
  const float half = V(f32_round((Rat(q - zp) + Rat(1, 2)) * sv));
  return {on, half, std::nextafter(half, -INFINITY), std::nextafter(half, INFINITY)};
}

using RefQuantize = std::function<Int(std::uint32_t x, std::uint32_t s, std::int64_t zp, DType t)>;
using HwQuantize = std::function<std::int64_t(float x, float s, std::int64_t zp, const Range8& r)>;

// Runs one convention over the grid; returns the number of compared inputs.
long run_quantizer(const RefQuantize& ref, const HwQuantize& hw) {
  const Grid g = grid();
  long compared = 0;
  for (const auto& r : kTypes)
    for (float s : g.scales)
      for (std::int64_t zp : (r.t == DType::I8 ? g.zps_i8 : g.zps_u8)) {
        for (std::int64_t q = r.lo; q <= r.hi; ++q) {
          if (!qspec::test::visit(q - r.lo, r.hi - r.lo + 1)) continue;
          const auto xs = inputs_of(q, zp, s);
          for (float x : xs) {
            const Int y = ref(F(x), F(s), zp, r.t);
            const std::int64_t h = hw(x, s, zp, r);
            if (y != Int(h)) {
              ADD_FAILURE() << "x = " << x << " (0x" << std::hex << F(x) << std::dec << "), scale " << s << ", zp " << zp
                            << ": reference " << y << ", hardware " << h;
              return compared;
            }
            ++compared;
          }
          // Round trip on the code's own real point.
          EXPECT_EQ(ref(float_dequantize(Int(q), Int(zp), F(s)), F(s), zp, r.t), Int(q)) << "q " << q << " s " << s;
        }
      }
  return compared;
}

}  // namespace

TEST(float_xnnpack_convert, Exhaustive8bitMatchesHardware) {
  const long n = run_quantizer(
      [](std::uint32_t x, std::uint32_t s, std::int64_t zp, DType t) { return xnnpack_convert_quantize(x, s, Int(zp), t); },
      [](float x, float s, std::int64_t zp, const Range8& r) {
        float v = hmul(x, hdiv(1.0f, s));
        v = std::min(std::max(v, static_cast<float>(r.lo - zp)), static_cast<float>(r.hi - zp));
        return static_cast<std::int64_t>(lrintf(v)) + zp;
      });
  EXPECT_GT(n, 0);
}

TEST(float_onednn_reorder, Exhaustive8bitMatchesHardware) {
  run_quantizer(
      [](std::uint32_t x, std::uint32_t s, std::int64_t zp, DType t) { return onednn_reorder_quantize(x, s, Int(zp), t); },
      [](float x, float s, std::int64_t zp, const Range8& r) {
        float d = hadd(hmul(x, hdiv(1.0f, s)), static_cast<float>(zp));
        d = std::min(std::max(d, static_cast<float>(r.lo)), static_cast<float>(r.hi));
        return static_cast<std::int64_t>(nearbyintf(d));
      });
}

TEST(float_onnx_quantize_linear, Exhaustive8bitMatchesHardware) {
  run_quantizer(
      [](std::uint32_t x, std::uint32_t s, std::int64_t zp, DType t) { return onnx_quantize_linear(x, s, Int(zp), t); },
      [](float x, float s, std::int64_t zp, const Range8& r) {
        return sat(static_cast<std::int64_t>(nearbyintf(hdiv(x, s))) + zp, r);
      });
}

TEST(float_pytorch_quantize_per_tensor, Exhaustive8bitMatchesHardware) {
  run_quantizer(
      [](std::uint32_t x, std::uint32_t s, std::int64_t zp, DType t) {
        return pytorch_quantize_per_tensor(x, s, Int(zp), t);
      },
      [](float x, float s, std::int64_t zp, const Range8& r) {
        const float v = hadd(static_cast<float>(zp), nearbyintf(hmul(x, hdiv(1.0f, s))));
        return sat(static_cast<std::int64_t>(v), r);
      });
}

TEST(tvm_quantize, Exhaustive8bitMatchesHardware) {
  run_quantizer([](std::uint32_t x, std::uint32_t s, std::int64_t zp, DType t) { return tvm_quantize(x, s, Int(zp), t); },
                [](float x, float s, std::int64_t zp, const Range8& r) {
                  float v = hadd(roundf(hdiv(x, s)), static_cast<float>(zp));
                  v = std::max(std::min(v, static_cast<float>(r.hi)), static_cast<float>(r.lo));
                  return static_cast<std::int64_t>(v);
                });
}

TEST(glow_quantize, Exhaustive8bitMatchesHardware) {
  run_quantizer(
      [](std::uint32_t x, std::uint32_t s, std::int64_t zp, DType t) { return glow_quantize(x, {s, Int(zp)}, t); },
      [](float x, float s, std::int64_t zp, const Range8& r) {
        const float result = hadd(hdiv(x, s), static_cast<float>(zp));
        return sat(static_cast<std::int64_t>(nearbyintf(result)), r);
      });
}

// Dequantizers: every code, bit-exact float32 against (float)(q - zp) * s; TVM's and Glow's
// clauses are the same computation.
TEST(float_dequantize, Exhaustive8bitMatchesHardware) {
  const Grid g = grid();
  long compared = 0;
  for (const auto& r : kTypes)
    for (float s : g.scales)
      for (std::int64_t zp : (r.t == DType::I8 ? g.zps_i8 : g.zps_u8))
        for (std::int64_t q = r.lo; q <= r.hi; ++q) {
          const std::uint32_t hw = F(hmul(static_cast<float>(q - zp), s));
          ASSERT_EQ(float_dequantize(Int(q), Int(zp), F(s)), hw) << q << " " << zp << " " << s;
          ASSERT_EQ(tvm_dequantize(Int(q), r.t, Int(zp), F(s)), hw);
          ASSERT_EQ(glow_dequantize(Int(q), {F(s), Int(zp)}), hw);
          ++compared;
        }
  EXPECT_GT(compared, 0);
}
TEST(tvm_dequantize, Exhaustive8bitIsFloatDequantize) {
  for (std::int64_t q = -128; q <= 127; ++q)
    for (std::int64_t zp : {-128, 0, 127})
      ASSERT_EQ(tvm_dequantize(Int(q), DType::I8, Int(zp), F(0.1f)), float_dequantize(Int(q), Int(zp), F(0.1f)));
}
TEST(glow_dequantize, Exhaustive8bitIsFloatDequantize) {
  for (std::int64_t q = 0; q <= 255; ++q)
    for (std::int64_t zp : {0, 128, 255})
      ASSERT_EQ(glow_dequantize(Int(q), {F(1.75f), Int(zp)}), float_dequantize(Int(q), Int(zp), F(1.75f)));
}
