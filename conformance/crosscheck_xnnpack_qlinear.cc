// Cross-check of qlinear.xnnpack_fp32 (spec/operators_qlinear.md) against the installed XNNPACK
// (Debian libxnnpack-dev 0.0~git20220216.ae108ef, x86: fp32 requantization on every ISA).
//
// The real operators xnn_create_convolution2d_nhwc_{qs8,qu8,qc8} and
// xnn_create_fully_connected_nc_{qs8,qu8} run on random problems (geometry with asymmetric pads,
// strides, dilations, groups, depthwise multipliers; realistic float scales; narrowed clamps) and on
// tie-rich ones (dyadic scales that make about half the accumulators land on k + 1/2 exactly). Every
// output must equal the exact reference (qspec::ref::ops::qlinear_conv2d / qlinear_fully_connected
// under QLinearConvention::XnnpackFp32), and every parameter set the clause rejects (ERROR_IF) must
// make XNNPACK's create call fail, every one it accepts succeed. Problems outside the clause's
// REQUIREs (S < 2^-32) are not run: XNNPACK asserts there.
#include <gtest/gtest.h>
#include <xnnpack.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

enum class Family { Qs8, Qu8, Qc8 };
const char* family_name(Family f) { return f == Family::Qs8 ? "qs8" : f == Family::Qu8 ? "qu8" : "qc8"; }

struct Problem {
  Family fam = Family::Qs8;
  bool fc = false;  // fully connected (x (N, K), w (O, K)); else a convolution
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, rejected = 0, outside_require = 0, diffs = 0;
};

float as_float(std::uint32_t b) { return std::bit_cast<float>(b); }

IntArray random_codes(std::mt19937_64& g, Shape s, long long lo, long long hi) {
  IntArray a(std::move(s));
  std::uniform_int_distribution<long long> d(lo, hi);
  for (auto& v : a.data) v = Int(d(g));
  return a;
}

// A scale: realistic (a random binary32 in [2^-10, 2^-1)), or dyadic m 2^e (m odd, small) for ties.
std::uint32_t random_scale(std::mt19937_64& g, bool tie_rich, int e_lo, int e_hi) {
  std::uniform_int_distribution<int> e(e_lo, e_hi);
  if (tie_rich) {
    std::uniform_int_distribution<int> m(0, 7);
    return f32_round(Rat(2 * m(g) + 1) * pow2r(e(g)));
  }
  const std::uint32_t mant = static_cast<std::uint32_t>(g() & 0x7fffffu);
  return (static_cast<std::uint32_t>(127 + e(g)) << 23) | mant;
}

// Tie-rich problems take codes within 4 of the zero points, so that acc S stays inside the output
// range and its half-integers are not clamped away.
void near_zero_points(Problem& pr, std::mt19937_64& g, long long lo, long long hi) {
  std::uniform_int_distribution<long long> d(-4, 4);
  const auto zx = static_cast<long long>(pr.p.x_zero_point), zw = static_cast<long long>(pr.p.w_zero_point);
  for (auto& v : pr.x.data) v = Int(std::clamp(zx + d(g), lo, hi));
  for (auto& v : pr.w.data) v = Int(std::clamp(zw + d(g), lo, hi));
  if (pr.b)
    for (auto& v : pr.b->data) v = Int(d(g) * 8);
}

Problem draw(std::mt19937_64& g, Family fam, bool fc, bool tie_rich) {
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  Problem pr;
  pr.fam = fam, pr.fc = fc;
  const bool u8 = fam == Family::Qu8;
  const long long lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  pr.p.x_type = pr.p.w_type = u8 ? DType::U8 : DType::I8;
  long long O = 0;
  if (fc) {
    const long long N = pick(1, 4), K = pick(1, 40);
    O = pick(1, 16);
    pr.x = random_codes(g, {N, K}, lo, hi);
    pr.w = random_codes(g, {O, K}, lo, hi);
  } else {
    const long long kind = pick(0, 2);  // 0: dense, 1: grouped, 2: depthwise with a multiplier
    const long long G = kind == 0 ? 1 : kind == 1 ? pick(2, 3) : pick(1, 4);
    const long long cg = kind == 2 ? 1 : pick(1, 4), og = kind == 2 ? pick(1, 3) : pick(1, 4);
    const long long N = pick(1, 2), H = pick(1, 6), W = pick(1, 6), KH = pick(1, 3), KW = pick(1, 3);
    O = G * og;
    pr.x = random_codes(g, {N, H, W, G * cg}, lo, hi);
    pr.w = random_codes(g, {O, KH, KW, cg}, lo, hi);
    pr.g.groups = G;
    pr.g.strides = {pick(1, 2), pick(1, 2)};
    pr.g.dilations = {pick(1, 2), pick(1, 2)};
    for (auto& p : pr.g.pads) p = pick(0, 2);
  }
  if (pick(0, 3) != 0) pr.b = random_codes(g, {O}, -5000, 5000);
  pr.p.x_zero_point = Int(pick(lo, hi));
  pr.p.w_zero_point = Int(u8 ? pick(lo, hi) : 0);
  pr.p.y_zero_point = Int(pick(lo, hi));
  // Realistic: S = x_s w_s / y_s around 2^-12 .. 2^-4; tie-rich: S = m 2^-(1..4) with m odd.
  pr.p.x_scale = random_scale(g, tie_rich, tie_rich ? -1 : -8, tie_rich ? 0 : -4);
  pr.p.y_scale = random_scale(g, false, tie_rich ? 0 : -4, tie_rich ? 0 : -1);
  if (tie_rich) pr.p.y_scale = 0x3f800000u;
  const long long channels = fam == Family::Qc8 ? O : 1;
  pr.p.w_scales.clear();
  for (long long o = 0; o < channels; ++o)
    pr.p.w_scales.push_back(random_scale(g, tie_rich, tie_rich ? -4 : -10, tie_rich ? -1 : -3));
  if (tie_rich) near_zero_points(pr, g, lo, hi);
  // Parameters the clause rejects: S >= 256 (a tiny output scale), a zero or subnormal scale.
  if (const long long k = pick(0, 39); k == 0)
    pr.p.y_scale = random_scale(g, false, -24, -18);
  else if (k == 1)
    pr.p.x_scale = pick(0, 1) == 0 ? 0u : static_cast<std::uint32_t>(pick(1, 0x7fffff));
  if (pick(0, 3) == 0) {  // a narrowed fused clamp (sometimes empty: y_min >= y_max is an ERROR_IF)
    pr.p.y_min = Int(pick(lo, hi - 10));
    pr.p.y_max = Int(pick(static_cast<long long>(*pr.p.y_min), hi));
  }
  return pr;
}

// The reference's verdict and output.
struct Expected {
  enum { Valid, Rejected, OutsideRequire } verdict = Valid;
  IntArray y, acc;
  std::vector<std::uint32_t> scales;
};

Expected reference(const Problem& pr) {
  Expected e;
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  try {
    if (pr.fc) {
      e.y = qlinear_fully_connected(pr.x, pr.w, b, pr.p, QLinearConvention::XnnpackFp32);
      e.acc = qlinear_acc_fully_connected(pr.x, pr.w, b, pr.p.x_zero_point, pr.p.w_zero_point);
    } else {
      e.y = qlinear_conv2d(pr.x, pr.w, b, pr.g, pr.p, QLinearConvention::XnnpackFp32);
      e.acc = qlinear_acc_conv2d(pr.x, pr.w, b, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, e.y.shape[1], e.y.shape[2]);
    }
    e.scales = qlinear_xnnpack_fp32_scales(pr.p, pr.w.shape[0]);
  } catch (const ErrorIf&) {
    e.verdict = Expected::Rejected;
  } catch (const RequireViolated&) {
    e.verdict = Expected::OutsideRequire;
  }
  return e;
}

template <typename T>
std::vector<T> bytes(const IntArray& a) {
  std::vector<T> v(a.data.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(static_cast<long long>(a.data[i]));
  return v;
}

struct Run {
  xnn_status create = xnn_status_success;
  std::vector<long long> y;
  bool guard_intact = true;
};

constexpr std::size_t kGuard = 64;  // bytes past the expected output that XNNPACK must not write

// Runs the XNNPACK operator of the problem; `out_elems` is the reference's output size.
template <typename T>
Run run_typed(const Problem& pr, std::size_t out_elems) {
  Run r;
  // XNNPACK's kernels may read XNN_EXTRA_BYTES past the input (xnnpack.h): the buffer has them.
  std::vector<T> x = bytes<T>(pr.x);
  x.resize(x.size() + XNN_EXTRA_BYTES);
  const auto w = bytes<T>(pr.w);
  const std::vector<std::int32_t> bias = pr.b ? bytes<std::int32_t>(*pr.b) : std::vector<std::int32_t>{};
  const std::int32_t* bp = pr.b ? bias.data() : nullptr;
  constexpr bool u8 = std::is_same_v<T, std::uint8_t>;
  const T lo = u8 ? 0 : INT8_MIN, hi = u8 ? UINT8_MAX : INT8_MAX;
  const T y_min = pr.p.y_min ? static_cast<T>(static_cast<long long>(*pr.p.y_min)) : lo;
  const T y_max = pr.p.y_max ? static_cast<T>(static_cast<long long>(*pr.p.y_max)) : hi;
  const T zx = static_cast<T>(static_cast<long long>(pr.p.x_zero_point));
  const T zy = static_cast<T>(static_cast<long long>(pr.p.y_zero_point));
  const T zw = static_cast<T>(static_cast<long long>(pr.p.w_zero_point));
  const float xs = as_float(pr.p.x_scale), ys = as_float(pr.p.y_scale), ws = as_float(pr.p.w_scales[0]);
  std::vector<float> wss;
  for (auto s : pr.p.w_scales) wss.push_back(as_float(s));
  const std::size_t O = static_cast<std::size_t>(pr.w.shape[0]);
  xnn_operator_t op = nullptr;
  if (pr.fc) {
    const std::size_t K = static_cast<std::size_t>(pr.x.shape[1]);
    if constexpr (u8)
      r.create =
          xnn_create_fully_connected_nc_qu8(K, O, K, O, zx, xs, zw, ws, w.data(), bp, zy, ys, y_min, y_max, 0, &op);
    else
      r.create = xnn_create_fully_connected_nc_qs8(K, O, K, O, zx, xs, ws, w.data(), bp, zy, ys, y_min, y_max, 0, &op);
  } else {
    const auto u32 = [](long long v) { return static_cast<std::uint32_t>(v); };
    const auto& g = pr.g;
    const std::size_t G = static_cast<std::size_t>(g.groups), cg = static_cast<std::size_t>(pr.w.shape[3]);
    const std::size_t C = static_cast<std::size_t>(pr.x.shape[3]);
    // XNNPACK's padding order is top, right, bottom, left; qspec's pads are top, left, bottom, right.
    const std::uint32_t pt = u32(g.pads[0]), pl = u32(g.pads[1]), pb = u32(g.pads[2]), prt = u32(g.pads[3]);
    const std::uint32_t kh = u32(pr.w.shape[1]), kw = u32(pr.w.shape[2]);
    const std::uint32_t sh = u32(g.strides[0]), sw = u32(g.strides[1]), dh = u32(g.dilations[0]),
                        dw = u32(g.dilations[1]);
    if constexpr (u8)
      r.create = xnn_create_convolution2d_nhwc_qu8(pt, prt, pb, pl, kh, kw, sh, sw, dh, dw, u32(g.groups), cg, O / G, C,
                                                   O, zx, xs, zw, ws, w.data(), bp, zy, ys, y_min, y_max, 0, &op);
    else if (pr.fam == Family::Qc8)
      r.create = xnn_create_convolution2d_nhwc_qc8(pt, prt, pb, pl, kh, kw, sh, sw, dh, dw, u32(g.groups), cg, O / G, C,
                                                   O, zx, xs, wss.data(), w.data(), bp, zy, ys, y_min, y_max, 0, &op);
    else
      r.create = xnn_create_convolution2d_nhwc_qs8(pt, prt, pb, pl, kh, kw, sh, sw, dh, dw, u32(g.groups), cg, O / G, C,
                                                   O, zx, xs, ws, w.data(), bp, zy, ys, y_min, y_max, 0, &op);
  }
  if (r.create != xnn_status_success || out_elems == 0) {  // out_elems 0: the clause rejects it
    xnn_delete_operator(op);
    return r;
  }
  std::vector<T> out(out_elems + kGuard, static_cast<T>(0x5a));
  xnn_status s = xnn_status_success;
  if (pr.fc) {
    const std::size_t N = static_cast<std::size_t>(pr.x.shape[0]);
    if constexpr (u8)
      s = xnn_setup_fully_connected_nc_qu8(op, N, x.data(), out.data(), nullptr);
    else
      s = xnn_setup_fully_connected_nc_qs8(op, N, x.data(), out.data(), nullptr);
  } else {
    const std::size_t N = static_cast<std::size_t>(pr.x.shape[0]), H = static_cast<std::size_t>(pr.x.shape[1]),
                      W = static_cast<std::size_t>(pr.x.shape[2]);
    if constexpr (u8)
      s = xnn_setup_convolution2d_nhwc_qu8(op, N, H, W, x.data(), out.data(), nullptr);
    else if (pr.fam == Family::Qc8)
      s = xnn_setup_convolution2d_nhwc_qc8(op, N, H, W, x.data(), out.data(), nullptr);
    else
      s = xnn_setup_convolution2d_nhwc_qs8(op, N, H, W, x.data(), out.data(), nullptr);
  }
  EXPECT_EQ(s, xnn_status_success) << "setup";
  EXPECT_EQ(xnn_run_operator(op, nullptr), xnn_status_success) << "run";
  xnn_delete_operator(op);
  for (std::size_t i = out_elems; i < out.size(); ++i) r.guard_intact &= out[i] == static_cast<T>(0x5a);
  r.y.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(out_elems));
  return r;
}

std::string describe(const Problem& pr) {
  std::string s = std::string(family_name(pr.fam)) + (pr.fc ? " fully connected x" : " convolution x");
  for (auto d : pr.x.shape) s += " " + std::to_string(d);
  s += ", w";
  for (auto d : pr.w.shape) s += " " + std::to_string(d);
  if (!pr.fc) {
    s += ", strides " + std::to_string(pr.g.strides[0]) + " " + std::to_string(pr.g.strides[1]) + ", dilations " +
         std::to_string(pr.g.dilations[0]) + " " + std::to_string(pr.g.dilations[1]) + ", pads";
    for (auto p : pr.g.pads) s += " " + std::to_string(p);
    s += ", groups " + std::to_string(pr.g.groups);
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, ", x_scale %a, y_scale %a, w_scales[0] %a, zx %lld zw %lld zy %lld",
                static_cast<double>(as_float(pr.p.x_scale)), static_cast<double>(as_float(pr.p.y_scale)),
                static_cast<double>(as_float(pr.p.w_scales[0])), static_cast<long long>(pr.p.x_zero_point),
                static_cast<long long>(pr.p.w_zero_point), static_cast<long long>(pr.p.y_zero_point));
  return s + buf;
}

void check_one(const Problem& pr, Counts& c) {
  const Expected e = reference(pr);
  if (e.verdict == Expected::OutsideRequire) {
    ++c.outside_require;
    return;
  }
  ++c.problems;
  const std::size_t out_elems = e.verdict == Expected::Valid ? e.y.data.size() : 0;
  // QSPEC_XNN_TRACE=1 names each problem before XNNPACK runs it (to find the one a crash stops at).
  if (std::getenv("QSPEC_XNN_TRACE")) std::fprintf(stderr, "%s\n", describe(pr).c_str());
  const Run r = pr.fam == Family::Qu8 ? run_typed<std::uint8_t>(pr, out_elems) : run_typed<std::int8_t>(pr, out_elems);
  if (e.verdict == Expected::Rejected) {
    ++c.rejected;
    EXPECT_NE(r.create, xnn_status_success) << "the clause rejects it, XNNPACK accepts: " << describe(pr);
    return;
  }
  ASSERT_EQ(r.create, xnn_status_success) << "the clause accepts it, XNNPACK's create fails: " << describe(pr);
  EXPECT_TRUE(r.guard_intact) << "XNNPACK wrote past the clause's output size: " << describe(pr);
  const std::size_t channels = static_cast<std::size_t>(e.y.shape.back());
  const long long lo = pr.p.y_min ? static_cast<long long>(*pr.p.y_min) : (pr.fam == Family::Qu8 ? 0 : -128);
  const long long hi = pr.p.y_max ? static_cast<long long>(*pr.p.y_max) : (pr.fam == Family::Qu8 ? 255 : 127);
  for (std::size_t i = 0; i < out_elems; ++i) {
    const long long want = static_cast<long long>(e.y.data[i]);
    ++c.outputs;
    const std::uint32_t s = e.scales[e.scales.size() == 1 ? 0 : i % channels];
    const std::uint32_t v = f32_mul(f32_from_int(e.acc.data[i]), s);
    const Rat twice = f32_value(v) * 2;  // an exact tie k + 1/2 that the clamp leaves alone
    if (denominator(twice) == 1 && numerator(twice) % 2 != 0 && want > lo && want < hi) ++c.ties;
    if (r.y[i] != want) {
      if (++c.diffs <= 10)
        ADD_FAILURE() << "output " << i << ": XNNPACK " << r.y[i] << ", clause " << want << " (acc " << e.acc.data[i]
                      << "): " << describe(pr);
    }
  }
}

const bool kInit = [] { return xnn_initialize(nullptr) == xnn_status_success; }();

void sweep(Family fam, bool fc, int n_random, int n_ties, std::uint64_t seed) {
  ASSERT_TRUE(kInit) << "xnn_initialize failed";
  std::mt19937_64 g(seed);
  Counts c;
  const int scale = static_cast<int>(qspec::test::domain_stride());
  for (int i = 0; i < n_random / scale; ++i) check_one(draw(g, fam, fc, false), c);
  for (int i = 0; i < n_ties / scale; ++i) check_one(draw(g, fam, fc, true), c);
  std::printf(
      "xnnpack %s %s: %lld problems (%lld rejected by both), %lld outputs compared, %lld exact ties, "
      "%lld differences; %lld draws outside the REQUIREs not run\n",
      family_name(fam), fc ? "fully_connected" : "conv2d", c.problems, c.rejected, c.outputs, c.ties, c.diffs,
      c.outside_require);
  ::testing::Test::RecordProperty("outputs", std::to_string(c.outputs));
  ::testing::Test::RecordProperty("ties", std::to_string(c.ties));
  EXPECT_EQ(c.diffs, 0);
  // The sweep must have checked something of each kind: outputs, exact ties and rejections.
  EXPECT_GT(c.outputs, 1000 / scale);
  EXPECT_GT(c.ties, 100 / scale);
  EXPECT_GT(c.problems - c.rejected, n_random / scale / 2);
}

TEST(crosscheck_xnnpack_qlinear, FullyConnectedQs8) { sweep(Family::Qs8, true, 1500, 1500, 1401); }
TEST(crosscheck_xnnpack_qlinear, FullyConnectedQu8) { sweep(Family::Qu8, true, 1500, 1500, 1402); }
TEST(crosscheck_xnnpack_qlinear, Conv2dQs8) { sweep(Family::Qs8, false, 1500, 1500, 1403); }
TEST(crosscheck_xnnpack_qlinear, Conv2dQu8) { sweep(Family::Qu8, false, 1500, 1500, 1404); }
TEST(crosscheck_xnnpack_qlinear, Conv2dQc8) { sweep(Family::Qc8, false, 1500, 1500, 1405); }

}  // namespace
