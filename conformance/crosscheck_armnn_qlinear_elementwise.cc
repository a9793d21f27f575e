// Cross-check of qlinear.add.armnn_cpuref and qlinear.mul.armnn_cpuref (spec/operators_qlinear_armnn.md)
// against the installed Arm NN (Debian libarmnn22 20.08, backend CpuRef from libarmnn-cpuref-backend22).
//
// The real Addition and Multiplication layers run (through the adapter's network builder,
// backends/armnn/network.cc) on random problems (long-mantissa scales, int8 and uint8, broadcast
// shapes of equal rank as Arm NN needs them, unit axes on either side) and tie-rich ones (short
// dyadic scale ratios: every float step exact and many outputs exact ties k + 1/2, where half away
// from zero and half to even differ). Every output must equal the reference's; the run also
// refuses operands of different dtypes, as the clause's ERROR_IF says.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../backends/armnn/network.h"
#include "armnn_crosscheck.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::armnn_crosscheck;
using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  QEwOp op = QEwOp::Add;
  IntArray a, b;
  QEwParams p;
};

IntArray draw(Rng& r, const Shape& s, long long lo, long long hi) {
  IntArray a(s);
  for (auto& v : a.data) v = r.in(lo, hi);
  return a;
}

std::uint32_t scale(Rng& r, int e, bool dyadic) {
  const long long m = dyadic ? 0 : r.in(0, (1 << 23) - 1);
  return (static_cast<std::uint32_t>(e + 127) << 23) | static_cast<std::uint32_t>(m);
}

Problem draw_problem(Rng& r, bool tie) {
  Problem pr;
  pr.op = r.in(0, 1) ? QEwOp::Add : QEwOp::Mul;
  auto& p = pr.p;
  p.type = p.b_type = r.in(0, 1) ? DType::I8 : DType::U8;
  const long long rank = r.in(1, 4);
  Shape out, sa, sb;
  for (long long i = 0; i < rank; ++i) out.push_back(r.in(1, 4));
  sa = out, sb = out;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const long long k = r.in(0, 3);
    if (k == 1) sa[i] = 1;
    if (k == 2) sb[i] = 1;
  }
  const long long lo = lo_of(p.type), hi = hi_of(p.type);
  p.a_zero_point = r.in(lo, hi);
  p.b_zero_point = r.in(lo, hi);
  p.y_zero_point = r.in(lo, hi);
  const int ea = static_cast<int>(r.in(-9, -3));
  const int eb = ea + static_cast<int>(r.in(-2, 2));
  if (tie) {
    // Dyadic scales: s_a / s_y and s_b / s_y (add) or s_a s_b / s_y (mul) a few bits below 1.
    p.a_scale = scale(r, ea, true) | (static_cast<std::uint32_t>(r.in(0, 3)) << 21);
    p.b_scale = scale(r, eb, true) | (static_cast<std::uint32_t>(r.in(0, 3)) << 21);
    const int ey =
        pr.op == QEwOp::Add ? std::max(ea, eb) + static_cast<int>(r.in(1, 3)) : ea + eb + static_cast<int>(r.in(1, 4));
    p.y_scale = scale(r, ey, true);
    const long long spread = r.in(4, 24);
    pr.a = draw(r, sa, std::max(lo, static_cast<long long>(p.a_zero_point) - spread),
                std::min(hi, static_cast<long long>(p.a_zero_point) + spread));
    pr.b = draw(r, sb, std::max(lo, static_cast<long long>(p.b_zero_point) - spread),
                std::min(hi, static_cast<long long>(p.b_zero_point) + spread));
  } else {
    p.a_scale = scale(r, ea, false);
    p.b_scale = scale(r, eb, false);
    const int ey =
        pr.op == QEwOp::Add ? std::max(ea, eb) + static_cast<int>(r.in(-1, 1)) : ea + eb + static_cast<int>(r.in(4, 8));
    p.y_scale = scale(r, ey, false);
    pr.a = draw(r, sa, lo, hi);
    pr.b = draw(r, sb, lo, hi);
  }
  return pr;
}

// The layer on Arm NN CpuRef: output codes.
std::vector<long long> run_armnn(const Problem& pr, const Shape& y_shape, const std::string& key) {
  const auto& p = pr.p;
  const armnn::TensorInfo ia(tshape(pr.a.shape), dtype(p.type), f32(p.a_scale), static_cast<int>(p.a_zero_point));
  const armnn::TensorInfo ib(tshape(pr.b.shape), dtype(p.b_type), f32(p.b_scale), static_cast<int>(p.b_zero_point));
  const armnn::TensorInfo iy(tshape(y_shape), dtype(p.type), f32(p.y_scale), static_cast<int>(p.y_zero_point));
  const auto& n = qspec::armnn_adapter::network(key, {ia, ib}, iy, [&](armnn::INetwork& net) {
    return pr.op == QEwOp::Add ? net.AddAdditionLayer("add") : net.AddMultiplicationLayer("mul");
  });
  std::vector<std::uint8_t> ab, bb, yb(n.output_bytes);
  for (const auto& v : pr.a.data) ab.push_back(static_cast<std::uint8_t>(static_cast<long long>(v)));
  for (const auto& v : pr.b.data) bb.push_back(static_cast<std::uint8_t>(static_cast<long long>(v)));
  qspec::armnn_adapter::run(n, {ab.data(), bb.data()}, yb.data());
  std::vector<long long> y;
  for (auto v : yb) y.push_back(p.type == DType::I8 ? static_cast<std::int8_t>(v) : v);
  return y;
}

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, even_differs = 0, saturated = 0;
};

void check(Rng& r, bool tie, int n, Counts& c) {
  for (int i = 0; i < n; ++i) {
    const Problem pr = draw_problem(r, tie);
    const IntArray want = qlinear_elementwise(pr.op, pr.a, pr.b, pr.p, QEwConvention::ArmnnCpuref);
    const std::vector<long long> got = run_armnn(pr, want.shape, "crosscheck ew " + std::to_string(c.problems));
    ++c.problems;
    const QEwBroadcast bc = qlinear_ew_broadcast(pr.a.shape, pr.b.shape);
    ASSERT_EQ(got.size(), want.data.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      ++c.outputs;
      ASSERT_EQ(Int(got[k]), want.data[k])
          << (pr.op == QEwOp::Add ? "add" : "mul") << " problem " << c.problems << " output " << k;
      const std::uint32_t v = qlinear_ew_armnn_value(pr.op, pr.a.data[static_cast<std::size_t>(bc.a_offset[k])],
                                                     pr.b.data[static_cast<std::size_t>(bc.b_offset[k])], pr.p);
      const Rat q = f32_value(f32_div(v, pr.p.y_scale));
      if (denominator(q) == 2) {
        ++c.ties;
        c.even_differs += saturate(round_half_even(q) + pr.p.y_zero_point, pr.p.type) != want.data[k] ? 1 : 0;
      }
      c.saturated += got[k] == lo_of(pr.p.type) || got[k] == hi_of(pr.p.type) ? 1 : 0;
    }
  }
}

TEST(crosscheck_armnn_qlinear_elementwise, RandomAndTieRichProblemsMatchTheClause) {
  Rng r{std::mt19937_64(20081)};
  Counts c;
  check(r, false, 300, c);
  check(r, true, 300, c);
  std::printf(
      "Arm NN CpuRef Addition / Multiplication: %lld problems, %lld outputs equal the clause; %lld exact ties "
      "(%lld where half to even differs), %lld saturated outputs\n",
      c.problems, c.outputs, c.ties, c.even_differs, c.saturated);
  EXPECT_GT(c.even_differs, 0);
  EXPECT_GT(c.saturated, 0);
}

TEST(crosscheck_armnn_qlinear_elementwise, OperandsOfDifferentDtypesAreRefused) {
  for (bool add : {true, false}) {
    const armnn::TensorInfo ia(tshape({2}), armnn::DataType::QAsymmS8, 0.5f, 0);
    const armnn::TensorInfo ib(tshape({2}), armnn::DataType::QAsymmU8, 0.5f, 128);
    EXPECT_ANY_THROW(qspec::armnn_adapter::network(
        std::string("crosscheck ew dtypes ") + (add ? "add" : "mul"), {ia, ib}, ia,
        [add](armnn::INetwork& net) { return add ? net.AddAdditionLayer("add") : net.AddMultiplicationLayer("mul"); }))
        << (add ? "Addition" : "Multiplication") << " of QAsymmS8 and QAsymmU8 was accepted";
  }
}

}  // namespace
