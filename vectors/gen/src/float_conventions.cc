// Golden-vector families of the shared float vocabulary: quantize / dequantize (every system) and float requantize.
//
// One generator per op builds the families of all conventions that share the op's attribute
// vocabulary (quantize: scale, zero_point, out_dtype; dequantize: scale, zero_point; requantize:
// scale, output_zero_point, out_dtype), so TVM's and Glow's quantize / dequantize families are
// registered here next to XNNPACK's, oneDNN's, ONNX's and PyTorch's: the same inputs exercise
// every rounding order. Expected outputs come from the reference ops; the reference is consulted
// here only to keep inputs inside the REQUIREs and to set descriptive flags.
#include "qspec/ref/float_conventions.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/glow.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/extreme_zero_point.h"
#include "qspec/vecgen/float_helpers.h"

namespace qspec::vecgen {
namespace {

using nlohmann::ordered_json;
using ref::Int;
using ref::Rat;
using Quantize = cat::quantize;
using Dequantize = cat::dequantize;
using Requantize = cat::requantize;

std::int64_t lo_of(DType t) { return dtype_min(t); }
std::int64_t hi_of(DType t) { return dtype_max(t); }

// The float32 nearest to a rational, moved by `ulps` units in the last place (same sign).
std::uint32_t near(const Rat& v, int ulps) {
  std::uint32_t b = ref::f32_round(v);
  const std::uint32_t moved = static_cast<std::uint32_t>(static_cast<std::int64_t>(b) + ulps);
  if ((b & 0x7fffffffu) != 0 && ref::float_is_finite(moved, ref::kBinary32) && (moved >> 31) == (b >> 31)) b = moved;
  return b;
}

// A family's notes: the shared list without the flags this convention never produces.
std::vector<std::pair<std::string, std::string>> notes_without(
    const std::vector<std::pair<std::string, std::string>>& all, const std::set<std::string>& unused) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& n : all)
    if (!unused.count(n.first)) out.push_back(n);
  return out;
}

// The attributes (scale, zero_point) of quantize or dequantize; (scale, output_zero_point) of requantize.
template <class Op>
ordered_json scale_zero_point(std::uint32_t s, std::int64_t zp) {
  ordered_json a;
  attr::set(a, Op::attr::scale, s);
  attr::set(a, Op::attr::zero_point, zp);
  return a;
}
ordered_json sz(std::uint32_t s, std::int64_t zp) { return scale_zero_point<Quantize>(s, zp); }
ordered_json dz(std::uint32_t s, std::int64_t zp) { return scale_zero_point<Dequantize>(s, zp); }
ordered_json sozp(std::uint32_t s, std::int64_t zp) {
  ordered_json a;
  attr::set(a, Requantize::attr::scale, s);
  attr::set(a, Requantize::attr::output_zero_point, zp);
  return a;
}

// ---------------------------------------------------------------------------------------------
// op "quantize"
// ---------------------------------------------------------------------------------------------

// The float value each convention rounds to an integer, and whether it already includes zp.
struct PreRound {
  std::uint32_t v;
  bool zp_inside;
};
using PreFn = std::function<PreRound(std::uint32_t x, std::uint32_t s, const Int& zp)>;

PreRound pre_divide(std::uint32_t x, std::uint32_t s, const Int&) { return {ref::f32_div(x, s), false}; }
PreRound pre_reciprocal(std::uint32_t x, std::uint32_t s, const Int&) {
  return {ref::f32_mul_ext(x, ref::f32_div(ref::kF32One, s)), false};
}
PreRound pre_divide_plus_zp(std::uint32_t x, std::uint32_t s, const Int& zp) {
  return {ref::f32_add_ext(ref::f32_div(x, s), ref::f32_from_int(zp)), true};
}
PreRound pre_reciprocal_plus_zp(std::uint32_t x, std::uint32_t s, const Int& zp) {
  return {ref::f32_add_ext(ref::f32_mul_ext(x, ref::f32_div(ref::kF32One, s)), ref::f32_from_int(zp)), true};
}

struct InvalidCase {
  ordered_json attrs;  // merged over the group's
  std::string flag, comment;
};

struct QuantizeConv {
  std::string_view convention;
  std::vector<DType> outs;
  bool zp_any_int32;  // zero points outside the output type are valid inputs
  PreFn pre;
  std::vector<InvalidCase> invalid;
  std::set<std::string> unused;  // notes this convention's vectors never need
};

const std::vector<std::pair<std::string, std::string>> kQuantizeNotes = {
    {"tie_0_5", "x / scale is exactly +0.5 or -0.5 (the roundings part)"},
    {"tie_1_5", "x / scale is exactly +1.5 or -1.5"},
    {"tie_2_5", "x / scale is exactly +2.5 or -2.5"},
    {"tie_other", "x / scale is another exact half-integer k + 1/2"},
    {"tie_odd_zero_point",
     "an exact tie with an odd zero point: conventions that add the zero point before rounding (oneDNN, Glow) "
     "differ by one from those that add it after (XNNPACK, ONNX, PyTorch, TVM)"},
    {"float_tie",
     "the convention's float32 steps land exactly on a half-integer although the exact x / scale (+ zero point) is "
     "not one: only the modelled float order gets these right"},
    {"float_off_tie", "x / scale (+ zero point) is an exact tie but the convention's float32 value is not"},
    {"near_tie", "x is one or two float32 ulps away from an exact tie"},
    {"saturate_low", "an element saturates at the low end of out_dtype"},
    {"saturate_high", "an element saturates at the high end of out_dtype"},
    {"overflow_inf", "the float32 quotient or product overflows to an infinity before the clamp"},
    {"zero", "x is +0 or -0: quantizes to the zero point exactly"},
    {"zp_odd", "an odd zero point"},
    {"zp_type_min", "zero point at the low end of out_dtype"},
    {"zp_type_max", "zero point at the high end of out_dtype"},
    {"zp_outside_type", "a zero point outside out_dtype's range (valid for this convention)"},
    {"reciprocal_inexact", "fl32(1 / scale) is not exactly 1 / scale"},
    {"differs_from_exact_rne",
     "the result differs from sat(half_even(x / scale) + zero point) on the exact rational (float.exact.half_even)"},
    {"random", "random scale, zero point and inputs"},
    {"invalid_scale", "ERROR_IF: the scale is not accepted (XNNPACK: not a positive normal float)"},
    {"invalid_zero_point", "ERROR_IF: the zero point does not fit the output type"},
    {"invalid_out_dtype", "ERROR_IF: out_dtype is not one the convention's source accepts"},
};

class QuantizeBuilder {
 public:
  explicit QuantizeBuilder(const QuantizeConv& c) : c_(c) {}

  // Adds a test with the elements of xs that the convention accepts (inside its REQUIREs).
  void add(Group& g, std::uint32_t s, std::int64_t zp, const std::vector<std::uint32_t>& xs,
           std::vector<std::string> flags, const std::string& comment) {
    const ordered_json attrs = scale_zero_point<Quantize>(s, zp);
    const ordered_json all = merge_attributes(g.attributes, attrs);
    const DType out = attr::get(all, Quantize::attr::out_dtype);
    std::vector<std::int64_t> kept;
    for (std::uint32_t x : xs) {
      std::vector<Tensor> y;
      if (classify(Quantize::op, c_.convention, all, scalar_vector(std::string(Quantize::in::x), DType::F32, {x}),
                   &y) != Verdict::Valid)
        continue;
      kept.push_back(x);
      element_flags(x, s, Int(zp), out, Int(y[0].data[0]), flags);
    }
    if (kept.empty()) return;
    if (zp % 2 != 0) flags.push_back("zp_odd");
    if (zp == lo_of(out)) flags.push_back("zp_type_min");
    if (zp == hi_of(out)) flags.push_back("zp_type_max");
    if (zp < lo_of(out) || zp > hi_of(out)) flags.push_back("zp_outside_type");
    if (ref::f32_value(s) * ref::f32_value(ref::f32_div(ref::kF32One, s)) != 1) flags.push_back("reciprocal_inexact");
    Test t;
    t.comment = comment;
    t.flags = dedup(flags);
    t.inputs = {scalar_vector(std::string(Quantize::in::x), DType::F32, kept)};
    t.attributes = attrs;
    g.tests.push_back(std::move(t));
  }

  void add_invalid(Group& g, const InvalidCase& ic) {
    Test t;
    t.comment = ic.comment;
    t.flags = {ic.flag};
    t.inputs = {scalar_vector(std::string(Quantize::in::x), DType::F32, {f32(1.0f), f32(-2.5f)})};
    t.attributes = ic.attrs;
    t.invalid = true;
    g.tests.push_back(std::move(t));
  }

 private:
  void element_flags(std::uint32_t x, std::uint32_t s, const Int& zp, DType out, const Int& y,
                     std::vector<std::string>& flags) const {
    const Rat q = ref::f32_value(x) / ref::f32_value(s);
    if ((x & 0x7fffffffu) == 0) flags.push_back("zero");
    if (is_half_integer(q)) {
      const Rat a = ref::abs(q);
      flags.push_back(a == Rat(1, 2)   ? "tie_0_5"
                      : a == Rat(3, 2) ? "tie_1_5"
                      : a == Rat(5, 2) ? "tie_2_5"
                                       : "tie_other");
      if (zp % 2 != 0) flags.push_back("tie_odd_zero_point");
    } else {
      for (int d : {-2, -1, 1, 2}) {
        const std::uint32_t n = static_cast<std::uint32_t>(static_cast<std::int64_t>(x) + d);
        if (ref::float_is_finite(n, ref::kBinary32) && (n >> 31) == (x >> 31) &&
            is_half_integer(ref::f32_value(n) / ref::f32_value(s)))
          flags.push_back("near_tie");
      }
    }
    const PreRound p = c_.pre(x, s, zp);
    if (ref::f32_is_inf(p.v)) {
      flags.push_back("overflow_inf");
    } else {
      const Rat exact = p.zp_inside ? q + zp : q;
      const bool float_half = is_half_integer(ref::f32_value(p.v));
      if (float_half && !is_half_integer(exact)) flags.push_back("float_tie");
      if (!float_half && is_half_integer(exact)) flags.push_back("float_off_tie");
    }
    const Rat real = q + zp;
    if (y == hi_of(out) && real >= hi_of(out) + 1) flags.push_back("saturate_high");
    if (y == lo_of(out) && real <= lo_of(out) - 1) flags.push_back("saturate_low");
    if (y != ref::exact_quantize(x, s, zp, out, ref::Rounding::HalfEven)) flags.push_back("differs_from_exact_rne");
  }

  QuantizeConv c_;
};

// Zero points for an output type: middle, odd, both ends.
std::vector<std::int64_t> zero_points_for(DType t) {
  if (t == DType::U8) return {128, 131, 0, 255};
  if (t == DType::U16) return {32768, 3, 0, 65535};
  return {0, 3, lo_of(t), hi_of(t)};
}

std::vector<Group> generate_quantize(const QuantizeConv& c, Rng& rng) {
  QuantizeBuilder b(c);
  std::vector<Group> groups;
  // Scales: exact reciprocals (0.5, 0.25, 2^-10), inexact ones (0.1, 1.75, 3).
  const std::vector<std::uint32_t> tie_scales = {f32(0.5f),  f32(0.25f), f32(0.1f),
                                                 f32(1.75f), f32(3.0f),  f32(0x1p-10f)};
  const std::vector<Rat> ties = {Rat(1, 2), Rat(-1, 2), Rat(3, 2), Rat(-3, 2), Rat(5, 2), Rat(-5, 2)};
  for (DType out : c.outs) {
    Group g;
    attr::set(g.attributes, Quantize::attr::out_dtype, out);
    const bool primary = out == DType::I8 || out == DType::U8;
    const auto zps = zero_points_for(out);
    // Ties at +-0.5, +-1.5, +-2.5 output steps, each with its float32 neighbours.
    for (std::size_t zi = 0; zi < (primary ? zps.size() : 2); ++zi)
      for (std::size_t si = 0; si < (primary ? tie_scales.size() : 2); ++si)
        for (const Rat& t : ties) {
          // Arm NN's family keeps four of the six scales (its steps are tvm.quantize's, tested in full).
          if (c.convention == Quantize::conv::armnn_cpuref && (si == 1 || si == 5)) continue;
          const std::uint32_t s = tie_scales[si];
          std::vector<std::uint32_t> xs;
          for (int d = -2; d <= 2; ++d) xs.push_back(near(t * ref::f32_value(s), d));
          b.add(g, s, zps[zi], xs, {}, "x near " + ref::to_string(t) + " * scale");
        }
    // Larger ties k + 1/2 where the float steps of the reciprocal conventions leave the tie.
    for (std::int64_t k : {30, -31, 100, 1000}) {
      std::vector<std::uint32_t> xs;
      for (int d = -1; d <= 1; ++d) xs.push_back(near((Rat(k) + Rat(1, 2)) * ref::f32_value(f32(1.75f)), d));
      b.add(g, f32(1.75f), zps[0], xs, {}, "x near (k + 1/2) * 1.75, k = " + std::to_string(k));
    }
    // Saturation around and far beyond both ends, infinities from a tiny scale, signed zeros.
    for (std::size_t zi = 0; zi < zps.size(); ++zi) {
      const std::int64_t zp = zps[zi];
      const Rat s = ref::f32_value(f32(0.5f));
      std::vector<std::uint32_t> hi, lo;
      for (const Rat& d : {Rat(-1), Rat(0), Rat(1, 2), Rat(1), Rat(2), Rat(100)}) {
        hi.push_back(ref::f32_round((Rat(hi_of(out) - zp) + d) * s));
        lo.push_back(ref::f32_round((Rat(lo_of(out) - zp) - d) * s));
      }
      hi.push_back(f32(1e30f));
      lo.push_back(f32(-1e30f));
      b.add(g, f32(0.5f), zp, hi, {}, "around and beyond the high end");
      b.add(g, f32(0.5f), zp, lo, {}, "around and beyond the low end");
    }
    b.add(g, f32(0x1p-126f), zps[0], {f32(3e38f), f32(-3e38f), f32(1.0f), f32(-1.0f)}, {},
          "x / 2^-126 overflows float32");
    b.add(g, f32(0.37f), zps[1], {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u}, {},
          "signed zeros and subnormals");
    // Random cases.
    const int n_random = c.convention == Quantize::conv::armnn_cpuref ? 45 : primary ? 90 : 30;
    for (int i = 0; i < n_random; ++i) {
      const std::uint32_t s = random_scale(rng, -12, 3);
      std::int64_t zp = rng.uniform(lo_of(out), hi_of(out));
      if (c.zp_any_int32 && rng.uniform(0, 9) == 0) zp = rng.uniform(-100000, 100000);
      std::vector<std::uint32_t> xs;
      for (int k = 0; k < 4; ++k) {
        const std::int64_t step = rng.uniform(std::max<std::int64_t>(lo_of(out) - zp - 3, -(1LL << 40)),
                                              std::min<std::int64_t>(hi_of(out) - zp + 3, 1LL << 40));
        const Rat v = (Rat(step) + Rat(Int(rng.uniform(0, (1 << 24) - 1)), ref::pow2(24))) * ref::f32_value(s);
        xs.push_back(ref::f32_round(v));
      }
      b.add(g, s, zp, xs, {"random"}, "random");
    }
    // Arm NN's Quantize takes infinite inputs (only NaN trips its assertion): they saturate.
    if (c.convention == Quantize::conv::armnn_cpuref) {
      Test t;
      t.comment = "x = +inf and -inf: the quotient is infinite and saturates";
      t.flags = {"infinite_input", "saturate_high", "saturate_low"};
      t.inputs = {scalar_vector(std::string(Quantize::in::x), DType::F32, {0x7f800000u, 0xff800000u})};
      t.attributes = sz(f32(0.5f), zps[1]);
      g.tests.push_back(std::move(t));
    }
    if (out == c.outs.front())
      for (const auto& ic : c.invalid) b.add_invalid(g, ic);
    groups.push_back(std::move(g));
  }
  return groups;
}

// An invalid test's attributes with out_dtype `t`.
ordered_json with_out_dtype(ordered_json a, DType t) {
  attr::set(a, Quantize::attr::out_dtype, t);
  return a;
}

const std::vector<QuantizeConv>& quantize_conventions() {
  static const std::vector<QuantizeConv> v = {
      {Quantize::conv::tvm_quantize,
       {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32},
       true,
       pre_divide,
       {{with_out_dtype(sz(f32(0.5f), 0), DType::I64), "invalid_out_dtype", "out_dtype int64: QuantizeRel rejects it"}},
       {"float_off_tie", "invalid_scale", "invalid_zero_point"}},
      {Quantize::conv::glow_quantize,
       {DType::I8, DType::U8, DType::I16, DType::I32},
       true,
       pre_divide_plus_zp,
       {},
       {"invalid_out_dtype", "invalid_scale", "invalid_zero_point", "overflow_inf"}},
      {Quantize::conv::onnx_quantize_linear,
       {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32},
       false,
       pre_divide,
       {{sz(f32(0.5f), 1000), "invalid_zero_point", "y_zero_point 1000 does not have the output type"}},
       {"float_off_tie", "invalid_out_dtype", "invalid_scale", "zp_outside_type"}},
      {Quantize::conv::xnnpack_convert,
       {DType::I8, DType::U8},
       false,
       pre_reciprocal,
       {{sz(f32(0.0f), 0), "invalid_scale", "scale 0"},
        {sz(f32(-0.5f), 0), "invalid_scale", "negative scale"},
        {sz(0x00000001u, 0), "invalid_scale", "subnormal scale"},
        {sz(0x7f800000u, 0), "invalid_scale", "infinite scale"},
        {sz(0x7fc00000u, 0), "invalid_scale", "NaN scale"},
        {sz(f32(0.5f), 300), "invalid_zero_point", "zero point 300"}},
       {"invalid_out_dtype", "zp_outside_type"}},
      {Quantize::conv::onednn_reorder,
       {DType::I8, DType::U8},
       true,
       pre_reciprocal_plus_zp,
       {},
       {"invalid_out_dtype", "invalid_scale", "invalid_zero_point"}},
      {Quantize::conv::pytorch_quantize_per_tensor,
       {DType::I8, DType::U8, DType::I32},
       false,
       pre_reciprocal,
       {{sz(f32(0.5f), -129), "invalid_zero_point", "zero point -129 (checkZeroPoint)"}},
       {"invalid_out_dtype", "invalid_scale", "overflow_inf", "zp_outside_type"}},
      {Quantize::conv::armnn_cpuref,
       {DType::I8, DType::U8},
       true,
       pre_divide,
       {},
       {"float_off_tie", "invalid_out_dtype", "invalid_scale", "invalid_zero_point"}},
  };
  return v;
}

const bool kQuantizeFamilies = [] {
  std::uint64_t seed = 8101;
  for (const auto& c : quantize_conventions()) {
    auto notes = notes_without(kQuantizeNotes, c.unused);
    if (c.convention == Quantize::conv::armnn_cpuref)
      notes.emplace_back("infinite_input", "x is +inf or -inf (valid for this convention): saturates");
    register_family(family<Quantize>(c.convention, notes, seed++, [c](Rng& rng) { return generate_quantize(c, rng); }));
  }
  return true;
}();

// ---------------------------------------------------------------------------------------------
// op "dequantize"
// ---------------------------------------------------------------------------------------------

struct DequantizeConv {
  std::string_view convention;
  std::vector<DType> ins;
  std::vector<std::pair<ordered_json, std::pair<DType, std::string>>> invalid;  // attrs, (input dtype, flag)
  std::set<std::string> unused;
};

const std::vector<std::pair<std::string, std::string>> kDequantizeNotes = {
    {"all_codes", "every value of the input type, in one tensor"},
    {"int32_extremes", "INT32_MIN / INT32_MAX codes"},
    {"large_difference", "|q - zero_point| > 2^24: the conversion of the difference to float32 rounds"},
    {"zp_type_min", "zero point at the low end of the input type"},
    {"zp_type_max", "zero point at the high end of the input type"},
    {"zp_odd", "an odd zero point"},
    {"scale_inexact", "a scale whose products with small integers are mostly inexact (0.1)"},
    {"scale_tiny", "a scale near the bottom of the normal float32 range: products may be subnormal"},
    {"scale_huge", "a large scale: products may overflow to infinity"},
    {"random", "random scale, zero point and codes"},
    {"invalid_scale", "ERROR_IF: the scale is not accepted (XNNPACK: not a positive normal float)"},
    {"invalid_zero_point", "ERROR_IF: the zero point does not fit the input type (or is nonzero for ONNX int32)"},
    {"invalid_input_dtype", "ERROR_IF: the input type is not one the source accepts"},
};

std::vector<Group> generate_dequantize(const DequantizeConv& c, Rng& rng) {
  std::vector<Group> groups;
  Group g;
  auto add = [&](DType in, std::uint32_t s, std::int64_t zp, const std::vector<std::int64_t>& qs,
                 std::vector<std::string> flags, const std::string& comment) {
    const ordered_json attrs = scale_zero_point<Dequantize>(s, zp);
    std::vector<std::int64_t> kept;
    for (auto q : qs)
      if (classify(Dequantize::op, c.convention, attrs, scalar_vector(std::string(Dequantize::in::x), in, {q})) ==
          Verdict::Valid) {
        kept.push_back(q);
        if (q == INT32_MIN || q == INT32_MAX) flags.push_back("int32_extremes");
        if (Int(q) - zp > ref::pow2(24) || Int(q) - zp < -ref::pow2(24)) flags.push_back("large_difference");
      }
    if (kept.empty()) return;
    if (zp == lo_of(in)) flags.push_back("zp_type_min");
    if (zp == hi_of(in)) flags.push_back("zp_type_max");
    if (zp % 2 != 0) flags.push_back("zp_odd");
    Test t;
    t.comment = comment;
    t.flags = dedup(flags);
    t.inputs = {scalar_vector(std::string(Dequantize::in::x), in, kept)};
    t.attributes = attrs;
    g.tests.push_back(std::move(t));
  };
  const std::vector<std::pair<std::uint32_t, const char*>> scales = {
      {f32(0.5f), nullptr},     {f32(0.1f), "scale_inexact"}, {f32(1.75f), nullptr},
      {f32(0x1p-10f), nullptr}, {f32(1e-37f), "scale_tiny"},  {f32(3e36f), "scale_huge"}};
  // Arm NN's family is leaner (its dequantization is float.dequantize, whose every code the other
  // families already cover): every code only for the three scales that stress the product and the
  // two zero points at the type's ends, small random draws, and an offset beyond 2^24 (Arm NN takes
  // any int32 offset) where the difference rounds.
  const bool lean = c.convention == Dequantize::conv::armnn_cpuref;
  for (DType in : c.ins) {
    const bool eight = in == DType::I8 || in == DType::U8;
    std::vector<std::int64_t> codes;
    if (eight)
      for (std::int64_t q = lo_of(in); q <= hi_of(in); ++q) codes.push_back(q);
    else
      for (std::int64_t q :
           {lo_of(in), lo_of(in) + 1, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, std::int64_t{2},
            std::int64_t{255}, std::int64_t{32767}, std::int64_t{16777217}, hi_of(in) - 1, hi_of(in)})
        if (q >= lo_of(in) && q <= hi_of(in)) codes.push_back(q);
    for (std::int64_t zp : zero_points_for(in == DType::I32 ? DType::I32 : in)) {
      if (lean && zp != lo_of(in) && zp != hi_of(in)) continue;
      for (const auto& [s, flag] : scales) {
        if (lean && !flag) continue;
        std::vector<std::string> f;
        if (eight) f.push_back("all_codes");
        if (flag) f.push_back(flag);
        add(in, s, zp, codes, f, std::string(dtype_name(in)) + " codes");
      }
    }
    if (in == DType::I32)
      add(in, f32(1.0f), 0, {INT32_MIN, INT32_MAX, 16777217, -16777219}, {}, "rounding conversions");
    if (lean)
      add(in, f32(0.75f), 33554433, {lo_of(in), lo_of(in) + 1, hi_of(in) - 1, hi_of(in)}, {},
          "offset 2^25 + 1: the difference rounds to float32");
    for (int i = 0; i < (lean ? 145 : eight ? 130 : 60); ++i) {
      const std::uint32_t s = random_scale(rng, -30, 20);
      const std::int64_t zp = rng.uniform(lo_of(in), hi_of(in));
      std::vector<std::int64_t> qs;
      for (int k = 0; k < 4; ++k) qs.push_back(rng.uniform(lo_of(in), hi_of(in)));
      add(in, s, zp, qs, {"random"}, "random");
    }
  }
  for (const auto& [attrs, what] : c.invalid) {
    Test t;
    t.comment = what.second + " (" + std::string(dtype_name(what.first)) + ")";
    t.flags = {what.second};
    const std::int64_t q = what.first == DType::I64 ? 5 : std::min<std::int64_t>(5, hi_of(what.first));
    t.inputs = {scalar_vector(std::string(Dequantize::in::x), what.first, {q, 0})};
    t.attributes = attrs;
    t.invalid = true;
    g.tests.push_back(std::move(t));
  }
  groups.push_back(std::move(g));
  return groups;
}

const bool kDequantizeFamilies = [] {
  const std::vector<DequantizeConv> convs = {
      {Dequantize::conv::tvm_dequantize,
       {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32},
       {{dz(f32(0.5f), 0), {DType::I64, "invalid_input_dtype"}}},
       {"invalid_scale", "invalid_zero_point"}},
      {Dequantize::conv::glow_dequantize,
       {DType::I8, DType::U8, DType::I16, DType::I32},
       {},
       {"invalid_input_dtype", "invalid_scale", "invalid_zero_point"}},
      {Dequantize::conv::onnx_dequantize_linear,
       {DType::I8, DType::U8, DType::I32},
       {{dz(f32(0.5f), 200), {DType::I8, "invalid_zero_point"}},
        {dz(f32(0.5f), 3), {DType::I32, "invalid_zero_point"}}},
       {"invalid_input_dtype", "invalid_scale"}},
      {Dequantize::conv::xnnpack_convert,
       {DType::I8, DType::U8},
       {{dz(f32(0.0f), 0), {DType::I8, "invalid_scale"}},
        {dz(0x00400000u, 0), {DType::U8, "invalid_scale"}},
        {dz(f32(-1.0f), 0), {DType::I8, "invalid_scale"}},
        {dz(f32(0.5f), -1), {DType::U8, "invalid_zero_point"}}},
       {"int32_extremes", "invalid_input_dtype", "large_difference"}},
      {Dequantize::conv::pytorch_dequantize,
       {DType::I8, DType::U8, DType::I32},
       {{dz(f32(0.5f), 256), {DType::U8, "invalid_zero_point"}}},
       {"invalid_input_dtype", "invalid_scale"}},
      {Dequantize::conv::armnn_cpuref,
       {DType::I8, DType::U8},
       {},
       {"int32_extremes", "invalid_input_dtype", "invalid_scale", "invalid_zero_point"}},
  };
  std::uint64_t seed = 8201;
  for (const auto& c : convs)
    register_family(family<Dequantize>(c.convention, notes_without(kDequantizeNotes, c.unused), seed++,
                                       [c](Rng& rng) { return generate_dequantize(c, rng); }));
  return true;
}();

// ---------------------------------------------------------------------------------------------
// op "requantize" with a real-valued float32 scale
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kRequantizeNotes = {
    {"tie_0_5", "x * scale is exactly +0.5 or -0.5"},
    {"tie_1_5", "x * scale is exactly +1.5 or -1.5"},
    {"tie_2_5", "x * scale is exactly +2.5 or -2.5"},
    {"tie_other", "x * scale is another exact half-integer"},
    {"tie_odd_zero_point",
     "an exact tie with an odd output zero point: XNNPACK / PyTorch (round, then add) and oneDNN (add, then round) "
     "differ by one"},
    {"float_tie", "fl32(fl32(x) * scale) (+ zero point for oneDNN) is a half-integer although the exact value is not"},
    {"float_off_tie", "the exact value is a tie but the float32 steps moved it off the tie"},
    {"int32_min", "an accumulator equal to INT32_MIN"},
    {"int32_max", "an accumulator equal to INT32_MAX"},
    {"int_conversion_rounds", "|x| > 2^24: the conversion of the accumulator to float32 rounds"},
    {"saturate_low", "an element saturates at the low end of out_dtype"},
    {"saturate_high", "an element saturates at the high end of out_dtype"},
    {"zp_odd", "an odd output zero point"},
    {"zp_type_min", "output zero point at the low end of out_dtype"},
    {"zp_type_max", "output zero point at the high end of out_dtype"},
    {"scale_2_pow_m32", "scale = 2^-32, the smallest XNNPACK accepts"},
    {"scale_near_256", "the largest float32 below 256 (XNNPACK's limit)"},
    {"scale_above_one", "scale > 1"},
    {"differs_from_exact_rne", "the result differs from sat(half_even(x * scale) + zero point) on exact rationals"},
    {"random", "random scale, zero point and accumulators targeting unsaturated outputs"},
    {"invalid_scale", "ERROR_IF: XNNPACK rejects the scale (not in (0, 256), NaN or infinite)"},
    {"invalid_zero_point", "ERROR_IF: the output zero point does not fit out_dtype"},
    {"zp_int32_extreme",
     "output_zero_point INT32_MIN or INT32_MAX: oneDNN (int32 zero point, added in float32) and PyTorch (int64, "
     "added after the rounding) take it for every out_dtype (an unsigned output with INT32_MIN: 0 unless the scaled "
     "value exceeds 2^31); long inputs, so that the optimized kernels' vector loops see them"},
};

struct RequantizeConv {
  std::string_view convention;
  std::vector<DType> outs;
  bool zp_inside;  // oneDNN adds the zero point before rounding
  std::vector<std::pair<ordered_json, std::string>> invalid;
  std::set<std::string> unused;
};

std::vector<Group> generate_requantize(const RequantizeConv& c, Rng& rng) {
  std::vector<Group> groups;
  // Each out_dtype, then again for the groups of output zero points at the int32 extremes, after all
  // others (the earlier tests keep their tcIds; they draw nothing) where the convention takes them.
  std::vector<std::pair<DType, bool>> passes;
  for (DType out : c.outs) passes.emplace_back(out, false);
  if (!c.unused.contains("zp_int32_extreme"))
    for (DType out : c.outs) passes.emplace_back(out, true);
  for (const auto& [out, extreme] : passes) {
    Group g;
    attr::set(g.attributes, Requantize::attr::out_dtype, out);
    auto add = [&](std::uint32_t s, std::int64_t zp, const std::vector<std::int64_t>& xs,
                   std::vector<std::string> flags, const std::string& comment) {
      const ordered_json attrs = sozp(s, zp);
      const ordered_json all = merge_attributes(g.attributes, attrs);
      std::vector<std::int64_t> kept;
      for (auto x : xs) {
        if (x < INT32_MIN || x > INT32_MAX) continue;  // the accumulator is an int32 tensor
        std::vector<Tensor> y;
        if (classify(Requantize::op, c.convention, all, scalar_vector(std::string(Requantize::in::x), DType::I32, {x}),
                     &y) != Verdict::Valid)
          continue;
        kept.push_back(x);
        const Rat v = Rat(x) * ref::f32_value(s);
        if (is_half_integer(v)) {
          const Rat a = ref::abs(v);
          flags.push_back(a == Rat(1, 2)   ? "tie_0_5"
                          : a == Rat(3, 2) ? "tie_1_5"
                          : a == Rat(5, 2) ? "tie_2_5"
                                           : "tie_other");
          if (zp % 2 != 0) flags.push_back("tie_odd_zero_point");
        }
        std::uint32_t p = ref::f32_mul(ref::f32_from_int(Int(x)), s);
        if (c.zp_inside) p = ref::f32_add_ext(p, ref::f32_from_int(Int(zp)));
        if (!ref::f32_is_inf(p)) {
          const Rat exact = c.zp_inside ? v + zp : v;
          const bool fh = is_half_integer(ref::f32_value(p));
          if (fh && !is_half_integer(exact)) flags.push_back("float_tie");
          if (!fh && is_half_integer(exact)) flags.push_back("float_off_tie");
        }
        if (x == INT32_MIN) flags.push_back("int32_min");
        if (x == INT32_MAX) flags.push_back("int32_max");
        if (x > (1 << 24) || x < -(1 << 24)) flags.push_back("int_conversion_rounds");
        const Int yv(y[0].data[0]);
        if (yv == hi_of(out) && v + zp >= hi_of(out) + 1) flags.push_back("saturate_high");
        if (yv == lo_of(out) && v + zp <= lo_of(out) - 1) flags.push_back("saturate_low");
        if (yv != ref::exact_requantize(Int(x), s, Int(zp), out, ref::Rounding::HalfEven))
          flags.push_back("differs_from_exact_rne");
      }
      if (kept.empty()) return;
      if (zp % 2 != 0) flags.push_back("zp_odd");
      if (zp == lo_of(out)) flags.push_back("zp_type_min");
      if (zp == hi_of(out)) flags.push_back("zp_type_max");
      if (ref::f32_value(s) > 1) flags.push_back("scale_above_one");
      Test t;
      t.comment = comment;
      t.flags = dedup(flags);
      t.inputs = {scalar_vector(std::string(Requantize::in::x), DType::I32, kept)};
      t.attributes = attrs;
      g.tests.push_back(std::move(t));
    };
    if (extreme) {
      for (std::int64_t zp : {std::int64_t{INT32_MIN}, std::int64_t{INT32_MAX}})
        for (std::uint32_t s : {f32(1.0f), f32(2.0f), f32(0.25f), f32(0.3f)})
          add(s, zp, extreme_zero_point_accumulators(ref::f32_value(s), zp, lo_of(out), hi_of(out)),
              {"zp_int32_extreme"}, std::string("output_zero_point INT32_") + (zp < 0 ? "MIN" : "MAX"));
      groups.push_back(std::move(g));
      continue;
    }
    const bool wide = out == DType::I32;
    const auto zps = wide ? std::vector<std::int64_t>{0, 3} : zero_points_for(out);
    // Exact ties x * 2^-k = t for t = +-0.5, +-1.5, +-2.5, with the neighbouring accumulators.
    for (std::int64_t zp : zps)
      for (int k : {1, 2, 3, 10, 31}) {
        std::vector<std::int64_t> xs;
        for (std::int64_t t2 : {1, -1, 3, -3, 5, -5})  // 2t
          for (int d : {-1, 0, 1}) xs.push_back(t2 * (std::int64_t{1} << (k - 1)) + d);
        add((static_cast<std::uint32_t>(127 - k) << 23), zp, xs, {},
            "x * 2^-" + std::to_string(k) + " near +-0.5, 1.5, 2.5");
      }
    // Inexact scales: accumulators near the ties, where fl32(x) * s may round onto or off a tie.
    for (std::uint32_t s : {f32(0.1f), f32(0.3f), f32(1.75f), f32(0.0123f)})
      for (std::int64_t zp : {zps[0], zps[1]}) {
        std::vector<std::int64_t> xs;
        for (std::int64_t t2 : {1, -1, 3, -3, 5, -5, 201, -201})
          for (int d : {-1, 0, 1})
            xs.push_back(static_cast<std::int64_t>(ref::round_half_even(Rat(t2, 2) / ref::f32_value(s))) + d);
        add(s, zp, xs, {}, "x near ties for an inexact scale");
      }
    // INT32 extremes with several scales.
    for (std::uint32_t s : {f32(0x1p-31f), f32(0x1p-32f), f32(1e-9f), f32(0.5f), f32(255.99998f)}) {
      std::vector<std::string> f;
      if (s == f32(0x1p-32f)) f.push_back("scale_2_pow_m32");
      if (s == f32(255.99998f)) f.push_back("scale_near_256");
      add(s, zps[0], {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 16777217, -16777219}, f, "int32 extremes");
    }
    // Saturation around both ends (x * 0.25).
    if (!wide)
      for (std::int64_t zp : zps) {
        std::vector<std::int64_t> xs;
        for (std::int64_t d : {-4, -2, 0, 2, 4, 400}) {
          xs.push_back(4 * (hi_of(out) - zp) + d);
          xs.push_back(4 * (lo_of(out) - zp) - d);
        }
        add(f32(0.25f), zp, xs, {}, "x * 0.25 around both ends");
      }
    // Random: scales in [2^-20, 2^2), accumulators near random unsaturated targets.
    for (int i = 0; i < (wide ? 40 : 125); ++i) {
      const std::uint32_t s = random_scale(rng, -20, 1);
      const std::int64_t zp = wide ? rng.uniform(-1000, 1000) : rng.uniform(lo_of(out), hi_of(out));
      std::vector<std::int64_t> xs;
      for (int k = 0; k < 4; ++k) {
        const std::int64_t target =
            wide ? rng.uniform(-1000000, 1000000) : rng.uniform(lo_of(out) - zp - 2, hi_of(out) - zp + 2);
        const Int x = ref::round_half_even((Rat(target) + Rat(Int(rng.uniform(0, 15)), Int(16))) / ref::f32_value(s));
        xs.push_back(static_cast<std::int64_t>(ref::saturate(x, ref::DType::I32)));
      }
      add(s, zp, xs, {"random"}, "random");
    }
    for (const auto& [attrs, flag] : c.invalid) {
      Test t;
      t.comment = flag + ": " + attrs.dump();
      t.flags = {flag};
      t.inputs = {scalar_vector(std::string(Requantize::in::x), DType::I32, {7, -7})};
      t.attributes = attrs;
      t.invalid = true;
      if (!(flag == "invalid_zero_point" && out == DType::I32)) g.tests.push_back(std::move(t));
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

const bool kRequantizeFamilies = [] {
  const std::vector<RequantizeConv> convs = {
      {Requantize::conv::xnnpack_fp32,
       {DType::I8, DType::U8},
       false,
       {{sozp(f32(256.0f), 0), "invalid_scale"},
        {sozp(f32(1000.0f), 0), "invalid_scale"},
        {sozp(f32(0.0f), 0), "invalid_scale"},
        {sozp(f32(-0.5f), 0), "invalid_scale"},
        {sozp(0x7fc00000u, 0), "invalid_scale"},
        {sozp(0x7f800000u, 0), "invalid_scale"},
        {sozp(f32(0.5f), 300), "invalid_zero_point"}},
       {"zp_int32_extreme"}},
      {Requantize::conv::onednn_fp32, {DType::I8, DType::U8}, true, {}, {"invalid_scale", "invalid_zero_point"}},
      {Requantize::conv::pytorch_requantize_from_int,
       {DType::I8, DType::U8, DType::I32},
       false,
       {},
       {"invalid_scale", "invalid_zero_point"}},
  };
  std::uint64_t seed = 8301;
  for (const auto& c : convs)
    register_family(family<Requantize>(c.convention, notes_without(kRequantizeNotes, c.unused), seed++,
                                       [c](Rng& rng) { return generate_requantize(c, rng); }));
  return true;
}();

// ---------------------------------------------------------------------------------------------
// per channel: quantize_per_channel (TVM, ONNX, PyTorch) and requantize_per_channel (XNNPACK qc8)
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kPerChannelNotes = {
    {"axis_0", "channels along axis 0 of a [channels, n] tensor"},
    {"axis_1", "channels along axis 1 of a [n, channels] tensor"},
    {"ties", "each channel's inputs include exact ties x / scale_c = k + 1/2"},
    {"zp_type_ends", "channel zero points at both ends of the output type and odd"},
    {"zero_scale_channel", "one channel has scale 0"},
    {"saturation", "inputs beyond both ends of the output type"},
    {"random", "random per-channel scales, zero points and inputs"},
    {"invalid_axis", "ERROR_IF: axis does not index a dimension of x"},
    {"invalid_channel_count", "ERROR_IF: the per-channel arrays do not have shape[axis] entries"},
    {"invalid_zero_point", "ERROR_IF: a channel zero point does not fit the output type"},
    {"invalid_scale", "ERROR_IF: a channel scale is rejected (XNNPACK: not in (0, 256))"},
};

// x for channels `scales` along `axis` of shape [C, n] (axis 0) or [n, C] (axis 1): each
// channel's values are (t_j + 1/2) * scale_c, exact where the product is a float.
Tensor per_channel_input(const std::vector<std::uint32_t>& scales, int axis, const std::vector<Rat>& ts) {
  const auto C = static_cast<std::int64_t>(scales.size()), n = static_cast<std::int64_t>(ts.size());
  Tensor x{std::string(cat::quantize_per_channel::in::x),
           DType::F32,
           axis == 0 ? std::vector<std::int64_t>{C, n} : std::vector<std::int64_t>{n, C},
           {}};
  x.data.resize(static_cast<std::size_t>(C * n));
  for (std::int64_t c = 0; c < C; ++c)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t idx = static_cast<std::size_t>(axis == 0 ? c * n + j : j * C + c);
      const Rat s = ref::f32_value(scales[static_cast<std::size_t>(c)]);
      x.data[idx] = static_cast<std::int64_t>(ref::f32_round(ts[static_cast<std::size_t>(j)] * s));
    }
  return x;
}

std::vector<Group> generate_quantize_per_channel(std::string_view conv, const std::vector<DType>& outs, Rng& rng) {
  using Op = cat::quantize_per_channel;
  std::vector<Group> groups;
  for (DType out : outs) {
    Group g;
    attr::set(g.attributes, Op::attr::out_dtype, out);
    auto add = [&](int axis, const std::vector<std::uint32_t>& scales, const std::vector<std::int64_t>& zps,
                   const std::vector<Rat>& ts, std::vector<std::string> flags, bool invalid = false,
                   std::int64_t axis_attr = -100) {
      ordered_json attrs;
      attr::set(attrs, Op::attr::axis, axis_attr == -100 ? axis : axis_attr);
      attr::set(attrs, Op::attr::scales, scales);
      attr::set(attrs, Op::attr::zero_points, zps);
      const Tensor x = per_channel_input(scales, axis, ts);
      const Verdict v = classify(Op::op, conv, merge_attributes(g.attributes, attrs), x);
      if (v == Verdict::OutsideRequire || (v == Verdict::Invalid) != invalid) return;
      flags.push_back(axis == 0 ? "axis_0" : "axis_1");
      Test t;
      t.comment = std::to_string(scales.size()) + " channels along axis " + std::to_string(axis);
      t.flags = dedup(flags);
      t.inputs = {x};
      t.attributes = attrs;
      t.invalid = invalid;
      g.tests.push_back(std::move(t));
    };
    const std::vector<Rat> tie_ts = {Rat(1, 2), Rat(-1, 2), Rat(3, 2), Rat(-3, 2),
                                     Rat(5, 2), Rat(-5, 2), Rat(0),    Rat(7)};
    const std::int64_t lo = lo_of(out), hi = hi_of(out);
    const std::int64_t mid = out == DType::U8 ? 128 : 0;
    for (int axis : {0, 1}) {
      add(axis, {f32(0.5f), f32(0.25f), f32(1.75f)}, {mid, mid + 1, mid}, tie_ts, {"ties"});
      add(axis, {f32(0.1f), f32(3.0f), f32(0x1p-10f)}, {lo, hi, mid + 3}, tie_ts, {"ties", "zp_type_ends"});
      add(axis, {f32(0.5f), f32(0.5f)}, {lo, hi},
          {Rat(hi - lo + 5), Rat(-(hi - lo) - 5), Rat(hi - mid), Rat(lo - mid), Rat(1000000)}, {"saturation"});
    }
    for (int i = 0; i < (out == DType::I32 ? 50 : 130); ++i) {
      const int axis = static_cast<int>(rng.uniform(0, 1));
      const auto C = static_cast<std::size_t>(rng.uniform(1, 4));
      std::vector<std::uint32_t> scales;
      std::vector<std::int64_t> zps;
      for (std::size_t c = 0; c < C; ++c) {
        scales.push_back(random_scale(rng, -10, 3));
        zps.push_back(out == DType::I32 ? rng.uniform(-1000, 1000) : rng.uniform(lo, hi));
      }
      std::vector<Rat> ts;
      const std::int64_t span = out == DType::I32 ? 100000 : (hi - lo);
      for (int j = 0; j < 3; ++j) {
        // One draw per statement (the operands of + are unsequenced): sixteenths, then the integer
        // part, the order GCC chose for the committed vectors.
        const Rat sixteenths(Int(rng.uniform(0, 15)), Int(16));
        ts.push_back(Rat(rng.uniform(-span, span)) + sixteenths);
      }
      add(axis, scales, zps, ts, {"random"});
    }
    add(0, {f32(0.5f), f32(0.5f)}, {0, 0}, tie_ts, {"invalid_axis"}, true, 2);
    add(0, {f32(0.5f), f32(0.5f)}, {0, 0}, tie_ts, {"invalid_axis"}, true, -5);
    {  // three scales for a two-channel axis
      ordered_json attrs;
      attr::set(attrs, Op::attr::axis, 0);
      attr::set(attrs, Op::attr::scales, {f32(0.5f), f32(0.5f), f32(0.5f)});
      attr::set(attrs, Op::attr::zero_points, {0, 0, 0});
      Test t;
      t.comment = "3 scales for 2 channels";
      t.flags = {"invalid_channel_count"};
      t.inputs = {per_channel_input({f32(0.5f), f32(0.5f)}, 0, tie_ts)};
      t.attributes = attrs;
      t.invalid = true;
      g.tests.push_back(std::move(t));
    }
    if (conv != Op::conv::tvm_quantize && out != DType::I32)
      add(0, {f32(0.5f), f32(0.5f)}, {0, hi + 1}, tie_ts, {"invalid_zero_point"}, true);
    groups.push_back(std::move(g));
  }
  return groups;
}

const bool kPerChannelFamilies = [] {
  using Op = cat::quantize_per_channel;
  const std::vector<DType> outs = {DType::I8, DType::U8, DType::I32};
  std::uint64_t seed = 8401;
  for (std::string_view conv :
       {Op::conv::tvm_quantize, Op::conv::onnx_quantize_linear, Op::conv::pytorch_quantize_per_channel})
    register_family(family<Op>(
        conv,
        notes_without(kPerChannelNotes,
                      conv == Op::conv::tvm_quantize
                          ? std::set<std::string>{"invalid_scale", "zero_scale_channel", "invalid_zero_point"}
                          : std::set<std::string>{"invalid_scale", "zero_scale_channel"}),
        seed++, [conv, outs](Rng& rng) { return generate_quantize_per_channel(conv, outs, rng); }));
  return true;
}();

// XNNPACK qc8: one float32 scale per output channel, x int32 [C, n] or [n, C].
std::vector<Group> generate_xnnpack_qc8(Rng& rng) {
  using Op = cat::requantize_per_channel;
  std::vector<Group> groups;
  for (DType out : {DType::I8, DType::U8}) {
    Group g;
    attr::set(g.attributes, Op::attr::out_dtype, out);
    const std::int64_t mid = out == DType::U8 ? 128 : 0;
    auto add = [&](int axis, const std::vector<std::uint32_t>& scales, std::int64_t zp,
                   const std::vector<std::int64_t>& xs, std::vector<std::string> flags, bool invalid = false) {
      const auto C = static_cast<std::int64_t>(scales.size()), n = static_cast<std::int64_t>(xs.size());
      Tensor x{std::string(Op::in::x),
               DType::I32,
               axis == 0 ? std::vector<std::int64_t>{C, n} : std::vector<std::int64_t>{n, C},
               {}};
      for (std::int64_t i = 0; i < C * n; ++i) x.data.push_back(xs[static_cast<std::size_t>(i % n)] * (1 + i % 3));
      ordered_json attrs;
      attr::set(attrs, Op::attr::axis, axis);
      attr::set(attrs, Op::attr::scales, scales);
      attr::set(attrs, Op::attr::output_zero_point, zp);
      const Verdict v = classify(Op::op, Op::conv::xnnpack_fp32, merge_attributes(g.attributes, attrs), x);
      if (v == Verdict::OutsideRequire || (v == Verdict::Invalid) != invalid) return;
      flags.push_back(axis == 0 ? "axis_0" : "axis_1");
      Test t;
      t.comment = std::to_string(C) + " channels";
      t.flags = dedup(flags);
      t.inputs = {x};
      t.attributes = attrs;
      t.invalid = invalid;
      g.tests.push_back(std::move(t));
    };
    const std::vector<std::int64_t> tie_xs = {1, -1, 3, -3, 5, -5, 0, 1000, -1000, INT32_MAX / 3, INT32_MIN / 3};
    for (int axis : {0, 1}) {
      add(axis, {f32(0.5f), f32(0.25f), f32(0x1p-10f)}, mid, tie_xs, {"ties"});
      add(axis, {f32(0.5f), f32(0.5f)}, mid + 3, tie_xs, {"ties", "zp_type_ends"});
      add(axis, {f32(0.5f), f32(0.001f)}, dtype_min(out), tie_xs, {"zp_type_ends", "saturation"});
      add(axis, {f32(0.5f), f32(0.001f)}, dtype_max(out), tie_xs, {"zp_type_ends", "saturation"});
      add(axis, {f32(0.5f), f32(0.0f)}, mid, tie_xs, {"zero_scale_channel", "invalid_scale"}, true);
      add(axis, {f32(256.0f), f32(0.5f)}, mid, tie_xs, {"invalid_scale"}, true);
    }
    {  // structural ERROR_IFs: axis 2 of a rank-2 tensor; 3 scales for 2 channels; zero point 300
      ordered_json attrs;
      attr::set(attrs, Op::attr::axis, 2);
      attr::set(attrs, Op::attr::scales, {f32(0.5f), f32(0.5f)});
      attr::set(attrs, Op::attr::output_zero_point, mid);
      Tensor x{std::string(Op::in::x), DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6}};
      auto invalid = [&](ordered_json a, const char* flag, const std::string& comment) {
        Test t;
        t.comment = comment;
        t.flags = {flag};
        t.inputs = {x};
        t.attributes = std::move(a);
        t.invalid = true;
        g.tests.push_back(std::move(t));
      };
      invalid(attrs, "invalid_axis", "axis 2 of a rank-2 tensor");
      attr::set(attrs, Op::attr::axis, 0);
      attr::set(attrs, Op::attr::scales, {f32(0.5f), f32(0.5f), f32(0.5f)});
      invalid(attrs, "invalid_channel_count", "3 scales for 2 channels");
      attr::set(attrs, Op::attr::scales, {f32(0.5f), f32(0.5f)});
      attr::set(attrs, Op::attr::output_zero_point, 300);
      invalid(attrs, "invalid_zero_point", "output zero point 300");
    }
    for (int i = 0; i < 140; ++i) {
      std::vector<std::uint32_t> scales;
      const auto C = rng.uniform(1, 4);
      for (std::int64_t c = 0; c < C; ++c) scales.push_back(random_scale(rng, -20, 0));
      std::vector<std::int64_t> xs;
      for (int j = 0; j < 3; ++j) xs.push_back(rng.uniform(-100000, 100000));
      // One draw per statement, in the order GCC evaluated add's arguments (right to left), which
      // the committed vectors hold.
      const std::int64_t zp = rng.uniform(dtype_min(out), dtype_max(out));
      const int axis = static_cast<int>(rng.uniform(0, 1));
      add(axis, scales, zp, xs, {"random"});
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::requantize_per_channel>(cat::requantize_per_channel::conv::xnnpack_fp32,
                                                                 kPerChannelNotes, 8501, generate_xnnpack_qc8));

}  // namespace
}  // namespace qspec::vecgen
