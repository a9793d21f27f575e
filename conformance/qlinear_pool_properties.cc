// Properties of the engines' quantized pooling operators (spec/operators_qlinear_pool.md):
// - the window clause: the taps inside equal a padded-array formulation, and s_x times the window
//   sum is the real sum with zero padding, exactly;
// - composition identity per (op, convention): the reference equals the engine's kernel arithmetic
//   transliterated in native C++ on this machine (qlinear_pool_hw.h) over an independently
//   iterated window (TFLite's filter_x_start / filter_x_end, ONNX Runtime's hstart / hend);
// - error bound per (op, convention) against the exact real average.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <vector>

#include "ops_arrays.h"
#include "qlinear_hw.h"
#include "qlinear_pool_hw.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::opstest;
namespace hw = qspec::qlinear_pool_hw;
namespace qhw = qspec::qlinear_hw;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }
long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

enum class Kind { Avg, Gap, Max };

struct Case {
  Kind kind = Kind::Avg;
  IntArray x;
  QPoolGeometry g;
  QPoolParams p;
  bool include = false;
};

// A positive normal float32 2^e (1 + m 2^-23), often with a short mantissa.
std::uint32_t draw_scale(int emin, int emax) {
  const int e = *rc::gen::inRange(emin, emax + 1);
  const auto m = *rc::gen::inRange(0, 2) == 0 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                                              : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

// A valid problem of `kind` under convention c (its ERROR_IFs and REQUIREs respected).
Case draw_case(Kind kind, QPoolConvention c) {
  Case k;
  k.kind = kind;
  auto& p = k.p;
  const bool xnn = c == QPoolConvention::XnnpackFp32, ort = c == QPoolConvention::OnnxRuntime,
             tfl = c == QPoolConvention::Tflite;
  p.type = (xnn && kind == Kind::Avg) || (tfl && kind == Kind::Gap) ? (xnn ? DType::U8 : DType::I8)
           : *rc::gen::arbitrary<bool>()                            ? DType::U8
                                                                    : DType::I8;
  auto& g = k.g;
  Shape xs;
  if (kind == Kind::Gap) {
    xs = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 6), *rc::gen::inRange(1, 6), *rc::gen::inRange(1, 4)};
  } else {
    g.kernel = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
    if (g.kernel[0] * g.kernel[1] == 1 && xnn) g.kernel[1] = 2;
    g.strides = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
    if (kind == Kind::Max && !tfl) g.dilations = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    for (std::size_t i = 0; i < 4; ++i) {
      const long long kd = g.kernel[i % 2];
      // ONNX Runtime and TFLite average pooling: pads below the kernel (every window has a tap);
      // XNNPACK max pooling likewise (its REQUIRE); XNNPACK average pooling: any pad.
      const bool below = ort || tfl || (xnn && kind == Kind::Max);
      g.pads[i] = *rc::gen::inRange<long long>(0, below ? kd : 3);
    }
    if (xnn && kind == Kind::Max && (g.dilations[0] > 1 || g.dilations[1] > 1)) g.pads = {0, 0, 0, 0};
    const long long eh = g.dilations[0] * (g.kernel[0] - 1) + 1, ew = g.dilations[1] * (g.kernel[1] - 1) + 1;
    xs = {*rc::gen::inRange(1, 3), std::max<long long>(1, eh - g.pads[0] - g.pads[2]) + *rc::gen::inRange(0, 4),
          std::max<long long>(1, ew - g.pads[1] - g.pads[3]) + *rc::gen::inRange(0, 4), *rc::gen::inRange(1, 4)};
  }
  if (kind == Kind::Avg) k.include = xnn ? true : tfl ? false : *rc::gen::arbitrary<bool>();
  k.x = draw_array(xs, lo_of(p.type), hi_of(p.type));
  const long long lo = lo_of(p.type), hi = hi_of(p.type);
  p.x_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  p.y_zero_point = Int(*rc::gen::inRange(lo, hi + 1));
  // Scales within 2^5 of each other (XNNPACK rejects ratios outside [2^-8, 2^8)).
  const int ey = *rc::gen::inRange(-10, 1);
  p.y_scale = draw_scale(ey, ey);
  p.x_scale = draw_scale(ey - 5, ey + 5);
  if (*rc::gen::arbitrary<bool>()) {
    // Tie-rich: x_s = y_s K 2^-j, so S = x_s / (y_s K) = 2^-j exactly and acc S is a tie for
    // half of the odd sums (j = 1) or a quarter (j = 2).
    const long long K = kind == Kind::Gap ? xs[1] * xs[2] : g.kernel[0] * g.kernel[1];
    const int j = *rc::gen::inRange(1, 3);
    p.x_scale = f32_round(f32_value(p.y_scale) * Rat(K) * pow2r(-j));
  }
  if (tfl && kind == Kind::Avg) p.x_scale = p.y_scale, p.y_zero_point = p.x_zero_point;
  const bool clamp = (xnn || (tfl && kind != Kind::Gap)) && *rc::gen::inRange(0, 3) == 0;
  if (clamp) {
    const long long a = *rc::gen::inRange(lo, hi);
    p.y_min = Int(a);
    p.y_max = Int(*rc::gen::inRange(a + 1, hi + 1));
  }
  return k;
}

// An independent iteration of a window: ONNX Runtime's pool_functors (hstart, h += dilation,
// is_a_ge_zero_and_a_lt_b), giving the codes of the taps inside in window order.
std::vector<std::int32_t> taps(const IntArray& x, const QPoolGeometry& g, long long n, long long p, long long q,
                               long long c) {
  std::vector<std::int32_t> out;
  const long long H = x.dim(1), W = x.dim(2);
  const long long hstart = p * g.strides[0] - g.pads[0], wstart = q * g.strides[1] - g.pads[1];
  for (long long h = hstart; h < hstart + g.kernel[0] * g.dilations[0]; h += g.dilations[0]) {
    if (h < 0 || h >= H) continue;
    for (long long w = wstart; w < wstart + g.kernel[1] * g.dilations[1]; w += g.dilations[1])
      if (w >= 0 && w < W) out.push_back(static_cast<std::int32_t>(x.at4(n, h, w, c)));
  }
  return out;
}

template <class F>
void each_output(const IntArray& x, long long oh, long long ow, F f) {
  std::size_t i = 0;
  for (long long n = 0; n < x.dim(0); ++n)
    for (long long p = 0; p < oh; ++p)
      for (long long q = 0; q < ow; ++q)
        for (long long c = 0; c < x.dim(3); ++c) f(i++, n, p, q, c);
}

std::int32_t y_min_of(const QPoolParams& p) { return static_cast<std::int32_t>(p.y_min.value_or(Int(lo_of(p.type)))); }
std::int32_t y_max_of(const QPoolParams& p) { return static_cast<std::int32_t>(p.y_max.value_or(Int(hi_of(p.type)))); }

// The engine's kernel arithmetic on the hardware, per output (independent of the reference).
std::vector<std::int32_t> hardware(const Case& k, QPoolConvention c, long long oh, long long ow) {
  std::vector<std::int32_t> y;
  const auto& p = k.p;
  const auto zx = static_cast<std::int32_t>(p.x_zero_point), zy = static_cast<std::int32_t>(p.y_zero_point);
  const auto qmin = static_cast<std::int32_t>(lo_of(p.type)), qmax = static_cast<std::int32_t>(hi_of(p.type));
  QPoolGeometry g = k.g;
  if (k.kind == Kind::Gap) g.kernel = {k.x.dim(1), k.x.dim(2)};
  const long long K = g.kernel[0] * g.kernel[1], H = k.x.dim(1), W = k.x.dim(2);
  each_output(k.x, oh, ow, [&](std::size_t, long long n, long long pp, long long q, long long ch) {
    const auto codes = taps(k.x, g, n, pp, q, ch);
    std::int32_t acc = 0, raw = 0;
    for (auto v : codes) acc += v - zx, raw += v;
    if (k.kind == Kind::Max) {
      std::int32_t m = qmin;
      for (auto v : codes) m = std::max(m, v);
      y.push_back(std::min(std::max(m, y_min_of(p)), y_max_of(p)));
      return;
    }
    const float s = hw::xnnpack_scale(V(p.x_scale), V(p.y_scale), K);  // the same C expression in MLAS
    if (c == QPoolConvention::XnnpackFp32) {
      const bool global =
          k.kind == Kind::Gap || (H + g.pads[0] + g.pads[2] == g.kernel[0] && W + g.pads[1] + g.pads[3] == g.kernel[1]);
      y.push_back(global ? qhw::xnnpack_fp32(acc, s, zy, y_min_of(p), y_max_of(p))
                         : hw::xnnpack_avgpool(acc, s, zy, y_min_of(p), y_max_of(p)));
    } else if (c == QPoolConvention::OnnxRuntime) {
      const bool global =
          k.kind == Kind::Gap || (H == g.kernel[0] && W == g.kernel[1] && g.pads == std::array<std::int64_t, 4>{});
      const long long count = k.include ? K : static_cast<long long>(codes.size());
      y.push_back(global ? qhw::onnxruntime(acc, s, zy, qmin, qmax)
                         : hw::onnxruntime_avgpool(codes, count, V(p.x_scale), zx, V(p.y_scale), zy, qmin, qmax));
    } else if (k.kind == Kind::Avg) {
      const std::int32_t v = hw::tflite_rounded_div(raw, static_cast<std::int32_t>(codes.size()));
      y.push_back(std::min(std::max(v, y_min_of(p)), y_max_of(p)));
    } else {
      y.push_back(hw::tflite_mean(acc, static_cast<std::int32_t>(K), V(p.x_scale), V(p.y_scale), zy));
    }
  });
  return y;
}

IntArray reference(const Case& k, QPoolConvention c) {
  if (k.kind == Kind::Avg) return qlinear_avg_pool2d(k.x, k.g, k.include, k.p, c);
  if (k.kind == Kind::Gap) return qlinear_global_avg_pool(k.x, k.p, c);
  return qlinear_max_pool2d(k.x, k.g, k.p, c);
}

void check_identity(Kind kind, QPoolConvention c) {
  const Case k = draw_case(kind, c);
  const IntArray y = reference(k, c);
  const auto hwy = hardware(k, c, y.dim(1), y.dim(2));
  RC_ASSERT(hwy.size() == y.data.size());
  for (std::size_t i = 0; i < hwy.size(); ++i) RC_ASSERT(Int(hwy[i]) == y.data[i]);
}

Rat pow(const Rat& b, int e) {
  Rat r(1);
  for (int i = 0; i < e; ++i) r *= b;
  return r;
}

// |y - (z_y + r)| <= bound unless y sits at a clamp bound the real value is beyond (within bound).
void check_bound(Kind kind, QPoolConvention c) {
  const Case k = draw_case(kind, c);
  const IntArray y = reference(k, c);
  const auto& p = k.p;
  QPoolGeometry g = k.g;
  if (kind == Kind::Gap) g.kernel = {k.x.dim(1), k.x.dim(2)};
  const long long K = g.kernel[0] * g.kernel[1], H = k.x.dim(1), W = k.x.dim(2);
  const Rat u = pow2r(-24);
  const Rat ratio = f32_value(p.x_scale) / f32_value(p.y_scale);
  const Int lo = p.y_min.value_or(Int(lo_of(p.type))), hi = p.y_max.value_or(Int(hi_of(p.type)));
  each_output(k.x, y.dim(1), y.dim(2), [&](std::size_t i, long long n, long long pp, long long q, long long ch) {
    const auto codes = taps(k.x, g, n, pp, q, ch);
    Int acc(0), absacc(0);
    for (auto v : codes) acc += Int(v) - p.x_zero_point, absacc += abs(Int(v) - p.x_zero_point);
    const long long count = kind == Kind::Avg && !k.include ? static_cast<long long>(codes.size()) : K;
    const Rat r = ratio * Rat(acc, Int(count)), rabs = ratio * Rat(absacc, Int(count));
    Rat bound;
    if (c == QPoolConvention::XnnpackFp32) {
      const bool global =
          kind == Kind::Gap || (H + g.pads[0] + g.pads[2] == g.kernel[0] && W + g.pads[1] + g.pads[3] == g.kernel[1]);
      bound = Rat(1, 2) + (global ? (pow(1 + u, 4) - 1) : (2 * u + u * u)) * abs(r);
    } else if (c == QPoolConvention::OnnxRuntime) {
      const bool global =
          kind == Kind::Gap || (H == g.kernel[0] && W == g.kernel[1] && g.pads == std::array<std::int64_t, 4>{});
      bound = global ? Rat(1, 2) + (pow(1 + u, 4) - 1) * abs(r)
                     : Rat(1, 2) + Int(static_cast<long long>(codes.size()) + 4) * u *
                                       (rabs + abs(r) + abs(Rat(p.y_zero_point)));
    } else if (kind == Kind::Avg) {
      bound = Rat(1, 2);
    } else {
      bound = Rat(1, 2) + Rat(1, K) + pow2r(-30) * abs(r);
    }
    const Rat target = Rat(p.y_zero_point) + r, got = Rat(y.data[i]);
    if (y.data[i] == lo && target < Rat(lo)) {
      RC_ASSERT(true);
    } else if (y.data[i] == hi && target > Rat(hi)) {
      RC_ASSERT(true);
    } else {
      RC_ASSERT(abs(got - target) <= bound);
    }
  });
}

}  // namespace

RC_GTEST_PROP(qlinear_pool_window, TapsEqualAPaddedArrayAndTheRealSumIsExact, ()) {
  const Case k = draw_case(Kind::Max, QPoolConvention::OnnxRuntime);  // dilations, pads < kernel
  const auto& g = k.g;
  const auto size = qlinear_pool_out_size(k.x.shape, g);
  const long long H = k.x.dim(1), W = k.x.dim(2), HP = H + g.pads[0] + g.pads[2], WP = W + g.pads[1] + g.pads[3];
  // OH is the number of window starts p SH whose dilated extent fits the padded input.
  long long oh = 0;
  while (oh * g.strides[0] + g.dilations[0] * (g.kernel[0] - 1) < HP) ++oh;
  RC_ASSERT(size[0] == oh);
  const auto windows = qlinear_pool_window_codes(k.x, g, size[0], size[1]);
  const Int zx = Int(*rc::gen::inRange(-128, 256));
  const Rat sx = f32_value(draw_scale(-8, 4));
  std::size_t i = 0;
  for (long long n = 0; n < k.x.dim(0); ++n)
    for (long long p = 0; p < size[0]; ++p)
      for (long long q = 0; q < size[1]; ++q)
        for (long long c = 0; c < k.x.dim(3); ++c, ++i) {
          // The padded array: input codes at (h + pt, w + pl), nothing elsewhere.
          std::vector<Int> expect;
          Rat real(0);
          for (long long a = 0; a < g.kernel[0]; ++a)
            for (long long b = 0; b < g.kernel[1]; ++b) {
              const long long hp = p * g.strides[0] + a * g.dilations[0], wp = q * g.strides[1] + b * g.dilations[1];
              RC_ASSERT(hp < HP);
              RC_ASSERT(wp < WP);
              const bool inside = hp >= g.pads[0] && hp < g.pads[0] + H && wp >= g.pads[1] && wp < g.pads[1] + W;
              if (!inside) continue;  // real 0
              expect.push_back(k.x.at4(n, hp - g.pads[0], wp - g.pads[1], c));
              real += sx * Rat(expect.back() - zx);
            }
          RC_ASSERT(windows[i] == expect);
          Int acc(0);
          for (const auto& v : windows[i]) acc += v - zx;
          RC_ASSERT(sx * Rat(acc) == real);
        }
}

RC_GTEST_PROP(qlinear_avg_pool2d_xnnpack_fp32, IsTheWindowSumThenTheKernelArithmeticOnTheHardware, ()) {
  check_identity(Kind::Avg, QPoolConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_avg_pool2d_onnxruntime, IsTheFloatPipelineOnTheHardware, ()) {
  check_identity(Kind::Avg, QPoolConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_avg_pool2d_tflite, IsTheRoundedDivisionOfTheCodeSum, ()) {
  check_identity(Kind::Avg, QPoolConvention::Tflite);
}
RC_GTEST_PROP(qlinear_global_avg_pool_xnnpack_fp32, IsTheWindowSumThenTheFp32EpilogueOnTheHardware, ()) {
  check_identity(Kind::Gap, QPoolConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_global_avg_pool_onnxruntime, IsTheWindowSumThenTheMlasEpilogueOnTheHardware, ()) {
  check_identity(Kind::Gap, QPoolConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_global_avg_pool_tflite, IsTheWindowSumThenTflitesMeanArithmetic, ()) {
  check_identity(Kind::Gap, QPoolConvention::Tflite);
}
RC_GTEST_PROP(qlinear_max_pool2d_xnnpack, IsTheClampedMaximumOfTheTapsInside, ()) {
  check_identity(Kind::Max, QPoolConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_max_pool2d_onnxruntime, IsTheMaximumOfTheTapsInsideOrTheLowestCode, ()) {
  check_identity(Kind::Max, QPoolConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_max_pool2d_tflite, IsTheClampedMaximumOfTheTapsInsideOrTheLowestCode, ()) {
  check_identity(Kind::Max, QPoolConvention::Tflite);
}

RC_GTEST_PROP(qlinear_avg_pool2d_xnnpack_fp32, WithinTheStatedBoundOfTheRealAverage, ()) {
  check_bound(Kind::Avg, QPoolConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_avg_pool2d_onnxruntime, WithinTheStatedBoundOfTheRealAverage, ()) {
  check_bound(Kind::Avg, QPoolConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_avg_pool2d_tflite, WithinTheStatedBoundOfTheRealAverage, ()) {
  check_bound(Kind::Avg, QPoolConvention::Tflite);
}
RC_GTEST_PROP(qlinear_global_avg_pool_xnnpack_fp32, WithinTheStatedBoundOfTheRealAverage, ()) {
  check_bound(Kind::Gap, QPoolConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_global_avg_pool_onnxruntime, WithinTheStatedBoundOfTheRealAverage, ()) {
  check_bound(Kind::Gap, QPoolConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_global_avg_pool_tflite, WithinTheStatedBoundOfTheRealAverage, ()) {
  check_bound(Kind::Gap, QPoolConvention::Tflite);
}

// The two XNNPACK average-pooling kernels round a tie differently: a 2x1 window summing to 1 at
// S = 1/2 (acc S = 1/2) gives 1 in the windowed kernel (half away) and 0 in the global one (even).
TEST(qlinear_avg_pool2d_xnnpack_fp32, WindowedKernelRoundsTiesAwayGlobalKernelToEven) {
  QPoolParams p;
  p.type = DType::U8;
  p.x_zero_point = Int(10);
  p.x_scale = 0x3f000000u;  // x_s = y_s = 1/2, K = 2: S = fl32(1/2 / fl32(1/2 * 2)) = 1/2
  p.y_scale = 0x3f000000u;
  QPoolGeometry g;
  g.kernel = {2, 1};
  const IntArray windowed =
      qlinear_avg_pool2d(ia({1, 3, 1, 1}, {10, 11, 10}), g, true, p, QPoolConvention::XnnpackFp32);
  EXPECT_EQ(windowed.data[0], Int(1));  // acc = 1, 1/2 away from zero
  const IntArray global = qlinear_avg_pool2d(ia({1, 2, 1, 1}, {10, 11}), g, true, p, QPoolConvention::XnnpackFp32);
  EXPECT_EQ(global.data[0], Int(0));  // the same window as the whole input: 1/2 to even
}

// ONNX Runtime adds the zero point before rounding: a mean of -1/2 with y_zero_point 1 rounds
// fl32(-1/2 + 1) = 1/2 to even (0), where rounding first and adding after gives -0 + 1 = 1.
TEST(qlinear_avg_pool2d_onnxruntime, AddsTheZeroPointBeforeRounding) {
  QPoolParams p;
  p.type = DType::I8;
  p.x_zero_point = Int(0);
  p.y_zero_point = Int(1);
  QPoolGeometry g;
  g.kernel = {2, 1};
  const IntArray y = qlinear_avg_pool2d(ia({1, 3, 1, 1}, {0, -1, 5}), g, false, p, QPoolConvention::OnnxRuntime);
  EXPECT_EQ(y.data[0], Int(0));
}
