// Properties of qlinear.avg_pool2d.tosa and qlinear.max_pool2d.tosa (spec/operators_qlinear_pool.md):
// TFLite's int8 AVERAGE_POOL_2D lowered to TOSA AVG_POOL2D with both zero points forced to 0, and
// MAX_POOL_2D lowered to MAX_POOL2D.
// - composition identity: the reference equals a native transliteration of AVG_POOL2D.tosac,
//   reciprocal_scale and apply_scale_32 (scale_helpers.tosac), written here independently of it;
// - the clause's theorem, exhaustively for every count 1..36 and every int8 window sum, and on
//   random counts below 2^22: y = round_half_away(sum / count), so |y - sum / count| <= 1/2 and the
//   operator is bit-identical to qlinear.avg_pool2d.tflite on every input both accept;
// - the ERROR_IFs of AVG_POOL2D.tosac (lines 10-20) as the reference raises them;
// - qlinear.max_pool2d.tosa (MAX_POOL2D): the reference equals a transliteration of MAX_POOL2D.tosac
//   (padding never selected), equals qlinear.max_pool2d.tflite, and raises MAX_POOL2D's ERROR_IFs.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

struct Case {
  IntArray x;
  QPoolGeometry g;
  QPoolParams p;
};

// A problem AVG_POOL2D accepts: int8, pads below the kernel, equal input and output parameters.
Case draw_case() {
  Case k;
  k.p.type = DType::I8;
  k.g.kernel = {*rc::gen::inRange(1, 5), *rc::gen::inRange(1, 5)};
  k.g.strides = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
  for (std::size_t i = 0; i < 4; ++i) k.g.pads[i] = *rc::gen::inRange<long long>(0, k.g.kernel[i % 2]);
  const long long h = std::max<long long>(1, k.g.kernel[0] - k.g.pads[0] - k.g.pads[2]) + *rc::gen::inRange(0, 4);
  const long long w = std::max<long long>(1, k.g.kernel[1] - k.g.pads[1] - k.g.pads[3]) + *rc::gen::inRange(0, 4);
  // Codes near one end now and then, so that saturated windows and large sums occur.
  const int mode = *rc::gen::inRange(0, 3);
  const long long lo = mode == 1 ? 100 : -128, hi = mode == 2 ? -100 : 127;
  k.x = draw_array({*rc::gen::inRange(1, 3), h, w, *rc::gen::inRange(1, 4)}, lo, hi);
  k.p.x_zero_point = k.p.y_zero_point = Int(*rc::gen::inRange(-128, 128));
  k.p.x_scale = k.p.y_scale =
      (static_cast<std::uint32_t>(*rc::gen::inRange(100, 140)) << 23) | *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return k;
}

// ---- A native transliteration of the TOSA pseudocode (independent of the reference) ----

struct Scale {
  std::int32_t multiplier;
  std::int8_t shift;
};

// scale_helpers.tosac reciprocal_scale.
Scale reciprocal_scale(std::uint32_t value) {
  RC_ASSERT(value > 0u);
  const std::int32_t k = 32 - std::countl_zero(value - 1);  // (1 << k) / 2 < value <= (1 << k)
  const std::int64_t numerator = ((std::int64_t{1} << 30) + 1) << k;
  return {static_cast<std::int32_t>(numerator / value), static_cast<std::int8_t>(30 + k)};
}

// scale_helpers.tosac apply_scale_32 with double_round = false.
std::int32_t apply_scale_32(std::int32_t value, std::int32_t multiplier, std::int8_t shift) {
  RC_ASSERT(multiplier >= 0);
  RC_ASSERT(2 <= shift && shift <= 62);
  RC_ASSERT(value >= -(std::int64_t{1} << (shift - 1)) && value < (std::int64_t{1} << (shift - 1)));
  const std::int64_t round = std::int64_t{1} << (shift - 1);
  std::int64_t result = static_cast<std::int64_t>(value) * multiplier + round;
  result >>= shift;
  return static_cast<std::int32_t>(result);
}

// AVG_POOL2D.tosac for in_out_t = i8_t, acc_t = i32_t, input_zp = output_zp = 0 (the
// legalization's), with OH / OW as the legalization's sliced input gives them.
std::vector<std::int32_t> avg_pool2d_pseudocode(const IntArray& in, const QPoolGeometry& g) {
  const long long N = in.dim(0), IH = in.dim(1), IW = in.dim(2), C = in.dim(3);
  const long long OH = (IH + g.pads[0] + g.pads[2] - g.kernel[0]) / g.strides[0] + 1;
  const long long OW = (IW + g.pads[1] + g.pads[3] - g.kernel[1]) / g.strides[1] + 1;
  const std::int32_t input_zp = 0, output_zp = 0;
  std::vector<std::int32_t> out;
  for (long long n = 0; n < N; ++n)
    for (long long oy = 0; oy < OH; ++oy)
      for (long long ox = 0; ox < OW; ++ox)
        for (long long c = 0; c < C; ++c) {
          std::int32_t acc = 0;
          std::uint32_t count = 0;
          const long long iy = oy * g.strides[0] - g.pads[0];
          const long long ix = ox * g.strides[1] - g.pads[1];
          for (long long ky = 0; ky < g.kernel[0]; ++ky)
            for (long long kx = 0; kx < g.kernel[1]; ++kx) {
              const long long y = iy + ky, x = ix + kx;
              if (0 <= y && y < IH && 0 <= x && x < IW) {
                ++count;
                acc += static_cast<std::int32_t>(in.at4(n, y, x, c)) - input_zp;
              }
            }
          const Scale scale = reciprocal_scale(count);
          acc = apply_scale_32(acc, scale.multiplier, scale.shift);
          acc = acc + output_zp;
          out.push_back(std::clamp(acc, -128, 127));
        }
  return out;
}

}  // namespace

RC_GTEST_PROP(qlinear_avg_pool2d_tosa, IsTheTransliteratedAvgPool2dPseudocode, ()) {
  const Case k = draw_case();
  const IntArray y = qlinear_avg_pool2d(k.x, k.g, false, k.p, QPoolConvention::Tosa);
  const auto expect = avg_pool2d_pseudocode(k.x, k.g);
  RC_ASSERT(y.data.size() == expect.size());
  for (std::size_t i = 0; i < expect.size(); ++i) RC_ASSERT(y.data[i] == Int(expect[i]));
}

// The measured difference from tflite.double_round on the same input: none (the clause's theorem).
RC_GTEST_PROP(qlinear_avg_pool2d_tosa, EqualsTflitesAveragePoolOnEveryInputBothAccept, ()) {
  const Case k = draw_case();
  const IntArray tosa = qlinear_avg_pool2d(k.x, k.g, false, k.p, QPoolConvention::Tosa);
  const IntArray tflite = qlinear_avg_pool2d(k.x, k.g, false, k.p, QPoolConvention::Tflite);
  RC_ASSERT(tosa.data == tflite.data);
}

// Every count of a window of up to 6x6 taps, every int8 window sum: y = round_half_away(sum / count)
// (so within 1/2 of the real average, ties away from zero), the reference's arithmetic.
TEST(qlinear_avg_pool2d_tosa, RoundsEveryInt8WindowSumToTheNearestTiesAwayFromZero) {
  long long ties = 0, checked = 0;
  for (std::int64_t count = 1; count <= 36; ++count) {
    const QuantizedMultiplier s = qlinear_tosa_reciprocal_scale(count);
    for (std::int64_t acc = -128 * count; acc <= 127 * count; ++acc) {
      const Int y = tosa_apply_scale_32(Int(acc), s.multiplier, s.shift, false);
      const Rat avg{Int(acc), Int(count)};
      ASSERT_EQ(y, round_half_away(avg)) << "count " << count << " sum " << acc;
      ASSERT_LE(abs(Rat(y) - avg), Rat(1, 2));
      ties += denominator(avg * 2) == 1 && numerator(avg * 2) % 2 != 0 ? 1 : 0;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 169'866);  // sum over count of (255 count + 1)
  EXPECT_GT(ties, 0);
}

// reciprocal_scale's multiplier over-estimates 2^s / count by less than 2^s / (count 2^30), for any
// uint32 count; below 2^22 taps every int8 window sum rounds as round_half_away (the extremes too).
RC_GTEST_PROP(qlinear_avg_pool2d_tosa, ReciprocalScaleExceedsTheReciprocalByLessThanTwoToTheMinus30, ()) {
  const std::int64_t count = *rc::gen::inRange<std::int64_t>(1, std::int64_t{1} << 32);
  const QuantizedMultiplier s = qlinear_tosa_reciprocal_scale(count);
  RC_ASSERT(s.multiplier >= pow2(30) && s.multiplier < pow2(31));
  const Rat e = Rat(s.multiplier) / Rat(pow2(static_cast<unsigned>(s.shift))) - Rat(Int(1), Int(count));
  RC_ASSERT(e > 0);
  RC_ASSERT(e <= Rat(Int(1), Int(count) * pow2(30)));
  const std::int64_t small = *rc::gen::inRange<std::int64_t>(1, std::int64_t{1} << 22);
  const QuantizedMultiplier t = qlinear_tosa_reciprocal_scale(small);
  for (const std::int64_t acc : {-128 * small, 127 * small, -128 * small + 1, small / 2, -(small / 2) - 1,
                                 *rc::gen::inRange<std::int64_t>(-128 * small, 127 * small + 1)}) {
    const Int y = tosa_apply_scale_32(Int(acc), t.multiplier, t.shift, false);
    RC_ASSERT(y == round_half_away(Rat(Int(acc), Int(small))));
  }
}

TEST(qlinear_avg_pool2d_tosa, RaisesTheErrorIfsOfAvgPool2d) {
  QPoolParams p;
  QPoolGeometry g;
  g.kernel = {2, 2};
  const IntArray x = iota_array({1, 3, 3, 1}, -4);
  EXPECT_NO_THROW(qlinear_avg_pool2d(x, g, false, p, QPoolConvention::Tosa));
  for (std::size_t i = 0; i < 4; ++i) {
    QPoolGeometry big = g;
    big.pads[i] = 2;  // pad >= kernel (AVG_POOL2D.tosac lines 17-18)
    EXPECT_THROW(qlinear_avg_pool2d(x, big, false, p, QPoolConvention::Tosa), ErrorIf) << i;
  }
  QPoolGeometry padded = g;
  padded.pads = {1, 0, 0, 0};
  EXPECT_NO_THROW(qlinear_avg_pool2d(x, padded, false, p, QPoolConvention::Tosa));
  EXPECT_THROW(qlinear_avg_pool2d(x, padded, true, p, QPoolConvention::Tosa), ErrorIf);
  QPoolParams u8 = p;
  u8.type = DType::U8;
  EXPECT_THROW(qlinear_avg_pool2d(iota_array({1, 3, 3, 1}, 4), g, false, u8, QPoolConvention::Tosa), ErrorIf);
  QPoolParams zp = p;
  zp.x_zero_point = zp.y_zero_point = Int(128);
  EXPECT_THROW(qlinear_avg_pool2d(x, g, false, zp, QPoolConvention::Tosa), ErrorIf);
  QPoolParams unequal = p;
  unequal.y_zero_point = Int(1);  // a REQUIRE, not an ERROR_IF
  EXPECT_THROW(qlinear_avg_pool2d(x, g, false, unequal, QPoolConvention::Tosa), RequireViolated);
  // A padded window: pads (1, 1) with a 2x2 kernel at the corner reads one tap, not four.
  QPoolGeometry corner = g;
  corner.pads = {1, 1, 0, 0};
  const IntArray y = qlinear_avg_pool2d(ia({1, 1, 1, 1}, {-7}), corner, false, p, QPoolConvention::Tosa);
  EXPECT_EQ(y.data.at(0), Int(-7));
}

// ---- qlinear.max_pool2d.tosa: MAX_POOL2D ----

namespace {

// A problem MAX_POOL2D accepts: int8, pads below the kernel, the padded span divisible by the
// stride (idiv_check): the input size is built from the output size.
struct MaxCase {
  IntArray x;
  QPoolGeometry g;
};

MaxCase draw_max_case() {
  MaxCase k;
  k.g.kernel = {*rc::gen::inRange(1, 5), *rc::gen::inRange(1, 5)};
  k.g.strides = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
  for (std::size_t i = 0; i < 4; ++i) k.g.pads[i] = *rc::gen::inRange<long long>(0, k.g.kernel[i % 2]);
  long long in[2];
  for (std::size_t a = 0; a < 2; ++a) {
    // I = (O - 1) S + K - pads >= 1.
    long long o = *rc::gen::inRange(1, 5);
    while ((o - 1) * k.g.strides[a] + k.g.kernel[a] - k.g.pads[a] - k.g.pads[a + 2] < 1) ++o;
    in[a] = (o - 1) * k.g.strides[a] + k.g.kernel[a] - k.g.pads[a] - k.g.pads[a + 2];
  }
  // All-negative codes now and then: a padding read as 0 (or as a zero point) would win there.
  const bool negative = *rc::gen::arbitrary<bool>();
  k.x = draw_array({*rc::gen::inRange(1, 3), in[0], in[1], *rc::gen::inRange(1, 4)}, -128, negative ? -1 : 127);
  return k;
}

// MAX_POOL2D.tosac for in_out_t = i8_t, OH / OW from its ERROR_IF (lines 17-18) with an exact division.
std::vector<std::int32_t> max_pool2d_pseudocode(const IntArray& in, const QPoolGeometry& g) {
  const long long N = in.dim(0), IH = in.dim(1), IW = in.dim(2), C = in.dim(3);
  RC_ASSERT((IH + g.pads[0] + g.pads[2] - g.kernel[0]) % g.strides[0] == 0);  // idiv_check
  RC_ASSERT((IW + g.pads[1] + g.pads[3] - g.kernel[1]) % g.strides[1] == 0);
  const long long OH = (IH + g.pads[0] + g.pads[2] - g.kernel[0]) / g.strides[0] + 1;
  const long long OW = (IW + g.pads[1] + g.pads[3] - g.kernel[1]) / g.strides[1] + 1;
  std::vector<std::int32_t> out;
  for (long long n = 0; n < N; ++n)
    for (long long oy = 0; oy < OH; ++oy)
      for (long long ox = 0; ox < OW; ++ox)
        for (long long c = 0; c < C; ++c) {
          std::int32_t acc = -128;  // minimum_s<i8_t>()
          const long long iy = oy * g.strides[0] - g.pads[0];
          const long long ix = ox * g.strides[1] - g.pads[1];
          for (long long ky = 0; ky < g.kernel[0]; ++ky)
            for (long long kx = 0; kx < g.kernel[1]; ++kx) {
              const long long y = iy + ky, x = ix + kx;
              if (0 <= y && y < IH && 0 <= x && x < IW)
                acc = std::max(acc, static_cast<std::int32_t>(in.at4(n, y, x, c)));  // apply_max_s
            }
          out.push_back(acc);
        }
  return out;
}

}  // namespace

RC_GTEST_PROP(qlinear_max_pool2d_tosa, IsTheTransliteratedMaxPool2dPseudocode, ()) {
  const MaxCase k = draw_max_case();
  QPoolParams p;
  const IntArray y = qlinear_max_pool2d(k.x, k.g, p, QPoolConvention::Tosa);
  const auto expect = max_pool2d_pseudocode(k.x, k.g);
  RC_ASSERT(y.data.size() == expect.size());
  for (std::size_t i = 0; i < expect.size(); ++i) RC_ASSERT(y.data[i] == Int(expect[i]));
}

// The measured difference from tflite.double_round on the same input: none.
RC_GTEST_PROP(qlinear_max_pool2d_tosa, EqualsTflitesMaxPoolOnEveryInputBothAccept, ()) {
  const MaxCase k = draw_max_case();
  QPoolParams p;
  RC_ASSERT(qlinear_max_pool2d(k.x, k.g, p, QPoolConvention::Tosa).data ==
            qlinear_max_pool2d(k.x, k.g, p, QPoolConvention::Tflite).data);
}

TEST(qlinear_max_pool2d_tosa, RaisesTheErrorIfsOfMaxPool2d) {
  QPoolParams p;
  QPoolGeometry g;
  g.kernel = {2, 2};
  const IntArray x = iota_array({1, 3, 3, 1}, -9);
  EXPECT_NO_THROW(qlinear_max_pool2d(x, g, p, QPoolConvention::Tosa));
  for (std::size_t i = 0; i < 4; ++i) {
    QPoolGeometry big = g;
    big.pads[i] = 2;  // pad >= kernel (MAX_POOL2D.tosac lines 15-16)
    EXPECT_THROW(qlinear_max_pool2d(x, big, p, QPoolConvention::Tosa), ErrorIf) << i;
  }
  QPoolGeometry dil = g;
  dil.dilations = {2, 1};
  EXPECT_THROW(qlinear_max_pool2d(iota_array({1, 4, 3, 1}, 0), dil, p, QPoolConvention::Tosa), ErrorIf);
  QPoolParams u8 = p;
  u8.type = DType::U8;
  EXPECT_THROW(qlinear_max_pool2d(iota_array({1, 3, 3, 1}, 4), g, u8, QPoolConvention::Tosa), ErrorIf);
  QPoolParams clamp = p;
  clamp.y_max = Int(0);
  EXPECT_THROW(qlinear_max_pool2d(x, g, clamp, QPoolConvention::Tosa), ErrorIf);
  QPoolGeometry inexact = g;
  inexact.strides = {2, 2};  // (3 - 2) / 2 is not exact: idiv_check's REQUIRE
  EXPECT_THROW(qlinear_max_pool2d(x, inexact, p, QPoolConvention::Tosa), RequireViolated);
  // Every code negative, pads 1 around: the taps' maximum, never the padding.
  QPoolGeometry padded = g;
  padded.pads = {1, 1, 1, 1};
  const IntArray y = qlinear_max_pool2d(x, padded, p, QPoolConvention::Tosa);
  EXPECT_EQ(y.data.at(0), Int(-9));
  EXPECT_EQ(y.data.back(), Int(-1));
}
