// Exhaustive checks of the fixed-point requantization references against independent __int128 formulations.
//
// Every int16 accumulator (and the int32 extremes) is run through the reference functions and
// compared with a direct restatement of each clause's *definition* on __int128 with floor
// division (round_half_up(v) = floor(v + 1/2), round_half_away by sign), which shares no code
// with the reference (cpp_int, mask/threshold and nudge/truncate as the sources compute them).
//
// The CI slice covers every int16 accumulator for a small set of (multiplier, shift, zero point,
// out dtype); QSPEC_EXHAUSTIVE_FULL=1 widens the parameter sets (about 20x the work);
// QSPEC_DOMAIN_STRIDE samples the accumulators (exhaustive_domain.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/tflite_tosa.h"

using namespace qspec::ref;
using i128 = __int128;

namespace {

bool full_domain() { return qspec::test::exhaustive_full(); }

// floor(a / b) for b > 0.
i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}
i128 p2(int e) { return static_cast<i128>(1) << e; }
// round_half_up(a / 2^e) and round_half_away(a / 2^e), e >= 1.
i128 half_up_div(i128 a, int e) { return floor_div(a + p2(e - 1), p2(e)); }
i128 half_away_div(i128 a, int e) { return a >= 0 ? half_up_div(a, e) : -half_up_div(-a, e); }

std::int64_t to64(const Int& v) { return static_cast<std::int64_t>(v); }

// Definitions from the spec, independently restated.
i128 def_single(i128 x, i128 m, int shift) { return half_up_div(x * m, 31 - shift); }
i128 def_double(i128 x, i128 m, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  const i128 h = half_up_div(x * p2(left) * m, 31);  // SRDHM = round_half_up(a*b / 2^31)
  return right == 0 ? h : half_away_div(h, right);   // RDBPOT = round_half_away(h / 2^r)
}
// requant.double_round_vs_single on the numerators: with P = x*M and s = 31 + r,
// +1 iff P > 0 and P mod 2^s in [2^(s-1) - 2^30, 2^(s-1)); -1 iff P < 0 and in [2^(s-1), 2^(s-1) + 2^30).
int def_difference(i128 x, i128 m, int shift) {
  if (shift >= 0) return 0;
  const int s = 31 - shift;
  const i128 p = x * m;
  const i128 u = p - floor_div(p, p2(s)) * p2(s);
  if (p > 0 && u >= p2(s - 1) - p2(30) && u < p2(s - 1)) return 1;
  if (p < 0 && u >= p2(s - 1) && u < p2(s - 1) + p2(30)) return -1;
  return 0;
}
i128 clamp(i128 v, DType t) {
  const auto r = int_range(t);
  const i128 lo = to64(r.lo), hi = to64(r.hi);
  return v < lo ? lo : (v > hi ? hi : v);
}

std::vector<std::int64_t> all_int16_and_extremes() {
  std::vector<std::int64_t> xs = qspec::test::domain_range(-32768, 32767);
  xs.push_back(INT32_MIN);
  xs.push_back(INT32_MAX);
  xs.push_back(INT32_MIN + 1);
  xs.push_back(INT32_MAX - 1);
  return xs;
}

struct Params {
  std::int64_t m;
  int shift;
  std::int64_t zp;
  DType out;
};

std::vector<Params> requant_params() {
  std::vector<std::int64_t> ms = {1284042223, 1 << 30, 2147483647};
  std::vector<int> shifts = {-31, -9, -3, -1, 0, 2};
  std::vector<std::pair<DType, std::int64_t>> outs = {{DType::I8, 3}, {DType::U8, 128}};
  if (full_domain()) {
    ms = {0, 1, 1 << 29, 1 << 30, (1 << 30) + 1, 1233907157, 1284042223, 1518500250, 1610612736, 2147483647};
    shifts = {-31, -30, -24, -16, -12, -8, -4, -3, -2, -1, 0, 1, 2, 8};
    outs = {{DType::I8, -128}, {DType::I8, 127}, {DType::I8, 3}, {DType::U8, 0}, {DType::U8, 255},
            {DType::I16, 0},   {DType::I16, -32768}, {DType::I32, 0}};
  }
  std::vector<Params> ps;
  for (auto m : ms)
    for (int s : shifts)
      for (const auto& [t, zp] : outs) ps.push_back({m, s, zp, t});
  return ps;
}

}  // namespace

TEST(requant_gemmlowp_rdbpot, ExhaustiveInt16EveryExponent) {
  const auto xs = all_int16_and_extremes();
  for (int e = 0; e <= 31; ++e)
    for (auto x : xs) {
      const i128 expected = e == 0 ? i128(x) : half_away_div(x, e);
      ASSERT_EQ(to64(gemmlowp_rdbpot(Int(x), e)), static_cast<std::int64_t>(expected)) << x << " e=" << e;
    }
}

TEST(requant_gemmlowp_srdhm, ExhaustiveInt16TimesEdgeMultipliers) {
  const auto xs = all_int16_and_extremes();
  const std::vector<std::int64_t> bs = {INT32_MIN, INT32_MIN + 1, -(1LL << 30), -1, 0, 1, 3, 1LL << 30,
                                        1284042223, INT32_MAX};
  for (auto b : bs)
    for (auto a : xs) {
      const i128 expected = (a == INT32_MIN && b == INT32_MIN) ? i128(INT32_MAX) : half_up_div(i128(a) * b, 31);
      ASSERT_EQ(to64(gemmlowp_srdhm(Int(a), Int(b))), static_cast<std::int64_t>(expected)) << a << " * " << b;
    }
}

// gemmlowp.double_round, tflite.single_round, tosa.single_round and tosa.double_round on every
// int16 accumulator; the double-vs-single characterization checked both ways on the same domain.
TEST(requant_double_round_vs_single, ExhaustiveInt16Conventions) {
  const auto xs = all_int16_and_extremes();
  long differing = 0, agreeing = 0;
  for (const auto& p : requant_params()) {
    const Int m(p.m), zp(p.zp);
    for (auto x : xs) {
      if (p.shift > 0 && (i128(x) * p2(p.shift) > INT32_MAX || i128(x) * p2(p.shift) < INT32_MIN)) continue;
      const i128 d = def_double(x, p.m, p.shift), s = def_single(x, p.m, p.shift);
      if (d + p.zp > INT32_MAX || d + p.zp < INT32_MIN || s + p.zp > INT32_MAX || s + p.zp < INT32_MIN) continue;
      // The characterization, both ways: predicted difference == evaluated difference.
      const int diff = def_difference(x, p.m, p.shift);
      ASSERT_EQ(static_cast<std::int64_t>(d - s), diff) << x << " M=" << p.m << " shift=" << p.shift;
      (diff != 0 ? differing : agreeing)++;
      const std::int64_t want_d = static_cast<std::int64_t>(clamp(d + p.zp, p.out));
      const std::int64_t want_s = static_cast<std::int64_t>(clamp(s + p.zp, p.out));
      ASSERT_EQ(to64(saturate(gemmlowp_scale_by_fixedpoint_and_exponent(Int(x), m, p.shift, zp), p.out)), want_d)
          << "gemmlowp.double_round x=" << x << " M=" << p.m << " shift=" << p.shift;
      ASSERT_EQ(to64(tflite_requantize_single_round(Int(x), m, p.shift, zp, p.out)), want_s)
          << "tflite.single_round x=" << x << " M=" << p.m << " shift=" << p.shift;
      // TOSA: s = 31 - shift in [2, 62], |x| < 2^(s-1); zero points only for int8; no uint8.
      const int tosa_shift = 31 - p.shift;
      const bool tosa_ok = tosa_shift >= 2 && tosa_shift <= 62 && i128(x) >= -p2(tosa_shift - 1) &&
                           i128(x) < p2(tosa_shift - 1) && p.out != DType::U8 &&
                           (p.out == DType::I8 || p.zp == 0);
      if (tosa_ok) {
        ASSERT_EQ(to64(tosa_rescale(Int(x), m, tosa_shift, zp, p.out, TosaScale::Single32)), want_s)
            << "tosa.single_round x=" << x << " M=" << p.m << " shift=" << p.shift;
        ASSERT_EQ(to64(tosa_rescale(Int(x), m, tosa_shift, zp, p.out, TosaScale::Double32)), want_d)
            << "tosa.double_round x=" << x << " M=" << p.m << " shift=" << p.shift;
      }
    }
  }
  // Both sides of the characterization occur on this domain.
  EXPECT_GT(differing, 0);
  EXPECT_GT(agreeing, 0);
}

// The Rat-based predictor of the reference agrees with the integer characterization (a slice:
// cpp_rational is slow).
TEST(requant_double_round_vs_single, ExhaustivePredictorSlice) {
  for (std::int64_t x = -2048; x <= 2048; ++x)
    for (int shift : {-1, -2, -5}) {
      const int want = def_difference(x, 1284042223, shift);
      ASSERT_EQ(double_round_minus_single_round(Int(x), Int(1284042223), shift), want) << x << " " << shift;
    }
}

TEST(requant_gemmlowp_legacy_uint8_scale, ExhaustiveInt16) {
  const auto xs = all_int16_and_extremes();
  const struct {
    std::int64_t a, b;
    int r;
  } params[] = {{0, 1, 1}, {-7, 3, 2}, {128, 255, 8}, {0, 1, 31}, {5, 0, 4}};
  for (const auto& p : params)
    for (auto x : xs) {
      const i128 prod = (i128(x) + p.a) * p.b;
      if (prod > INT32_MAX || prod < INT32_MIN || i128(x) + p.a > INT32_MAX) continue;
      const i128 expected = p.r == 0 ? prod : half_away_div(prod, p.r);
      ASSERT_EQ(to64(gemmlowp_quantize_down_uint8_scale(Int(x), p.a, p.b, p.r)), static_cast<std::int64_t>(expected))
          << x;
    }
}
