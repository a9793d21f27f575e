// Properties of oneDNN 2.6's s8/u8 pooling (spec/operators_qlinear_onednn_pool.md):
// - composition identity: each output is the shared window sum (qlinear.pool.window) plus n_in z
//   (the codes' sum), then the jit kernels' reciprocal multiply or ref_pooling's division run on
//   this machine's binary32 hardware, over an independently iterated window and path choice;
// - error bound against the exact real average;
// - every sum of codes at the telling counts (s8 and u8) against the hardware, both implementations;
// - the convention's rejections, the ISA-dependent band (REQUIRE) and the smallest difference.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

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

// The hardware's arithmetic of one window: jit_uni_i8i8_pooling (vcvtdq2ps, a product with
// 1.0f / count) or ref_pooling (a float division), then nearbyint and the saturation.
long long hw_output(long long s, long long count, bool jit, DType t) {
  volatile float fs = static_cast<float>(s);
  volatile float fc = static_cast<float>(count);
  volatile float recip = 1.0f / fc;
  volatile float q = jit ? fs * recip : fs / fc;
  const long long r = std::llrint(std::nearbyint(q));
  return std::clamp(r, lo_of(t), hi_of(t));
}

// A valid problem of `kind` (the convention's ERROR_IFs respected; the REQUIRE of the
// ISA-dependent band is discarded by the caller).
Case draw_case(Kind kind) {
  Case k;
  k.kind = kind;
  auto& p = k.p;
  p.type = *rc::gen::arbitrary<bool>() ? DType::U8 : DType::I8;
  auto& g = k.g;
  Shape xs;
  if (kind == Kind::Gap) {
    xs = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 8), *rc::gen::inRange(1, 8), *rc::gen::inRange(1, 20)};
  } else {
    g.kernel = {*rc::gen::inRange(1, 5), *rc::gen::inRange(1, 8)};
    g.strides = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    if (kind == Kind::Max) g.dilations = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    if (kind == Kind::Avg) k.include = *rc::gen::arbitrary<bool>();
    for (std::size_t i = 0; i < 4; ++i) {
      const long long kd = g.kernel[i % 2];
      // exclude-padding: pads below the kernel (ERROR_IF); otherwise up to the kernel (ref).
      g.pads[i] = *rc::gen::inRange<long long>(0, kind == Kind::Avg && !k.include ? kd : kd + 1);
    }
    const long long eh = g.dilations[0] * (g.kernel[0] - 1) + 1, ew = g.dilations[1] * (g.kernel[1] - 1) + 1;
    xs = {*rc::gen::inRange(1, 3), std::max<long long>(1, eh - g.pads[0] - g.pads[2]) + *rc::gen::inRange(0, 4),
          std::max<long long>(1, ew - g.pads[1] - g.pads[3]) + *rc::gen::inRange(0, 4), *rc::gen::inRange(1, 20)};
  }
  k.x = draw_array(xs, lo_of(p.type), hi_of(p.type));
  const long long lo = lo_of(p.type), hi = hi_of(p.type);
  const bool padded = std::any_of(g.pads.begin(), g.pads.end(), [](std::int64_t v) { return v != 0; });
  p.x_zero_point = p.y_zero_point = Int(k.include && padded ? 0 : *rc::gen::inRange(lo, hi + 1));
  p.x_scale = p.y_scale = 0x3c800000u + *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  if (*rc::gen::inRange(0, 3) == 0) {
    const long long a = *rc::gen::inRange(lo, hi + 1);
    p.y_min = Int(a);
    p.y_max = Int(*rc::gen::inRange(a, hi + 1));
  }
  return k;
}

// The reference's output, or a discard where the problem lies in the ISA-dependent band.
IntArray reference(const Case& k) {
  try {
    if (k.kind == Kind::Avg) return qlinear_avg_pool2d(k.x, k.g, k.include, k.p, QPoolConvention::OneDnn);
    if (k.kind == Kind::Gap) return qlinear_global_avg_pool(k.x, k.p, QPoolConvention::OneDnn);
    return qlinear_max_pool2d(k.x, k.g, k.p, QPoolConvention::OneDnn);
  } catch (const qspec::ref::RequireViolated&) {
    RC_DISCARD("the ISA-dependent band: jit and ref round differently");
  }
  return {};
}

// ref_pooling's loop: the taps inside, in kh, kw order.
std::vector<long long> taps(const IntArray& x, const QPoolGeometry& g, long long n, long long p, long long q,
                            long long c) {
  std::vector<long long> out;
  for (long long kh = 0; kh < g.kernel[0]; ++kh) {
    const long long ih = p * g.strides[0] - g.pads[0] + kh * g.dilations[0];
    if (ih < 0 || ih >= x.dim(1)) continue;
    for (long long kw = 0; kw < g.kernel[1]; ++kw) {
      const long long iw = q * g.strides[1] - g.pads[1] + kw * g.dilations[1];
      if (iw >= 0 && iw < x.dim(2)) out.push_back(static_cast<long long>(x.at4(n, ih, iw, c)));
    }
  }
  return out;
}

// The implementation oneDNN picks (jit_conf's pad check with calculate_end_padding), independently.
bool jit_runs(const IntArray& x, const QPoolGeometry& g, long long oh, long long ow) {
  for (int a = 0; a < 2; ++a) {
    const long long out = a == 0 ? oh : ow, in = x.dim(a + 1);
    const long long end = (out - 1) * g.strides[a] + g.kernel[a] - (in + g.pads[a]);
    if (g.pads[a] >= g.kernel[a] || end >= g.kernel[a]) return false;
  }
  return true;
}

void check_identity(Kind kind) {
  Case k = draw_case(kind);
  const IntArray y = reference(k);
  QPoolGeometry g = k.g;
  if (kind == Kind::Gap) g.kernel = {k.x.dim(1), k.x.dim(2)};
  const long long oh = y.dim(1), ow = y.dim(2), K = g.kernel[0] * g.kernel[1];
  const bool jit = jit_runs(k.x, g, oh, ow);
  const auto windows = qlinear_pool_window_codes(k.x, g, oh, ow);  // the shared window clause
  const long long lo = static_cast<long long>(k.p.y_min.value_or(Int(lo_of(k.p.type))));
  const long long hi = static_cast<long long>(k.p.y_max.value_or(Int(hi_of(k.p.type))));
  std::size_t i = 0;
  for (long long n = 0; n < k.x.dim(0); ++n)
    for (long long p = 0; p < oh; ++p)
      for (long long q = 0; q < ow; ++q)
        for (long long c = 0; c < k.x.dim(3); ++c, ++i) {
          const auto t = taps(k.x, g, n, p, q, c);
          long long want = 0;
          if (kind == Kind::Max) {
            want = lo_of(k.p.type);
            for (auto v : t) want = std::max(want, v);
          } else {
            // The window sum of qlinear.pool.window plus n_in z is the sum of the codes.
            Int acc(0);
            for (const auto& v : windows[i]) acc += v - k.p.x_zero_point;
            const Int s = acc + Int(static_cast<long long>(windows[i].size())) * k.p.x_zero_point;
            long long direct = 0;
            for (auto v : t) direct += v;
            RC_ASSERT(s == Int(direct));
            const long long count = kind == Kind::Avg && !k.include ? static_cast<long long>(t.size()) : K;
            want = hw_output(direct, count, jit, k.p.type);
          }
          RC_ASSERT(y.data[i] == Int(std::clamp(want, lo, hi)));
        }
}

// |y - (z + r)| <= 1/2 + (2u + u^2) |s / c| unclamped (r = s_x acc / (c s_y), s_x = s_y).
void check_bound(Kind kind) {
  Case k = draw_case(kind);
  const IntArray y = reference(k);
  QPoolGeometry g = k.g;
  if (kind == Kind::Gap) g.kernel = {k.x.dim(1), k.x.dim(2)};
  const long long K = g.kernel[0] * g.kernel[1];
  const auto windows = qlinear_pool_window_codes(k.x, g, y.dim(1), y.dim(2));
  const Rat u = pow2r(-24);
  const Int lo = k.p.y_min.value_or(Int(lo_of(k.p.type))), hi = k.p.y_max.value_or(Int(hi_of(k.p.type)));
  for (std::size_t i = 0; i < windows.size(); ++i) {
    Int acc(0);
    for (const auto& v : windows[i]) acc += v - k.p.x_zero_point;
    const long long count = kind == Kind::Avg && !k.include ? static_cast<long long>(windows[i].size()) : K;
    // The real average in output steps plus the zero point (the padding is real 0 here: z = 0 or
    // not counted).
    const Rat target = Rat(k.p.y_zero_point) + Rat(acc, Int(count));
    const Rat bound = Rat(1, 2) + (2 * u + u * u) * abs(target);
    const Rat got = Rat(y.data[i]);
    if ((y.data[i] == lo && target < Rat(lo)) || (y.data[i] == hi && target > Rat(hi))) continue;
    RC_ASSERT(abs(got - target) <= bound);
  }
}

QPoolParams params(DType t) {
  QPoolParams p;
  p.type = t;
  return p;
}

}  // namespace

RC_GTEST_PROP(qlinear_avg_pool2d_onednn, IsTheWindowSumThenTheJitOrRefArithmeticOnTheHardware, ()) {
  check_identity(Kind::Avg);
}
RC_GTEST_PROP(qlinear_global_avg_pool_onednn, IsTheImageSumThenTheReciprocalOnTheHardware, ()) {
  check_identity(Kind::Gap);
}
RC_GTEST_PROP(qlinear_max_pool2d_onednn, IsTheClampedMaximumOfTheTapsInsideOrTheLowestCode, ()) {
  check_identity(Kind::Max);
}
RC_GTEST_PROP(qlinear_avg_pool2d_onednn, WithinTheStatedBoundOfTheRealAverage, ()) { check_bound(Kind::Avg); }
RC_GTEST_PROP(qlinear_global_avg_pool_onednn, WithinTheStatedBoundOfTheRealAverage, ()) { check_bound(Kind::Gap); }

// Every sum of codes, int8 and uint8, both implementations, against the hardware, at the counts of
// up to 32 taps where fl32(1 / c) is inexact and small (3, 5, 6, 7) and where the two implementations
// differ (14, 26, 28, 30; every c <= 32 was measured once: these four only). Sized for CI (~1 s).
TEST(qlinear_avg_pool2d_onednn, EveryCodeSumAtTheTellingCountsMatchesTheHardware) {
  long long checked = 0, differ = 0;
  for (DType t : {DType::I8, DType::U8})
    for (long long c : {3, 5, 6, 7, 14, 26, 28, 30})
      for (long long s = lo_of(t) * c; s <= hi_of(t) * c; ++s) {
        const long long jit = hw_output(s, c, true, t), ref = hw_output(s, c, false, t);
        ASSERT_EQ(qlinear_onednn_avgpool_output(Int(s), c, OneDnnPoolPath::Jit, params(t)), Int(jit)) << s << "/" << c;
        ASSERT_EQ(qlinear_onednn_avgpool_output(Int(s), c, OneDnnPoolPath::Ref, params(t)), Int(ref)) << s << "/" << c;
        checked += 2;
        differ += jit != ref ? 1 : 0;
      }
  EXPECT_GT(differ, 0) << "some sums round differently under the reciprocal (c = 14, 26, 28, 30)";
  std::printf("%lld outputs checked, %lld (s, c) where the reciprocal and the division differ\n", checked, differ);
}

// The clause's example: c = 14, s = -1771 (s / c = -126.5): the reciprocal -127, the division -126.
TEST(qlinear_avg_pool2d_onednn, ReciprocalAndDivisionDifferAtFourteenTaps) {
  EXPECT_EQ(qlinear_onednn_avgpool_output(Int(-1771), 14, OneDnnPoolPath::Jit, params(DType::I8)), Int(-127));
  EXPECT_EQ(qlinear_onednn_avgpool_output(Int(-1771), 14, OneDnnPoolPath::Ref, params(DType::I8)), Int(-126));
  // The same window in the ISA-dependent band (1 channel: N C min(H, OH) min(W, OW) = 1 < 16): REQUIRE.
  IntArray x(Shape{1, 2, 7, 1});
  for (std::size_t i = 0; i < 14; ++i) x.data[i] = Int(i < 7 ? -126 : -127);
  QPoolGeometry g;
  g.kernel = {2, 7};
  EXPECT_THROW(qlinear_avg_pool2d(x, g, true, params(DType::I8), QPoolConvention::OneDnn), qspec::ref::RequireViolated);
  // With a pad not below the kernel, ref runs at every ISA: the division.
  g.pads = {2, 0, 0, 0};
  const IntArray y = qlinear_avg_pool2d(x, g, true, params(DType::I8), QPoolConvention::OneDnn);
  EXPECT_EQ(y.data.back(), Int(-126));
}

TEST(qlinear_avg_pool2d_onednn, RejectsWhatOneDnnCannotExpress) {
  IntArray x(Shape{1, 3, 3, 1});
  for (std::size_t i = 0; i < 9; ++i) x.data[i] = Int(static_cast<long long>(i));
  QPoolGeometry g;
  g.kernel = {2, 2};
  QPoolParams p = params(DType::I8);
  QPoolParams resc = p;
  resc.y_scale = 0x40000000u;
  EXPECT_THROW(qlinear_avg_pool2d(x, g, true, resc, QPoolConvention::OneDnn), qspec::ref::ErrorIf);
  QPoolParams zp = p;
  zp.y_zero_point = Int(1);
  EXPECT_THROW(qlinear_avg_pool2d(x, g, true, zp, QPoolConvention::OneDnn), qspec::ref::ErrorIf);
  QPoolParams clip = p;
  clip.y_min = Int(2), clip.y_max = Int(1);
  EXPECT_THROW(qlinear_avg_pool2d(x, g, true, clip, QPoolConvention::OneDnn), qspec::ref::ErrorIf);
  QPoolParams z3 = p;
  z3.x_zero_point = z3.y_zero_point = Int(3);
  QPoolGeometry padded = g;
  padded.pads = {1, 0, 0, 0};
  EXPECT_THROW(qlinear_avg_pool2d(x, padded, true, z3, QPoolConvention::OneDnn), qspec::ref::ErrorIf);
  EXPECT_NO_THROW(qlinear_avg_pool2d(x, padded, false, z3, QPoolConvention::OneDnn));
  QPoolGeometry big = g;
  big.pads = {0, 0, 2, 0};
  EXPECT_THROW(qlinear_avg_pool2d(x, big, false, p, QPoolConvention::OneDnn), qspec::ref::ErrorIf);
  EXPECT_NO_THROW(qlinear_avg_pool2d(x, big, true, p, QPoolConvention::OneDnn));
}
