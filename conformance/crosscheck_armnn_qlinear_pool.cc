// Cross-check of qlinear.{avg_pool2d,global_avg_pool,max_pool2d}.armnn_cpuref
// (spec/operators_qlinear_armnn.md) against the installed Arm NN (Debian libarmnn22 20.08, CpuRef).
//
// The real Pooling2d layer runs (through the adapter's network builder, backends/armnn/network.cc)
// on random problems (long-mantissa scales, int8 and uint8, kernels up to 3x3, strides, pads up to
// 2 on each side: windows in the padding, both padding methods) and tie-rich ones (dyadic scales,
// power-of-two kernels: many exact ties k + 1/2). Every output must equal the reference's; where
// the reference's shape rule says ERROR_IF (the last window starts in the bottom or right
// padding), Arm NN must refuse the network. Max pooling runs with input and output of one random
// scale and offset: the clause says the codes do not depend on them.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../backends/armnn/network.h"
#include "armnn_crosscheck.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::armnn_crosscheck;
using namespace qspec::ref;
using namespace qspec::ref::ops;

enum class Kind { Avg, Gap, Max };

struct Problem {
  Kind kind = Kind::Avg;
  IntArray x;
  QPoolGeometry g;
  bool include = false;
  QPoolParams p;
  float max_scale = 1.0f;  // max pooling: the one scale and offset of x and y in Arm NN
  int max_offset = 0;
};

std::uint32_t scale(Rng& r, int e, bool dyadic) {
  const long long m = dyadic ? r.in(0, 3) << 21 : r.in(0, (1 << 23) - 1);
  return (static_cast<std::uint32_t>(e + 127) << 23) | static_cast<std::uint32_t>(m);
}

Problem draw_problem(Rng& r, bool tie) {
  Problem pr;
  pr.kind = static_cast<Kind>(r.in(0, 2));
  auto& p = pr.p;
  p.type = r.in(0, 1) ? DType::I8 : DType::U8;
  const long long lo = lo_of(p.type), hi = hi_of(p.type);
  Shape xs;
  if (pr.kind == Kind::Gap) {
    xs = {r.in(1, 2), tie ? (1ll << r.in(0, 2)) : r.in(1, 5), tie ? (1ll << r.in(0, 2)) : r.in(1, 5), r.in(1, 3)};
  } else {
    auto& g = pr.g;
    g.kernel = tie ? std::array<std::int64_t, 2>{1ll << r.in(0, 1), 1ll << r.in(0, 1)}
                   : std::array<std::int64_t, 2>{r.in(1, 3), r.in(1, 3)};
    g.strides = {r.in(1, 2), r.in(1, 2)};
    for (auto& v : g.pads) v = r.in(0, 3) == 0 ? r.in(1, 2) : 0;
    const long long h = std::max<long long>(1, g.kernel[0] - g.pads[0] - g.pads[2]) + r.in(0, 3);
    const long long w = std::max<long long>(1, g.kernel[1] - g.pads[1] - g.pads[3]) + r.in(0, 3);
    xs = {r.in(1, 2), h, w, r.in(1, 3)};
    pr.include = r.in(0, 1) == 1;
  }
  p.x_zero_point = r.in(lo, hi);
  p.y_zero_point = r.in(lo, hi);
  const int ex = static_cast<int>(r.in(-9, -2));
  p.x_scale = scale(r, ex, tie);
  p.y_scale = scale(r, ex + static_cast<int>(r.in(-2, 1)), tie);
  pr.x = IntArray(xs);
  const long long spread = tie ? r.in(2, 20) : 255;
  for (auto& v : pr.x.data)
    v = std::min(hi, std::max(lo, static_cast<long long>(p.x_zero_point) + r.in(-spread, spread)));
  pr.max_scale = std::bit_cast<float>(scale(r, static_cast<int>(r.in(-9, 3)), false));
  pr.max_offset = static_cast<int>(r.in(lo, hi));
  return pr;
}

// The layer on Arm NN CpuRef: output codes, or throws where Arm NN refuses the network.
std::vector<long long> run_armnn(const Problem& pr, const Shape& y_shape, const std::string& key) {
  const auto& p = pr.p;
  const auto dt = p.type == DType::I8 ? armnn::DataType::QAsymmS8 : armnn::DataType::QAsymmU8;
  const bool max = pr.kind == Kind::Max;
  const armnn::TensorInfo in(tshape(pr.x.shape), dt, max ? pr.max_scale : f32(p.x_scale),
                             max ? pr.max_offset : static_cast<int>(p.x_zero_point));
  const armnn::TensorInfo out(tshape(y_shape), dt, max ? pr.max_scale : f32(p.y_scale),
                              max ? pr.max_offset : static_cast<int>(p.y_zero_point));
  armnn::Pooling2dDescriptor d;
  d.m_PoolType = max ? armnn::PoolingAlgorithm::Max : armnn::PoolingAlgorithm::Average;
  d.m_DataLayout = armnn::DataLayout::NHWC;
  d.m_OutputShapeRounding = armnn::OutputShapeRounding::Floor;
  d.m_PaddingMethod =
      pr.include || pr.kind == Kind::Gap ? armnn::PaddingMethod::IgnoreValue : armnn::PaddingMethod::Exclude;
  const auto& g = pr.g;
  const bool gap = pr.kind == Kind::Gap;
  d.m_PoolHeight = static_cast<unsigned>(gap ? pr.x.dim(1) : g.kernel[0]);
  d.m_PoolWidth = static_cast<unsigned>(gap ? pr.x.dim(2) : g.kernel[1]);
  d.m_StrideY = static_cast<unsigned>(gap ? 1 : g.strides[0]);
  d.m_StrideX = static_cast<unsigned>(gap ? 1 : g.strides[1]);
  if (!gap) {
    d.m_PadTop = static_cast<unsigned>(g.pads[0]), d.m_PadLeft = static_cast<unsigned>(g.pads[1]);
    d.m_PadBottom = static_cast<unsigned>(g.pads[2]), d.m_PadRight = static_cast<unsigned>(g.pads[3]);
  }
  const auto& n = qspec::armnn_adapter::network(
      key, in, out, [&d](armnn::INetwork& net) { return net.AddPooling2dLayer(d, "pool"); });
  std::vector<std::uint8_t> xb, yb(n.output_bytes);
  for (const auto& v : pr.x.data) xb.push_back(static_cast<std::uint8_t>(static_cast<long long>(v)));
  qspec::armnn_adapter::run(n, xb.data(), yb.data());
  std::vector<long long> y;
  for (auto v : yb) y.push_back(p.type == DType::I8 ? static_cast<std::int8_t>(v) : v);
  return y;
}

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, even_differs = 0, refused = 0, in_padding = 0, skipped = 0;
};

void check(Rng& r, bool tie, int n, Counts& c) {
  for (int i = 0; i < n; ++i) {
    const Problem pr = draw_problem(r, tie);
    const std::string key = "crosscheck pool " + std::to_string(c.problems + c.refused + c.skipped);
    IntArray want;
    try {
      want = pr.kind == Kind::Avg   ? qlinear_avg_pool2d(pr.x, pr.g, pr.include, pr.p, QPoolConvention::ArmnnCpuref)
             : pr.kind == Kind::Gap ? qlinear_global_avg_pool(pr.x, pr.p, QPoolConvention::ArmnnCpuref)
                                    : qlinear_max_pool2d(pr.x, pr.g, pr.p, QPoolConvention::ArmnnCpuref);
    } catch (const ErrorIf&) {
      // The shape rule: the window clause's output shape, which Arm NN must refuse.
      const auto size = qlinear_pool_out_size(pr.x.shape, pr.g);
      EXPECT_ANY_THROW(run_armnn(pr, {pr.x.dim(0), size[0], size[1], pr.x.dim(3)}, key))
          << "Arm NN accepted a pooling the clause rejects (problem " << c.problems << ")";
      ++c.refused;
      continue;
    } catch (const RequireViolated&) {
      ++c.skipped;  // max pooling with a window in the padding: outside the clause
      continue;
    }
    const std::vector<long long> got = run_armnn(pr, want.shape, key);
    ++c.problems;
    ASSERT_EQ(got.size(), want.data.size());
    const QPoolGeometry g =
        pr.kind == Kind::Gap ? QPoolGeometry{{pr.x.dim(1), pr.x.dim(2)}, {1, 1}, {1, 1}, {0, 0, 0, 0}} : pr.g;
    const std::int64_t K = g.kernel[0] * g.kernel[1];
    const auto windows = qlinear_pool_window_codes(pr.x, g, want.dim(1), want.dim(2));
    for (std::size_t k = 0; k < got.size(); ++k) {
      ++c.outputs;
      ASSERT_EQ(Int(got[k]), want.data[k]) << "problem " << c.problems << " output " << k;
      if (pr.kind == Kind::Max) continue;
      if (windows[k].empty()) {
        ++c.in_padding;
        continue;
      }
      const std::int64_t divisor =
          pr.kind == Kind::Gap || pr.include ? K : static_cast<std::int64_t>(windows[k].size());
      const Rat q = f32_value(f32_div(qlinear_armnn_avgpool_value(windows[k], divisor, pr.p), pr.p.y_scale));
      if (denominator(q) == 2) {
        ++c.ties;
        c.even_differs += saturate(round_half_even(q) + pr.p.y_zero_point, pr.p.type) != want.data[k] ? 1 : 0;
      }
    }
  }
}

TEST(crosscheck_armnn_qlinear_pool, RandomAndTieRichProblemsMatchTheClause) {
  Rng r{std::mt19937_64(20082)};
  Counts c;
  check(r, false, 250, c);
  check(r, true, 250, c);
  std::printf(
      "Arm NN CpuRef Pooling2d: %lld problems, %lld outputs equal the clause (%lld windows in the padding); %lld "
      "exact ties (%lld where half to even differs); %lld refused as the shape rule says; %lld max poolings with a "
      "window in the padding skipped (REQUIRE)\n",
      c.problems, c.outputs, c.in_padding, c.ties, c.even_differs, c.refused, c.skipped);
  EXPECT_GT(c.even_differs, 0);
  EXPECT_GT(c.refused, 0);
  EXPECT_GT(c.in_padding, 0);
}

}  // namespace
