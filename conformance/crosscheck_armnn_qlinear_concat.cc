// Cross-check of qlinear.concat.armnn_cpuref (spec/operators_qlinear_armnn.md) against the installed
// Arm NN (Debian libarmnn22 20.08, backend CpuRef from libarmnn-cpuref-backend22).
//
// The real Concat layer runs (through the adapter's network builder, backends/armnn/network.cc) on
// random problems (long-mantissa scales, int8 and uint8, two to five inputs of rank 1 to 4, every
// axis, offsets inside and outside the dtype, inputs with the output's parameters) and tie-rich
// ones (short dyadic scale ratios: many codes land on exact halves, where half away from zero and
// half to even part). Every output must equal the reference's.
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
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::armnn_crosscheck;
using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  std::vector<IntArray> xs;
  unsigned axis = 0;
  QConcatParams p;
};

Problem draw(Rng& r, bool tie) {
  Problem pr;
  auto& p = pr.p;
  p.type = r.in(0, 1) ? DType::I8 : DType::U8;
  const long long lo = lo_of(p.type), hi = hi_of(p.type);
  const auto rank = static_cast<std::size_t>(r.in(1, 4));
  Shape base;
  for (std::size_t d = 0; d < rank; ++d) base.push_back(r.in(1, 3));
  pr.axis = static_cast<unsigned>(r.in(0, static_cast<long long>(rank) - 1));
  const int ey = static_cast<int>(r.in(-9, -3));
  p.y_scale = tie ? static_cast<std::uint32_t>(ey + 127) << 23
                  : static_cast<std::uint32_t>(ey + 127) << 23 | static_cast<std::uint32_t>(r.in(0, (1 << 23) - 1));
  p.y_zero_point = Int(r.in(lo, hi));
  const long long n = r.in(2, 5);
  for (long long i = 0; i < n; ++i) {
    Shape s = base;
    s[pr.axis] = r.in(1, 3);
    IntArray x(s);
    for (auto& v : x.data) v = r.in(lo, hi);
    std::uint32_t sx;
    long long zx;
    const long long kind = r.in(0, 5);
    if (kind == 0) {  // the output's parameters
      sx = p.y_scale, zx = static_cast<long long>(p.y_zero_point);
    } else if (tie) {  // s_x / s_y = k / 2^j, k odd: halves
      sx = (static_cast<std::uint32_t>(ey - static_cast<int>(r.in(0, 3)) + 127) << 23) |
           (static_cast<std::uint32_t>(r.in(0, 3)) << 21);
      zx = r.in(lo, hi);
    } else {
      sx = static_cast<std::uint32_t>(ey + static_cast<int>(r.in(-2, 2)) + 127) << 23 |
           static_cast<std::uint32_t>(r.in(0, (1 << 23) - 1));
      zx = kind == 1 ? r.in(-100000, 100000) : r.in(lo, hi);
    }
    p.input_types.push_back(p.type);
    p.x_scales.push_back(sx);
    p.x_zero_points.emplace_back(zx);
    pr.xs.push_back(std::move(x));
  }
  return pr;
}

std::vector<long long> run_armnn(const Problem& pr, const Shape& y_shape, const std::string& key) {
  const auto& p = pr.p;
  std::vector<armnn::TensorShape> shapes;
  std::vector<armnn::TensorInfo> infos;
  for (std::size_t i = 0; i < pr.xs.size(); ++i) {
    shapes.push_back(tshape(pr.xs[i].shape));
    infos.emplace_back(shapes.back(), dtype(p.type), std::bit_cast<float>(p.x_scales[i]),
                       static_cast<int>(p.x_zero_points[i]));
  }
  const armnn::TensorInfo iy(tshape(y_shape), dtype(p.type), std::bit_cast<float>(p.y_scale),
                             static_cast<int>(p.y_zero_point));
  const armnn::OriginsDescriptor desc = armnn::CreateDescriptorForConcatenation(shapes.begin(), shapes.end(), pr.axis);
  const auto& n = qspec::armnn_adapter::network(
      key, infos, iy, [&desc](armnn::INetwork& net) { return net.AddConcatLayer(desc, "concat"); });
  std::vector<std::vector<std::uint8_t>> bufs;
  std::vector<const void*> ins;
  for (const auto& x : pr.xs) {
    std::vector<std::uint8_t> b;
    for (const auto& v : x.data) b.push_back(static_cast<std::uint8_t>(static_cast<long long>(v)));
    bufs.push_back(std::move(b));
  }
  for (const auto& b : bufs) ins.push_back(b.data());
  std::vector<std::uint8_t> yb(n.output_bytes);
  qspec::armnn_adapter::run(n, ins, yb.data());
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
    const IntArray want = qlinear_concat(pr.xs, pr.axis, pr.p, QConcatConvention::ArmnnCpuref);
    const std::vector<long long> got = run_armnn(pr, want.shape, "crosscheck concat " + std::to_string(c.problems));
    ++c.problems;
    ASSERT_EQ(got.size(), want.data.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      ++c.outputs;
      ASSERT_EQ(Int(got[k]), want.data[k]) << "problem " << c.problems << " output " << k;
      c.saturated += got[k] == lo_of(pr.p.type) || got[k] == hi_of(pr.p.type) ? 1 : 0;
    }
    // Ties: codes whose fl32(x~ / s_y) is an exact half (count per input code).
    for (std::size_t i = 0; i < pr.xs.size(); ++i)
      for (const auto& x : pr.xs[i].data) {
        const std::uint32_t v = f32_div(float_dequantize(x, pr.p.x_zero_points[i], pr.p.x_scales[i]), pr.p.y_scale);
        if (!float_is_finite(v, kBinary32) || denominator(f32_value(v)) != 2) continue;
        ++c.ties;
        const Int away = qlinear_concat_armnn_map(pr.p, i)(x);
        c.even_differs += saturate(round_half_even(f32_value(v)) + pr.p.y_zero_point, pr.p.type) != away ? 1 : 0;
      }
  }
}

TEST(crosscheck_armnn_qlinear_concat, RandomAndTieRichProblemsMatchTheClause) {
  Rng r{std::mt19937_64(20087)};
  Counts c;
  check(r, false, 200, c);
  check(r, true, 200, c);
  std::printf(
      "Arm NN CpuRef Concat: %lld problems, %lld outputs equal the clause; %lld exact ties (%lld where half to even "
      "differs), %lld saturated outputs\n",
      c.problems, c.outputs, c.ties, c.even_differs, c.saturated);
  EXPECT_GT(c.even_differs, 0);
  EXPECT_GT(c.saturated, 0);
}

TEST(crosscheck_armnn_qlinear_concat, OneInputIsRefused) {
  const armnn::TensorShape s = tshape({2, 3});
  const std::vector<armnn::TensorShape> shapes = {s};
  EXPECT_THROW(armnn::CreateDescriptorForConcatenation(shapes.begin(), shapes.end(), 0),
               armnn::InvalidArgumentException);
}

}  // namespace
