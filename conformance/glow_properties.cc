// Properties of Glow's quantization: the machine running Glow's C++ (transliterated with real
// float/double arithmetic) as oracle, the parameter forms, zero representability, round trips.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/glow.h"
#include "qspec/ref/tvm_qnn.h"
#include "qspec_rc.h"

using namespace qspec::ref;

namespace {

std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
float V(std::uint32_t b) { return std::bit_cast<float>(b); }

// One IEEE operation per call: the volatile store forbids fused multiply-add contraction.
template <class T>
T keep(T v) {
  volatile T r = v;
  return r;
}

// ---- Glow's C++ transliterated onto the machine's float / double (the oracle) ----

struct HwParams {
  float scale;
  std::int32_t offset;
};
enum class Schema { Asymmetric, Symmetric, SymmetricWithUint8 };

std::pair<std::int64_t, std::int64_t> hw_range(DType t) {
  switch (t) {
    case DType::I8: return {-128, 127};
    case DType::U8: return {0, 255};
    case DType::I16: return {-32768, 32767};
    default: return {std::numeric_limits<std::int32_t>::min() >> 2, std::numeric_limits<std::int32_t>::max() >> 2};
  }
}

// chooseQuantizationParams (Base.cpp), statement by statement.
HwParams hw_choose(float min, float max, Schema schema, DType qTy) {
  const auto [qmin, qmax] = hw_range(qTy);
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  if (schema == Schema::SymmetricWithUint8 && !(min >= 0.f)) schema = Schema::Symmetric;
  if (schema == Schema::Symmetric) {
    const double rmin = keep(min / static_cast<double>(qmin));
    const double rmax = keep(max / static_cast<double>(qmax));
    if (rmin > rmax)
      max = static_cast<float>(keep(rmin * qmax));
    else
      min = static_cast<float>(keep(rmax * qmin));
  }
  min = std::max(min, std::numeric_limits<float>::lowest());
  max = std::min(max, std::numeric_limits<float>::max());
  double scale = keep(keep(static_cast<double>(max) - min) / (static_cast<double>(qmax) - qmin));
  if (scale == 0) scale = 0.1;
  const double zfmin = keep(qmin - keep(min / scale));
  const double zfmax = keep(qmax - keep(max / scale));
  const double emin = keep(std::abs(qmin) + std::abs(keep(min / scale)));
  const double emax = keep(std::abs(qmax) + std::abs(keep(max / scale)));
  double initial = emin < emax ? zfmin : zfmax;
  const float difference = std::abs(keep(max + min));
  if (difference <= std::numeric_limits<float>::epsilon()) initial = 0;
  std::int32_t nudged;
  if (initial < qmin)
    nudged = static_cast<std::int32_t>(qmin);
  else if (initial > qmax)
    nudged = static_cast<std::int32_t>(qmax);
  else
    nudged = static_cast<std::int32_t>(std::round(initial));
  return {static_cast<float>(scale), nudged};
}

// quantization::quantize<DestTy> and dequantize.
std::int64_t hw_quantize(float x, HwParams p, DType t) {
  const float result = keep(keep(x / p.scale) + static_cast<float>(p.offset));
  const std::int64_t n = static_cast<std::int64_t>(nearbyintf(result));
  const auto [lo, hi] = t == DType::I32 ? std::pair<std::int64_t, std::int64_t>{INT32_MIN, INT32_MAX} : hw_range(t);
  return std::clamp(n, lo, hi);
}
float hw_dequantize(std::int64_t q, HwParams p) { return keep(p.scale * static_cast<float>(q - p.offset)); }

// quantizeScaleOffset32To8 and libjit_scale_i32i8 / libjit_clip.
struct HwRescale {
  int pre, post, scale;
};
HwRescale hw_rescale_params(float scale) {
  int exp;
  if (std::abs(std::frexp(scale, &exp)) == 0.5) {
    const int e = std::ilogb(scale);
    if (e > 0) return {0, 0, static_cast<int>(scale)};
    return {0, -e, 1};
  }
  int pre = 0, post = 0;
  while (scale < 0.5 || (scale < 256 && post < 15)) {
    scale *= 2;
    post++;
  }
  while (scale < 255 && pre < (post / 2)) {
    scale *= 2;
    pre++;
  }
  return {pre, post, static_cast<int>(std::round(scale))};
}
std::int32_t hw_scale_i32i8(std::int32_t input, HwRescale p, std::int32_t offset) {
  const int rtn = (p.post > 0) ? (1 << (p.post - 1)) : 0;
  return ((((input >> p.pre) * p.scale) + rtn) >> p.post) + offset;
}

GlowSchema ref_schema(Schema s) {
  return s == Schema::Asymmetric ? GlowSchema::Asymmetric
                                 : (s == Schema::Symmetric ? GlowSchema::Symmetric : GlowSchema::SymmetricWithUint8);
}

// A profiled range: ordered floats spanning tiny to large magnitudes, one-signed or mixed,
// including degenerate min == max.
rc::Gen<std::pair<float, float>> gen_range() {
  return rc::gen::exec([] {
    auto one = [] {
      const int e = *rc::gen::inRange(-30, 20);
      const float m = static_cast<float>(*rc::gen::inRange(0, 1 << 20)) / static_cast<float>(1 << 20);
      const float v = std::ldexp(1.0f + m, e);
      return *rc::gen::element(v, -v, 0.0f, v, -v);
    };
    float a = one(), b = one();
    if (*rc::gen::inRange(0, 8) == 0) b = a;  // min == max
    return std::make_pair(std::min(a, b), std::max(a, b));
  });
}

rc::Gen<std::uint32_t> gen_scale(int emin, int emax) {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange(emin, emax + 1), rc::gen::inRange<std::uint32_t>(0, 1u << 23),
                                     rc::gen::inRange(0, 3)),
                      [](std::tuple<int, std::uint32_t, int> t) {
                        auto [e, m, kind] = t;
                        const std::uint32_t mant = kind == 0 ? 0u : (kind == 1 ? (m & 7u) << 20 : m);
                        return (static_cast<std::uint32_t>(e + 127) << 23) | mant;
                      });
}

void check_choose(Schema schema) {
  const auto [lo, hi] = *gen_range();
  const DType t = schema == Schema::Asymmetric ? *rc::gen::element(DType::I8, DType::U8, DType::I16, DType::I32)
                                               : *rc::gen::element(DType::I8, DType::I16, DType::I32);
  const HwParams hw = hw_choose(lo, hi, schema, t);
  const GlowQParams p = glow_choose_params(F(lo), F(hi), ref_schema(schema), t);
  RC_ASSERT(p.scale == F(hw.scale));
  RC_ASSERT(p.offset == Int(hw.offset));
  // Zero is exactly representable: dequantize(offset) = +0, and quantize(0) = offset as long
  // as the offset is a float32 (|offset| <= 2^24; int32 precision can exceed that: E-GLOW-4).
  RC_ASSERT(glow_dequantize(p.offset, p) == F(0.0f));
  if (abs(p.offset) <= pow2(24)) RC_ASSERT(glow_quantize(F(0.0f), p, t) == p.offset);
  RC_TAG(abs(p.offset) <= pow2(24) ? "offset is a float32" : "offset beyond 2^24");
}

}  // namespace

RC_GTEST_PROP(glow_choose_params_asymmetric, MatchesGlowOnTheMachine, ()) { check_choose(Schema::Asymmetric); }
RC_GTEST_PROP(glow_choose_params_symmetric, MatchesGlowOnTheMachine, ()) {
  check_choose(Schema::Symmetric);
  const auto [lo, hi] = *gen_range();
  RC_ASSERT(glow_choose_params(F(lo), F(hi), GlowSchema::Symmetric, DType::I8).offset == 0);
}
RC_GTEST_PROP(glow_choose_params_symmetric_with_uint8, MatchesGlowOnTheMachine, ()) {
  check_choose(Schema::SymmetricWithUint8);
  // Offset 0 or qmin; qmin exactly for non-negative ranges whose max exceeds FLT_EPSILON.
  const auto [lo, hi] = *gen_range();
  const GlowQParams p = glow_choose_params(F(lo), F(hi), GlowSchema::SymmetricWithUint8, DType::I8);
  RC_ASSERT(p.offset == 0 || p.offset == -128);
  RC_ASSERT((p.offset == -128) == (lo >= 0.0f && hi > std::numeric_limits<float>::epsilon()));
}

// The chosen parameters cover the range: min and max come back within one step (the zero
// point's nudge moves the grid by up to half a step, the rounding adds half a step) -- except
// where E-GLOW-1's absolute epsilon test forced the offset, which is excluded here.
RC_GTEST_PROP(glow_choose_params_asymmetric, RangeComesBackWithinOneStep, ()) {
  const auto [lo, hi] = *gen_range();
  RC_PRE(std::abs(std::min(lo, 0.0f) + std::max(hi, 0.0f)) > 4 * std::numeric_limits<float>::epsilon() ||
         (lo == 0.0f && hi == 0.0f) || lo == -hi);
  const GlowQParams p = glow_choose_params(F(lo), F(hi), GlowSchema::Asymmetric, DType::I8);
  const Rat s = f32_value(p.scale);
  for (float x : {lo, hi}) {
    const Rat back = f32_value(glow_dequantize(glow_quantize(F(x), p, DType::I8), p));
    RC_ASSERT(abs(back - f32_value(F(x))) <= s * Rat(1001, 1000));
  }
}

RC_GTEST_PROP(glow_quantize, MatchesHardware, ()) {
  const DType t = *rc::gen::element(DType::I8, DType::U8, DType::I16, DType::I32);
  const std::uint32_t s = *gen_scale(-20, 7);
  const std::int32_t off = *rc::gen::inRange(-200, 300);
  // Near (k + frac) * s: exact ties included.
  const int k = *rc::gen::inRange(-400, 400);
  const Rat t0 = Rat(k) + Rat(*rc::gen::element(0, 1, 2, 2, 3), 4);
  const std::uint32_t x = f32_round(t0 * f32_value(s)) + static_cast<std::uint32_t>(*rc::gen::element(0, 0, 1));
  RC_PRE(float_is_finite(x, kBinary32));
  const HwParams hp{V(s), off};
  RC_ASSERT(glow_quantize(x, {s, Int(off)}, t) == Int(hw_quantize(V(x), hp, t)));
}

// The three parameter forms (Glow scale/offset, TVM scale/zero_point, gemmlowp S/Z) are one
// affine map, and Glow's, TVM's and the generic float dequantize agree bit for bit.
RC_GTEST_PROP(glow_affine_map, ParameterFormsDescribeTheSameMap, ()) {
  const std::uint32_t s = *gen_scale(-30, 30);
  const Int offset(*rc::gen::inRange(-128, 256));
  const Int q(*rc::gen::inRange(-32768, 65536));
  const Rat glow = glow_real_value(q, {s, offset});   // (q - offset) * scale
  const Rat tvm = f32_value(s) * Rat(q - offset);     // scale * (q - zero_point)
  const Rat gemmlowp = f32_value(s) * (Rat(q) - Rat(offset));  // S * (q - Z)
  RC_ASSERT(glow == tvm);
  RC_ASSERT(tvm == gemmlowp);
  const std::uint32_t g = glow_dequantize(q, {s, offset});
  RC_ASSERT(g == tvm_dequantize(q, DType::I32, offset, s));
  RC_ASSERT(g == float_dequantize(q, offset, s));
  RC_ASSERT(g == f32_round(glow));  // one rounding of the real value while |q - offset| <= 2^24
}

RC_GTEST_PROP(glow_dequantize, MatchesHardware, ()) {
  const std::uint32_t s = *gen_scale(-60, 60);
  const std::int64_t off = *rc::gen::inRange<std::int64_t>(INT32_MIN, std::int64_t{INT32_MAX} + 1);
  const std::int64_t q = *rc::gen::inRange<std::int64_t>(INT32_MIN, std::int64_t{INT32_MAX} + 1);
  RC_ASSERT(glow_dequantize(Int(q), {s, Int(off)}) == F(hw_dequantize(q, {V(s), static_cast<std::int32_t>(off)})));
}

// Caffe2's uint8 -> int8 shift leaves every dequantized value unchanged (bit for bit).
RC_GTEST_PROP(glow_uint8_to_int8, PreservesDequantizedValues, ()) {
  const std::uint32_t s = *gen_scale(-20, 10);
  const Int q(*rc::gen::inRange(0, 256)), o(*rc::gen::inRange(0, 256));
  RC_ASSERT(glow_dequantize(glow_uint8_to_int8(q), {s, glow_uint8_to_int8(o)}) == glow_dequantize(q, {s, o}));
}

RC_GTEST_PROP(glow_bias_int32, ScaleIsTheLargerOfProductAndProfile, ()) {
  const std::uint32_t in = *gen_scale(-20, 2), w = *gen_scale(-20, 2), b = *gen_scale(-40, 2);
  const DType t = *rc::gen::element(DType::I8, DType::I16, DType::I32);
  const Int boff(*rc::gen::inRange(-100, 100));
  const GlowQParams r = glow_bias_params({b, boff}, in, w, t);
  const float product = V(in) * V(w);
  RC_ASSERT(r.scale == F(product > V(b) ? product : V(b)));
  RC_ASSERT(r.offset == (t == DType::I32 ? Int(0) : boff));
}

RC_GTEST_PROP(glow_rescale_params, MatchesGlowOnTheMachine, ()) {
  const std::uint32_t s = *gen_scale(-30, 10);
  const HwRescale hw = hw_rescale_params(V(s));
  const GlowRescaleParams p = glow_rescale_params(s);
  RC_ASSERT(p.pre == hw.pre && p.post == hw.post && p.scale == hw.scale);
  // The integer scale is scale * 2^(pre+post) rounded half away: within half a unit, and for a
  // scale below 256 whose second loop reached 255, 8-9 significant bits (relative 1/510).
  const Rat scaled = f32_value(s) * pow2r(p.pre + p.post);
  RC_ASSERT(abs(Rat(p.scale) - scaled) <= Rat(1, 2));
  if (f32_value(s) < 256 && p.scale >= 255) RC_ASSERT(abs(Rat(p.scale) - scaled) / scaled <= Rat(1, 510));
}

// The CPU rescale against libjit's integer formula run on the machine (params from the
// machine's float loops), for int8 inputs and arbitrary scales and offsets.
RC_GTEST_PROP(glow_rescale_integer, MatchesLibjitOnTheMachine, ()) {
  const std::uint32_t in_s = *gen_scale(-12, 2), out_s = *gen_scale(-12, 2);
  const std::int32_t in_off = *rc::gen::inRange(-128, 128), out_off = *rc::gen::inRange(-128, 128);
  const std::int32_t x = *rc::gen::inRange(-128, 128);
  const float ratio = V(in_s) / V(out_s);
  const HwRescale hp = hw_rescale_params(ratio);
  // Only where libjit's int32 arithmetic is defined (no overflow).
  const std::int64_t xi = static_cast<std::int64_t>(x) - in_off;
  RC_PRE(hp.pre <= 31 && hp.post <= 31);
  const std::int64_t prod = (xi >> hp.pre) * static_cast<std::int64_t>(hp.scale);
  const std::int64_t rtn = hp.post > 0 ? (std::int64_t{1} << (hp.post - 1)) : 0;
  RC_PRE(prod >= INT32_MIN && prod + rtn <= INT32_MAX);
  const std::int32_t hw = std::clamp(hw_scale_i32i8(static_cast<std::int32_t>(xi), hp, out_off), -128, 127);
  const Int y = glow_rescale_integer(Int(x), {in_s, Int(in_off)}, {out_s, Int(out_off)});
  RC_ASSERT(y == Int(hw));
  // And against the exact real rescale: the 9-bit integer scale and the pre-shift move the
  // product by at most |xi| * ratio * 2^-8 + 2^pre * S / 2^(pre+post), plus one rounding.
  const Rat exact_real = Rat(xi) * f32_value(in_s) / f32_value(out_s) + out_off;
  const Rat slack = abs(Rat(xi)) * f32_value(F(ratio)) * pow2r(-8) + Rat(hp.scale) * pow2r(-hp.post) + 1;
  if (y > -128 && y < 127) RC_ASSERT(abs(Rat(y) - exact_real) <= slack);
}

RC_GTEST_PROP(glow_rescale_float, MatchesInterpreterOnTheMachine, ()) {
  const std::uint32_t in_s = *gen_scale(-12, 2), out_s = *gen_scale(-12, 2);
  const std::int32_t in_off = *rc::gen::inRange(-128, 128), out_off = *rc::gen::inRange(-128, 128);
  const std::int32_t x = *rc::gen::inRange(-128, 128);
  const float val = hw_dequantize(x, {V(in_s), in_off});
  const std::int64_t hw = hw_quantize(val, {V(out_s), out_off}, DType::I8);
  RC_ASSERT(glow_rescale_float(Int(x), {in_s, Int(in_off)}, {out_s, Int(out_off)}) == Int(hw));
}

// Fused row-wise: the machine's float/double steps, and the round trip within half a step.
RC_GTEST_PROP(glow_fused_rowwise, MatchesGlowOnTheMachineAndRoundTrips, ()) {
  const int n = *rc::gen::inRange(1, 9);
  std::vector<std::uint32_t> row;
  std::vector<float> rowf;
  const int e = *rc::gen::inRange(-20, 20);
  for (int i = 0; i < n; ++i) {
    const float v = std::ldexp(static_cast<float>(*rc::gen::inRange(-(1 << 20), 1 << 20)), e - 20);
    row.push_back(F(v));
    rowf.push_back(v);
  }
  const float min = *std::min_element(rowf.begin(), rowf.end()), max = *std::max_element(rowf.begin(), rowf.end());
  const float hw_scale = (keep(max - min) < 1e-10f) ? 1.0f : static_cast<float>(keep((double)max - (double)min) / 255.0);
  const GlowFusedRow r = glow_fused_rowwise_quantize_row(row);
  RC_ASSERT(r.scale == F(hw_scale));
  RC_ASSERT(r.offset == F(min));
  for (int i = 0; i < n; ++i) {
    const std::uint16_t d = static_cast<std::uint16_t>(std::round(keep(keep(rowf[i] - min) / hw_scale)));
    RC_ASSERT(r.q[i] == Int(d));
    const float back = keep(keep(static_cast<float>(d) * hw_scale) + min);
    RC_ASSERT(glow_fused_rowwise_dequantize(r.q[i], r.scale, r.offset) == F(back));
    if (hw_scale != 1.0f)  // |back - x| <= scale / 2 plus a few float roundings of magnitude |x|
      RC_ASSERT(std::fabs(back - rowf[i]) <= hw_scale * 0.5001f + 4e-7f * (std::fabs(rowf[i]) + std::fabs(min)));
  }
}

// Row-wise: each row is the per-tensor scheme applied to that row alone, under every schema (the
// symmetric ones give offset 0, or -128 for a non-negative row with symmetric_with_uint8).
RC_GTEST_PROP(glow_rowwise, EachRowIsQuantizedOnItsOwn, ()) {
  std::vector<std::uint32_t> row;
  const int n = *rc::gen::inRange(1, 7);
  const bool non_negative = *rc::gen::arbitrary<bool>();
  for (int i = 0; i < n; ++i)
    row.push_back(F(static_cast<float>(*rc::gen::inRange(non_negative ? 0 : -1000, 1000)) / 16.0f));
  const int which = *rc::gen::inRange(0, 3);
  const GlowSchema gs = which == 0   ? GlowSchema::Asymmetric
                        : which == 1 ? GlowSchema::Symmetric
                                     : GlowSchema::SymmetricWithUint8;
  const Schema hs = which == 0 ? Schema::Asymmetric : which == 1 ? Schema::Symmetric : Schema::SymmetricWithUint8;
  std::vector<Int> q;
  const GlowQParams p = glow_rowwise_quantize_row(row, gs, q);
  const auto [mn, mx] =
      std::minmax_element(row.begin(), row.end(), [](std::uint32_t a, std::uint32_t b) { return V(a) < V(b); });
  const HwParams hw = hw_choose(V(*mn), V(*mx), hs, DType::I8);
  if (gs == GlowSchema::Symmetric) RC_ASSERT(p.offset == Int(0));
  if (gs == GlowSchema::SymmetricWithUint8) RC_ASSERT(p.offset == Int(V(*mn) >= 0 ? -128 : 0));
  RC_TAG(which == 0 ? "asymmetric" : which == 1 ? "symmetric" : "symmetric_with_uint8");
  RC_ASSERT(p.scale == F(hw.scale) && p.offset == Int(hw.offset));
  for (int i = 0; i < n; ++i) RC_ASSERT(q[i] == Int(hw_quantize(V(row[i]), hw, DType::I8)));
}
