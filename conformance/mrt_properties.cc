// Properties of the MRT/CVM clauses against their defining formulas over Q and the machine's IEEE hardware.
//
// Two kinds of oracle: (1) the real-number definition of each clause (exact rationals, named
// roundings), which the reference must equal or provably approximate; (2) the machine's own
// binary32/binary64 arithmetic (x86-64 SSE / AArch64, round to nearest even), which executes
// MRT's Python/MXNet float steps directly and must match the exact IEEE model bit for bit.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "qspec/ref/bits.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/mrt.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/types.h"
#include "qspec_rc.h"

using namespace qspec::ref;

namespace {

constexpr std::int64_t kI32Min = -2147483648LL, kI32Max = 2147483647LL;

// A float32 with |v| in [2^elo, 2^(ehi+1)), random mantissa and sign.
rc::Gen<std::uint32_t> f32_in(int elo, int ehi, bool allow_negative = true) {
  return rc::gen::apply(
      [=](int e, std::uint32_t m, bool neg) {
        return ((neg && allow_negative) ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(e + 127) << 23) | m;
      },
      rc::gen::inRange(elo, ehi + 1), rc::gen::inRange<std::uint32_t>(0, 1u << 23), rc::gen::arbitrary<bool>());
}
// A positive float64 in [2^elo, 2^(ehi+1)).
rc::Gen<std::uint64_t> f64_in(int elo, int ehi) {
  return rc::gen::apply(
      [](int e, std::uint64_t m) { return (static_cast<std::uint64_t>(e + 1023) << 52) | m; },
      rc::gen::inRange(elo, ehi + 1), rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 52));
}
rc::Gen<std::int64_t> int32_any() { return rc::gen::inRange<std::int64_t>(kI32Min, kI32Max + 1); }

float as_f(std::uint32_t b) { return std::bit_cast<float>(b); }
double as_d(std::uint64_t b) { return std::bit_cast<double>(b); }
std::uint64_t bits_of(double v) { return std::bit_cast<std::uint64_t>(v); }
std::int64_t alpha64(int p) { return (std::int64_t{1} << (p - 1)) - 1; }
long long clampll(long long v, long long lo, long long hi) { return std::min(std::max(v, lo), hi); }

// Distance from r to the nearest tie k + 1/2.
Rat tie_distance(const Rat& r) {
  const Rat frac = r - Rat(round_floor(r));
  return abs(frac - Rat(1, 2));
}

}  // namespace

// ================================================================ mrt.scale
RC_GTEST_PROP(mrt_scale, MatchesHardwareDivision, ()) {
  const std::uint64_t th = *f64_in(-60, 60);
  const int p = *rc::gen::inRange(1, 33);
  const double hw = static_cast<double>(alpha64(p)) / as_d(th);
  RC_ASSERT(mrt_scale(th, p) == bits_of(hw));
}

RC_GTEST_PROP(mrt_scale, WithinOneRoundingOfIdealScale, ()) {
  const std::uint64_t th = *f64_in(-60, 60);
  const int p = *rc::gen::inRange(2, 33);
  const Rat ideal = Rat(alpha64(p)) / f64_value(th);
  RC_ASSERT(abs(f64_value(mrt_scale(th, p)) - ideal) <= pow2r(-53) * ideal);
}

// ================================================================ mrt.sym_param_quantizer
RC_GTEST_PROP(mrt_sym_param_quantizer, MatchesHardwareFloat64, ()) {
  const int elo = *rc::gen::inRange(-30, 20);
  const auto w = *rc::gen::container<std::vector<std::uint32_t>>(*rc::gen::inRange(1, 8), f32_in(elo, elo + 5));
  const int p = *rc::gen::element(2, 4, 8, 8, 16, 24, 32);
  const bool calibrated = *rc::gen::arbitrary<bool>();
  double th = 0;
  for (auto b : w) th = std::max(th, std::fabs(static_cast<double>(as_f(b))));
  if (calibrated) th *= 0.5;  // exact: saturates the larger elements
  const auto r = mrt_sym_param_quantize(w, p, calibrated ? std::optional<std::uint64_t>(bits_of(th)) : std::nullopt);
  // MRT V1 on the hardware: double scale, float64 product, round half away (std::round), clip.
  const double sc = static_cast<double>(alpha64(p)) / th;
  RC_ASSERT(r.scale == bits_of(sc));
  for (std::size_t i = 0; i < w.size(); ++i) {
    const long long hw = clampll(static_cast<long long>(std::round(static_cast<double>(as_f(w[i])) * sc)), -alpha64(p),
                                 alpha64(p));
    RC_ASSERT(r.q[i] == Int(hw));
  }
}

RC_GTEST_PROP(mrt_sym_param_quantizer, V2MatchesHardwareFloat32, ()) {
  const auto w = *rc::gen::container<std::vector<std::uint32_t>>(*rc::gen::inRange(1, 8), f32_in(-10, 10));
  const int p = *rc::gen::element(4, 8, 16);
  const auto r = mrt_sym_param_quantize(w, p, std::nullopt, MrtSymVariant::V2);
  const float sc32 = static_cast<float>(as_d(r.scale));
  for (std::size_t i = 0; i < w.size(); ++i) {
    const float prod = as_f(w[i]) * sc32;  // MXNet: float32 array times the scalar cast to float32
    RC_ASSERT(r.q[i] == Int(clampll(static_cast<long long>(std::round(prod)), -alpha64(p), alpha64(p))));
  }
}

// Quantize-dequantize error inside the range: half a step plus the binary64 product's rounding.
RC_GTEST_PROP(mrt_sym_param_quantizer, DequantizeErrorWithinHalfStep, ()) {
  const auto w = *rc::gen::container<std::vector<std::uint32_t>>(*rc::gen::inRange(1, 8), f32_in(-20, 20));
  const int p = *rc::gen::inRange(2, 33);
  const auto r = mrt_sym_param_quantize(w, p);
  const Rat sc = f64_value(r.scale);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const Rat x = f32_value(w[i]);
    RC_ASSERT(abs(mrt_dequantize(r.q[i], sc) - x) <= Rat(1) / (2 * sc) + pow2r(-53) * abs(x));
  }
}

// Outside the calibrated range the result saturates at +-alpha (never -2^(p-1)).
RC_GTEST_PROP(mrt_sym_param_quantizer, SaturatesOutsideTheThreshold, ()) {
  const auto w = *rc::gen::container<std::vector<std::uint32_t>>(*rc::gen::inRange(1, 8), f32_in(-5, 5));
  const int p = *rc::gen::inRange(2, 33);
  const std::uint64_t th = *f64_in(-8, 0);  // below most |W|
  const auto r = mrt_sym_param_quantize(w, p, th);
  const Rat ideal = Rat(alpha64(p)) / f64_value(th);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const Rat x = f32_value(w[i]) * ideal;
    RC_ASSERT(abs(r.q[i]) <= Int(alpha64(p)));
    if (x >= Rat(alpha64(p) + 1)) RC_ASSERT(r.q[i] == Int(alpha64(p)));
    if (x <= Rat(-alpha64(p) - 1)) RC_ASSERT(r.q[i] == Int(-alpha64(p)));
  }
}

// The binary64 scale changes the result only within a few ulps of a tie of the ideal product.
RC_GTEST_PROP(mrt_sym_param_quantizer, FloatScaleMattersOnlyNearTies, ()) {
  const auto w = *rc::gen::container<std::vector<std::uint32_t>>(*rc::gen::inRange(1, 8), f32_in(-12, 12));
  const int p = *rc::gen::element(4, 8, 16, 24);
  const auto v1 = mrt_sym_param_quantize(w, p);
  const auto ideal = mrt_sym_param_quantize(w, p, std::nullopt, MrtSymVariant::Ideal);
  Rat th = 0;
  for (auto b : w) th = std::max(th, abs(f32_value(b)));
  for (std::size_t i = 0; i < w.size(); ++i) {
    const Rat x = f32_value(w[i]) * Rat(alpha64(p)) / th;
    if (tie_distance(x) > 4 * pow2r(-53) * abs(x)) RC_ASSERT(v1.q[i] == ideal.q[i]);
  }
}

// ================================================================ mrt.dequantize
// Every level q of a symmetric quantizer survives dequantize -> nearest float32 -> quantize.
RC_GTEST_PROP(mrt_dequantize, SymmetricLevelsRoundTrip, ()) {
  const int p = *rc::gen::element(2, 4, 8, 12, 16);
  const std::uint32_t thb = *f32_in(-20, 20, false);
  const std::uint64_t sc = mrt_scale(f64_from_f32(thb), p);
  const std::int64_t q = *rc::gen::inRange<std::int64_t>(-alpha64(p), alpha64(p) + 1);
  const std::uint32_t w = f32_round(mrt_dequantize(q, f64_value(sc)));
  RC_ASSERT(mrt_sym_quantize_value(w, sc, p) == Int(q));
}

// ================================================================ mrt.affine_param_quantizer
RC_GTEST_PROP(mrt_affine_param_quantizer, MatchesHardwareFloat32, ()) {
  const int elo = *rc::gen::inRange(-20, 10);
  auto w = *rc::gen::container<std::vector<std::uint32_t>>(*rc::gen::inRange(2, 8), f32_in(elo, elo + 4));
  RC_PRE(f32_value(w[0]) != f32_value(w[1]));
  const int p = *rc::gen::element(1, 2, 4, 8, 8, 12, 16);
  const auto r = mrt_affine_param_quantize(w, p);
  float mn = as_f(w[0]), mx = as_f(w[0]);
  for (auto b : w) mn = std::min(mn, as_f(b)), mx = std::max(mx, as_f(b));
  // MRT V2 on the hardware: double scale, float32 subtraction and product, relu, round, clip.
  const double sc = static_cast<double>((std::int64_t{1} << p) - 1) / (static_cast<double>(mx) - static_cast<double>(mn));
  RC_ASSERT(r.scale == bits_of(sc));
  const float zp32 = static_cast<float>(static_cast<double>(mn)), sc32 = static_cast<float>(sc);
  for (std::size_t i = 0; i < w.size(); ++i) {
    float t = (as_f(w[i]) - zp32) * sc32;
    t = std::max(t, 0.0f);
    const long long hw = clampll(static_cast<long long>(std::round(t)), 0, (1LL << p) - 1);
    RC_ASSERT(r.q[i] == Int(hw));
  }
}

// Inside the range: |real(q) - W| <= 1/(2 sc) + 4 * 2^-24 * (W - zp) (three binary32 roundings).
RC_GTEST_PROP(mrt_affine_param_quantizer, DequantizeErrorWithinHalfStep, ()) {
  auto w = *rc::gen::container<std::vector<std::uint32_t>>(*rc::gen::inRange(2, 8), f32_in(-10, 10));
  RC_PRE(f32_value(w[0]) != f32_value(w[1]));
  const int p = *rc::gen::element(2, 4, 8, 12, 16);
  const auto r = mrt_affine_param_quantize(w, p);
  const Rat sc = f64_value(r.scale), zp = f64_value(r.zero_point);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const Rat x = f32_value(w[i]);
    RC_ASSERT(abs(mrt_dequantize(r.q[i], sc, zp) - x) <= Rat(1) / (2 * sc) + 4 * pow2r(-24) * (x - zp));
  }
}

// Real 0 is represented exactly iff -zp * sc is an integer -- which a generic range violates.
RC_GTEST_PROP(mrt_affine_param_quantizer, ZeroRepresentableOnlyWhenIntegral, ()) {
  const int p = *rc::gen::element(4, 8, 12, 16);
  std::uint32_t lo = *f32_in(-6, 2, false) | 0x80000000u;  // min < 0
  std::uint32_t hi = *f32_in(-6, 2, false);                 // max > 0
  if (*rc::gen::arbitrary<bool>()) {
    // A range built to make zero a level: [-k, 2^p - 1 - k] * 2^-j has sc = 2^j, -zp * sc = k.
    const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, (std::int64_t{1} << p) - 1);
    const int j = *rc::gen::inRange(-4, 12);
    lo = f32_round(Rat(-k) * pow2r(-j));
    hi = f32_round(Rat((std::int64_t{1} << p) - 1 - k) * pow2r(-j));
  }
  const auto r = mrt_affine_param_quantize({lo, hi, 0u}, p);
  const Rat sc = f64_value(r.scale), zp = f64_value(r.zero_point);
  const bool exact_zero = mrt_dequantize(r.q[2], sc, zp) == 0;
  const Rat level = -zp * sc;
  RC_CLASSIFY(exact_zero, "zero representable");
  RC_ASSERT(exact_zero == (denominator(level) == 1));
}

// ================================================================ mrt.cvm_float
namespace {
// MRT's cvm_float run on the hardware's binary64 (a transliteration of the Python source).
std::pair<long long, int> cvm_float_hw(double number, int bits) {
  const long long alpha = bits >= 2 ? (1LL << (bits - 1)) - 1 : 1;
  int b = bits - 1;
  if (number == 0) return {0, 0};
  int exp = 0;
  while (number >= 1) number /= 2, ++exp;
  while (number < 1) number *= 2, --exp;
  while (b > 1) {
    if (std::trunc(number) == number) break;
    number *= 2, --exp, --b;
  }
  const long long frac = static_cast<long long>(std::nearbyint(number));  // round half to even
  return {std::min(frac, alpha), exp};
}
}  // namespace

RC_GTEST_PROP(mrt_cvm_float, MatchesHardwareSimulation, ()) {
  const std::uint64_t s = *rc::gen::oneOf(f64_in(-1074 + 52, 1000), f64_in(-60, 60),
                                          rc::gen::inRange<std::uint64_t>(1, std::uint64_t{1} << 52));  // subnormals
  const int bits = *rc::gen::inRange(-2, 33);
  const auto hw = cvm_float_hw(as_d(s), bits);
  const CvmFloat cf = mrt_cvm_float(s, bits);
  RC_ASSERT(cf.frac == Int(hw.first));
  RC_ASSERT(cf.exp == hw.second);
}

RC_GTEST_PROP(mrt_cvm_float, RelativeErrorBelowHalfUlpOfBitsMinusOne, ()) {
  const std::uint64_t sb = *f64_in(-80, 80);
  const int bits = *rc::gen::inRange(-2, 33);
  const Rat s = f64_value(sb);
  const CvmFloat cf = mrt_cvm_float(sb, bits);
  const int D = std::max(bits - 2, 0);
  RC_ASSERT(abs(Rat(cf.frac) * pow2r(cf.exp) - s) < pow2r(-(D + 1)) * s);
  const Int alpha = bits >= 2 ? pow2(static_cast<unsigned>(bits - 1)) - 1 : Int(1);
  RC_ASSERT(cf.frac >= 1 && cf.frac <= alpha);
}

// Outside the clamp the result is the nearest (half a unit of 2^exp); the clamp happens exactly
// when the normalised significand is >= 2 - 2^-(bits-1), and then the error is in [1/2, 1) units.
RC_GTEST_PROP(mrt_cvm_float, ClampCharacterization, ()) {
  const int bits = *rc::gen::inRange(2, 33);
  const int e = *rc::gen::inRange(-40, 40);
  const bool near_top = *rc::gen::arbitrary<bool>();
  // Half the cases just below a power of two, where the clamp lives.
  const std::uint64_t sb = near_top ? f64_round((Rat(2) - pow2r(-(bits - 1)) * Rat(*rc::gen::inRange(0, 2048), 1024)) *
                                                pow2r(e))
                                    : *f64_in(e, e);
  const Rat s = f64_value(sb);
  RC_PRE(s > 0);
  int e0 = 0;
  while (pow2r(e0) > s) --e0;
  while (pow2r(e0 + 1) <= s) ++e0;
  const Rat significand = s / pow2r(e0);
  const CvmFloat cf = mrt_cvm_float(sb, bits);
  const Rat v = Rat(cf.frac) * pow2r(cf.exp);
  const bool clamp = significand >= Rat(2) - pow2r(-(bits - 1));
  RC_CLASSIFY(clamp, "clamp");
  if (clamp) {
    RC_ASSERT(cf.frac == pow2(static_cast<unsigned>(bits - 1)) - 1);
    RC_ASSERT(cf.exp == e0 - (bits - 2));
    RC_ASSERT(s - v >= pow2r(cf.exp) / 2 && s - v < pow2r(cf.exp));
  } else {
    RC_ASSERT(abs(v - s) <= pow2r(cf.exp) / 2);
  }
}

// A short mantissa is found exactly: s = n * 2^e with n odd and n <= 2^(bits-1) - 1 gives (n, e).
RC_GTEST_PROP(mrt_cvm_float, ShortMantissaIsExact, ()) {
  const int bits = *rc::gen::inRange(2, 33);
  const std::int64_t n = 2 * *rc::gen::inRange<std::int64_t>(0, alpha64(bits) / 2 + 1) + 1;
  RC_PRE(n <= alpha64(bits));
  const int e = *rc::gen::inRange(-60, 60);
  const CvmFloat cf = mrt_cvm_float(f64_round(Rat(n) * pow2r(e)), bits);
  RC_ASSERT(cf.frac == Int(n));
  RC_ASSERT(cf.exp == e);
}

// ================================================================ cvm.clip / right_shift / left_shift
RC_GTEST_PROP(cvm_clip, IsSymmetricSaturation, ()) {
  const std::int64_t x = *int32_any();
  const int p = *rc::gen::inRange(1, 33);
  RC_ASSERT(cvm_clip(x, p) == Int(clampll(x, -alpha64(p), alpha64(p))));
}

RC_GTEST_PROP(cvm_right_shift, IsClippedHalfUpOfExactQuotient, ()) {
  const std::int64_t x = *int32_any();
  const int b = *rc::gen::inRange(1, 33), p = *rc::gen::inRange(1, 33);
  RC_ASSERT(cvm_right_shift(x, b, p) == saturate(round_half_up(Rat(Int(x), pow2(static_cast<unsigned>(b)))), mrt_sym_range(p)));
}

// The formal kernel's own expression on the machine (int32 shifts), everywhere it is defined.
RC_GTEST_PROP(cvm_right_shift, MatchesKernelExpression, ()) {
  const std::int32_t x = static_cast<std::int32_t>(*int32_any());
  const int b = *rc::gen::inRange(1, 33), p = *rc::gen::inRange(1, 33);
  RC_PRE(!(b == 1 && x == INT32_MAX));
  const std::int32_t t = ((x >> (b - 1)) + 1) >> 1;
  RC_ASSERT(cvm_right_shift(x, b, p) == Int(clampll(t, -alpha64(p), alpha64(p))));
}

// Negative ties are where half up and half away part: -(2k+1)/2 -> -k, not -k-1.
RC_GTEST_PROP(cvm_right_shift, NegativeTiesGoTowardPlusInfinity, ()) {
  const int b = *rc::gen::inRange(1, 20);
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(0, 1000);
  const std::int64_t x = -(2 * k + 1) * (std::int64_t{1} << (b - 1));
  RC_ASSERT(cvm_right_shift(x, b, 32) == Int(-k));
  RC_ASSERT(round_half_away(Rat(Int(x), pow2(static_cast<unsigned>(b)))) == Int(-k - 1));
}

// The CPU kernel transliterated with int32 arithmetic (the source lines of ops.cc).
RC_GTEST_PROP(cvm_right_shift_cpu, MatchesCpuKernelTransliteration, ()) {
  const std::int32_t a = static_cast<std::int32_t>(*int32_any());
  const int b = *rc::gen::element(1, 2, 7, 16, 24, 25, 30, 31, 32, *rc::gen::inRange(1, 33));
  const int precision = *rc::gen::element(1, 2, 8, 16, 24, 31, 32, *rc::gen::inRange(1, 33));
  RC_PRE(!(b == 1 && precision >= 31 && a == INT32_MAX));
  const std::int32_t mn = static_cast<std::int32_t>(-((std::int64_t{1} << (precision - 1)) - 1));
  const std::int32_t mx = -mn;
  std::int32_t c;
  if (mx == 0) {
    c = 0;
  } else if (b >= 31) {
    c = a >> 31;
  } else if (precision + b >= 32) {
    const std::int32_t t = a >> (b - 1);
    c = (t + 1) >> 1;
  } else {
    const std::int32_t x_min = static_cast<std::int32_t>(static_cast<std::uint32_t>(-2 * mx - 1) << (b - 1));
    const std::int32_t x_max = (2 * mx - 1) << (b - 1);
    if (a < x_min) c = mn;
    else if (a > x_max) c = mx;
    else c = ((a >> (b - 1)) + 1) >> 1;
  }
  RC_ASSERT(cvm_right_shift_cpu(a, b, precision) == Int(c));
}

// The CPU kernel differs from formal exactly in the two characterized places.
RC_GTEST_PROP(cvm_right_shift_cpu, DiffersFromFormalOnlyWhereCharacterized, ()) {
  const std::int64_t x = *int32_any();
  const int b = *rc::gen::inRange(1, 33), p = *rc::gen::inRange(1, 33);
  RC_PRE(!(b == 1 && p >= 31 && x == kI32Max));
  const Int formal = cvm_right_shift(x, b, p), cpu = cvm_right_shift_cpu(x, b, p);
  const Int t = floor_div(Int(x) + pow2(static_cast<unsigned>(b - 1)), pow2(static_cast<unsigned>(b)));
  bool expected_differ = false;
  if (p > 1 && b >= 31) expected_differ = formal != floor_div(Int(x), pow2(31));
  else if (p > 1 && p + b == 32) expected_differ = abs(t) == Int(alpha64(p) + 1);
  RC_ASSERT((formal != cpu) == expected_differ);
}

RC_GTEST_PROP(cvm_left_shift, IsClippedProduct, ()) {
  const int ip = *rc::gen::inRange(1, 32);
  const int b = *rc::gen::inRange(1, 33 - ip), p = *rc::gen::inRange(1, 33);
  const std::int64_t x = *rc::gen::inRange<std::int64_t>(-alpha64(ip), alpha64(ip) + 1);
  const std::int32_t machine = static_cast<std::int32_t>(x) << b;  // cannot overflow: ip + b <= 32
  RC_ASSERT(cvm_left_shift(x, b, p, ip) == Int(clampll(machine, -alpha64(p), alpha64(p))));
}

// ================================================================ mrt.realize
RC_GTEST_PROP(mrt_realize, IsClippedHalfUpOfExactProduct, ()) {
  const int ip = *rc::gen::inRange(1, 31);
  const int fbits = *rc::gen::inRange(0, 31 - ip);  // get_bit(frac) = fbits + 1 <= 32 - ip
  const std::int64_t frac = fbits == 0 ? 1 : *rc::gen::inRange<std::int64_t>(std::int64_t{1} << (fbits - 1), std::int64_t{1} << fbits);
  const int ipf = frac > 1 ? ip + bit_length(Int(frac)) + 1 : ip;
  const int exp = *rc::gen::oneOf(rc::gen::inRange(-32, 0), rc::gen::inRange(0, 33 - ipf));
  const int p = *rc::gen::inRange(1, 33);
  const std::int64_t x = *rc::gen::inRange<std::int64_t>(-alpha64(ip), alpha64(ip) + 1);
  const Rat exact = Rat(Int(x) * frac) * pow2r(exp);
  RC_ASSERT(mrt_realize(x, frac, exp, p, ip) == saturate(round_half_up(exact), mrt_sym_range(p)));
}

// ================================================================ input quantizers, requant_operator
namespace {
struct Expansion {
  int iprec;
  std::uint64_t iscale, th;
  std::int64_t th_int;
  std::vector<Int> x;
};
rc::Gen<Expansion> expansion(int iprec_lo, int iprec_hi) {
  return rc::gen::exec([=] {
    Expansion e;
    e.iprec = *rc::gen::inRange(iprec_lo, iprec_hi + 1);
    e.iscale = *f64_in(-12, 12);
    e.th_int = *rc::gen::inRange<std::int64_t>(std::max<std::int64_t>(1, alpha64(e.iprec) / 4), alpha64(e.iprec) + 1);
    e.th = f64_div(f64_round(Rat(e.th_int)), e.iscale);
    const auto xs = *rc::gen::container<std::vector<std::int64_t>>(
        6, rc::gen::inRange<std::int64_t>(-alpha64(e.iprec), alpha64(e.iprec) + 1));
    for (auto v : xs) e.x.emplace_back(v);
    return e;
  });
}
}  // namespace

// The whole symmetric pipeline on the hardware: binary64 scale and ratio, MRT's cvm_float loop,
// then clip(half_up(x * frac * 2^exp)), and the simulated scale (iscale * frac) * 2^exp.
RC_GTEST_PROP(mrt_sym_input_quantizer, MatchesHardwarePipeline, ()) {
  const Expansion e = *expansion(6, 30);
  const int prec = *rc::gen::inRange(2, std::min(16, e.iprec) + 1);
  const auto r = mrt_sym_input_quantize(e.x, e.iscale, e.th, e.iprec, prec);
  const double sc_x = static_cast<double>(alpha64(prec)) / as_d(e.th);
  const auto [frac, exp] = cvm_float_hw(sc_x / as_d(e.iscale), 32 - e.iprec);
  RC_ASSERT(r.scale == bits_of((as_d(e.iscale) * static_cast<double>(frac)) * std::ldexp(1.0, exp)));
  for (std::size_t i = 0; i < e.x.size(); ++i) {
    const Int expected = saturate(round_half_up(Rat(e.x[i] * frac) * pow2r(exp)), mrt_sym_range(prec));
    RC_ASSERT(r.y[i] == expected);
  }
}

// The result approximates x * sc_x / sc_xe with the ideal real scale: half a step plus the
// cvm_float error (2^-(D+1) relative) plus two binary64 roundings.
RC_GTEST_PROP(mrt_sym_input_quantizer, ApproximatesTheIdealRatio, ()) {
  const Expansion e = *expansion(6, 30);
  const int prec = *rc::gen::inRange(2, std::min(16, e.iprec) + 1);
  const auto r = mrt_sym_input_quantize(e.x, e.iscale, e.th, e.iprec, prec);
  const int D = std::max(32 - e.iprec - 2, 0);
  const Rat ideal_ratio = Rat(alpha64(prec)) / (f64_value(e.th) * f64_value(e.iscale));
  // The simulated scale is within the same relative error of the ideal sc_x (plus its own rounding).
  const Rat ideal_scale = Rat(alpha64(prec)) / f64_value(e.th);
  RC_ASSERT(abs(f64_value(r.scale) - ideal_scale) <= ideal_scale * (pow2r(-(D + 1)) + pow2r(-49)));
  for (std::size_t i = 0; i < e.x.size(); ++i) {
    RC_ASSERT(abs(r.y[i]) <= Int(alpha64(prec)));
    const Rat ideal = Rat(e.x[i]) * ideal_ratio;
    if (abs(ideal) + 1 < Rat(alpha64(prec)))
      RC_ASSERT(abs(Rat(r.y[i]) - ideal) <= Rat(1, 2) + abs(ideal) * (pow2r(-(D + 1)) + pow2r(-50)));
  }
}

// The affine pipeline on the hardware: Python round (half even) for the zero point, MRT's float
// get_bit for the constant's precision, cvm_float, realize at p + 1, the unsigned clip.
RC_GTEST_PROP(mrt_affine_input_quantizer, MatchesHardwarePipeline, ()) {
  const int iprec = *rc::gen::inRange(8, 25);
  const int prec = *rc::gen::inRange(2, std::min(16, iprec - 2) + 1);
  const std::uint64_t iscale = *f64_in(-12, 12);
  const std::int64_t min_int = *rc::gen::inRange<std::int64_t>(-(alpha64(iprec) / 2), alpha64(iprec) / 4);
  const std::int64_t width = *rc::gen::inRange<std::int64_t>(std::max<std::int64_t>(2, alpha64(iprec) / 8), alpha64(iprec) / 4);
  const double mn = static_cast<double>(min_int) / as_d(iscale);
  const double mx = static_cast<double>(min_int + width) / as_d(iscale);
  const auto xs = *rc::gen::container<std::vector<std::int64_t>>(6, rc::gen::inRange<std::int64_t>(-alpha64(iprec), alpha64(iprec) + 1));
  std::vector<Int> x(xs.begin(), xs.end());
  const auto r = mrt_affine_input_quantize(x, iscale, bits_of(mn), bits_of(mx), iprec, prec);
  const double sc_x = static_cast<double>((std::int64_t{1} << prec) - 1) / (mx - mn);
  const long long zp = static_cast<long long>(std::nearbyint(mn * as_d(iscale)));
  const int zp_prec = static_cast<int>(std::ceil(std::log2(std::fabs(static_cast<double>(zp)) + 1))) + 1;
  const int ip = std::max(iprec, zp_prec) + 1;
  const auto [frac, exp] = cvm_float_hw(sc_x / as_d(iscale), 32 - ip);
  RC_ASSERT(r.zero_point == Int(zp));
  RC_ASSERT(r.scale == bits_of((as_d(iscale) * static_cast<double>(frac)) * std::ldexp(1.0, exp)));
  const Range unsigned_range{0, pow2(static_cast<unsigned>(prec)) - 1};
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Int expected = saturate(round_half_up(Rat((x[i] - zp) * frac) * pow2r(exp)), unsigned_range);
    RC_ASSERT(r.y[i] == expected);
  }
}

// Without a pre-shift and with iprec > oprec, requant_operator is the seed's one-step quantizer.
RC_GTEST_PROP(mrt_requant_operator, EqualsOneStepQuantizerWithoutPreShift, ()) {
  const Expansion e = *expansion(8, 30);
  const int oprec = *rc::gen::inRange(2, 17);
  RC_PRE(e.iprec > oprec);
  const int sb = mrt_get_bit(f64_value(f64_mul(e.th, e.iscale))) - oprec;
  const int shift_bits = *rc::gen::inRange(0, 40);
  const auto r = mrt_requant_operator(e.x, e.iscale, e.th, e.iprec, oprec, std::nullopt, shift_bits);
  RC_ASSERT(r.prec == oprec);
  for (const auto& y : r.y) RC_ASSERT(abs(y) <= Int(alpha64(oprec)));
  RC_CLASSIFY(sb > shift_bits, "pre-shift");
  if (sb <= shift_bits) {
    const auto one = mrt_sym_input_quantize(e.x, e.iscale, e.th, e.iprec, oprec);
    RC_ASSERT(r.y == one.y);
    RC_ASSERT(r.scale == one.scale);
  } else {
    // The pre-shift is a cvm_right_shift by sb to precision iprec - sb, and the scale halves sb times.
    std::vector<Int> pre;
    for (const auto& v : e.x) pre.push_back(cvm_right_shift(v, sb, e.iprec - sb));
    const std::uint64_t iscale2 = f64_round(f64_value(e.iscale) / pow2r(sb));
    const auto second = mrt_requant_operator(pre, iscale2, e.th, e.iprec - sb, oprec, mrt_scale(e.th, oprec), 64);
    if (e.iprec - sb > oprec) RC_ASSERT(r.y == second.y);
  }
}

// iprec <= oprec and no imposed scale: no operator at all.
RC_GTEST_PROP(mrt_requant_operator, PassThroughWhenPrecisionFits, ()) {
  const Expansion e = *expansion(2, 16);
  const int oprec = *rc::gen::inRange(e.iprec, 33);
  const auto r = mrt_requant_operator(e.x, e.iscale, e.th, e.iprec, oprec);
  RC_ASSERT(r.y == e.x);
  RC_ASSERT(r.scale == e.iscale);
  RC_ASSERT(r.prec == oprec);
}
