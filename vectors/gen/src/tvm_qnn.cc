// Golden-vector families for TVM QNN requantize (UPWARD / TONEAREST, per tensor and per axis) and fixed_point_multiply.
//
// (TVM's quantize / dequantize families share the float vocabulary's generators in
// float_conventions.cc.) Expected outputs come from the reference ops; the reference is used here
// only to keep inputs inside the REQUIREs and to set descriptive flags.
#include "qspec/ref/tvm_qnn.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"
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
using Requantize = cat::requantize;
using PerChannel = cat::requantize_per_channel;
using Fpm = cat::fixed_point_multiply;

constexpr std::int64_t kI32Min = -2147483648LL;
constexpr std::int64_t kI32Max = 2147483647LL;

const char* tie_flag(const Rat& v) {
  const Rat a = ref::abs(v);
  return a == Rat(1, 2) ? "tie_0_5" : a == Rat(3, 2) ? "tie_1_5" : a == Rat(5, 2) ? "tie_2_5" : "tie_other";
}

const struct {
  DType dtype;
  std::int64_t lo, hi, mid, odd;
} kOuts[] = {{DType::I8, -128, 127, 0, 3},
             {DType::U8, 0, 255, 128, 131},
             {DType::I16, -32768, 32767, 0, 3},
             {DType::I32, kI32Min, kI32Max, 0, 3}};

// ---------------------------------------------------------------------------------------------
// op "requantize", conventions tvm.upward / tvm.tonearest
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kRequantizeNotes = {
    {"tie_0_5", "(x - input_zp) * M * 2^(s-31) is exactly +0.5 or -0.5 (UPWARD: 1 / 0, TONEAREST: 1 / -1)"},
    {"tie_1_5", "(x - input_zp) * M * 2^(s-31) is exactly +1.5 or -1.5"},
    {"tie_2_5", "(x - input_zp) * M * 2^(s-31) is exactly +2.5 or -2.5"},
    {"tie_other", "another exact half-integer product"},
    {"power_of_two_path",
     "per tensor, the multiplier is a power of two (M = 2^30): q_multiply_shift's int32 shift branch"},
    {"equal_scales", "input_scale == output_scale bitwise: the multiply is skipped"},
    {"multiplier_above_one", "input_scale / output_scale > 1 (a left shift)"},
    {"zero_input_scale", "input_scale = 0: every output is the output zero point"},
    {"int32_min", "an input equal to INT32_MIN"},
    {"int32_max", "an input equal to INT32_MAX"},
    {"saturate_low", "an element clips at the low end of out_dtype"},
    {"saturate_high", "an element clips at the high end of out_dtype"},
    {"no_clip_int32", "out_dtype int32: TVM adds the zero point without clipping"},
    {"zp_odd", "an odd output zero point"},
    {"zp_type_min", "output zero point at the low end of out_dtype"},
    {"zp_type_max", "output zero point at the high end of out_dtype"},
    {"input_zp", "a nonzero input zero point"},
    {"explicit_rounding", "the rounding attribute is present (it must match the convention)"},
    {"upward_vs_tonearest", "UPWARD and TONEAREST give different outputs on this test"},
    {"differs_from_real_multiplier",
     "the result differs from the same rounding of (x - input_zp) * input_scale / output_scale on exact rationals: "
     "the 31-bit multiplier moved a value across a rounding boundary"},
    {"random", "random scales, zero points and inputs targeting unsaturated outputs"},
    {"invalid_output_scale", "ERROR_IF: output_scale = 0"},
    {"invalid_out_dtype", "ERROR_IF: out_dtype is not int8, uint8, int16 or int32"},
    {"invalid_rounding", "ERROR_IF: rounding is neither UPWARD nor TONEAREST"},
    {"zp_int32_extreme",
     "output_zero_point INT32_MIN or INT32_MAX: tvm.requantize takes any int32 zero point while the scaled value "
     "plus it stays in int32 (an unsigned output with INT32_MIN: every output 0); long inputs, so that the "
     "optimized kernels' vector loops see them"},
};

// A TVM convention: the same name in requantize and requantize_per_channel.
struct TvmConv {
  std::string_view name;
  ref::TvmRounding rounding;
  std::string_view rounding_attr;  // the value of the rounding attribute that selects it
  std::string_view other;          // the convention with the other rounding
  ref::Rounding exact;             // the same tie rule on exact rationals
};
static_assert(PerChannel::conv::tvm_upward == Requantize::conv::tvm_upward &&
              PerChannel::conv::tvm_tonearest == Requantize::conv::tvm_tonearest);

ordered_json tvm_attrs(std::uint32_t in_s, std::int64_t in_zp, std::uint32_t out_s, std::int64_t out_zp) {
  ordered_json a;
  attr::set(a, Requantize::attr::input_scale, in_s);
  attr::set(a, Requantize::attr::input_zero_point, in_zp);
  attr::set(a, Requantize::attr::output_scale, out_s);
  attr::set(a, Requantize::attr::output_zero_point, out_zp);
  return a;
}

std::vector<Group> generate_tvm_requantize(const TvmConv& c, Rng& rng) {
  std::vector<Group> groups;
  // Each out_dtype, then again for the groups of output zero points at the int32 extremes, after all
  // others (the earlier tests keep their tcIds; they draw nothing).
  std::vector<std::pair<decltype(&kOuts[0]), bool>> passes;
  for (const bool extreme : {false, true})
    for (const auto& o : kOuts) passes.emplace_back(&o, extreme);
  for (const auto& [out, extreme] : passes) {
    const auto& o = *out;
    Group g;
    attr::set(g.attributes, Requantize::attr::out_dtype, o.dtype);
    auto add = [&](std::uint32_t in_s, std::int64_t in_zp, std::uint32_t out_s, std::int64_t out_zp,
                   const std::vector<std::int64_t>& xs, std::vector<std::string> flags, const std::string& comment,
                   bool explicit_rounding = false) {
      ordered_json attrs = tvm_attrs(in_s, in_zp, out_s, out_zp);
      if (explicit_rounding) {
        attr::set(attrs, Requantize::attr::rounding, c.rounding_attr);
        flags.push_back("explicit_rounding");
      }
      const ordered_json all = merge_attributes(g.attributes, attrs);
      const bool equal = in_s == out_s;
      ref::TvmFixedPoint fp{Int(0), 0};
      if (!equal) fp = ref::tvm_fixed_point_multiplier_shift(ref::tvm_double_multiplier(in_s, out_s));
      std::vector<std::int64_t> kept;
      bool differ_other = false;
      for (auto x : xs) {
        if (x < kI32Min || x > kI32Max) continue;
        std::vector<Tensor> y, y2;
        if (classify(Requantize::op, c.name, all, scalar_vector(std::string(Requantize::in::x), DType::I32, {x}), &y) !=
            Verdict::Valid)
          continue;
        kept.push_back(x);
        const Rat v = equal ? Rat(x - in_zp) : Rat(Int(x - in_zp) * fp.multiplier) * ref::pow2r(fp.shift - 31);
        if (is_half_integer(v)) flags.push_back(tie_flag(v));
        if (x == kI32Min) flags.push_back("int32_min");
        if (x == kI32Max) flags.push_back("int32_max");
        const Int yv(y[0].data[0]);
        const Rat real_v = Rat(x - in_zp) * ref::f32_value(in_s) / ref::f32_value(out_s) + out_zp;
        if (o.dtype != DType::I32) {
          if (yv == o.hi && real_v >= o.hi + 1) flags.push_back("saturate_high");
          if (yv == o.lo && real_v <= o.lo - 1) flags.push_back("saturate_low");
        }
        Int exact = ref::round(real_v - out_zp, c.exact) + out_zp;
        if (o.dtype != DType::I32) exact = ref::saturate(exact, ref::int_range(o.dtype));
        if (exact != yv) flags.push_back("differs_from_real_multiplier");
        ordered_json other_attrs = all;
        other_attrs.erase(std::string(Requantize::attr::rounding.name));
        if (classify(Requantize::op, c.other, other_attrs,
                     scalar_vector(std::string(Requantize::in::x), DType::I32, {x}), &y2) == Verdict::Valid &&
            y2[0].data != y[0].data)
          differ_other = true;
      }
      if (kept.empty()) return;
      if (differ_other) flags.push_back("upward_vs_tonearest");
      if (equal) flags.push_back("equal_scales");
      if (!equal && fp.multiplier == ref::pow2(30)) flags.push_back("power_of_two_path");
      if (ref::f32_value(in_s) > ref::f32_value(out_s)) flags.push_back("multiplier_above_one");
      if (ref::f32_value(in_s) == 0) flags.push_back("zero_input_scale");
      if (o.dtype == DType::I32) flags.push_back("no_clip_int32");
      if (out_zp % 2 != 0) flags.push_back("zp_odd");
      if (out_zp == o.lo) flags.push_back("zp_type_min");
      if (out_zp == o.hi) flags.push_back("zp_type_max");
      if (in_zp != 0) flags.push_back("input_zp");
      Test t;
      t.comment = comment;
      t.flags = dedup(flags);
      t.inputs = {scalar_vector(std::string(Requantize::in::x), DType::I32, kept)};
      t.attributes = attrs;
      g.tests.push_back(std::move(t));
    };
    if (extreme) {
      // Equal scales (no multiply), ratios 2 and 1/4, and an inexact one.
      for (std::int64_t out_zp : {kI32Min, kI32Max})
        for (const auto& [in_s, out_s] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
                 {f32(1.0f), f32(1.0f)}, {f32(2.0f), f32(1.0f)}, {f32(1.0f), f32(4.0f)}, {f32(0.3f), f32(0.7f)}})
          add(in_s, 0, out_s, out_zp,
              extreme_zero_point_accumulators(ref::f32_value(in_s) / ref::f32_value(out_s), out_zp, o.lo, o.hi),
              {"zp_int32_extreme"}, std::string("output_zero_point INT32_") + (out_zp < 0 ? "MIN" : "MAX"));
      groups.push_back(std::move(g));
      continue;
    }
    const bool wide = o.dtype == DType::I32;
    const std::vector<std::int64_t> out_zps =
        wide ? std::vector<std::int64_t>{0, 3} : std::vector<std::int64_t>{o.mid, o.odd, o.lo, o.hi};
    // Exact ties: (input scale, output scale) pairs with a power-of-two or 3/4, 3/8 ratio.
    const std::vector<std::pair<std::uint32_t, std::uint32_t>> tie_pairs = {
        {f32(1.0f), f32(2.0f)}, {f32(1.0f), f32(4.0f)}, {f32(1.0f), f32(1024.0f)},
        {f32(0.1f), f32(0.2f)}, {f32(3.0f), f32(4.0f)}, {f32(3.0f), f32(8.0f)}};
    for (const auto& [in_s, out_s] : tie_pairs)
      for (std::int64_t in_zp : {0, 5})
        for (std::int64_t out_zp : out_zps) {
          // x - in_zp = t / m for the ties t: m = in / out
          const Rat m = ref::f32_value(in_s) / ref::f32_value(out_s);
          std::vector<std::int64_t> xs;
          for (const Rat& t :
               {Rat(1, 2), Rat(-1, 2), Rat(3, 2), Rat(-3, 2), Rat(5, 2), Rat(-5, 2), Rat(9, 2), Rat(-9, 2)}) {
            const Rat d = t / m;
            if (ref::denominator(d) != 1) continue;
            for (int e = -1; e <= 1; ++e) xs.push_back(static_cast<std::int64_t>(ref::numerator(d)) + in_zp + e);
          }
          add(in_s, in_zp, out_s, out_zp, xs, {}, "ties, ratio " + ref::to_string(m), out_zp == out_zps[1]);
        }
    // Equal scales: the multiply is skipped.
    for (std::int64_t out_zp : out_zps)
      add(f32(0.3f), 7, f32(0.3f), out_zp, {-300, -1, 0, 1, 7, 100, 300, kI32Min, kI32Max}, {}, "equal scales");
    // INT32 extremes with small multipliers, and above-one multipliers with small inputs.
    for (const auto& [in_s, out_s] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
             {f32(1.0f), f32(1048576.0f)}, {f32(0.001f), f32(1.0f)}, {f32(1.0f), f32(3.0f)}, {f32(1.0f), f32(2.0f)}})
      add(in_s, 0, out_s, out_zps[0], {kI32Min, kI32Max, kI32Min + 1, kI32Max - 1, 0, -1, 1}, {}, "int32 extremes");
    for (const auto& [in_s, out_s] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
             {f32(3.0f), f32(1.0f)}, {f32(1.5f), f32(1.0f)}, {f32(300.0f), f32(0.7f)}})
      add(in_s, 0, out_s, out_zps[0], {-200, -50, -3, -1, 0, 1, 3, 50, 200, 100000, -100000}, {},
          "multiplier above one");
    // A zero input scale (allowed: M = 0).
    add(f32(0.0f), 0, f32(1.0f), out_zps[1], {kI32Min, -5, 0, 5, kI32Max}, {}, "zero input scale");
    // Saturation around both ends (ratio 1/4).
    if (!wide)
      for (std::int64_t out_zp : out_zps) {
        std::vector<std::int64_t> xs;
        for (std::int64_t d : {-4, -2, 0, 2, 4, 400}) {
          xs.push_back(4 * (o.hi - out_zp) + d);
          xs.push_back(4 * (o.lo - out_zp) - d);
        }
        add(f32(1.0f), 0, f32(4.0f), out_zp, xs, {}, "around both ends");
      }
    // Random.
    for (int i = 0; i < (wide ? 25 : 60); ++i) {
      const std::uint32_t in_s = random_scale(rng, -16, 0), out_s = random_scale(rng, -14, 2);
      const std::int64_t in_zp = rng.uniform(-128, 255);
      const std::int64_t out_zp = wide ? rng.uniform(-1000, 1000) : rng.uniform(o.lo, o.hi);
      const Rat m = ref::f32_value(in_s) / ref::f32_value(out_s);
      std::vector<std::int64_t> xs;
      for (int k = 0; k < 4; ++k) {
        const std::int64_t target =
            wide ? rng.uniform(-1000000, 1000000) : rng.uniform(o.lo - out_zp - 2, o.hi - out_zp + 2);
        const Int x = ref::round_half_even((Rat(target) + Rat(Int(rng.uniform(0, 15)), Int(16))) / m) + in_zp;
        xs.push_back(static_cast<std::int64_t>(ref::saturate(x, ref::DType::I32)));
      }
      add(in_s, in_zp, out_s, out_zp, xs, {"random"}, "random", rng.uniform(0, 3) == 0);
    }
    // Invalid attributes (in the first group only).
    if (o.dtype == DType::I8) {
      auto invalid = [&](ordered_json attrs, const char* flag, const std::string& comment) {
        Test t;
        t.comment = comment;
        t.flags = {flag};
        t.inputs = {scalar_vector(std::string(Requantize::in::x), DType::I32, {10, -10})};
        t.attributes = std::move(attrs);
        t.invalid = true;
        g.tests.push_back(std::move(t));
      };
      invalid(tvm_attrs(f32(1.0f), 0, f32(0.0f), 0), "invalid_output_scale", "output_scale 0");
      invalid(tvm_attrs(f32(0.0f), 0, 0x80000000u, 0), "invalid_output_scale", "output_scale -0");
      auto bad = tvm_attrs(f32(1.0f), 0, f32(2.0f), 0);
      attr::set(bad, Requantize::attr::out_dtype, DType::I64);
      invalid(bad, "invalid_out_dtype", "out_dtype int64");
      attr::set(bad, Requantize::attr::out_dtype, DType::U16);
      invalid(bad, "invalid_out_dtype", "out_dtype uint16");
      bad = tvm_attrs(f32(1.0f), 0, f32(2.0f), 0);
      attr::set(bad, Requantize::attr::rounding, Requantize::attr::rounding_is::DOWNWARD);
      invalid(bad, "invalid_rounding", "rounding DOWNWARD");
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

const TvmConv kUpward{Requantize::conv::tvm_upward, ref::TvmRounding::Upward, Requantize::attr::rounding_is::UPWARD,
                      Requantize::conv::tvm_tonearest, ref::Rounding::HalfUp};
const TvmConv kToNearest{Requantize::conv::tvm_tonearest, ref::TvmRounding::ToNearest,
                         Requantize::attr::rounding_is::TONEAREST, Requantize::conv::tvm_upward,
                         ref::Rounding::HalfAway};

QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(Requantize::conv::tvm_upward, kRequantizeNotes, 8601,
                                                [](Rng& rng) { return generate_tvm_requantize(kUpward, rng); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(Requantize::conv::tvm_tonearest, kRequantizeNotes, 8602,
                                                [](Rng& rng) { return generate_tvm_requantize(kToNearest, rng); }));

// ---------------------------------------------------------------------------------------------
// op "requantize_per_channel", conventions tvm.upward / tvm.tonearest
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kPerAxisNotes = {
    {"axis_0", "channels along axis 0 of a [channels, n] tensor"},
    {"axis_last", "channels along the last axis, given as axis -1 (TVM counts negative axes from the back)"},
    {"ties", "each channel's inputs include exact ties of (x - zp_c) * input_scale_c / output_scale"},
    {"zero_scale_channel", "one channel's input scale is 0: its outputs are the output zero point (valid in TVM)"},
    {"unit_channel", "one channel's input scale equals the output scale (per axis the multiply is still done)"},
    {"per_channel_zero_points", "distinct input zero points per channel"},
    {"saturation", "inputs beyond both ends of out_dtype"},
    {"random", "random per-channel scales and zero points"},
    {"invalid_output_scale", "ERROR_IF: output_scale = 0"},
    {"invalid_axis", "ERROR_IF: axis out of range"},
    {"invalid_channel_count", "ERROR_IF: the number of input scales differs from the axis size"},
};

std::vector<Group> generate_tvm_per_axis(const TvmConv& c, Rng& rng) {
  std::vector<Group> groups;
  for (const auto& o : kOuts) {
    if (o.dtype == DType::I16) continue;
    Group g;
    attr::set(g.attributes, PerChannel::attr::out_dtype, o.dtype);
    auto add = [&](std::int64_t axis, const std::vector<std::uint32_t>& scales, const std::vector<std::int64_t>& zps,
                   std::uint32_t out_s, std::int64_t out_zp, const std::vector<std::int64_t>& xs,
                   std::vector<std::string> flags, bool invalid = false, std::int64_t channels_override = -1) {
      const auto C = channels_override > 0 ? channels_override : static_cast<std::int64_t>(scales.size());
      const auto n = static_cast<std::int64_t>(xs.size());
      Tensor x{std::string(PerChannel::in::x),
               DType::I32,
               axis == 0 ? std::vector<std::int64_t>{C, n} : std::vector<std::int64_t>{n, C},
               {}};
      for (std::int64_t i = 0; i < C * n; ++i) {
        const std::int64_t c_idx = axis == 0 ? i / n : i % C, j = axis == 0 ? i % n : i / C;
        const std::int64_t zp =
            c_idx < static_cast<std::int64_t>(zps.size()) ? zps[static_cast<std::size_t>(c_idx)] : 0;
        x.data.push_back(std::clamp<std::int64_t>(xs[static_cast<std::size_t>(j)] + zp, kI32Min, kI32Max));
      }
      ordered_json attrs;
      attr::set(attrs, PerChannel::attr::axis, axis == 0 ? 0 : -1);
      attr::set(attrs, PerChannel::attr::input_scales, scales);
      attr::set(attrs, PerChannel::attr::input_zero_points, zps);
      attr::set(attrs, PerChannel::attr::output_scale, out_s);
      attr::set(attrs, PerChannel::attr::output_zero_point, out_zp);
      if (invalid && axis == 5) attr::set(attrs, PerChannel::attr::axis, 5);
      const Verdict v = classify(PerChannel::op, c.name, merge_attributes(g.attributes, attrs), x);
      if (v == Verdict::OutsideRequire || (v == Verdict::Invalid) != invalid) return;
      flags.push_back(axis == 0 ? "axis_0" : "axis_last");
      bool distinct = false;
      for (auto z : zps) distinct = distinct || z != zps[0];
      if (distinct) flags.push_back("per_channel_zero_points");
      Test t;
      t.comment = std::to_string(C) + " channels";
      t.flags = dedup(flags);
      t.inputs = {x};
      t.attributes = attrs;
      t.invalid = invalid;
      g.tests.push_back(std::move(t));
    };
    const std::vector<std::int64_t> tie_xs = {1, -1, 3, -3, 5, -5, 0, 2, -2, 1000, -1000};
    const std::int64_t out_zp = o.mid, odd = o.odd;
    for (int axis : {0, 1}) {
      add(axis, {f32(1.0f), f32(0.5f), f32(0.25f)}, {0, 3, -7}, f32(2.0f), out_zp, tie_xs, {"ties"});
      add(axis, {f32(3.0f), f32(0.1f), f32(0.2f)}, {0, 0, 0}, f32(0.4f), odd, tie_xs, {"ties"});
      add(axis, {f32(0.5f), f32(0.0f), f32(0.25f)}, {0, 0, 0}, f32(1.0f), out_zp, tie_xs, {"zero_scale_channel"});
      add(axis, {f32(0.7f), f32(1.3f)}, {2, -2}, f32(0.7f), odd, tie_xs, {"unit_channel"});
      if (o.dtype != DType::I32)
        add(axis, {f32(1.0f), f32(4.0f)}, {0, 0}, f32(1.0f), out_zp, {o.hi * 5, o.lo * 5, o.hi + 1000, o.lo - 1000},
            {"saturation"});
    }
    for (int i = 0; i < 120; ++i) {
      const auto C = rng.uniform(1, 4);
      std::vector<std::uint32_t> scales;
      std::vector<std::int64_t> zps;
      for (std::int64_t k = 0; k < C; ++k) {
        scales.push_back(random_scale(rng, -12, 0));
        zps.push_back(rng.uniform(-20, 20));
      }
      std::vector<std::int64_t> xs;
      for (int k = 0; k < 3; ++k) xs.push_back(rng.uniform(-20000, 20000));
      const std::int64_t zp = o.dtype == DType::I32 ? rng.uniform(-1000, 1000) : rng.uniform(o.lo, o.hi);
      // One draw per statement, in the order GCC evaluated add's arguments (right to left), which
      // the committed vectors hold.
      const std::uint32_t out_s = random_scale(rng, -10, 0);
      const std::int64_t axis = rng.coin() ? 0 : 1;
      add(axis, scales, zps, out_s, zp, xs, {"random"});
    }
    if (o.dtype == DType::I8) {
      add(0, {f32(1.0f), f32(1.0f)}, {0, 0}, f32(0.0f), 0, tie_xs, {"invalid_output_scale"}, true);
      add(5, {f32(1.0f), f32(1.0f)}, {0, 0}, f32(1.0f), 0, tie_xs, {"invalid_axis"}, true);
      add(0, {f32(1.0f), f32(1.0f), f32(1.0f)}, {0, 0, 0}, f32(1.0f), 0, tie_xs, {"invalid_channel_count"}, true, 2);
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY(family<PerChannel>(PerChannel::conv::tvm_upward, kPerAxisNotes, 8611,
                                                [](Rng& rng) { return generate_tvm_per_axis(kUpward, rng); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<PerChannel>(PerChannel::conv::tvm_tonearest, kPerAxisNotes, 8612,
                                                [](Rng& rng) { return generate_tvm_per_axis(kToNearest, rng); }));

// ---------------------------------------------------------------------------------------------
// op "fixed_point_multiply", convention tvm
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kFpmNotes = {
    {"power_of_two_branch", "M = 2^30: the int32 shift branch of q_multiply_shift"},
    {"int64_branch", "M != 2^30: the int64 multiply, add 2^(r+30), shift branch"},
    {"tie_0_5", "x * M * 2^(s-31) is exactly +0.5 or -0.5"},
    {"tie_1_5", "x * M * 2^(s-31) is exactly +1.5 or -1.5"},
    {"tie_2_5", "x * M * 2^(s-31) is exactly +2.5 or -2.5"},
    {"tie_other", "another exact half-integer product"},
    {"int32_min", "x = INT32_MIN"},
    {"int32_max", "x = INT32_MAX"},
    {"left_shift", "s > 0: x is shifted left before the multiply"},
    {"right_shift_31", "s = -31 or -32: the largest right shifts (total 62 or 63 bits)"},
    {"multiplier_zero", "M = 0"},
    {"random", "random normalized multipliers, shifts and inputs"},
};

std::vector<Group> generate_fpm(Rng& rng) {
  Group g;
  auto add = [&](std::int64_t m, int s, const std::vector<std::int64_t>& xs, std::vector<std::string> flags,
                 const std::string& comment) {
    ordered_json attrs;
    attr::set(attrs, Fpm::attr::multiplier, m);
    attr::set(attrs, Fpm::attr::shift, s);
    std::vector<std::int64_t> kept;
    for (auto x : xs) {
      if (x < kI32Min || x > kI32Max) continue;
      if (classify(Fpm::op, Fpm::conv::tvm, attrs, scalar_vector(std::string(Fpm::in::x), DType::I32, {x})) !=
          Verdict::Valid)
        continue;
      kept.push_back(x);
      const Rat v = Rat(Int(x) * Int(m)) * ref::pow2r(s - 31);
      if (is_half_integer(v)) flags.push_back(tie_flag(v));
      if (x == kI32Min) flags.push_back("int32_min");
      if (x == kI32Max) flags.push_back("int32_max");
    }
    if (kept.empty()) return;
    flags.push_back(m == (1LL << 30) ? "power_of_two_branch" : "int64_branch");
    if (s > 0) flags.push_back("left_shift");
    if (s <= -31) flags.push_back("right_shift_31");
    if (m == 0) flags.push_back("multiplier_zero");
    Test t;
    t.comment = comment;
    t.flags = dedup(flags);
    t.inputs = {scalar_vector(std::string(Fpm::in::x), DType::I32, kept)};
    t.attributes = attrs;
    g.tests.push_back(std::move(t));
  };
  const std::vector<std::int64_t> small = {1, -1, 2, -2, 3, -3, 5, -5, 6, -6, 7, -7, 0};
  const std::vector<std::int64_t> extremes = {kI32Min, kI32Max, kI32Min + 1, kI32Max - 1};
  for (int s : {0, -1, -2, -5, -30, -31, 2, 3, 6}) {
    std::vector<std::int64_t> xs = small;
    for (std::int64_t k : {1, 3, 5}) xs.push_back(k << std::min(31, std::max(0, -s)));
    xs.insert(xs.end(), extremes.begin(), extremes.end());
    add(1LL << 30, s, xs, {}, "M = 2^30, shift " + std::to_string(s));
  }
  for (std::int64_t m : {1610612736LL, 1518500250LL, 2147483647LL, 1073741825LL, 0LL})
    for (int s : {0, -1, -3, -31, -32, 1, 4}) {
      std::vector<std::int64_t> xs = small;
      xs.insert(xs.end(), extremes.begin(), extremes.end());
      xs.push_back(1 << 20);
      xs.push_back(-(1 << 20));
      add(m, s, xs, {}, "M = " + std::to_string(m) + ", shift " + std::to_string(s));
    }
  for (int i = 0; i < 330; ++i) {
    const std::int64_t m = rng.coin() ? rng.uniform(1LL << 30, (1LL << 31) - 1) : (1LL << 30);
    const int s = static_cast<int>(rng.uniform(-32, 6));
    std::vector<std::int64_t> xs;
    for (int k = 0; k < 4; ++k)
      xs.push_back(rng.uniform(-(1LL << (24 - std::max(0, s))), 1LL << (24 - std::max(0, s))));
    add(m, s, xs, {"random"}, "random");
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<Fpm>(Fpm::conv::tvm, kFpmNotes, 8621, generate_fpm));

}  // namespace
}  // namespace qspec::vecgen
