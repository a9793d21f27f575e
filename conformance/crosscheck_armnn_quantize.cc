// Cross-check of armnn.quantize and the armnn.cpuref convention of dequantize (float.dequantize;
// spec/operators_qlinear_armnn.md) against the installed Arm NN (Debian libarmnn22 20.08, backend
// CpuRef from libarmnn-cpuref-backend22).
//
// The real Quantize and Dequantize layers run (through the adapter's network builder,
// backends/armnn/network.cc) on random problems (long-mantissa scales over a wide exponent range,
// offsets inside and far outside the 8-bit types, int8 and uint8) and tie-rich ones (power-of-two
// scales, x = (k + 1/2) s exactly: half away from zero and half to even part), with saturating and
// infinite inputs. Every output must equal the reference's, bit for bit.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../backends/armnn/network.h"
#include "armnn_crosscheck.h"
#include "qspec/ref/armnn_quantize.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::armnn_crosscheck;
using namespace qspec::ref;

armnn::TensorShape flat(std::size_t n) { return armnn::TensorShape({static_cast<unsigned>(n)}); }

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, even_differs = 0, saturated = 0, infinite = 0, far_offsets = 0;
};

std::int32_t draw_offset(Rng& r, DType t, Counts& c) {
  if (r.in(0, 4) == 0) {
    ++c.far_offsets;
    return static_cast<std::int32_t>(r.in(-(1LL << 31), (1LL << 31) - 1) >> r.in(0, 24));
  }
  return static_cast<std::int32_t>(r.in(lo_of(t), hi_of(t)));
}

void check_quantize(Rng& r, bool tie, int n, Counts& c) {
  for (int i = 0; i < n; ++i) {
    const DType t = r.in(0, 1) ? DType::I8 : DType::U8;
    const std::int32_t zp = draw_offset(r, t, c);
    const int e = static_cast<int>(r.in(-30, 10));
    const std::uint32_t sb =
        static_cast<std::uint32_t>(e + 127) << 23 | (tie ? 0u : static_cast<std::uint32_t>(r.in(0, (1 << 23) - 1)));
    const float s = std::bit_cast<float>(sb);
    std::vector<float> x;
    for (int k = 0; k < 64; ++k) {
      const long long steps = r.in(-160, 160);
      float v = tie ? std::ldexp(static_cast<float>(2 * steps + 1), e - 1)  // (steps + 1/2) s exactly
                    : (static_cast<float>(steps) + static_cast<float>(r.in(0, 1023)) / 1024.0f) * s;
      if (r.in(0, 31) == 0) v = r.in(0, 1) ? INFINITY : -INFINITY;
      if (r.in(0, 31) == 0) v = std::bit_cast<float>(static_cast<std::uint32_t>(r.in(0, 0xffffffffLL)));
      if (std::isnan(v)) v = 0.0f;
      x.push_back(v);
    }
    const armnn::TensorInfo in(flat(x.size()), armnn::DataType::Float32);
    const armnn::TensorInfo out(flat(x.size()), dtype(t), s, zp);
    const auto& net = qspec::armnn_adapter::network("crosscheck quantize " + std::to_string(c.problems), in, out,
                                                    [](armnn::INetwork& nw) { return nw.AddQuantizeLayer("q"); });
    std::vector<std::uint8_t> yb(net.output_bytes);
    qspec::armnn_adapter::run(net, x.data(), yb.data());
    ++c.problems;
    for (std::size_t k = 0; k < x.size(); ++k) {
      const long long got = t == DType::I8 ? static_cast<std::int8_t>(yb[k]) : yb[k];
      const std::uint32_t xb = std::bit_cast<std::uint32_t>(x[k]);
      const Int want = armnn_quantize_layer(xb, sb, Int(zp), t);
      ASSERT_EQ(Int(got), want) << "x " << x[k] << " s " << s << " zp " << zp << " problem " << c.problems;
      ++c.outputs;
      c.saturated += got == lo_of(t) || got == hi_of(t) ? 1 : 0;
      if (std::isinf(x[k])) {
        ++c.infinite;
        continue;
      }
      const std::uint32_t vb = f32_div(xb, sb);
      if (!float_is_finite(vb, kBinary32)) continue;  // an infinite quotient: saturated
      const Rat q = f32_value(vb);
      if (denominator(q) == 2) {
        ++c.ties;
        const Int even = saturate(round_half_even(q) + zp, int_range(t));
        c.even_differs += even != want ? 1 : 0;
      }
    }
  }
}

TEST(crosscheck_armnn_quantize, QuantizeMatchesTheClause) {
  Rng r{std::mt19937_64(20082)};
  Counts c;
  check_quantize(r, false, 150, c);
  check_quantize(r, true, 150, c);
  std::printf(
      "Arm NN CpuRef Quantize: %lld problems, %lld outputs equal the clause; %lld exact ties (%lld where half to "
      "even differs), %lld saturated, %lld infinite inputs, %lld problems with an offset outside the type\n",
      c.problems, c.outputs, c.ties, c.even_differs, c.saturated, c.infinite, c.far_offsets);
  EXPECT_GT(c.even_differs, 0);
  EXPECT_GT(c.infinite, 0);
}

TEST(crosscheck_armnn_quantize, DequantizeMatchesFloatDequantizeOnEveryCode) {
  Rng r{std::mt19937_64(20083)};
  Counts c;
  std::vector<std::pair<std::uint32_t, std::int32_t>> params;
  for (int i = 0; i < 60; ++i) {
    const std::uint32_t sb =
        static_cast<std::uint32_t>(r.in(1, 254)) << 23 | static_cast<std::uint32_t>(r.in(0, (1 << 23) - 1));
    params.emplace_back(sb, draw_offset(r, DType::I8, c));
  }
  params.emplace_back(std::bit_cast<std::uint32_t>(0.1f), 33554433);  // |q - zp| > 2^24: the conversion rounds
  for (DType t : {DType::I8, DType::U8})
    for (const auto& [sb, zp] : params) {
      std::vector<std::uint8_t> x;
      for (long long q = lo_of(t); q <= hi_of(t); ++q) x.push_back(static_cast<std::uint8_t>(q));
      const armnn::TensorInfo in(flat(x.size()), dtype(t), std::bit_cast<float>(sb), zp);
      const armnn::TensorInfo out(flat(x.size()), armnn::DataType::Float32);
      const auto& net = qspec::armnn_adapter::network("crosscheck dequantize " + std::to_string(c.problems), in, out,
                                                      [](armnn::INetwork& nw) { return nw.AddDequantizeLayer("d"); });
      std::vector<float> y(x.size());
      qspec::armnn_adapter::run(net, x.data(), y.data());
      ++c.problems;
      for (std::size_t k = 0; k < x.size(); ++k) {
        const long long q = lo_of(t) + static_cast<long long>(k);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(y[k]), float_dequantize(Int(q), Int(zp), sb))
            << "q " << q << " zp " << zp << " scale bits " << sb;
        ++c.outputs;
      }
    }
  std::printf(
      "Arm NN CpuRef Dequantize: %lld problems (every code), %lld outputs equal float.dequantize; %lld with an "
      "offset outside the type\n",
      c.problems, c.outputs, c.far_offsets);
  EXPECT_EQ(c.outputs, 2LL * 61 * 256);
}

}  // namespace
