// Cross-check of qlinear.armnn_cpuref (spec/operators_qlinear_armnn.md) against the installed Arm NN
// (Debian libarmnn22 20.08, backend CpuRef from libarmnn-cpuref-backend22).
//
// The real FullyConnected, Convolution2d and DepthwiseConvolution2d layers run (through the
// adapter's network builder, backends/armnn/network.cc) on random problems (realistic float scales
// with full mantissas, int8 and uint8, asymmetric pads, strides, dilations, depthwise multipliers,
// biases beyond 2^24) and tie-rich ones (power-of-two scales: every float step exact and about half
// the outputs exact ties k + 1/2, where half away from zero and half to even differ). Every output
// must equal the reference's, and the run counts the outputs where the in-order float sums give
// another code than the exact accumulation rounded half away (the summation order matters there).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../backends/armnn/network.h"
#include "armnn_crosscheck.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::armnn_crosscheck;
using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  bool conv = false, depthwise = false;
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

IntArray draw(Rng& r, const Shape& s, long long lo, long long hi) {
  IntArray a(s);
  for (auto& v : a.data) v = r.in(lo, hi);
  return a;
}

// A random problem; `tie`: power-of-two scales and codes near the zero points (exact float steps).
Problem draw_problem(Rng& r, bool tie) {
  Problem pr;
  const long long kind = r.in(0, 2);  // fully connected, convolution, depthwise
  pr.conv = kind > 0, pr.depthwise = kind == 2;
  auto& p = pr.p;
  p.x_type = p.w_type = r.in(0, 1) ? DType::I8 : DType::U8;
  Shape xs, ws;
  long long terms = 0;
  if (!pr.conv) {
    const long long k = r.in(1, 40);
    xs = {r.in(1, 3), k}, ws = {r.in(1, 6), k}, terms = k;
  } else {
    auto& g = pr.g;
    const long long C = r.in(1, 4), O = pr.depthwise ? C * r.in(1, 3) : r.in(1, 4);
    g.groups = pr.depthwise ? C : 1;
    const long long kh = r.in(1, 3), kw = r.in(1, 3);
    g.strides = {r.in(1, 2), r.in(1, 2)};
    g.dilations = {r.in(1, 2), r.in(1, 2)};
    for (auto& v : g.pads) v = r.in(0, 2);
    const long long eh = g.dilations[0] * (kh - 1) + 1, ew = g.dilations[1] * (kw - 1) + 1;
    const long long h = std::max<long long>(1, eh - g.pads[0] - g.pads[2]) + r.in(0, 3);
    const long long w = std::max<long long>(1, ew - g.pads[1] - g.pads[3]) + r.in(0, 3);
    xs = {r.in(1, 2), h, w, C}, ws = {O, kh, kw, pr.depthwise ? 1 : C}, terms = kh * kw * (pr.depthwise ? 1 : C);
  }
  const long long xl = lo_of(p.x_type), xh = hi_of(p.x_type);
  p.x_zero_point = r.in(xl + 8, xh - 8);
  p.w_zero_point = r.in(xl + 8, xh - 8);
  p.y_zero_point = r.in(xl + 16, xh - 16);
  if (tie) {
    pr.x = draw(r, xs, static_cast<long long>(p.x_zero_point) - 3, static_cast<long long>(p.x_zero_point) + 3);
    pr.w = draw(r, ws, static_cast<long long>(p.w_zero_point) - 3, static_cast<long long>(p.w_zero_point) + 3);
  } else {
    pr.x = draw(r, xs, xl, xh);
    pr.w = draw(r, ws, xl, xh);
  }
  if (r.in(0, 2) > 0) pr.b = draw(r, {ws[0]}, tie ? -64 : -(1ll << 26), tie ? 64 : 1ll << 26);
  auto scale = [&](int e) {
    const auto m = tie ? 0u : static_cast<std::uint32_t>(r.in(0, (1 << 23) - 1));
    return (static_cast<std::uint32_t>(e + 127) << 23) | m;
  };
  const int ex = static_cast<int>(r.in(-10, -2)), ew = static_cast<int>(r.in(-10, -2));
  p.x_scale = scale(ex);
  p.w_scales = {scale(ew)};
  if (tie) {  // sum / s_y = acc 2^-k, k = 1..3: every acc not divisible by 2^k is a tie or off by a quarter
    p.y_scale = scale(ex + ew + static_cast<int>(r.in(1, 3)));
    return pr;
  }
  // About 2^6 output steps for a typical sum (2^13 sqrt(terms) for random codes).
  int log_sum = 13;
  for (long long v = 1; v < terms; v *= 4) ++log_sum;
  p.y_scale = scale(ex + ew + log_sum - 6 + static_cast<int>(r.in(-1, 1)));
  return pr;
}

// The layer on Arm NN CpuRef: output codes.
std::vector<long long> run_armnn(const Problem& pr, const Shape& y_shape, int serial) {
  const auto& p = pr.p;
  const auto dt = p.x_type == DType::I8 ? armnn::DataType::QAsymmS8 : armnn::DataType::QAsymmU8;
  const armnn::TensorInfo in(tshape(pr.x.shape), dt, f32(p.x_scale), static_cast<int>(p.x_zero_point));
  const armnn::TensorInfo out(tshape(y_shape), dt, f32(p.y_scale), static_cast<int>(p.y_zero_point));
  std::vector<std::uint8_t> wb;
  Shape wshape = pr.w.shape;
  for (const auto& v : pr.w.data) wb.push_back(static_cast<std::uint8_t>(static_cast<long long>(v)));
  if (pr.depthwise) {  // (C M, KH, KW, 1) -> [M, C, KH, KW]
    const long long O = pr.w.dim(0), C = pr.x.dim(3), M = O / C, K = pr.w.dim(1) * pr.w.dim(2);
    std::vector<std::uint8_t> t(wb.size());
    for (long long o = 0; o < O; ++o)
      for (long long i = 0; i < K; ++i) t[static_cast<std::size_t>(((o % M) * C + o / M) * K + i)] = wb[o * K + i];
    wb = t, wshape = {M, C, pr.w.dim(1), pr.w.dim(2)};
  }
  std::vector<std::int32_t> bd;
  if (pr.b)
    for (const auto& v : pr.b->data) bd.push_back(static_cast<std::int32_t>(v));
  const auto& n = qspec::armnn_adapter::network(
      "crosscheck " + std::to_string(serial), in, out, [&](armnn::INetwork& net) -> armnn::IConnectableLayer* {
        const armnn::ConstTensor wt(
            armnn::TensorInfo(tshape(wshape), dt, f32(p.w_scales[0]), static_cast<int>(p.w_zero_point)), wb.data());
        armnn::Optional<armnn::ConstTensor> bo;
        if (pr.b)
          bo = armnn::ConstTensor(
              armnn::TensorInfo(tshape(pr.b->shape), armnn::DataType::Signed32, f32(p.x_scale) * f32(p.w_scales[0]), 0),
              bd.data());
        if (!pr.conv) {
          armnn::FullyConnectedDescriptor d;
          d.m_BiasEnabled = pr.b.has_value();
          d.m_TransposeWeightMatrix = true;
          return net.AddFullyConnectedLayer(d, wt, bo, "fc");
        }
        auto fill = [&](auto& d) {
          const auto& g = pr.g;
          d.m_PadTop = static_cast<unsigned>(g.pads[0]), d.m_PadLeft = static_cast<unsigned>(g.pads[1]);
          d.m_PadBottom = static_cast<unsigned>(g.pads[2]), d.m_PadRight = static_cast<unsigned>(g.pads[3]);
          d.m_StrideY = static_cast<unsigned>(g.strides[0]), d.m_StrideX = static_cast<unsigned>(g.strides[1]);
          d.m_DilationY = static_cast<unsigned>(g.dilations[0]), d.m_DilationX = static_cast<unsigned>(g.dilations[1]);
          d.m_BiasEnabled = pr.b.has_value();
          d.m_DataLayout = armnn::DataLayout::NHWC;
        };
        if (pr.depthwise) {
          armnn::DepthwiseConvolution2dDescriptor d;
          fill(d);
          return net.AddDepthwiseConvolution2dLayer(d, wt, bo, "depthwise");
        }
        armnn::Convolution2dDescriptor d;
        fill(d);
        return net.AddConvolution2dLayer(d, wt, bo, "conv");
      });
  std::vector<std::uint8_t> xb, yb(n.output_bytes);
  for (const auto& v : pr.x.data) xb.push_back(static_cast<std::uint8_t>(static_cast<long long>(v)));
  qspec::armnn_adapter::run(n, xb.data(), yb.data());
  std::vector<long long> y;
  for (auto v : yb) y.push_back(p.x_type == DType::I8 ? static_cast<std::int8_t>(v) : v);
  return y;
}

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, order_matters = 0, even_differs = 0;
};

void check(Rng& r, bool tie, int n, Counts& c) {
  for (int i = 0; i < n; ++i) {
    const Problem pr = draw_problem(r, tie);
    const IntArray* b = pr.b ? &*pr.b : nullptr;
    const ArmnnSums s =
        pr.conv ? armnn_conv2d_sums(pr.x, pr.w, b, pr.g, pr.p) : armnn_fully_connected_sums(pr.x, pr.w, b, pr.p);
    const IntArray want =
        pr.conv ? qlinear_armnn_conv2d(pr.x, pr.w, b, pr.g, pr.p) : qlinear_armnn_fully_connected(pr.x, pr.w, b, pr.p);
    const std::vector<long long> got = run_armnn(pr, s.shape, static_cast<int>(c.problems));
    ++c.problems;
    const IntArray acc =
        pr.conv ? qlinear_acc_conv2d(pr.x, pr.w, b, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, s.shape[1], s.shape[2])
                : qlinear_acc_fully_connected(pr.x, pr.w, b, pr.p.x_zero_point, pr.p.w_zero_point);
    const Rat scale = f32_value(pr.p.x_scale) * f32_value(pr.p.w_scales[0]) / f32_value(pr.p.y_scale);
    ASSERT_EQ(got.size(), want.data.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      ++c.outputs;
      ASSERT_EQ(Int(got[k]), want.data[k])
          << (pr.conv ? (pr.depthwise ? "depthwise" : "conv") : "fc") << " problem " << c.problems << " output " << k;
      const Rat v = f32_value(f32_div(s.sums[k], pr.p.y_scale));
      if (denominator(v) == 2) {
        ++c.ties;
        const Int even = saturate(round_half_even(v) + pr.p.y_zero_point, pr.p.x_type);
        c.even_differs += even != want.data[k] ? 1 : 0;
      }
      const Int exact = saturate(round_half_away(Rat(acc.data[k]) * scale) + pr.p.y_zero_point, pr.p.x_type);
      c.order_matters += exact != want.data[k] ? 1 : 0;
    }
  }
}

TEST(crosscheck_armnn_qlinear, RandomAndTieRichProblemsMatchTheClause) {
  Rng r{std::mt19937_64(20080)};
  Counts c;
  check(r, false, 300, c);
  check(r, true, 300, c);
  std::printf(
      "Arm NN CpuRef: %lld problems, %lld outputs equal the clause; %lld exact ties (%lld where half to even "
      "differs); %lld outputs where the float sums differ from the exact result rounded\n",
      c.problems, c.outputs, c.ties, c.even_differs, c.order_matters);
  EXPECT_GT(c.even_differs, 0);
}

}  // namespace
