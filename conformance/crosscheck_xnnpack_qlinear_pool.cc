// Cross-check of the XNNPACK pooling clauses (spec/operators_qlinear_pool.md) against the installed
// XNNPACK (Debian libxnnpack-dev 0.0~git20220216.ae108ef, x86):
// xnn_create_average_pooling2d_nhwc_qu8 (windowed and global kernels, asymmetric pads, windows in
// the padding), xnn_create_global_average_pooling_nwc_{qs8,qu8} and
// xnn_create_max_pooling2d_nhwc_{s8,u8} (dilations, narrowed clamps) on random and tie-rich
// problems. Every output must equal the exact reference under QPoolConvention::XnnpackFp32, and
// XNNPACK's create must fail exactly where the clause has an ERROR_IF. Problems outside the
// clause's REQUIREs are not run.
#include <gtest/gtest.h>
#include <xnnpack.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_lut.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

enum class Op { Avg, Gap, Max };

struct Problem {
  Op op = Op::Avg;
  IntArray x;
  QPoolGeometry g;
  QPoolParams p;
};

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, rejected = 0, outside_require = 0, diffs = 0, global = 0;
};

float as_float(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t u32(long long v) { return static_cast<std::uint32_t>(v); }

struct Run {
  xnn_status create = xnn_status_success;
  std::vector<long long> y;
};

template <class T>
Run run_xnnpack(const Problem& pr, std::size_t out_elems) {
  const auto& g = pr.g;
  const auto& p = pr.p;
  const std::size_t N = static_cast<std::size_t>(pr.x.dim(0)), H = static_cast<std::size_t>(pr.x.dim(1)),
                    W = static_cast<std::size_t>(pr.x.dim(2)), C = static_cast<std::size_t>(pr.x.dim(3));
  const T zx = static_cast<T>(static_cast<long long>(p.x_zero_point)),
          zy = static_cast<T>(static_cast<long long>(p.y_zero_point));
  const long long lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  const T ymin = static_cast<T>(static_cast<long long>(p.y_min.value_or(Int(lo))));
  const T ymax = static_cast<T>(static_cast<long long>(p.y_max.value_or(Int(hi))));
  Run r;
  xnn_operator_t op = nullptr;
  if (pr.op == Op::Avg) {
    r.create = xnn_create_average_pooling2d_nhwc_qu8(
        u32(g.pads[0]), u32(g.pads[3]), u32(g.pads[2]), u32(g.pads[1]), u32(g.kernel[0]), u32(g.kernel[1]),
        u32(g.strides[0]), u32(g.strides[1]), C, C, C, static_cast<std::uint8_t>(zx), as_float(p.x_scale),
        static_cast<std::uint8_t>(zy), as_float(p.y_scale), static_cast<std::uint8_t>(ymin),
        static_cast<std::uint8_t>(ymax), 0, &op);
  } else if (pr.op == Op::Gap) {
    if constexpr (std::is_signed_v<T>)
      r.create = xnn_create_global_average_pooling_nwc_qs8(C, C, C, zx, as_float(p.x_scale), zy, as_float(p.y_scale),
                                                           ymin, ymax, 0, &op);
    else
      r.create = xnn_create_global_average_pooling_nwc_qu8(C, C, C, zx, as_float(p.x_scale), zy, as_float(p.y_scale),
                                                           ymin, ymax, 0, &op);
  } else {
    if constexpr (std::is_signed_v<T>)
      r.create = xnn_create_max_pooling2d_nhwc_s8(
          u32(g.pads[0]), u32(g.pads[3]), u32(g.pads[2]), u32(g.pads[1]), u32(g.kernel[0]), u32(g.kernel[1]),
          u32(g.strides[0]), u32(g.strides[1]), u32(g.dilations[0]), u32(g.dilations[1]), C, C, C, ymin, ymax, 0, &op);
    else
      r.create = xnn_create_max_pooling2d_nhwc_u8(
          u32(g.pads[0]), u32(g.pads[3]), u32(g.pads[2]), u32(g.pads[1]), u32(g.kernel[0]), u32(g.kernel[1]),
          u32(g.strides[0]), u32(g.strides[1]), u32(g.dilations[0]), u32(g.dilations[1]), C, C, C, ymin, ymax, 0, &op);
  }
  if (r.create != xnn_status_success) return r;
  // XNNPACK's kernels may read XNN_EXTRA_BYTES past the input (xnnpack.h): the buffer has them
  // (without, ASan sees the pooling microkernels read past the end).
  std::vector<T> x(pr.x.data.size() + XNN_EXTRA_BYTES), out(out_elems + 64, T(0x5a));
  for (std::size_t i = 0; i < pr.x.data.size(); ++i) x[i] = static_cast<T>(static_cast<long long>(pr.x.data[i]));
  xnn_status s;
  if (pr.op == Op::Avg) {
    s = xnn_setup_average_pooling2d_nhwc_qu8(op, N, H, W, reinterpret_cast<const std::uint8_t*>(x.data()),
                                             reinterpret_cast<std::uint8_t*>(out.data()), nullptr);
  } else if (pr.op == Op::Gap) {
    if constexpr (std::is_signed_v<T>)
      s = xnn_setup_global_average_pooling_nwc_qs8(op, N, H * W, x.data(), out.data(), nullptr);
    else
      s = xnn_setup_global_average_pooling_nwc_qu8(op, N, H * W, x.data(), out.data(), nullptr);
  } else {
    if constexpr (std::is_signed_v<T>)
      s = xnn_setup_max_pooling2d_nhwc_s8(op, N, H, W, x.data(), out.data(), nullptr);
    else
      s = xnn_setup_max_pooling2d_nhwc_u8(op, N, H, W, x.data(), out.data(), nullptr);
  }
  EXPECT_EQ(s, xnn_status_success) << "setup";
  EXPECT_EQ(xnn_run_operator(op, nullptr), xnn_status_success) << "run";
  xnn_delete_operator(op);
  for (std::size_t i = 0; i < out_elems; ++i) r.y.push_back(out[i]);
  return r;
}

IntArray reference(const Problem& pr) {
  if (pr.op == Op::Avg) return qlinear_avg_pool2d(pr.x, pr.g, true, pr.p, QPoolConvention::XnnpackFp32);
  if (pr.op == Op::Gap) return qlinear_global_avg_pool(pr.x, pr.p, QPoolConvention::XnnpackFp32);
  return qlinear_max_pool2d(pr.x, pr.g, pr.p, QPoolConvention::XnnpackFp32);
}

std::string describe(const Problem& pr) {
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "x %s kernel %lldx%lld strides %lld,%lld dil %lld,%lld pads %lld,%lld,%lld,%lld x_s %a y_s %a zx %lld zy %lld",
      shape_str(pr.x.shape).c_str(), static_cast<long long>(pr.g.kernel[0]), static_cast<long long>(pr.g.kernel[1]),
      static_cast<long long>(pr.g.strides[0]), static_cast<long long>(pr.g.strides[1]),
      static_cast<long long>(pr.g.dilations[0]), static_cast<long long>(pr.g.dilations[1]),
      static_cast<long long>(pr.g.pads[0]), static_cast<long long>(pr.g.pads[1]), static_cast<long long>(pr.g.pads[2]),
      static_cast<long long>(pr.g.pads[3]), as_float(pr.p.x_scale), as_float(pr.p.y_scale),
      static_cast<long long>(pr.p.x_zero_point), static_cast<long long>(pr.p.y_zero_point));
  return buf;
}

void check(const Problem& pr, Counts& c) {
  ++c.problems;
  std::optional<IntArray> ref;
  bool rejected = false;
  try {
    ref = reference(pr);
  } catch (const ErrorIf&) {
    rejected = true;
  } catch (const RequireViolated&) {
    ++c.outside_require;
    return;
  }
  const std::size_t n = ref ? ref->data.size() : 0;
  const Run r = pr.p.type == DType::I8 ? run_xnnpack<std::int8_t>(pr, n) : run_xnnpack<std::uint8_t>(pr, n);
  if (rejected) {
    ++c.rejected;
    EXPECT_NE(r.create, xnn_status_success) << "the clause rejects it, XNNPACK accepts: " << describe(pr);
    return;
  }
  EXPECT_EQ(r.create, xnn_status_success) << "the clause accepts it, XNNPACK rejects: " << describe(pr);
  if (r.create != xnn_status_success) return;
  for (std::size_t i = 0; i < n; ++i) {
    ++c.outputs;
    if (Int(r.y[i]) != ref->data[i]) {
      if (++c.diffs <= 5)
        ADD_FAILURE() << "output " << i << ": XNNPACK " << r.y[i] << ", clause " << ref->data[i] << " for "
                      << describe(pr);
    }
  }
  if (pr.op == Op::Avg && pr.x.dim(1) + pr.g.pads[0] + pr.g.pads[2] == pr.g.kernel[0] &&
      pr.x.dim(2) + pr.g.pads[1] + pr.g.pads[3] == pr.g.kernel[1])
    ++c.global;
}

// One random problem; tie_rich: S = 2^-j exactly (x_s = y_s K 2^-j), codes near the zero point.
Problem draw(std::mt19937_64& rng, Op op, DType t, bool tie_rich) {
  auto u = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  Problem pr;
  pr.op = op;
  pr.p.type = t;
  const long long lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
  auto& g = pr.g;
  Shape xs;
  if (op == Op::Gap) {
    const long long N = u(1, 2), H = u(1, 6), W = u(1, 6), C = u(1, 20);
    xs = {N, H, W, C};
  } else {
    const long long kh = u(1, 4), kw = u(1, 4);
    g.kernel = {kh, kw};
    const long long sh = u(1, 3), sw = u(1, 3);
    g.strides = {sh, sw};
    if (op == Op::Max && u(0, 2) == 0) {
      const long long dh = u(1, 3), dw = u(1, 3);
      g.dilations = {dh, dw};
    }
    for (auto& v : g.pads) v = u(0, 3) == 0 ? u(0, op == Op::Max ? 1 : 4) : 0;
    const long long eh = g.dilations[0] * (kh - 1) + 1, ew = g.dilations[1] * (kw - 1) + 1;
    const long long N = u(1, 2), H = std::max<long long>(1, eh - g.pads[0] - g.pads[2]) + u(0, 5),
                    W = std::max<long long>(1, ew - g.pads[1] - g.pads[3]) + u(0, 5), C = u(1, 20);
    xs = {N, H, W, C};
    if (op == Op::Avg && u(0, 5) == 0) {  // the global branch: kernel = padded input
      g.kernel = {H + g.pads[0] + g.pads[2], W + g.pads[1] + g.pads[3]};
      g.strides = {1, 1};
    }
  }
  pr.x = IntArray(xs);
  const long long zx = u(lo, hi), zy = u(lo, hi);
  pr.p.x_zero_point = Int(zx);
  pr.p.y_zero_point = Int(zy);
  for (auto& v : pr.x.data) v = Int(tie_rich ? std::clamp(zx + u(-6, 6), lo, hi) : u(lo, hi));
  const int ey = static_cast<int>(u(-12, -1));
  pr.p.y_scale = tie_rich
                     ? f32_round(pow2r(ey))
                     : ((static_cast<std::uint32_t>(127 + ey) << 23) | static_cast<std::uint32_t>(rng() & 0x7fffffu));
  if (tie_rich) {
    const long long K = op == Op::Gap ? xs[1] * xs[2] : g.kernel[0] * g.kernel[1];
    const int j = static_cast<int>(u(1, 2));
    pr.p.x_scale = f32_round(f32_value(pr.p.y_scale) * Rat(K) * pow2r(-j));
  } else {
    const int ex = ey + static_cast<int>(u(-9, 9));  // outside [2^-8, 2^8) sometimes: rejected
    pr.p.x_scale = (static_cast<std::uint32_t>(127 + ex) << 23) | static_cast<std::uint32_t>(rng() & 0x7fffffu);
  }
  if (u(0, 3) == 0) {
    const long long a = u(lo, hi - 1);
    pr.p.y_min = Int(a);
    pr.p.y_max = Int(u(a, hi));  // a == max: rejected
  }
  return pr;
}

long long count_ties(const Problem& pr) {
  if (pr.op == Op::Max) return 0;
  // acc S = k + 1/2 with S = x_s / (y_s K): count over the windows.
  QPoolGeometry g = pr.g;
  if (pr.op == Op::Gap) g = QPoolGeometry{}, g.kernel = {pr.x.dim(1), pr.x.dim(2)};
  const long long K = g.kernel[0] * g.kernel[1];
  const Rat S = f32_value(f32_div(pr.p.x_scale, f32_mul(pr.p.y_scale, f32_from_int(Int(K)))));
  const auto size = pr.op == Op::Gap ? std::array<std::int64_t, 2>{1, 1} : qlinear_pool_out_size(pr.x.shape, g);
  long long t = 0;
  for (const auto& w : qlinear_pool_window_codes(pr.x, g, size[0], size[1])) {
    Int acc(0);
    for (const auto& v : w) acc += v - pr.p.x_zero_point;
    const Rat v = Rat(acc) * S * 2;
    t += denominator(v) == 1 && numerator(v) % 2 != 0 ? 1 : 0;
  }
  return t;
}

void sweep(Op op, DType t, int n, std::uint64_t seed, const char* name) {
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  std::mt19937_64 rng(seed);
  Counts c;
  for (int i = 0; i < 2 * n; ++i) {
    const Problem pr = draw(rng, op, t, i % 2 == 0);
    long long ties = 0;
    try {
      ties = count_ties(pr);
    } catch (const std::exception&) {
    }
    const long long before = c.outputs;
    check(pr, c);
    if (c.outputs > before) c.ties += ties;
  }
  std::printf(
      "%s: %lld problems, %lld outputs (%lld exact ties), %lld rejected by both, %lld outside the REQUIREs, "
      "%lld on the global kernel, %lld differences\n",
      name, c.problems, c.outputs, c.ties, c.rejected, c.outside_require, c.global, c.diffs);
  ::testing::Test::RecordProperty("outputs", std::to_string(c.outputs));
  ::testing::Test::RecordProperty("ties", std::to_string(c.ties));
  EXPECT_EQ(c.diffs, 0);
  EXPECT_GT(c.outputs, 1000);
  EXPECT_GT(c.rejected, 0);
  if (op != Op::Max) {
    EXPECT_GT(c.ties, 100);
  }
  if (op == Op::Avg) {
    EXPECT_GT(c.global, 10);
  }
}

}  // namespace

TEST(crosscheck_xnnpack_qlinear_pool, AveragePoolingQu8) { sweep(Op::Avg, DType::U8, 1500, 1501, "avg_pool2d qu8"); }
TEST(crosscheck_xnnpack_qlinear_pool, GlobalAveragePoolingQs8) { sweep(Op::Gap, DType::I8, 1000, 1511, "global qs8"); }
TEST(crosscheck_xnnpack_qlinear_pool, GlobalAveragePoolingQu8) { sweep(Op::Gap, DType::U8, 1000, 1512, "global qu8"); }
TEST(crosscheck_xnnpack_qlinear_pool, MaxPoolingS8) { sweep(Op::Max, DType::I8, 1000, 1521, "max_pool2d s8"); }
TEST(crosscheck_xnnpack_qlinear_pool, MaxPoolingU8) { sweep(Op::Max, DType::U8, 1000, 1522, "max_pool2d u8"); }

// xnn_create_leaky_relu_nc_qu8 on all 256 codes per parameter set: random and dyadic scales and
// slopes, narrowed clamps, rejected slopes and ratios.
TEST(crosscheck_xnnpack_qlinear_pool, LeakyReluQu8) {
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  std::mt19937_64 rng(1531);
  auto u = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  long long outputs = 0, rejected = 0, diffs = 0;
  for (int i = 0; i < 2000; ++i) {
    QPoolParams p;
    p.type = DType::U8;
    p.x_zero_point = Int(u(0, 255));
    p.y_zero_point = Int(u(0, 255));
    const int ey = static_cast<int>(u(-12, -1));
    const bool dyadic = i % 2 == 0;
    p.y_scale = dyadic ? f32_round(pow2r(ey))
                       : (static_cast<std::uint32_t>(127 + ey) << 23) | static_cast<std::uint32_t>(rng() & 0x7fffffu);
    const int ex = ey + static_cast<int>(u(-9, 9));
    p.x_scale = dyadic ? f32_round(pow2r(ex))
                       : (static_cast<std::uint32_t>(127 + ex) << 23) | static_cast<std::uint32_t>(rng() & 0x7fffffu);
    std::uint32_t alpha =
        dyadic ? f32_round(Rat(2 * u(0, 3) + 1) * pow2r(-static_cast<int>(u(2, 5))))
               : (static_cast<std::uint32_t>(127 - u(-1, 10)) << 23) | static_cast<std::uint32_t>(rng() & 0x7fffffu);
    if (u(0, 20) == 0) alpha = 0;
    if (u(0, 3) == 0) {
      const long long a = u(0, 254);
      p.y_min = Int(a);
      p.y_max = Int(u(a, 255));
    }
    std::optional<std::array<Int, 256>> table;
    try {
      table = qlinear_leaky_relu_table(alpha, p, QLutConvention::XnnpackFp32);
    } catch (const ErrorIf&) {
    }
    xnn_operator_t op = nullptr;
    const xnn_status st = xnn_create_leaky_relu_nc_qu8(
        1, 1, 1, as_float(alpha), static_cast<std::uint8_t>(static_cast<long long>(p.x_zero_point)),
        as_float(p.x_scale), static_cast<std::uint8_t>(static_cast<long long>(p.y_zero_point)), as_float(p.y_scale),
        static_cast<std::uint8_t>(static_cast<long long>(p.y_min.value_or(Int(0)))),
        static_cast<std::uint8_t>(static_cast<long long>(p.y_max.value_or(Int(255)))), 0, &op);
    if (!table) {
      ++rejected;
      EXPECT_NE(st, xnn_status_success) << "the clause rejects it, XNNPACK accepts";
      xnn_delete_operator(op);
      continue;
    }
    ASSERT_EQ(st, xnn_status_success) << "the clause accepts it, XNNPACK rejects";
    std::vector<std::uint8_t> x(256 + XNN_EXTRA_BYTES), y(256 + 64);  // XNNPACK may read past the input
    for (int c = 0; c < 256; ++c) x[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c);
    ASSERT_EQ(xnn_setup_leaky_relu_nc_qu8(op, 256, x.data(), y.data(), nullptr), xnn_status_success);
    ASSERT_EQ(xnn_run_operator(op, nullptr), xnn_status_success);
    xnn_delete_operator(op);
    for (std::size_t c = 0; c < 256; ++c, ++outputs)
      if (Int(y[c]) != (*table)[c] && ++diffs <= 5)
        ADD_FAILURE() << "code " << c << ": XNNPACK " << int(y[c]) << ", clause " << (*table)[c];
  }
  std::printf("leaky_relu qu8: %lld outputs, %lld parameter sets rejected by both, %lld differences\n", outputs,
              rejected, diffs);
  EXPECT_EQ(diffs, 0);
  EXPECT_GT(outputs, 100000);
  EXPECT_GT(rejected, 10);
}

// XNNPACK's dilated max pooling substitutes a padded tap by a "safe" row
// (xnn_indirection_init_maxpool2d: y SH - (pt mod DH), plus DH below it), which with pt >= DH is
// the window's tap floor(pt / DH) and can lie in the bottom padding: the kernel then reads the row
// after the image, here the next image's (spec/errata.md E-XNN4-1). The clause keeps the window's
// maximum; this pins the library's deviation, so a fixed XNNPACK shows up here.
TEST(crosscheck_xnnpack_qlinear_pool, DilatedMaxPoolingReadsTheRowAfterTheImage) {
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  // Two 1x1x1 int8 images (5 and 100); kernel 2x1, pads top 1 and bottom 1, dilation (1, 2): every
  // window holds the image's one pixel, so the clause gives 5, 5 for image 0 and 100, 100 for image 1.
  Problem pr;
  pr.op = Op::Max;
  pr.p.type = DType::I8;
  pr.x = IntArray({2, 1, 1, 1});
  pr.x.data = {Int(5), Int(100)};
  pr.g.kernel = {2, 1};
  pr.g.pads = {1, 0, 1, 0};
  pr.g.dilations = {1, 2};
  const IntArray want = reference(pr);
  ASSERT_EQ(want.data, (std::vector<Int>{Int(5), Int(5), Int(100), Int(100)}));
  const auto r = run_xnnpack<std::int8_t>(pr, 4);
  ASSERT_EQ(r.create, xnn_status_success);
  // Image 0's second window reads image 1's pixel in place of its padded tap.
  EXPECT_EQ(r.y, (std::vector<long long>{5, 100, 100, 100}));
}
