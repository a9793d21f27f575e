// Cross-check of qlinear.leaky_relu.armnn_cpuref (spec/operators_qlinear_leaky_relu.md) against the
// installed Arm NN (Debian libarmnn22 20.08, backend CpuRef from libarmnn-cpuref-backend22).
//
// The real Activation layer (LeakyReLu) runs, through the adapter's network builder
// (backends/armnn/network.cc), on every code of random parameter sets (long-mantissa scales, int8
// and uint8, alpha 0, in (0, 1), above 1 and negative, offsets inside and outside the dtype) and of
// tie-rich ones (dyadic scales and slopes: many fl32(f / s_y) are exact halves, where half away from
// zero and half to even part). Every output must equal the reference's.
#include <gtest/gtest.h>

#include <armnn/Descriptors.hpp>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../backends/armnn/network.h"
#include "armnn_crosscheck.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_leaky_relu_armnn.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::armnn_crosscheck;
using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  QPoolParams p;
  std::uint32_t alpha = 0;
};

std::uint32_t scale(Rng& r, int e, bool tie) {
  const auto m =
      tie ? static_cast<std::uint32_t>(r.in(0, 3)) << 21 : static_cast<std::uint32_t>(r.in(0, (1 << 23) - 1));
  return static_cast<std::uint32_t>(e + 127) << 23 | m;
}

Problem draw(Rng& r, bool tie) {
  Problem pr;
  auto& p = pr.p;
  p.type = r.in(0, 1) ? DType::I8 : DType::U8;
  const long long lo = lo_of(p.type), hi = hi_of(p.type);
  const bool wide = r.in(0, 4) == 0;
  p.x_zero_point = Int(wide ? r.in(-5000, 5000) : r.in(lo, hi));
  p.y_zero_point = Int(wide ? r.in(-5000, 5000) : r.in(lo, hi));
  const int ey = static_cast<int>(r.in(-9, -2));
  p.y_scale = scale(r, ey, tie);
  p.x_scale = scale(r, ey + static_cast<int>(r.in(-3, 3)), tie);
  const long long kind = r.in(0, 7);
  pr.alpha = kind == 0 ? 0u : scale(r, static_cast<int>(r.in(-8, 2)), tie);
  if (kind == 1) pr.alpha |= 0x80000000u;
  return pr;
}

std::vector<long long> run_armnn(const Problem& pr, const std::vector<long long>& codes, const std::string& key) {
  const auto& p = pr.p;
  const armnn::TensorShape s = tshape({static_cast<std::int64_t>(codes.size())});
  const armnn::TensorInfo ix(s, dtype(p.type), f32(p.x_scale), static_cast<int>(p.x_zero_point));
  const armnn::TensorInfo iy(s, dtype(p.type), f32(p.y_scale), static_cast<int>(p.y_zero_point));
  armnn::ActivationDescriptor desc;
  desc.m_Function = armnn::ActivationFunction::LeakyReLu;
  desc.m_A = f32(pr.alpha);
  const auto& n = qspec::armnn_adapter::network(
      key, ix, iy, [&desc](armnn::INetwork& net) { return net.AddActivationLayer(desc, "leaky_relu"); });
  std::vector<std::uint8_t> xb;
  for (auto v : codes) xb.push_back(static_cast<std::uint8_t>(v));
  std::vector<std::uint8_t> yb(n.output_bytes);
  qspec::armnn_adapter::run(n, xb.data(), yb.data());
  std::vector<long long> y;
  for (auto v : yb) y.push_back(p.type == DType::I8 ? static_cast<std::int8_t>(v) : v);
  return y;
}

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, even_differs = 0, saturated = 0;
};

void check(Rng& r, bool tie, int n, Counts& c) {
  for (int i = 0; i < n; ++i) {
    const Problem pr = draw(r, tie);
    const auto table = qlinear_leaky_relu_armnn_table(pr.alpha, pr.p);
    std::vector<long long> codes;
    for (long long x = lo_of(pr.p.type); x <= hi_of(pr.p.type); ++x) codes.push_back(x);
    const auto got = run_armnn(pr, codes, "crosscheck leaky_relu " + std::to_string(c.problems));
    ++c.problems;
    ASSERT_EQ(got.size(), 256u);
    for (std::size_t k = 0; k < 256; ++k) {
      ++c.outputs;
      ASSERT_EQ(Int(got[k]), table[k]) << "problem " << c.problems << " code " << codes[k];
      c.saturated += got[k] == lo_of(pr.p.type) || got[k] == hi_of(pr.p.type) ? 1 : 0;
      const std::uint32_t d = float_dequantize(Int(codes[k]), pr.p.x_zero_point, pr.p.x_scale);
      const std::uint32_t f = f32_value(d) > 0 ? d : f32_mul(d, pr.alpha);
      const std::uint32_t v = f32_div(f, pr.p.y_scale);
      if (!float_is_finite(v, kBinary32) || denominator(f32_value(v)) != 2) continue;
      ++c.ties;
      c.even_differs += saturate(round_half_even(f32_value(v)) + pr.p.y_zero_point, pr.p.type) != table[k] ? 1 : 0;
    }
  }
}

TEST(crosscheck_armnn_qlinear_leaky_relu, EveryCodeOfRandomAndTieRichProblemsMatchesTheClause) {
  Rng r{std::mt19937_64(20088)};
  Counts c;
  check(r, false, 60, c);
  check(r, true, 60, c);
  std::printf(
      "Arm NN CpuRef Activation(LeakyReLu): %lld parameter sets, %lld outputs (every code) equal the clause; %lld "
      "exact ties (%lld where half to even differs), %lld saturated outputs\n",
      c.problems, c.outputs, c.ties, c.even_differs, c.saturated);
  EXPECT_GT(c.even_differs, 0);
  EXPECT_GT(c.saturated, 0);
}

// Errata E-ARMNN-LRELU-1: the installed ActivationDescriptor::operator== compares m_A with the
// other descriptor's m_B.
TEST(crosscheck_armnn_qlinear_leaky_relu, DescriptorEqualityComparesAlphaWithBeta) {
  const armnn::ActivationDescriptor half(armnn::ActivationFunction::LeakyReLu, 0.5f);
  const armnn::ActivationDescriptor zero(armnn::ActivationFunction::LeakyReLu, 0.0f);
  const armnn::ActivationDescriptor five(armnn::ActivationFunction::LeakyReLu, 5.0f);
  EXPECT_FALSE(half == half);
  EXPECT_TRUE(zero == five);
}

}  // namespace
