// Cross-check of qlinear.add.xnnpack_fp32 and qlinear.mul.xnnpack_fp32
// (spec/operators_qlinear_elementwise.md) against the installed XNNPACK (Debian libxnnpack-dev
// 0.0~git20220216.ae108ef, x86).
//
// The real operators xnn_create_{add,multiply}_nd_{qs8,qu8} + xnn_setup_* + xnn_run_operator run on
// random problems (NumPy-broadcast shapes of rank 1 to 7 including one-element operands, realistic
// float scales, narrowed clamps) and tie-rich ones (dyadic scale ratios, codes near the zero
// points). Every output must equal the exact reference (qspec::ref::ops::qlinear_elementwise under
// QEwConvention::XnnpackFp32), and every parameter set or shape the clause rejects (ERROR_IF) must
// make XNNPACK's create or setup fail, every one it accepts succeed.
#include <gtest/gtest.h>
#include <xnnpack.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  QEwOp op = QEwOp::Add;
  QEwParams p;
  IntArray a, b;
};

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, rejected = 0, diffs = 0;
};

float as_float(std::uint32_t b) { return std::bit_cast<float>(b); }

IntArray random_codes(std::mt19937_64& g, const Shape& s, long long lo, long long hi) {
  IntArray a(s);
  std::uniform_int_distribution<long long> d(lo, hi);
  for (auto& v : a.data) v = Int(d(g));
  return a;
}

Problem draw(std::mt19937_64& g, QEwOp op, bool u8, bool tie_rich) {
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  Problem pr;
  pr.op = op;
  auto& p = pr.p;
  p.type = p.b_type = u8 ? DType::U8 : DType::I8;
  const long long lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  // Shapes: an output of rank 1..4 (rarely 7: beyond XNN_MAX_TENSOR_DIMS), each operand a suffix of
  // it with unit axes, sometimes one element; rarely a mismatch that does not broadcast.
  const long long rank = pick(0, 49) == 0 ? 7 : pick(1, 4);
  Shape out;
  for (long long i = 0; i < rank; ++i) out.push_back(rank == 7 ? pick(1, 2) : pick(1, 5));
  Shape sa = out, sb = out;
  for (auto* s : {&sa, &sb}) {
    for (auto& d : *s)
      if (pick(0, 3) == 0) d = 1;
    if (pick(0, 2) == 0) s->erase(s->begin(), s->begin() + pick(0, static_cast<long long>(s->size()) - 1));
  }
  if (pick(0, 9) == 0) sb = {1};
  if (pick(0, 39) == 0 && out.back() > 1) sb.back() = out.back() + 1;  // does not broadcast
  if (tie_rich) {
    // Ratios (add) or S (mul) m 2^-j with m odd and small: many outputs land on exact halves.
    const std::uint32_t sy = f32_round(Rat(2 * pick(0, 3) + 1) * pow2r(static_cast<int>(pick(-10, -4))));
    p.y_scale = sy;
    if (op == QEwOp::Add) {
      p.a_scale = f32_round(f32_value(sy) * Rat(2 * pick(0, 7) + 1) * pow2r(static_cast<int>(-pick(0, 4))));
      p.b_scale = f32_round(f32_value(sy) * Rat(2 * pick(0, 7) + 1) * pow2r(static_cast<int>(-pick(0, 4))));
    } else {
      p.a_scale = f32_round(Rat(2 * pick(0, 2) + 1) * pow2r(static_cast<int>(pick(-8, -2))));
      p.b_scale = f32_round(f32_value(sy) / f32_value(p.a_scale) * Rat(2 * pick(0, 2) + 1) *
                            pow2r(static_cast<int>(-pick(1, 6))));
    }
  } else {
    const auto scale = [&](long long e) {
      return (static_cast<std::uint32_t>(127 + e) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
    };
    const long long ea = pick(-10, -3), eb = ea + pick(-3, 3);
    p.a_scale = scale(ea);
    p.b_scale = scale(eb);
    p.y_scale = scale(op == QEwOp::Add ? std::max(ea, eb) + pick(-2, 1) : ea + eb + pick(2, 8));
  }
  p.a_zero_point = Int(pick(lo, hi));
  p.b_zero_point = Int(pick(lo, hi));
  p.y_zero_point = Int(pick(lo, hi));
  // Parameters the clause rejects: a ratio beyond the limits, a zero or subnormal scale.
  if (const long long k = pick(0, 29); k == 0)
    p.y_scale = f32_round(f32_value(p.y_scale) * pow2r(static_cast<int>(op == QEwOp::Add ? -12 : -20)));
  else if (k == 1)
    p.y_scale = f32_round(f32_value(p.y_scale) * pow2r(static_cast<int>(op == QEwOp::Add ? 14 : 20)));
  else if (k == 2)
    p.a_scale = pick(0, 1) == 0 ? 0u : static_cast<std::uint32_t>(pick(1, 0x7fffff));
  if (pick(0, 3) == 0) {  // a narrowed fused clamp (sometimes empty: y_min >= y_max is an ERROR_IF)
    p.y_min = Int(pick(lo, hi - 10));
    p.y_max = Int(pick(static_cast<long long>(*p.y_min), hi));
  }
  if (tie_rich) {
    std::uniform_int_distribution<long long> d(-8, 8);
    pr.a = IntArray(sa);
    pr.b = IntArray(sb);
    for (auto& v : pr.a.data) v = Int(std::clamp(static_cast<long long>(p.a_zero_point) + d(g), lo, hi));
    for (auto& v : pr.b.data) v = Int(std::clamp(static_cast<long long>(p.b_zero_point) + d(g), lo, hi));
  } else {
    pr.a = random_codes(g, sa, lo, hi);
    pr.b = random_codes(g, sb, lo, hi);
  }
  return pr;
}

// Whether the clause's last rounding of output i is an exact half (the tie XNNPACK must break).
bool is_tie(const Problem& pr, const Int& a, const Int& b) {
  const auto& p = pr.p;
  if (pr.op == QEwOp::Add) {
    const auto k = qlinear_add_xnnpack_params(p);
    const Int v = k.a_multiplier * (a - p.a_zero_point) + k.b_multiplier * (b - p.b_zero_point);
    const Int m = pow2(static_cast<unsigned>(k.shift));
    return v - floor_div(v, m) * m == pow2(static_cast<unsigned>(k.shift - 1));
  }
  const std::uint32_t v =
      f32_mul(f32_from_int((a - p.a_zero_point) * (b - p.b_zero_point)), qlinear_mul_xnnpack_scale(p));
  const Rat twice = f32_value(v) * 2;
  return denominator(twice) == 1 && numerator(twice) % 2 != 0;
}

template <typename T>
std::vector<T> bytes(const IntArray& a) {
  std::vector<T> v(a.data.size() + XNN_EXTRA_BYTES);  // the kernels may read past the end
  for (std::size_t i = 0; i < a.data.size(); ++i) v[i] = static_cast<T>(static_cast<long long>(a.data[i]));
  return v;
}

struct Run {
  xnn_status status = xnn_status_success;  // create, then setup
  std::vector<long long> y;
};

template <typename T>
Run run_typed(const Problem& pr, std::size_t out_elems) {
  Run r;
  constexpr bool u8 = std::is_same_v<T, std::uint8_t>;
  const auto& p = pr.p;
  const T lo = u8 ? 0 : INT8_MIN, hi = u8 ? UINT8_MAX : INT8_MAX;
  const auto code = [](const Int& v) { return static_cast<T>(static_cast<long long>(v)); };
  const T y_min = p.y_min ? code(*p.y_min) : lo, y_max = p.y_max ? code(*p.y_max) : hi;
  const float sa = as_float(p.a_scale), sb = as_float(p.b_scale), sy = as_float(p.y_scale);
  const T za = code(p.a_zero_point), zb = code(p.b_zero_point), zy = code(p.y_zero_point);
  xnn_operator_t op = nullptr;
  if (pr.op == QEwOp::Add) {
    if constexpr (u8)
      r.status = xnn_create_add_nd_qu8(za, sa, zb, sb, zy, sy, y_min, y_max, 0, &op);
    else
      r.status = xnn_create_add_nd_qs8(za, sa, zb, sb, zy, sy, y_min, y_max, 0, &op);
  } else {
    if constexpr (u8)
      r.status = xnn_create_multiply_nd_qu8(za, sa, zb, sb, zy, sy, y_min, y_max, 0, &op);
    else
      r.status = xnn_create_multiply_nd_qs8(za, sa, zb, sb, zy, sy, y_min, y_max, 0, &op);
  }
  if (r.status != xnn_status_success) {
    xnn_delete_operator(op);
    return r;
  }
  const auto a = bytes<T>(pr.a), b = bytes<T>(pr.b);
  const std::vector<std::size_t> shape_a(pr.a.shape.begin(), pr.a.shape.end()),
      shape_b(pr.b.shape.begin(), pr.b.shape.end());
  std::vector<T> out(std::max<std::size_t>(out_elems, 1) + 64, static_cast<T>(0x5a));
  if (pr.op == QEwOp::Add) {
    if constexpr (u8)
      r.status = xnn_setup_add_nd_qu8(op, shape_a.size(), shape_a.data(), shape_b.size(), shape_b.data(), a.data(),
                                      b.data(), out.data(), nullptr);
    else
      r.status = xnn_setup_add_nd_qs8(op, shape_a.size(), shape_a.data(), shape_b.size(), shape_b.data(), a.data(),
                                      b.data(), out.data(), nullptr);
  } else {
    if constexpr (u8)
      r.status = xnn_setup_multiply_nd_qu8(op, shape_a.size(), shape_a.data(), shape_b.size(), shape_b.data(), a.data(),
                                           b.data(), out.data(), nullptr);
    else
      r.status = xnn_setup_multiply_nd_qs8(op, shape_a.size(), shape_a.data(), shape_b.size(), shape_b.data(), a.data(),
                                           b.data(), out.data(), nullptr);
  }
  if (r.status == xnn_status_success && out_elems > 0) {
    EXPECT_EQ(xnn_run_operator(op, nullptr), xnn_status_success) << "run";
    r.y.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(out_elems));
    for (std::size_t i = out_elems; i < out.size(); ++i)
      EXPECT_EQ(out[i], static_cast<T>(0x5a)) << "wrote past the output";
  }
  xnn_delete_operator(op);
  return r;
}

std::string describe(const Problem& pr) {
  std::string s = pr.op == QEwOp::Add ? "add" : "mul";
  s += pr.p.type == DType::U8 ? " qu8 a" : " qs8 a";
  for (auto d : pr.a.shape) s += " " + std::to_string(d);
  s += ", b";
  for (auto d : pr.b.shape) s += " " + std::to_string(d);
  char buf[200];
  std::snprintf(buf, sizeof buf, ", scales %a %a %a, zero points %lld %lld %lld",
                static_cast<double>(as_float(pr.p.a_scale)), static_cast<double>(as_float(pr.p.b_scale)),
                static_cast<double>(as_float(pr.p.y_scale)), static_cast<long long>(pr.p.a_zero_point),
                static_cast<long long>(pr.p.b_zero_point), static_cast<long long>(pr.p.y_zero_point));
  return s + buf;
}

void check_one(const Problem& pr, Counts& c) {
  ++c.problems;
  IntArray want;
  bool rejected = false;
  try {
    want = qlinear_elementwise(pr.op, pr.a, pr.b, pr.p, QEwConvention::XnnpackFp32);
  } catch (const ErrorIf&) {
    rejected = true;
  }
  const bool u8 = pr.p.type == DType::U8;
  const Run r = u8 ? run_typed<std::uint8_t>(pr, want.data.size()) : run_typed<std::int8_t>(pr, want.data.size());
  if (rejected) {
    ++c.rejected;
    EXPECT_NE(r.status, xnn_status_success) << "the clause rejects it, XNNPACK accepts: " << describe(pr);
    return;
  }
  ASSERT_EQ(r.status, xnn_status_success) << "the clause accepts it, XNNPACK fails: " << describe(pr);
  const auto bc = qlinear_ew_broadcast(pr.a.shape, pr.b.shape);
  const Range t = int_range(pr.p.type);
  const Int lo = pr.p.y_min.value_or(t.lo), hi = pr.p.y_max.value_or(t.hi);
  for (std::size_t i = 0; i < want.data.size(); ++i) {
    ++c.outputs;
    const Int& a = pr.a.data[static_cast<std::size_t>(bc.a_offset[i])];
    const Int& b = pr.b.data[static_cast<std::size_t>(bc.b_offset[i])];
    if (want.data[i] > lo && want.data[i] < hi && is_tie(pr, a, b)) ++c.ties;
    if (r.y[i] != static_cast<long long>(want.data[i]) && ++c.diffs <= 10)
      ADD_FAILURE() << "output " << i << ": XNNPACK " << r.y[i] << ", clause " << want.data[i] << " (A " << a << ", B "
                    << b << "): " << describe(pr);
  }
}

const bool kInit = [] { return xnn_initialize(nullptr) == xnn_status_success; }();

void sweep(QEwOp op, bool u8, int n_random, int n_ties, std::uint64_t seed) {
  ASSERT_TRUE(kInit) << "xnn_initialize failed";
  std::mt19937_64 g(seed);
  Counts c;
  const int scale = static_cast<int>(qspec::test::domain_stride());
  for (int i = 0; i < n_random / scale; ++i) check_one(draw(g, op, u8, false), c);
  for (int i = 0; i < n_ties / scale; ++i) check_one(draw(g, op, u8, true), c);
  std::printf(
      "xnnpack %s %s: %lld problems (%lld rejected by both), %lld outputs compared, %lld exact ties, "
      "%lld differences\n",
      op == QEwOp::Add ? "add" : "multiply", u8 ? "qu8" : "qs8", c.problems, c.rejected, c.outputs, c.ties, c.diffs);
  ::testing::Test::RecordProperty("outputs", std::to_string(c.outputs));
  ::testing::Test::RecordProperty("ties", std::to_string(c.ties));
  EXPECT_EQ(c.diffs, 0);
  // The sweep must have checked something of each kind: outputs, exact ties and rejections.
  EXPECT_GT(c.outputs, 1000 / scale);
  EXPECT_GT(c.ties, 100 / scale);
  EXPECT_GT(c.rejected, 0);
  EXPECT_GT(c.problems - c.rejected, n_random / scale / 2);
}

TEST(crosscheck_xnnpack_qlinear_elementwise, AddQs8) { sweep(QEwOp::Add, false, 3000, 3000, 1501); }
TEST(crosscheck_xnnpack_qlinear_elementwise, AddQu8) { sweep(QEwOp::Add, true, 3000, 3000, 1502); }
TEST(crosscheck_xnnpack_qlinear_elementwise, MultiplyQs8) { sweep(QEwOp::Mul, false, 3000, 3000, 1511); }
TEST(crosscheck_xnnpack_qlinear_elementwise, MultiplyQu8) { sweep(QEwOp::Mul, true, 3000, 3000, 1512); }

}  // namespace
