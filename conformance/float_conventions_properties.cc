// Properties of the float-based conventions: the machine's IEEE arithmetic as an independent
// oracle, the exact XNNPACK/oneDNN tie difference, error bounds against the real value, and
// the quantize/dequantize round trips (spec/float_conventions.md).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "qspec/ref/float_conventions.h"
#include "qspec_rc.h"

using namespace qspec::ref;

namespace {

std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
float V(std::uint32_t b) { return std::bit_cast<float>(b); }

// Hardware float32 operations kept apart: storing through a volatile forbids the compiler to
// contract a multiply and an add into one fused operation (which rounds once), so each line is
// exactly one IEEE operation, like the library code it mirrors.
float hmul(float a, float b) {
  volatile float r = a * b;
  return r;
}
float hdiv(float a, float b) {
  volatile float r = a / b;
  return r;
}
float hadd(float a, float b) {
  volatile float r = a + b;
  return r;
}
float hclamp(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

// A quantize test case: float32 input, scale, zero point and output type.
struct QCase {
  std::uint32_t x;
  std::uint32_t s;
  std::int64_t zp;
  DType out;
};

// Scales log-spread over [2^-20, 2^8): a third powers of two (exact reciprocals, exact ties), a
// third with 3 mantissa bits, a third arbitrary.
rc::Gen<std::uint32_t> gen_scale(int emin = -20, int emax = 7) {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange(emin, emax + 1), rc::gen::inRange(0, 3),
                                     rc::gen::inRange<std::uint32_t>(0, 1u << 23)),
                      [](std::tuple<int, int, std::uint32_t> t) {
                        auto [e, kind, m] = t;
                        const std::uint32_t mant = kind == 0 ? 0u : (kind == 1 ? (m & 0x7u) << 20 : m);
                        return (static_cast<std::uint32_t>(e + 127) << 23) | mant;
                      });
}

// An input near (k + frac) * s for k spanning the output range and a little beyond: exact
// products (frac 0), exact ties (frac 1/2) and arbitrary fractions, then moved by -2..2 ulps.
std::uint32_t input_near(std::int64_t k, int frac_kind, std::uint32_t frac_bits, int ulps, std::uint32_t s) {
  Rat t(k);
  if (frac_kind == 1) t += Rat(1, 2);
  if (frac_kind == 2) t += Rat(Int(frac_bits), pow2(24));
  std::uint32_t x = f32_round(t * f32_value(s));
  const std::uint32_t moved = static_cast<std::uint32_t>(static_cast<std::int64_t>(x) + ulps);
  if (x != 0 && x != 0x80000000u && float_is_finite(moved, kBinary32) && f32_sign(moved) == f32_sign(x)) x = moved;
  return x;
}

rc::Gen<QCase> gen_qcase(std::vector<DType> outs) {
  return rc::gen::exec([outs] {
    QCase c;
    c.out = *rc::gen::elementOf(outs);
    const Range r = int_range(c.out);
    c.s = *gen_scale();
    const std::int64_t lo = static_cast<std::int64_t>(r.lo), hi = static_cast<std::int64_t>(r.hi);
    // Zero points mostly inside the range (both ends included); the conventions that accept
    // any int32 zero point get those from their own properties.
    c.zp = *rc::gen::oneOf(rc::gen::inRange(lo, hi + 1), rc::gen::element(lo, hi));
    const std::int64_t k = *rc::gen::inRange(lo - c.zp - 3, hi - c.zp + 4);
    c.x = input_near(k, *rc::gen::inRange(0, 3), *rc::gen::inRange<std::uint32_t>(0, 1u << 24),
                     *rc::gen::inRange(-2, 3), c.s);
    return c;
  });
}

const std::vector<DType> k8bit = {DType::I8, DType::U8};

// Hardware versions of each convention, written from the library sources (not from the
// reference): the independent oracle.
std::int64_t hw_sat(std::int64_t v, DType t) {
  const Range r = int_range(t);
  return std::clamp<std::int64_t>(v, static_cast<std::int64_t>(r.lo), static_cast<std::int64_t>(r.hi));
}
std::int64_t hw_xnnpack_convert(const QCase& c) {
  const Range r = int_range(c.out);
  const float inv = hdiv(1.0f, V(c.s));
  float v = hmul(V(c.x), inv);
  v = hclamp(v, static_cast<float>(static_cast<std::int64_t>(r.lo) - c.zp),
             static_cast<float>(static_cast<std::int64_t>(r.hi) - c.zp));
  return lrintf(v) + c.zp;
}
std::int64_t hw_onednn_reorder(const QCase& c) {
  const Range r = int_range(c.out);
  const float a = hdiv(1.0f, V(c.s));
  float d = hadd(hmul(V(c.x), a), static_cast<float>(c.zp));
  d = hclamp(d, static_cast<float>(static_cast<std::int64_t>(r.lo)), static_cast<float>(static_cast<std::int64_t>(r.hi)));
  return static_cast<std::int64_t>(nearbyintf(d));
}
std::int64_t hw_onnx(const QCase& c) {
  const float v = hdiv(V(c.x), V(c.s));
  if (std::isinf(v)) return v > 0 ? hw_sat(INT64_MAX / 2, c.out) : hw_sat(INT64_MIN / 2, c.out);
  return hw_sat(static_cast<std::int64_t>(nearbyintf(v)) + c.zp, c.out);
}
std::int64_t hw_pytorch(const QCase& c) {
  const float inv = hdiv(1.0f, V(c.s));
  const float r = nearbyintf(hmul(V(c.x), inv));
  const float v = hadd(static_cast<float>(c.zp), r);
  return hw_sat(static_cast<std::int64_t>(v), c.out);
}

// The pytorch conversion to int64 needs |v| < 2^63: keep inputs where x / s is moderate.
bool moderate(const QCase& c) { return std::fabs(static_cast<double>(V(c.x)) / V(c.s)) < 1e15; }

}  // namespace

// ---- the machine as oracle ----

RC_GTEST_PROP(float_dequantize, MatchesHardware, ()) {
  const std::int64_t q = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 31), std::int64_t{1} << 31);
  const std::int64_t zp = *rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 31), std::int64_t{1} << 31);
  const std::uint32_t s = *gen_scale(-60, 60);
  const float hw = hmul(static_cast<float>(q - zp), V(s));
  RC_ASSERT(float_dequantize(Int(q), Int(zp), s) == F(hw));
}

RC_GTEST_PROP(float_xnnpack_convert, MatchesHardware, ()) {
  const QCase c = *gen_qcase(k8bit);
  RC_ASSERT(xnnpack_convert_quantize(c.x, c.s, Int(c.zp), c.out) == Int(hw_xnnpack_convert(c)));
}
RC_GTEST_PROP(float_onednn_reorder, MatchesHardware, ()) {
  const QCase c = *gen_qcase(k8bit);
  RC_ASSERT(onednn_reorder_quantize(c.x, c.s, Int(c.zp), c.out) == Int(hw_onednn_reorder(c)));
}
RC_GTEST_PROP(float_onnx_quantize_linear, MatchesHardware, ()) {
  const QCase c = *gen_qcase({DType::I8, DType::U8, DType::I16, DType::U16, DType::I32});
  RC_ASSERT(onnx_quantize_linear(c.x, c.s, Int(c.zp), c.out) == Int(hw_onnx(c)));
}
RC_GTEST_PROP(float_pytorch_quantize_per_tensor, MatchesHardware, ()) {
  const QCase c = *gen_qcase({DType::I8, DType::U8, DType::I32});
  RC_PRE(moderate(c));
  RC_ASSERT(pytorch_quantize_per_tensor(c.x, c.s, Int(c.zp), c.out) == Int(hw_pytorch(c)));
}

// Requantize cases: an int32 accumulator near (k + frac) / scale, or anywhere in int32.
struct RCase {
  std::int64_t x;
  std::uint32_t s;
  std::int64_t zp;
  DType out;
};
rc::Gen<RCase> gen_rcase() {
  return rc::gen::exec([] {
    RCase c;
    c.out = *rc::gen::elementOf(k8bit);
    const Range r = int_range(c.out);
    const std::int64_t lo = static_cast<std::int64_t>(r.lo), hi = static_cast<std::int64_t>(r.hi);
    c.zp = *rc::gen::oneOf(rc::gen::inRange(lo, hi + 1), rc::gen::element(lo, hi));
    // Power-of-two scales 2^-k make half of the accumulators exact ties.
    c.s = *rc::gen::oneOf(gen_scale(-32, 7), rc::gen::map(rc::gen::inRange(-31, 8), [](int e) {
                            return static_cast<std::uint32_t>(e + 127) << 23;
                          }));
    const Rat sv = f32_value(c.s);
    const std::int64_t k = *rc::gen::inRange(lo - c.zp - 3, hi - c.zp + 4);
    // Quarter steps, with the half (the tie) and the unperturbed accumulator favoured.
    const Rat target = (Rat(k) + Rat(*rc::gen::element(0, 1, 2, 2, 2, 3), 4)) / sv;
    Int x = round_half_even(target) + *rc::gen::element(0, 0, 0, -1, 1, -2, 2);
    if (*rc::gen::inRange(0, 8) == 0)
      x = Int(*rc::gen::element<std::int64_t>(INT32_MIN, INT32_MAX, 0, 1, -1));
    x = saturate(x, DType::I32);
    c.x = static_cast<std::int64_t>(x);
    return c;
  });
}

RC_GTEST_PROP(float_xnnpack_fp32, MatchesHardware, ()) {
  const RCase c = *gen_rcase();
  RC_PRE(V(c.s) < 256.0f);
  const Range r = int_range(c.out);
  float v = hmul(static_cast<float>(c.x), V(c.s));
  v = hclamp(v, static_cast<float>(static_cast<std::int64_t>(r.lo) - c.zp),
             static_cast<float>(static_cast<std::int64_t>(r.hi) - c.zp));
  RC_ASSERT(xnnpack_fp32_requantize(Int(c.x), c.s, Int(c.zp), c.out) == Int(lrintf(v) + c.zp));
}
RC_GTEST_PROP(float_onednn_fp32, MatchesHardware, ()) {
  const RCase c = *gen_rcase();
  const Range r = int_range(c.out);
  float d = hadd(hmul(static_cast<float>(c.x), V(c.s)), static_cast<float>(c.zp));
  d = hclamp(d, static_cast<float>(static_cast<std::int64_t>(r.lo)), static_cast<float>(static_cast<std::int64_t>(r.hi)));
  RC_ASSERT(onednn_fp32_requantize(Int(c.x), c.s, Int(c.zp), c.out) == Int(static_cast<std::int64_t>(nearbyintf(d))));
}
RC_GTEST_PROP(float_pytorch_requantize_from_int, MatchesHardwareAndXnnpack, ()) {
  const RCase c = *gen_rcase();
  const std::int64_t hw = hw_sat(c.zp + lrintf(hmul(static_cast<float>(c.x), V(c.s))), c.out);
  const Int y = pytorch_requantize_from_int(Int(c.x), c.s, Int(c.zp), c.out);
  RC_ASSERT(y == Int(hw));
  if (V(c.s) < 256.0f) RC_ASSERT(y == xnnpack_fp32_requantize(Int(c.x), c.s, Int(c.zp), c.out));
}

// ---- XNNPACK vs oneDNN: exactly the odd-zero-point ties (when the float addition is exact) ----

// With v = fl32(fl32(x) * s) and v + zp exactly representable, rne(v) + zp and rne(v + zp)
// differ iff v is a tie k + 1/2 and zp is odd: then k + 1/2 + zp is a tie between two integers
// of which rne picks the even one, while rne(k + 1/2) + zp has the parity of (even) + zp.
// Saturation can hide the difference, so compare the unsaturated values.
RC_GTEST_PROP(float_onednn_fp32, DiffersFromXnnpackExactlyOnOddZeroPointTies, ()) {
  const RCase c = *gen_rcase();
  RC_PRE(V(c.s) < 256.0f);
  const std::uint32_t v = f32_mul(f32_from_int(Int(c.x)), c.s);
  const Rat vv = f32_value(v);
  RC_PRE(f32_value(f32_round(vv + c.zp)) == vv + c.zp);  // the addition is exact
  const Int xnn_raw = round_half_even(vv) + c.zp, dnnl_raw = round_half_even(vv + c.zp);
  const bool tie = vv - Rat(round_floor(vv)) == Rat(1, 2);
  const bool odd = (c.zp % 2) != 0;
  RC_ASSERT((xnn_raw != dnnl_raw) == (tie && odd));
  if (tie && odd) RC_ASSERT(abs(xnn_raw - dnnl_raw) == 1);
  // And the saturated library results agree whenever the raw values do.
  if (xnn_raw == dnnl_raw)
    RC_ASSERT(xnnpack_fp32_requantize(Int(c.x), c.s, Int(c.zp), c.out) ==
              onednn_fp32_requantize(Int(c.x), c.s, Int(c.zp), c.out));
  RC_TAG(tie && odd ? "odd-zp tie" : (tie ? "even-zp tie" : "no tie"));
}

// ---- error bounds against the real value x / s + zp ----
//
// With u = 2^-24 and every result normal, an IEEE operation returns exact * (1 + d), |d| <= u.
//  onnx:    v = (x/s)(1+d1)                    |v - x/s| <= u |x/s|
//  xnnpack: v = x (1/s)(1+d1)(1+d2)            |v - x/s| <= (2u + u^2) |x/s|
//  pytorch: the same product; the float32 addition of zp is exact below 2^24
//  onednn:  d = (x (1/s)(1+d1)(1+d2) + zp)(1+d3)
//           |d - (x/s + zp)| <= (2u + u^2)(1 + u)|x/s| + u |x/s + zp|
// and the final rounding to an integer adds at most 1/2. An unsaturated output y therefore
// satisfies |y - (x/s + zp)| <= 1/2 + B with the B above; we also allow 2^-140 for underflow.
RC_GTEST_PROP(float_onnx_quantize_linear, WithinHalfPlusOneRoundingOfTheRealValue, ()) {
  const QCase c = *gen_qcase(k8bit);
  const Range r = int_range(c.out);
  const Rat real = f32_value(c.x) / f32_value(c.s) + c.zp;
  const Rat u = pow2r(-24), tiny = pow2r(-140);
  const Rat xs = abs(f32_value(c.x) / f32_value(c.s));
  const Int y_onnx = onnx_quantize_linear(c.x, c.s, Int(c.zp), c.out);
  const Int y_xnn = xnnpack_convert_quantize(c.x, c.s, Int(c.zp), c.out);
  const Int y_dnnl = onednn_reorder_quantize(c.x, c.s, Int(c.zp), c.out);
  auto check = [&](const Int& y, const Rat& bound) {
    if (y > r.lo && y < r.hi) RC_ASSERT(abs(Rat(y) - real) <= Rat(1, 2) + bound + tiny);
  };
  check(y_onnx, u * xs);
  check(y_xnn, (2 * u + u * u) * xs);
  check(y_dnnl, (2 * u + u * u) * (1 + u) * xs + u * abs(real));
}

// ---- zero and the round trips ----

// The real 0 is exactly representable: every quantizer maps 0.0 to zp, and zp dequantizes to +0.
RC_GTEST_PROP(float_xnnpack_convert, ZeroIsExact, ()) {
  const QCase c = *gen_qcase(k8bit);
  const Int zp(c.zp);
  RC_ASSERT(xnnpack_convert_quantize(F(0.0f), c.s, zp, c.out) == zp);
  RC_ASSERT(onednn_reorder_quantize(F(0.0f), c.s, zp, c.out) == zp);
  RC_ASSERT(onnx_quantize_linear(F(0.0f), c.s, zp, c.out) == zp);
  RC_ASSERT(pytorch_quantize_per_tensor(F(0.0f), c.s, zp, c.out) == zp);
  RC_ASSERT(float_dequantize(zp, zp, c.s) == F(0.0f));
}

// quantize(dequantize(q)) == q for every code q of the output type: dequantize is within
// 2u |q - zp| s of (q - zp) s, and quantizing divides by s with another (2u + u^2) relative
// error, far below 1/2 for |q - zp| <= 2^16.
RC_GTEST_PROP(float_dequantize, QuantizeOfDequantizeIsIdentity, ()) {
  const QCase c = *gen_qcase(k8bit);
  const Range r = int_range(c.out);
  const std::int64_t q = *rc::gen::inRange(static_cast<std::int64_t>(r.lo), static_cast<std::int64_t>(r.hi) + 1);
  const std::uint32_t x = float_dequantize(Int(q), Int(c.zp), c.s);
  RC_ASSERT(xnnpack_convert_quantize(x, c.s, Int(c.zp), c.out) == q);
  RC_ASSERT(onednn_reorder_quantize(x, c.s, Int(c.zp), c.out) == q);
  RC_ASSERT(onnx_quantize_linear(x, c.s, Int(c.zp), c.out) == q);
  RC_ASSERT(pytorch_quantize_per_tensor(x, c.s, Int(c.zp), c.out) == q);
}

// dequantize(quantize(x)) is within s/2 (plus the float error above, scaled by s) of x inside
// the representable range [(qmin - zp) s, (qmax - zp) s], and quantize saturates outside it.
RC_GTEST_PROP(float_onnx_quantize_linear, DequantizeOfQuantizeWithinHalfAScale, ()) {
  const QCase c = *gen_qcase(k8bit);
  const Range r = int_range(c.out);
  const Rat s = f32_value(c.s), x = f32_value(c.x);
  const Rat lo = Rat(r.lo - c.zp) * s, hi = Rat(r.hi - c.zp) * s;
  const Rat u = pow2r(-24);
  // Every quantizer: inside the range the round trip is within half a step plus the float
  // error bounds of the header (at most 4u of |x| + |zp| s, and u of the dequantized value);
  // outside it, saturation.
  const Int ys[4] = {onnx_quantize_linear(c.x, c.s, Int(c.zp), c.out), xnnpack_convert_quantize(c.x, c.s, Int(c.zp), c.out),
                     onednn_reorder_quantize(c.x, c.s, Int(c.zp), c.out),
                     pytorch_quantize_per_tensor(c.x, c.s, Int(c.zp), c.out)};
  for (const Int& y : ys) {
    const Rat back = f32_value(float_dequantize(y, Int(c.zp), c.s));
    if (x >= lo && x <= hi)
      RC_ASSERT(abs(back - x) <= s / 2 + 4 * u * (abs(x) + abs(Rat(c.zp)) * s) + u * abs(back) + pow2r(-140));
    if (x > hi + s) RC_ASSERT(y == r.hi);
    if (x < lo - s) RC_ASSERT(y == r.lo);
  }
}

namespace {

// ONNX Runtime's GetQuantizationParameter<uint8_t>, run on the machine's IEEE float32 (an
// independent implementation: the reference works on exact rationals).
std::pair<float, int> hardware_dynamic_quant_params(float mn, float mx) {
  mn = std::min(mn, 0.0f);
  mx = std::max(mx, 0.0f);
  const float scale = mx == mn ? 1.0f : hdiv(hadd(mx, -mn), 255.0f);
  const float z0 = 0.0f - hdiv(mn, scale);
  const float clamped = std::max(0.0f, std::min(255.0f, z0));
  return {scale, static_cast<int>(clamped - std::remainderf(clamped, 1.0f))};  // RoundHalfToEven
}

// Ranges built to meet the zero point's rounding: min = -(k + frac) * s with s a power of two
// (exact), so z0 = k + frac exactly, frac in {0, 1/4, 1/2, 3/4}; plus arbitrary ranges.
rc::Gen<std::pair<std::uint32_t, std::uint32_t>> gen_dynamic_range() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::tuple(rc::gen::inRange(-20, 8), rc::gen::inRange(0, 256), rc::gen::inRange(0, 4)),
                   [](std::tuple<int, int, int> t) {
                     auto [e, k, q] = t;
                     const float s = std::ldexp(1.0f, e);
                     const float mn = -(static_cast<float>(k) + 0.25f * static_cast<float>(q)) * s;
                     return std::make_pair(F(mn), F(255.0f * s + mn));
                   }),
      rc::gen::map(rc::gen::tuple(gen_scale(-20, 7), gen_scale(-20, 7), rc::gen::arbitrary<bool>()),
                   [](std::tuple<std::uint32_t, std::uint32_t, bool> t) {
                     auto [a, b, neg] = t;
                     return std::make_pair(F(neg ? -V(a) : V(a)), b);
                   }));
}

}  // namespace

RC_GTEST_PROP(float_onnx_dynamic_quantize_linear_params, MatchesHardware, ()) {
  const auto [mn, mx] = *gen_dynamic_range();
  const auto p = onnx_dynamic_quantize_linear_params(mn, mx);
  const auto [hs, hzp] = hardware_dynamic_quant_params(V(mn), V(mx));
  RC_ASSERT(p.scale_bits == F(hs));
  RC_ASSERT(static_cast<int>(p.zero_point) == hzp);
}

// The zero point is the nearest code to the real zero within the clamp: the real 0 maps to
// zp with |0/s + z0 - zp| <= 1/2 whenever z0 lies in [0, 255], so quantize(0) == zp exactly (the
// property gemmlowp's paradigm asks of every scheme, seed 001).
RC_GTEST_PROP(float_onnx_dynamic_quantize_linear_params, ZeroQuantizesToTheZeroPoint, ()) {
  const auto [mn, mx] = *gen_dynamic_range();
  const auto p = onnx_dynamic_quantize_linear_params(mn, mx);
  RC_PRE(f32_value(p.scale_bits) > 0 && !f32_is_inf(p.scale_bits));
  RC_ASSERT(onnx_quantize_linear(0u, p.scale_bits, p.zero_point, DType::U8) == p.zero_point);
}
