// Properties of TVM QNN: one half-up rounding of the exact product with TVM's multiplier, the
// TONEAREST variant, the multiplier's accuracy, and quantize/dequantize against the hardware.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/ref/tvm_qnn.h"
#include "qspec_rc.h"

using namespace qspec::ref;

namespace {

std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
float V(std::uint32_t b) { return std::bit_cast<float>(b); }

// One IEEE operation per line (no contraction), for the hardware oracle.
float hdiv(float a, float b) {
  volatile float r = a / b;
  return r;
}
float hadd(float a, float b) {
  volatile float r = a + b;
  return r;
}
float hmul(float a, float b) {
  volatile float r = a * b;
  return r;
}

// A positive float32 scale 2^e * (1 + m / 2^23): powers of two, 3-bit and full mantissas.
rc::Gen<std::uint32_t> gen_scale(int emin, int emax) {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange(emin, emax + 1), rc::gen::inRange(0, 3),
                                     rc::gen::inRange<std::uint32_t>(0, 1u << 23)),
                      [](std::tuple<int, int, std::uint32_t> t) {
                        auto [e, kind, m] = t;
                        const std::uint32_t mant = kind == 0 ? 0u : (kind == 1 ? (m & 0x7u) << 20 : m);
                        return (static_cast<std::uint32_t>(e + 127) << 23) | mant;
                      });
}

rc::Gen<std::int64_t> gen_int32() {
  return rc::gen::oneOf(rc::gen::inRange<std::int64_t>(INT32_MIN, std::int64_t{INT32_MAX} + 1),
                        rc::gen::inRange<std::int64_t>(-1000, 1001),
                        rc::gen::element<std::int64_t>(INT32_MIN, INT32_MAX, 0, 1, -1));
}

bool fits32(const Int& v) { return v >= -pow2(31) && v < pow2(31); }
bool fits64(const Int& v) { return v >= -pow2(63) && v < pow2(63); }

// Where TVM's lowering has a defined result (spec/tvm_qnn.md, written from TVM's code, not from
// the reference's checks): the int64 path of q_multiply_shift / FixedPointMultiplyToNearest
// (x << l, * M, + the rounding constant, >> r + 31, cast to int32: shifts below 64, nsw
// arithmetic without overflow, a result that fits int32) ...
bool int64_path_defined(const Int& x, const Int& m, int s, bool to_nearest) {
  const int l = s > 0 ? s : 0, r = s > 0 ? 0 : -s;
  if (l > 62 || r + 31 > 63) return false;
  const Int x64 = x * pow2(static_cast<unsigned>(l)), p = x64 * m;
  if (!fits64(x64) || !fits64(p)) return false;
  const Int half = pow2(static_cast<unsigned>(r + 30));
  const Int rounded = p + ((to_nearest && p < 0) ? Int(half - 1) : half);
  return fits64(rounded) && fits32(floor_div(rounded, pow2(static_cast<unsigned>(r + 31))));
}
// ... and the power-of-two branch of q_multiply_shift (M = 2^30: a pure int32 shift by s - 1; a
// right shift by k adds 2^(k-1) first; shifting by -1 is undefined).
bool q_multiply_shift_defined(const Int& x, const Int& m, int s, bool power_of_two_path) {
  if (!(power_of_two_path && m == pow2(30))) return int64_path_defined(x, m, s, false);
  const int e = s - 1;
  if (e > 0) return e <= 31 && fits32(x * pow2(static_cast<unsigned>(e)));
  const int k = -e;
  return k >= 1 && k <= 31 && fits32(x + pow2(static_cast<unsigned>(k - 1)));
}

// Evaluates f where TVM defines the result and checks the reference agrees on the domain: it must
// compute every input TVM defines (a too-strict precondition fails here) and reject the others
// (a too-loose one fails here), which are then discarded.
template <class Fn>
Int defined_or_discard(bool defined, Fn f) {
  try {
    const Int v = f();
    RC_ASSERT(defined);  // the reference computed a value TVM leaves undefined
    return v;
  } catch (const RequireViolated& e) {
    if (defined) RC_FAIL(std::string("the reference rejects an input TVM defines: ") + e.what());
    RC_DISCARD("outside TVM's defined arithmetic");
  }
  return Int(0);
}

}  // namespace

// q_multiply_shift is one rounding, half up, of the exact product, on both branches.
RC_GTEST_PROP(tvm_fixed_point_multiply, IsHalfUpOfTheExactProduct, ()) {
  const Int x(*gen_int32());
  const Int m = *rc::gen::oneOf(rc::gen::just(pow2(30)),
                                rc::gen::map(rc::gen::inRange<std::int64_t>(std::int64_t{1} << 30, std::int64_t{1} << 31),
                                             [](std::int64_t v) { return Int(v); }));
  const int s = *rc::gen::inRange(-33, 9);
  const Rat exact = Rat(x) * Rat(m) * pow2r(s - 31);
  const Int y =
      defined_or_discard(q_multiply_shift_defined(x, m, s, true), [&] { return tvm_fixed_point_multiply(x, m, s); });
  RC_ASSERT(y == round_half_up(exact));
  // Without the power-of-two branch (the per-axis operator) the value is the same.
  const Int y2 = defined_or_discard(q_multiply_shift_defined(x, m, s, false),
                                    [&] { return tvm_fixed_point_multiply(x, m, s, false); });
  RC_ASSERT(y2 == y);
  RC_TAG(m == pow2(30) ? "power of two" : "int64 branch");
}

// TONEAREST is one rounding, half away from zero, of the exact product.
RC_GTEST_PROP(tvm_requantize, ToNearestMultiplyIsHalfAway, ()) {
  const Int x(*gen_int32());
  const Int m(*rc::gen::inRange<std::int64_t>(std::int64_t{1} << 30, std::int64_t{1} << 31));
  const int s = *rc::gen::inRange(-33, 9);
  const Int y = defined_or_discard(int64_path_defined(x, m, s, true),
                                   [&] { return tvm_fixed_point_multiply_to_nearest(x, m, s); });
  RC_ASSERT(y == round_half_away(Rat(x) * Rat(m) * pow2r(s - 31)));
}

// GetFixedPointMultiplierShift: M in [2^30, 2^31) approximates d to half a unit in M's last
// place, and d is the correctly rounded double quotient of the float32 scales.
RC_GTEST_PROP(tvm_requantize_multiplier, ApproximatesTheScaleRatio, ()) {
  const std::uint32_t in = *gen_scale(-40, 40), out = *gen_scale(-40, 40);
  const std::uint64_t d_bits = tvm_double_multiplier(in, out);
  const Rat d = f64_value(d_bits);
  RC_ASSERT(abs(d - f32_value(in) / f32_value(out)) <= d * pow2r(-53));
  const TvmFixedPoint fp = tvm_fixed_point_multiplier_shift(d_bits);
  RC_ASSERT(fp.multiplier >= pow2(30) && fp.multiplier < pow2(31));
  RC_ASSERT(abs(Rat(fp.multiplier) * pow2r(fp.shift - 31) - d) <= pow2r(fp.shift - 32));
  // The hardware computes the same double quotient.
  const double hw = static_cast<double>(V(in)) / static_cast<double>(V(out));
  RC_ASSERT(d_bits == std::bit_cast<std::uint64_t>(hw));
}

// GetFixedPointMultiplierShift against the host's own std::frexp and std::round (ties away from
// zero) on the double, with half of the cases exact ties: the double's 22 bits below the 31-bit
// mantissa are 10...0, so significand * 2^31 ends in .5 (std::round must go away, half to even
// would differ on odd mantissas).
RC_GTEST_PROP(tvm_requantize_multiplier, MatchesStdFrexpAndRound, ()) {
  const std::uint64_t exp_bits = static_cast<std::uint64_t>(*rc::gen::inRange(1023 - 60, 1023 + 60));
  std::uint64_t mant = *rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 52);
  const bool tie = *rc::gen::arbitrary<bool>();
  if (tie) mant = (mant & ~((std::uint64_t{1} << 22) - 1)) | (std::uint64_t{1} << 21);
  const std::uint64_t bits = (exp_bits << 52) | mant;
  const double d = std::bit_cast<double>(bits);
  int e = 0;
  const double f = std::frexp(d, &e);
  long long m = std::llround(std::ldexp(f, 31));  // exact scaling; llround: ties away from zero
  if (m == (1LL << 31)) {
    m /= 2;
    ++e;
  }
  const TvmFixedPoint fp = tvm_fixed_point_multiplier_shift(bits);
  RC_ASSERT(fp.multiplier == Int(m));
  RC_ASSERT(fp.shift == e);
  RC_TAG(tie ? "tie" : "no tie");
}

// The whole requantize: zp_out + half_up((q - zp_in) * M * 2^(s-31)), clipped -- a single
// rounding with the TVM multiplier (the spec's statement, from its definition).
RC_GTEST_PROP(tvm_requantize, UpwardIsSingleRoundingWithTvmMultiplier, ()) {
  const DType out = *rc::gen::element(DType::I8, DType::U8, DType::I16, DType::I32);
  const std::uint32_t in_s = *gen_scale(-12, 4), out_s = *gen_scale(-12, 4);
  const Int q(*rc::gen::oneOf(gen_int32(), rc::gen::inRange<std::int64_t>(-300, 301)));
  const Int zp_in(*rc::gen::inRange(-128, 256)), zp_out(*rc::gen::inRange(-128, 256));
  const bool per_axis = *rc::gen::arbitrary<bool>();
  const TvmFixedPoint fp = tvm_fixed_point_multiplier_shift(tvm_double_multiplier(in_s, out_s));
  const Rat m = Rat(fp.multiplier) * pow2r(fp.shift - 31);
  // TVM's domain: q - zp_in and the scaled value + zp_out in int32, the multiply defined (skipped
  // when the per-tensor scales are equal).
  const bool scaled_step = per_axis || in_s != out_s;
  const Int x = q - zp_in;
  const auto requant_defined = [&](bool nearest) {
    if (!fits32(x)) return false;
    if (!scaled_step) return fits32(x + zp_out);
    const bool mul = nearest ? int64_path_defined(x, fp.multiplier, fp.shift, true)
                             : q_multiply_shift_defined(x, fp.multiplier, fp.shift, !per_axis);
    const Int scaled = nearest ? round_half_away(Rat(x) * m) : round_half_up(Rat(x) * m);
    return mul && fits32(scaled + zp_out);
  };
  const Int y = defined_or_discard(requant_defined(false), [&] {
    return tvm_requantize(q, in_s, zp_in, out_s, zp_out, TvmRounding::Upward, out, per_axis);
  });
  const Int raw = round_half_up(Rat(q - zp_in) * m) + zp_out;
  RC_ASSERT(y == (out == DType::I32 ? raw : saturate(raw, out)));
  const Int y_near = defined_or_discard(requant_defined(true), [&] {
    return tvm_requantize(q, in_s, zp_in, out_s, zp_out, TvmRounding::ToNearest, out, per_axis);
  });
  const Int raw_near = round_half_away(Rat(q - zp_in) * m) + zp_out;
  RC_ASSERT(y_near == (out == DType::I32 ? raw_near : saturate(raw_near, out)));
}

// Against the exact real multiplier in_scale / out_scale: never more than 1 apart (the
// multiplier's 31-bit error moves the product by at most |x| 2^-31 < 1).
RC_GTEST_PROP(tvm_requantize, WithinOneOfTheExactRealMultiplier, ()) {
  const std::uint32_t in_s = *gen_scale(-12, 4), out_s = *gen_scale(-12, 4);
  const Int q(*rc::gen::inRange<std::int64_t>(-100000, 100001));
  const Int zp(*rc::gen::inRange(-128, 128));
  const TvmFixedPoint fp = tvm_fixed_point_multiplier_shift(tvm_double_multiplier(in_s, out_s));
  const bool defined =
      in_s == out_s || (q_multiply_shift_defined(q, fp.multiplier, fp.shift, true) &&
                        fits32(round_half_up(Rat(q) * Rat(fp.multiplier) * pow2r(fp.shift - 31)) + zp));
  const Int y = defined_or_discard(
      defined, [&] { return tvm_requantize(q, in_s, Int(0), out_s, zp, TvmRounding::Upward, DType::I8); });
  const Int exact = saturate(round_half_up(Rat(q) * f32_value(in_s) / f32_value(out_s)) + zp, DType::I8);
  RC_ASSERT(abs(y - exact) <= 1);
}

// qnn.quantize against the machine: x / s in float32, roundf (ties away), + (float)zp, clip
// with float bounds, convert.
RC_GTEST_PROP(tvm_quantize, MatchesHardware, ()) {
  const DType out = *rc::gen::element(DType::I8, DType::U8, DType::I16, DType::U16);
  const Range r = int_range(out);
  const std::uint32_t s = *gen_scale(-20, 7);
  const std::int64_t zp = *rc::gen::inRange<std::int64_t>(-70000, 70001);
  // Inputs near (k + frac) * s, including exact ties.
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(static_cast<std::int64_t>(r.lo) - zp - 3,
                                                         static_cast<std::int64_t>(r.hi) - zp + 4);
  const Rat t = Rat(k) + Rat(*rc::gen::element(0, 1, 2, 2, 3), 4);
  const std::uint32_t x = f32_round(t * f32_value(s)) + static_cast<std::uint32_t>(*rc::gen::element(0, 0, 1));
  RC_PRE(float_is_finite(x, kBinary32));
  float v = roundf(hdiv(V(x), V(s)));
  v = hadd(v, static_cast<float>(zp));
  v = std::max(std::min(v, static_cast<float>(static_cast<std::int64_t>(r.hi))),
               static_cast<float>(static_cast<std::int64_t>(r.lo)));
  RC_ASSERT(tvm_quantize(x, s, Int(zp), out) == Int(static_cast<std::int64_t>(v)));
}

RC_GTEST_PROP(tvm_dequantize, MatchesHardware, ()) {
  const std::int64_t q = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 30), std::int64_t{1} << 30);
  const std::int64_t zp = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 30), std::int64_t{1} << 30);
  const std::uint32_t s = *gen_scale(-60, 60);
  const float hw = hmul(static_cast<float>(static_cast<std::int32_t>(q - zp)), V(s));
  RC_ASSERT(tvm_dequantize(Int(q), DType::I32, Int(zp), s) == F(hw));
}

// Zero is exact by construction (the zero point is an integer), and quantize inverts
// dequantize on every code.
RC_GTEST_PROP(tvm_quantize, ZeroExactAndRoundTrip, ()) {
  const DType out = *rc::gen::element(DType::I8, DType::U8, DType::I16);
  const Range r = int_range(out);
  const std::uint32_t s = *gen_scale(-20, 7);
  const Int zp(*rc::gen::inRange(static_cast<std::int64_t>(r.lo), static_cast<std::int64_t>(r.hi) + 1));
  RC_ASSERT(tvm_quantize(F(0.0f), s, zp, out) == zp);
  RC_ASSERT(tvm_dequantize(zp, out, zp, s) == F(0.0f));
  const Int q(*rc::gen::inRange(static_cast<std::int64_t>(r.lo), static_cast<std::int64_t>(r.hi) + 1));
  RC_ASSERT(tvm_quantize(tvm_dequantize(q, out, zp, s), s, zp, out) == q);
}

// UPWARD is the Q31 single rounding TFLite builds with TFLITE_SINGLE_ROUNDING (and TOSA's
// SINGLE_ROUND): the same (M, shift) give the same integer, checked against that clause's
// independent implementation (spec/tflite_tosa.md).
RC_GTEST_PROP(tvm_fixed_point_multiply, EqualsTfliteSingleRounding, ()) {
  const Int x(*gen_int32());
  const Int m(*rc::gen::inRange<std::int64_t>(std::int64_t{1} << 30, std::int64_t{1} << 31));
  const int s = *rc::gen::inRange(-31, 31);
  Int tflite;
  try {
    tflite = tflite_multiply_by_quantized_multiplier_single_round(x, m, s);
  } catch (const RequireViolated&) {
    RC_DISCARD("outside TFLite's domain");
  }
  const Int tvm =
      defined_or_discard(q_multiply_shift_defined(x, m, s, true), [&] { return tvm_fixed_point_multiply(x, m, s); });
  RC_ASSERT(tvm == tflite);
  RC_TAG(s > 0 ? "left shift" : "right shift");
}
