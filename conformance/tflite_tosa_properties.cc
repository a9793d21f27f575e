// Properties of the TFLite / TOSA requantization clauses against the exact rational definitions and host frexp/round.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "qspec/ref/ieee.h"
#include "qspec/ref/tflite_choose_params.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec_rc.h"

using namespace qspec::ref;

namespace {

constexpr std::int32_t kMin32 = INT32_MIN;
constexpr std::int32_t kMax32 = INT32_MAX;

rc::Gen<std::int32_t> edgy_int32() {
  return rc::gen::oneOf(rc::gen::arbitrary<std::int32_t>(), rc::gen::inRange<std::int32_t>(-70000, 70000),
                        rc::gen::elementOf(std::vector<std::int32_t>{kMin32, kMax32, 0, 1, -1, 1 << 30, -(1 << 30)}));
}
rc::Gen<std::int32_t> q31_multiplier() {
  return rc::gen::oneOf(rc::gen::inRange<std::int32_t>(1 << 30, kMax32),
                        rc::gen::elementOf(std::vector<std::int32_t>{0, 1, 1 << 30, kMax32, 1 << 29}));
}
// Right shifts biased to r = 1..3, where double and single rounding differ most often.
rc::Gen<int> tflite_shift() {
  return rc::gen::oneOf(rc::gen::inRange(-31, 1), rc::gen::inRange(-3, 0), rc::gen::inRange(1, 8));
}

Rat exact_v(const Int& x, const Int& m, int shift) { return Rat(x * m) * pow2r(shift - 31); }
bool fits32(const Int& v) { return v >= Int(kMin32) && v <= Int(kMax32); }

// An accumulator that keeps x * 2^max(shift,0) in int32.
std::int32_t accumulator_for_shift(int shift) {
  if (shift <= 0) return *edgy_int32();
  const std::int32_t lim = static_cast<std::int32_t>((std::int64_t{1} << (31 - shift)) - 1);
  return *rc::gen::inRange<std::int32_t>(-lim, lim);
}

}  // namespace

RC_GTEST_PROP(requant_tflite_single_round, IsExactHalfUp, ()) {
  const int shift = *tflite_shift();
  const std::int32_t x = accumulator_for_shift(shift);
  const std::int32_t m = *q31_multiplier();
  const Int expected = round_half_up(exact_v(x, m, shift));
  RC_PRE(fits32(expected));
  RC_ASSERT(tflite_multiply_by_quantized_multiplier_single_round(x, m, shift) == expected);
  // The requantize op: sat(round_half_up(v) + zp), the exact q31 yardstick with half_up.
  const std::int32_t zp = *rc::gen::inRange(-128, 128);
  RC_PRE(fits32(expected + zp));
  RC_ASSERT(tflite_requantize_single_round(x, m, shift, zp, DType::I8) ==
            q31_exact_requantize(x, m, shift, zp, DType::I8, Rounding::HalfUp));
}

RC_GTEST_PROP(requant_tflite_double_round, WithinThreeQuartersOfExact, ()) {
  const int shift = *tflite_shift();
  const std::int32_t x = accumulator_for_shift(shift);
  const std::int32_t m = *q31_multiplier();
  const Int d = tflite_multiply_by_quantized_multiplier_double_round(x, m, shift);
  const Rat bound = shift >= 0 ? Rat(1, 2) : Rat(1, 2) + pow2r(shift - 1);
  RC_ASSERT(abs(Rat(d) - exact_v(x, m, shift)) <= bound);
}

// The characterization of requant.double_round_vs_single against the two evaluated chains.
RC_GTEST_PROP(requant_double_round_vs_single, CharacterizationMatchesEvaluation, ()) {
  const int shift = *tflite_shift();
  const std::int32_t x = accumulator_for_shift(shift);
  const std::int32_t m = *q31_multiplier();
  const Int single = round_half_up(exact_v(x, m, shift));
  RC_PRE(fits32(single));
  const Int d = tflite_multiply_by_quantized_multiplier_double_round(x, m, shift);
  const Int s = tflite_multiply_by_quantized_multiplier_single_round(x, m, shift);
  const int predicted = double_round_minus_single_round(x, m, shift);
  RC_CLASSIFY(predicted != 0, "differs");
  RC_ASSERT(d - s == predicted);
}

// Inside the set: M = 2^30 makes v = x / 2^(r+1), so f = (x mod 2^(r+1)) / 2^(r+1); the positive
// case f = 1/2 - 2^-(r+1) and the negative case f = 1/2 are both in the set.
RC_GTEST_PROP(requant_double_round_vs_single, ConstructedMembersDiffer, ()) {
  const int r = *rc::gen::inRange(1, 29);
  const std::int64_t period = std::int64_t{1} << (r + 1);
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(0, (std::int64_t{1} << (29 - r)));
  const std::int64_t pos = k * period + (period / 2 - 1);  // f = 1/2 - 2^-(r+1), x > 0
  const std::int64_t neg = -(k * period + period / 2);     // v = -(k + 1/2): f = 1/2, x < 0
  const Int m = pow2(30);
  RC_ASSERT(tflite_multiply_by_quantized_multiplier_double_round(Int(pos), m, -r) ==
            tflite_multiply_by_quantized_multiplier_single_round(Int(pos), m, -r) + 1);
  RC_ASSERT(tflite_multiply_by_quantized_multiplier_double_round(Int(neg), m, -r) ==
            tflite_multiply_by_quantized_multiplier_single_round(Int(neg), m, -r) - 1);
  // Their neighbours outside the set agree.
  RC_ASSERT(tflite_multiply_by_quantized_multiplier_double_round(Int(pos - 1), m, -r) ==
            tflite_multiply_by_quantized_multiplier_single_round(Int(pos - 1), m, -r));
  RC_ASSERT(tflite_multiply_by_quantized_multiplier_double_round(Int(neg - 1), m, -r) ==
            tflite_multiply_by_quantized_multiplier_single_round(Int(neg - 1), m, -r));
}

RC_GTEST_PROP(requant_tflite_per_channel, EachChannelIsPerTensor, ()) {
  const int channels = *rc::gen::inRange(1, 6);
  std::vector<Int> ms;
  std::vector<int> ss;
  for (int c = 0; c < channels; ++c) {
    ms.emplace_back(*rc::gen::oneOf(q31_multiplier(), rc::gen::just<std::int32_t>(0)));
    ss.push_back(*rc::gen::inRange(-31, 1));
  }
  const std::int32_t x = *rc::gen::inRange(-1000000, 1000000);
  const std::int32_t zp = *rc::gen::inRange(-128, 128);
  const bool single = *rc::gen::arbitrary<bool>();
  for (int c = 0; c < channels; ++c) {
    const auto cs = static_cast<std::size_t>(c);
    const Int y = tflite_requantize_per_channel(x, cs, ms, ss, zp, DType::I8, single);
    RC_ASSERT(y == (single ? tflite_requantize_single_round(x, ms[cs], ss[cs], zp, DType::I8)
                           : tflite_requantize_double_round(x, ms[cs], ss[cs], zp, DType::I8)));
    if (ms[cs] == 0) RC_ASSERT(y == Int(zp));
  }
}

namespace {
// A positive finite double with exponent in [2^-e_lo, 2^e_hi).
rc::Gen<std::uint64_t> positive_double(int e_lo, int e_hi) {
  return rc::gen::map(rc::gen::pair(rc::gen::inRange(1023 - e_lo, 1023 + e_hi),
                                    rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 52)),
                      [](std::pair<int, std::uint64_t> p) { return (static_cast<std::uint64_t>(p.first) << 52) | p.second; });
}
double as_double(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
}  // namespace

// QuantizeMultiplier's code on the host: std::frexp, std::round, the carry and the flush.
RC_GTEST_PROP(requant_tflite_quantize_multiplier, MatchesHostFrexpAndRound, ()) {
  const std::uint64_t bits = *rc::gen::oneOf(positive_double(40, 40), positive_double(1022, 1023));
  const double d = as_double(bits);
  int shift = 0;
  const double q = std::frexp(d, &shift);
  auto q_fixed = static_cast<std::int64_t>(std::round(q * (1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  const auto r = tflite_quantize_multiplier(bits, TfliteBuild::Default);
  RC_ASSERT(r.multiplier == Int(q_fixed));
  RC_ASSERT(r.shift == shift);
}

// Not flushed: M in [2^30, 2^31) and |M * 2^(shift-31) - d| < 2^-31 * d.
RC_GTEST_PROP(requant_tflite_quantize_multiplier, RelativeErrorBelow2pm31, ()) {
  const std::uint64_t bits = *positive_double(31, 60);
  const auto r = tflite_quantize_multiplier(bits, TfliteBuild::Default);
  const Rat d = f64_value(bits);
  RC_ASSERT(r.multiplier >= pow2(30));
  RC_ASSERT(r.multiplier < pow2(31));
  RC_ASSERT(abs(Rat(r.multiplier) * pow2r(r.shift - 31) - d) < d * pow2r(-31));
}

// The emulated-float build differs from the default only when the 22 discarded fraction bits
// are exactly one half, and then by one (ties down instead of away).
RC_GTEST_PROP(requant_tflite_quantize_multiplier, EmulatedDiffersOnlyAtTies, ()) {
  std::uint64_t bits = *positive_double(31, 60);
  if (*rc::gen::arbitrary<bool>()) bits = (bits & ~std::uint64_t{0x3fffff}) | 0x200000;  // force a tie
  const auto def = tflite_quantize_multiplier(bits, TfliteBuild::Default);
  const auto emu = tflite_quantize_multiplier(bits, TfliteBuild::EmulateFloat);
  const bool tie = (bits & 0x3fffff) == 0x200000;
  // At a tie the default rounds up and the emulation down: the real values differ by one unit
  // 2^(e - 31) of the emulated multiplier (which never carries at a tie); elsewhere they agree.
  const Rat def_value = Rat(def.multiplier) * pow2r(def.shift - 31);
  const Rat emu_value = Rat(emu.multiplier) * pow2r(emu.shift - 31);
  RC_ASSERT(def_value - emu_value == (tie ? pow2r(emu.shift - 31) : Rat(0)));
}

// Single-rounding build: identical to the default unless the default's shift exceeds 30.
RC_GTEST_PROP(requant_tflite_quantize_multiplier, SingleRoundingSaturatesAbove30, ()) {
  const std::uint64_t bits = *positive_double(40, 40);
  const auto def = tflite_quantize_multiplier(bits, TfliteBuild::Default);
  const auto single = tflite_quantize_multiplier(bits, TfliteBuild::SingleRounding);
  if (def.shift > 30) {
    RC_ASSERT(single.multiplier == pow2(31) - 1);
    RC_ASSERT(single.shift == 30);
  } else {
    RC_ASSERT(single.multiplier == def.multiplier);
    RC_ASSERT(single.shift == def.shift);
  }
}

RC_GTEST_PROP(requant_tosa_apply_scale_32, SingleRoundIsHalfUp, ()) {
  const int s = *rc::gen::inRange(2, 63);
  const std::int64_t half = std::int64_t{1} << (s - 1);
  const std::int64_t lo = std::max<std::int64_t>(-half, kMin32), hi = std::min<std::int64_t>(half - 1, kMax32);
  const std::int64_t value = *rc::gen::oneOf(rc::gen::inRange(lo, hi + 1), rc::gen::element(lo, hi, std::int64_t{0}));
  const std::int32_t m = *q31_multiplier();
  RC_ASSERT(tosa_apply_scale_32(Int(value), m, s, false) == round_half_up(Rat(Int(value) * m) / Rat(pow2(s))));
}

// DOUBLE_ROUND is TFLite's default MultiplyByQuantizedMultiplier with shift = 31 - s on the whole
// TOSA domain, i.e. gemmlowp's SRDHM then RDBPOT (left shift 31 - s when s <= 31).
RC_GTEST_PROP(requant_tosa_apply_scale_32, DoubleRoundIsGemmlowpTwoSteps, ()) {
  const int s = *rc::gen::oneOf(rc::gen::inRange(2, 63), rc::gen::inRange(31, 36));
  const std::int64_t half = std::int64_t{1} << (s - 1);
  const std::int64_t lo = std::max<std::int64_t>(-half, kMin32), hi = std::min<std::int64_t>(half - 1, kMax32);
  const std::int64_t value = *rc::gen::oneOf(rc::gen::inRange(lo, hi + 1), rc::gen::element(lo, hi, std::int64_t{0}));
  const std::int32_t m = *q31_multiplier();
  const Int tosa = tosa_apply_scale_32(Int(value), m, s, true);
  RC_ASSERT(tosa == tflite_multiply_by_quantized_multiplier_double_round(Int(value), m, 31 - s));
  if (s > 31) RC_ASSERT(tosa == gemmlowp_rdbpot(gemmlowp_srdhm(Int(value), m), s - 31));
}

RC_GTEST_PROP(requant_tosa_apply_scale_16, IsHalfUp, ()) {
  const int s = *rc::gen::inRange(2, 63);
  // |value| < 2^min(47, s+15) keeps |value * M / 2^s| < 2^30 (the result REQUIRE) for every M.
  const std::int64_t bound = std::int64_t{1} << std::min(47, s + 15);
  const std::int64_t value = *rc::gen::inRange<std::int64_t>(-bound, bound);
  const std::int32_t m = *rc::gen::inRange(0, 1 << 15);
  const Int expected = round_half_up(Rat(Int(value) * m) / Rat(pow2(s)));
  RC_PRE(fits32(expected));
  RC_ASSERT(tosa_apply_scale_16(Int(value), m, s) == expected);
}

// RESCALE in the requantize vocabulary: SINGLE_ROUND and scale16 are q31_exact_half_up,
// DOUBLE_ROUND is TFLite's double rounding epilogue.
RC_GTEST_PROP(requant_tosa_rescale, MatchesExactAndTfliteConventions, ()) {
  const int shift = *rc::gen::inRange(-31, 30);  // s = 31 - shift in [2, 62]
  const std::int64_t half = std::int64_t{1} << (31 - shift - 1);
  const std::int32_t x = static_cast<std::int32_t>(
      *rc::gen::inRange<std::int64_t>(std::max<std::int64_t>(-half, kMin32), std::min<std::int64_t>(half, kMax32)));
  const std::int32_t m = *q31_multiplier();
  const bool to_int8 = *rc::gen::arbitrary<bool>();
  const DType out = to_int8 ? DType::I8 : DType::I16;
  const std::int32_t zp = to_int8 ? *rc::gen::inRange(-128, 128) : 0;
  RC_ASSERT(tosa_rescale(x, m, 31 - shift, zp, out, TosaScale::Single32) ==
            q31_exact_requantize(x, m, shift, zp, out, Rounding::HalfUp));
  RC_ASSERT(tosa_rescale(x, m, 31 - shift, zp, out, TosaScale::Double32) ==
            tflite_requantize_double_round(x, m, shift, zp, out));
  const std::int32_t m16 = m / 65536;  // an int16 multiplier with the same real value as m16 * 2^16
  const int shift16 = shift;  // the same real multiplier; TOSA s = 15 - shift
  const Int v16 = round_half_up(exact_v(x, Int(m16) * 65536, shift16));
  if (fits32(v16) && fits32(v16 + zp) && 15 - shift16 >= 2)
    RC_ASSERT(tosa_rescale(x, m16, 15 - shift16, zp, out, TosaScale::Scale16) ==
              q31_exact_requantize(x, Int(m16) * 65536, shift16, zp, out, Rounding::HalfUp));
}

// The seven exact roundings are ordered and at most one step apart before saturation.
RC_GTEST_PROP(requant_q31_exact, RoundingsBracketTheExactValue, ()) {
  const std::int32_t x = *edgy_int32();
  const std::int32_t m = *q31_multiplier();
  const int shift = *rc::gen::inRange(-40, 10);
  const Rat v = exact_v(x, m, shift);
  const Int fl = q31_exact_requantize(x, m, shift, 0, DType::I64, Rounding::Floor);
  const Int ce = q31_exact_requantize(x, m, shift, 0, DType::I64, Rounding::Ceil);
  RC_ASSERT(Rat(fl) <= v && v <= Rat(ce) && ce - fl <= 1);
  for (Rounding r : kAllRoundings) {
    const Int y = q31_exact_requantize(x, m, shift, 0, DType::I64, r);
    RC_ASSERT(fl <= y && y <= ce);
  }
  // Saturation composes: int8 result = clamp of the int64 one plus the zero point.
  const std::int32_t zp = *rc::gen::inRange(-128, 128);
  RC_ASSERT(q31_exact_requantize(x, m, shift, zp, DType::I8, Rounding::HalfEven) ==
            saturate(q31_exact_requantize(x, m, shift, 0, DType::I64, Rounding::HalfEven) + zp, DType::I8));
}

// TFLite ChooseQuantizationParams against TFLite's own statements run on the host's binary64
// (one IEEE operation per statement, std::round ties away): every type, narrow or not, ranges
// from tiny to huge and exact zero-point ties.
RC_GTEST_PROP(tflite_choose_quantization_params, MatchesTheHostDoubles, ()) {
  const int which = *rc::gen::inRange(0, 3);
  const DType t = which == 0 ? DType::U8 : which == 1 ? DType::I8 : DType::I16;
  const bool narrow = *rc::gen::arbitrary<bool>();
  const double qmin = (t == DType::U8 ? 0.0 : t == DType::I8 ? -128.0 : -32768.0) + (narrow ? 1.0 : 0.0);
  const double qmax = t == DType::U8 ? 255.0 : t == DType::I8 ? 127.0 : 32767.0;
  const int e = *rc::gen::inRange(-40, 40);
  volatile double rmin = -std::ldexp(static_cast<double>(*rc::gen::inRange(0, 1 << 24)), e);
  volatile double rmax = std::ldexp(static_cast<double>(*rc::gen::inRange(0, 1 << 24)), e);
  const int shape = *rc::gen::inRange(0, 3);
  if (shape == 1) {
    // rmin = -a 2^e, rmax = (2 (qmax - qmin) - a) 2^e with a odd: -rmin / scale = a / 2, a tie.
    const int a = 2 * *rc::gen::inRange(0, static_cast<int>(qmax - qmin)) + 1;
    rmin = -std::ldexp(static_cast<double>(a), e);
    rmax = std::ldexp(2 * (qmax - qmin) - a, e);
    RC_TAG("tie");
  } else if (shape == 2) {
    // A real zero point k + 1/2 under a scale with a full 53-bit mantissa: the two candidates
    // qmin - rmin / scale and qmax - rmax / scale carry different rounding errors and land on
    // either side of k + 1/2 in about a fifth of the cases, so which error estimate wins decides
    // the zero point.
    const double k = *rc::gen::inRange(static_cast<int>(qmin), static_cast<int>(qmax)) + 0.5;
    const double s = std::ldexp(
        static_cast<double>(*rc::gen::inRange<std::uint64_t>(std::uint64_t{1} << 52, std::uint64_t{1} << 53)), e - 52);
    rmin = std::min((qmin - k) * s, 0.0);
    rmax = std::max((qmax - k) * s, 0.0);
    RC_TAG("near tie");
  }
  const std::uint64_t bmin = std::bit_cast<std::uint64_t>(static_cast<double>(rmin)),
                      bmax = std::bit_cast<std::uint64_t>(static_cast<double>(rmax));
  const auto p = tflite_choose_quantization_params(bmin, bmax, t, narrow);
  if (rmin == rmax) {
    RC_ASSERT(p.scale == 0u && p.zero_point == Int(0));
    return;
  }
  volatile double scale = (rmax - rmin) / (qmax - qmin);
  volatile double a = rmin / scale, b = rmax / scale;
  volatile double zmin = qmin - a, zmax = qmax - b;
  volatile double emin = std::abs(qmin) + std::abs(a), emax = std::abs(qmax) + std::abs(b);
  const double zp = emin < emax ? zmin : zmax;
  const double nudged = zp < qmin ? qmin : zp > qmax ? qmax : std::round(zp);
  RC_ASSERT(p.scale == std::bit_cast<std::uint64_t>(static_cast<double>(scale)));
  RC_ASSERT(p.zero_point == Int(static_cast<long long>(nudged)));
}
