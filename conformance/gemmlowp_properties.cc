// Properties of the gemmlowp clauses: each reference function against its defining exact rule or the host's IEEE floats.
//
// The fixed-point primitives are compared with the exact rational roundings they are specified
// as (round.half_up / round.half_away of a rational), not with a re-run of their own code. The
// float parts of doc/quantization_example.cc are compared with the same statements executed on
// this machine's IEEE hardware (SSE, round-to-nearest-even), which is an independent evaluation
// of the exact IEEE model the reference uses.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/gemmlowp_forms.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::ref;

namespace {

constexpr std::int32_t kMin32 = INT32_MIN;
constexpr std::int32_t kMax32 = INT32_MAX;

// int32 values biased toward the edges where fixed-point code breaks.
rc::Gen<std::int32_t> edgy_int32() {
  return rc::gen::oneOf(rc::gen::arbitrary<std::int32_t>(), rc::gen::inRange<std::int32_t>(-70000, 70000),
                        rc::gen::elementOf(std::vector<std::int32_t>{kMin32, kMin32 + 1, kMax32, kMax32 - 1, 0, 1, -1, 1 << 30,
                                                       -(1 << 30), (1 << 30) - 1}));
}

// Normalized Q31 multipliers [2^30, 2^31) plus a few unnormalized ones.
rc::Gen<std::int32_t> q31_multiplier() {
  return rc::gen::oneOf(rc::gen::inRange<std::int32_t>(1 << 30, kMax32),
                        rc::gen::elementOf(std::vector<std::int32_t>{0, 1, 1 << 30, kMax32, 1 << 29}));
}

// A finite float32 bit pattern with exponent in [2^-e, 2^e).
rc::Gen<std::uint32_t> finite_f32(int e) {
  return rc::gen::map(rc::gen::tuple(rc::gen::arbitrary<bool>(), rc::gen::inRange(127 - e, 127 + e),
                                     rc::gen::inRange<std::uint32_t>(0, 1u << 23)),
                      [](std::tuple<bool, int, std::uint32_t> t) {
                        return (std::get<0>(t) ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(std::get<1>(t)) << 23) |
                               std::get<2>(t);
                      });
}

float as_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

Rat q31_real(const Int& x, const Int& m, int right_shift) { return Rat(x * m) / Rat(pow2(31 + right_shift)); }

}  // namespace

RC_GTEST_PROP(requant_gemmlowp_srdhm, IsRoundHalfUpOfProduct, ()) {
  const std::int32_t a = *edgy_int32();
  const std::int32_t b = *edgy_int32();
  RC_PRE(!(a == kMin32 && b == kMin32));
  RC_ASSERT(gemmlowp_srdhm(a, b) == round_half_up(Rat(Int(a) * Int(b), pow2(31))));
}

// Saturation happens at INT32_MIN * INT32_MIN only: there the exact rounding is 2^31 (out of
// int32) and the result is INT32_MAX; every other pair's exact rounding is already in int32.
RC_GTEST_PROP(requant_gemmlowp_srdhm, SaturatesOnlyAtMinTimesMin, ()) {
  const std::int32_t a = *edgy_int32();
  const std::int32_t b = *edgy_int32();
  const Int exact = round_half_up(Rat(Int(a) * Int(b), pow2(31)));
  const bool representable = exact >= Int(kMin32) && exact <= Int(kMax32);
  RC_ASSERT(representable == !(a == kMin32 && b == kMin32));
  if (!representable) RC_ASSERT(gemmlowp_srdhm(a, b) == Int(kMax32));
}

RC_GTEST_PROP(requant_gemmlowp_rdbpot, IsRoundHalfAway, ()) {
  const std::int32_t x = *edgy_int32();
  const int e = *rc::gen::inRange(0, 32);
  RC_ASSERT(gemmlowp_rdbpot(x, e) == round_half_away(Rat(Int(x), pow2(static_cast<unsigned>(e)))));
}

// Exact ties (2k+1)*2^(e-1) go away from zero on both signs.
RC_GTEST_PROP(requant_gemmlowp_rdbpot, TiesAwayFromZero, ()) {
  const int e = *rc::gen::inRange(1, 32);
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(0, (std::int64_t{1} << (31 - e)) - 1);
  const std::int64_t x = (2 * k + 1) << (e - 1);
  RC_PRE(x <= kMax32);
  RC_ASSERT(gemmlowp_rdbpot(Int(x), e) == Int(k + 1));
  RC_ASSERT(gemmlowp_rdbpot(Int(-x), e) == Int(-k - 1));
}

RC_GTEST_PROP(requant_gemmlowp_quantize_multiplier, ExactAndNormalized, ()) {
  // Positive floats below 1, including subnormals.
  const std::uint32_t bits = *rc::gen::inRange<std::uint32_t>(1, 0x3f800000);
  const auto q = gemmlowp_quantize_multiplier_smaller_than_one(bits);
  RC_ASSERT(q.multiplier >= pow2(30));
  RC_ASSERT(q.multiplier < pow2(31));
  RC_ASSERT(q.shift <= 0);
  RC_ASSERT(Rat(q.multiplier) * pow2r(q.shift - 31) == f32_value(bits));  // no rounding at all
}

// The stage's two roundings stay within 1/2 + 2^-(r+1) <= 3/4 of the exact value (r >= 1) and
// within 1/2 for r = 0 (requant.double_round_vs_single).
RC_GTEST_PROP(requant_gemmlowp_fixedpoint_output_stage, WithinThreeQuartersOfExact, ()) {
  const std::int32_t x = *edgy_int32();
  const std::int32_t m = *q31_multiplier();
  const int r = *rc::gen::inRange(0, 32);
  const std::int32_t o = *rc::gen::inRange(-300, 300);
  const Int mul = gemmlowp_srdhm(x, m);
  const Int shifted = gemmlowp_rdbpot(mul, r);
  RC_PRE(shifted + o >= Int(kMin32) && shifted + o <= Int(kMax32));
  const Int y = gemmlowp_quantize_down_by_fixedpoint(x, m, r, o);
  const Rat err = abs(Rat(y - o) - q31_real(x, m, r));
  const Rat bound = r == 0 ? Rat(1, 2) : Rat(1, 2) + pow2r(-(r + 1));
  RC_ASSERT(err <= bound);
}

RC_GTEST_PROP(requant_gemmlowp_scale_by_fixedpoint_and_exponent, NonPositiveExponentIsOutputStage, ()) {
  const std::int32_t x = *edgy_int32();
  const std::int32_t m = *q31_multiplier();
  const int k = *rc::gen::inRange(-31, 1);
  const std::int32_t o = *rc::gen::inRange(-300, 300);
  RC_PRE(gemmlowp_rdbpot(gemmlowp_srdhm(x, m), -k) + o <= Int(kMax32));
  RC_ASSERT(gemmlowp_scale_by_fixedpoint_and_exponent(x, m, k, o) == gemmlowp_quantize_down_by_fixedpoint(x, m, -k, o));
}

// A positive exponent multiplies exactly by 2^k before the Q31 product: the result is
// round_half_up(x * M * 2^(k - 31)) + o (one rounding, SRDHM's).
RC_GTEST_PROP(requant_gemmlowp_scale_by_fixedpoint_and_exponent, PositiveExponentIsHalfUpOfScaled, ()) {
  const int k = *rc::gen::inRange(1, 31);
  const std::int64_t lim = (std::int64_t{1} << (31 - k)) - 1;
  const std::int64_t x = *rc::gen::inRange<std::int64_t>(-lim, lim + 1);
  const std::int32_t m = *q31_multiplier();
  const std::int32_t o = *rc::gen::inRange(-300, 300);
  const Int expected = round_half_up(Rat(Int(x) * Int(m)) * pow2r(k - 31)) + o;
  RC_PRE(expected >= Int(kMin32) && expected <= Int(kMax32));
  RC_ASSERT(gemmlowp_scale_by_fixedpoint_and_exponent(Int(x), m, k, o) == expected);
}

RC_GTEST_PROP(requant_gemmlowp_scale_by_fixedpoint_and_exponent_pc, EachChannelIsPerTensor, ()) {
  const int channels = *rc::gen::inRange(1, 6);
  std::vector<Int> ms;
  std::vector<int> ks;
  for (int c = 0; c < channels; ++c) {
    ms.emplace_back(*rc::gen::oneOf(q31_multiplier(), rc::gen::just<std::int32_t>(0)));
    ks.push_back(*rc::gen::inRange(-31, 1));
  }
  const std::int32_t x = *rc::gen::inRange(-1000000, 1000000);
  const std::int32_t o = *rc::gen::inRange(-300, 300);
  for (int c = 0; c < channels; ++c) {
    const Int y = gemmlowp_scale_by_fixedpoint_and_exponent_pc(x, static_cast<std::size_t>(c), ms, ks, o);
    RC_ASSERT(y == gemmlowp_scale_by_fixedpoint_and_exponent(x, ms[static_cast<std::size_t>(c)],
                                                             ks[static_cast<std::size_t>(c)], o));
    if (ms[static_cast<std::size_t>(c)] == 0) RC_ASSERT(y == Int(o));
  }
}

// The legacy stage is round_half_away((x + a) * b / 2^r); the header comment's
// ((x + a) * b + 2^(r-1)) >> r (round_half_up) differs exactly at negative ties.
RC_GTEST_PROP(requant_gemmlowp_legacy_uint8_scale, IsHalfAwayAndDiffersFromCommentOnlyAtNegativeTies, ()) {
  const std::int32_t x = *rc::gen::inRange(-200000, 200000);
  const std::int32_t a = *rc::gen::inRange(-300, 300);
  const std::int32_t b = *rc::gen::inRange(0, 4000);
  const int r = *rc::gen::inRange(0, 32);
  const Int p = (Int(x) + a) * b;
  const Int y = gemmlowp_quantize_down_uint8_scale(x, a, b, r);
  const Rat exact(p, pow2(static_cast<unsigned>(r)));
  RC_ASSERT(y == round_half_away(exact));
  const Int comment = floor_div(p + (r < 1 ? Int(0) : pow2(static_cast<unsigned>(r - 1))), pow2(static_cast<unsigned>(r)));
  const bool negative_tie = exact < 0 && exact - Rat(round_floor(exact)) == Rat(1, 2);
  RC_ASSERT((y != comment) == negative_tie);
  if (negative_tie) RC_ASSERT(y == comment - 1);
}

RC_GTEST_PROP(requant_gemmlowp_legacy_uint8_scale_pc, EachChannelIsPerTensor, ()) {
  const int channels = *rc::gen::inRange(1, 5);
  std::vector<Int> as, bs;
  for (int c = 0; c < channels; ++c) {
    as.emplace_back(*rc::gen::inRange(-300, 300));
    bs.emplace_back(*rc::gen::inRange(0, 4000));
  }
  const std::int32_t x = *rc::gen::inRange(-200000, 200000);
  const int r = *rc::gen::inRange(0, 32);
  for (int c = 0; c < channels; ++c) {
    const auto cs = static_cast<std::size_t>(c);
    RC_ASSERT(gemmlowp_quantize_down_uint8_scale_pc(x, cs, as, bs, r) ==
              gemmlowp_quantize_down_uint8_scale(x, as[cs], bs[cs], r));
  }
}

// Wrapping int32 evaluation of the expanded form is congruent to the exact offset dot product
// modulo 2^32, hence equal to it whenever the exact value is an int32.
RC_GTEST_PROP(gemmlowp_offset_identity, WrappedFormIsExactModulo2p32, ()) {
  const int depth = *rc::gen::inRange(0, 40);
  const bool wide = *rc::gen::arbitrary<bool>();
  std::vector<Int> a, b;
  for (int i = 0; i < depth; ++i) {
    a.emplace_back(wide ? *edgy_int32() : *rc::gen::inRange(0, 256));
    b.emplace_back(wide ? *edgy_int32() : *rc::gen::inRange(0, 256));
  }
  const std::int32_t lo = wide ? *edgy_int32() : -*rc::gen::inRange(0, 256);
  const std::int32_t ro = wide ? *edgy_int32() : -*rc::gen::inRange(0, 256);
  const Int exact = gemmlowp_offset_dot(a, b, lo, ro);
  // The identity over Z, term by term.
  Int sab = 0, sa = 0, sb = 0;
  for (int i = 0; i < depth; ++i) {
    sab += a[static_cast<std::size_t>(i)] * b[static_cast<std::size_t>(i)];
    sa += a[static_cast<std::size_t>(i)];
    sb += b[static_cast<std::size_t>(i)];
  }
  RC_ASSERT(exact == sab + Int(ro) * sa + Int(lo) * sb + Int(depth) * lo * ro);
  const Int wrapped = gemmlowp_offset_dot_int32(a, b, lo, ro);
  RC_ASSERT(wrapped == wrap_int32(exact));
  if (exact >= Int(kMin32) && exact <= Int(kMax32)) RC_ASSERT(wrapped == exact);
}

TEST(gemmlowp_offset_identity, Uint8DepthBoundIsTight) {
  // K*65025 <= 2^31 - 1 exactly for K <= 33025 (the spec's bound), by integer arithmetic.
  EXPECT_LE(Int(33025) * 65025, Int(kMax32));
  EXPECT_GT(Int(33026) * 65025, Int(kMax32));
  EXPECT_LE(Int(131071) * 16384, Int(kMax32));
  EXPECT_EQ(Int(131072) * 16384, pow2(31));
}

RC_GTEST_PROP(gemmlowp_affine_map, ZeroPointIsRealZeroAndStepIsScale, (std::int32_t q, std::int32_t zp)) {
  const Rat scale(*rc::gen::inRange(1, 1 << 20), *rc::gen::inRange(1, 1 << 20));
  RC_ASSERT(gemmlowp_real_value(scale, zp, zp) == Rat(0));
  RC_ASSERT(gemmlowp_real_value(scale, Int(q) + 1, zp) - gemmlowp_real_value(scale, q, zp) == scale);
}

// ---- the example's float code on this machine's IEEE hardware ----

namespace {
struct HostParams {
  bool ok;
  std::uint32_t scale_bits;
  int zero_point;
};
// doc/quantization_example.cc ChooseQuantizationParams, statement by statement, in host floats;
// ok = false where qspec says ERROR_IF (scale 0 or infinite).
HostParams host_choose(float min, float max) {
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  const float qmin = 0;
  const float qmax = 255;
  const double scale = (max - min) / (qmax - qmin);
  if (scale == 0 || std::isinf(scale)) return {false, 0, 0};
  const double initial_zero_point = qmin - min / scale;
  int nudged;
  if (initial_zero_point < qmin) nudged = 0;
  else if (initial_zero_point > qmax) nudged = 255;
  else nudged = static_cast<int>(std::round(initial_zero_point));
  return {true, bits_of(static_cast<float>(scale)), nudged};
}
}  // namespace

RC_GTEST_PROP(gemmlowp_choose_params, MatchesHostFloatEvaluation, ()) {
  const std::uint32_t lo = *rc::gen::oneOf(finite_f32(30), rc::gen::elementOf(std::vector<std::uint32_t>{0, 0x80000000u, 1}));
  const std::uint32_t hi = *rc::gen::oneOf(finite_f32(30), rc::gen::elementOf(std::vector<std::uint32_t>{0, 0x80000000u, 1}));
  const HostParams h = host_choose(as_float(lo), as_float(hi));
  if (!h.ok) {
    RC_ASSERT_THROWS_AS(gemmlowp_choose_params(lo, hi), ErrorIf);
    return;
  }
  const auto p = gemmlowp_choose_params(lo, hi);
  RC_ASSERT(p.scale_bits == h.scale_bits);
  RC_ASSERT(p.zero_point == Int(h.zero_point));
}

RC_GTEST_PROP(gemmlowp_quantize, MatchesHostFloatEvaluation, ()) {
  const std::uint32_t x = *rc::gen::oneOf(finite_f32(20), rc::gen::elementOf(std::vector<std::uint32_t>{0x7f7fffffu, 0xff7fffffu}));
  const std::uint32_t scale = *finite_f32(20) & 0x7fffffffu;  // positive
  const int zp = *rc::gen::inRange(0, 256);
  // doc/quantization_example.cc Quantize, in host floats.
  const float transformed = static_cast<std::uint8_t>(zp) + as_float(x) / as_float(scale);
  const float clamped = std::max(0.f, std::min(255.f, transformed));
  const int host = static_cast<std::uint8_t>(std::round(clamped));
  RC_ASSERT(gemmlowp_quantize(x, scale, zp) == Int(host));
}

RC_GTEST_PROP(gemmlowp_dequantize, MatchesHostFloatEvaluation, ()) {
  const std::uint32_t scale = *finite_f32(40);
  const int q = *rc::gen::inRange(0, 256);
  const int zp = *rc::gen::inRange(0, 256);
  const float host = as_float(scale) * (static_cast<std::uint8_t>(q) - static_cast<std::uint8_t>(zp));
  RC_ASSERT(gemmlowp_dequantize(q, scale, zp) == bits_of(host));
}

// Forms (1), (2), (3) are one map: on every quantized value the three give the same real, and the
// real 0 is the zero point's quantized value.
RC_GTEST_PROP(gemmlowp_affine_forms, SameMapAndZeroIsTheZeroPoint, ()) {
  const Rat scale(*rc::gen::inRange<long long>(1, 100000), *rc::gen::inRange<long long>(1, 100000));
  const Int zp(*rc::gen::inRange(0, 256));
  const AffineForm2 f2 = form2_of_form3(scale, zp);
  const AffineForm1 f1 = form1_of_form2(f2);
  for (int q = 0; q <= 255; q += 17) {
    const Rat r3 = scale * Rat(Int(q) - zp);
    RC_ASSERT(f2.c * (Rat(q) + f2.d) == r3);
    RC_ASSERT(f1.a * Rat(q) + f1.b == r3);
  }
  RC_ASSERT(exact_zero_of(f1, Range{Int(0), Int(255)}) == zp);
  // A form (1) map whose -B / A is not an integer has no exact zero.
  RC_ASSERT(!exact_zero_of(AffineForm1{scale, scale * Rat(2 * *rc::gen::inRange(0, 100) + 1, 2)},
                           Range{Int(-300), Int(300)}));
}

// The legacy stage is defined exactly where the int32 arithmetic does not overflow: the reference
// computes there (and agrees with the exact rounding) and rejects elsewhere.
RC_GTEST_PROP(requant_gemmlowp_legacy_uint8_scale, DefinedExactlyWithoutOverflow, ()) {
  const Int x(*rc::gen::inRange<long long>(-(1LL << 31), 1LL << 31));
  const Int a(*rc::gen::inRange<long long>(-(1LL << 20), 1LL << 20));
  const Int b(
      *rc::gen::oneOf(rc::gen::inRange<long long>(-300, 300), rc::gen::inRange<long long>(-(1LL << 16), 1LL << 16)));
  const int r = *rc::gen::inRange(0, 32);
  const bool defined = gemmlowp_legacy_defined(x, a, b);
  try {
    const Int y = gemmlowp_quantize_down_uint8_scale(x, a, b, r);
    RC_ASSERT(defined);
    RC_ASSERT(y == round_half_away(Rat((x + a) * b) / Rat(pow2(static_cast<unsigned>(r)))));
  } catch (const RequireViolated&) {
    RC_ASSERT(!defined);
  }
}
