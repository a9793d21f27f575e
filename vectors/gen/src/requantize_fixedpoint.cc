// Golden-vector families for Q31 fixed-point requantization (gemmlowp, TFLite, TOSA) and its primitives.
//
// Families generate inputs only; expected outputs come from the reference ops
// (reference/ops/ops_requantize_fixedpoint.cc). The reference is consulted here only to keep
// inputs inside the REQUIREs (vectors never go there) and to set descriptive flags.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/extreme_zero_point.h"

namespace qspec::vecgen {
namespace {

using nlohmann::ordered_json;
using ref::Int;
using Requantize = cat::requantize;
using PerChannel = cat::requantize_per_channel;

constexpr std::int64_t kI32Min = -2147483648LL;
constexpr std::int64_t kI32Max = 2147483647LL;
constexpr std::int64_t kOne30 = 1LL << 30;
// ~2^31/sqrt(2), a multiple of 2^16 so that the 16-bit TOSA convention represents it exactly.
constexpr std::int64_t kSqrtHalf = 23170LL << 16;

struct DtypeInfo {
  DType dtype;
  std::int64_t lo, hi;
};
const DtypeInfo kOutTypes[] = {
    {DType::I8, -128, 127}, {DType::U8, 0, 255}, {DType::I16, -32768, 32767}, {DType::I32, kI32Min, kI32Max}};

// ---------------------------------------------------------------------------------------------
// op "requantize" in the shared Q31 vocabulary (multiplier, shift, output_zero_point, out_dtype)
// ---------------------------------------------------------------------------------------------

struct Q31Convention {
  std::string_view name;  // a convention of both requantize and requantize_per_channel
  bool tosa = false;      // TOSA's ERROR_IFs on zero points and unsigned outputs apply
  bool scale16 = false;   // multipliers must be multiples of 2^16
};

const std::vector<std::pair<std::string, std::string>> kQ31Notes = {
    {"tie_0_5", "x*M*2^(shift-31) is exactly +0.5 or -0.5: the roundings part (half up: 1 / 0; half away: 1 / -1)"},
    {"tie_1_5", "x*M*2^(shift-31) is exactly +1.5 or -1.5"},
    {"tie_2_5", "x*M*2^(shift-31) is exactly +2.5 or -2.5"},
    {"double_round_differs",
     "gemmlowp/TFLite double rounding (SRDHM then RDBPOT) differs from single half-up rounding on at least one "
     "element (requant.double_round_vs_single)"},
    {"int32_min", "an accumulator equal to INT32_MIN"},
    {"int32_max", "an accumulator equal to INT32_MAX"},
    {"saturate_low", "at least one element saturates at the low end of out_dtype"},
    {"saturate_high", "at least one element saturates at the high end of out_dtype"},
    {"shift_0", "shift = 0 (no RDBPOT / TOSA s = 31)"},
    {"shift_right_1", "shift = -1 (a right shift by 1 after the Q31 product)"},
    {"shift_right_30", "shift = -30"},
    {"shift_right_31", "shift = -31 (the largest right shift RDBPOT allows)"},
    {"shift_left", "shift > 0: a left shift (multiplier >= 1 for a normalized M)"},
    {"mult_2_pow_m31", "real multiplier M*2^(shift-31) = 2^-31"},
    {"mult_2_pow_m32", "real multiplier 2^-32 (M = 2^30, shift = -31; QuantizeMultiplier keeps it, does not flush)"},
    {"mult_below_one", "real multiplier just below 1 (M = 2^31 - 1 or the largest allowed, shift = 0)"},
    {"mult_one", "real multiplier exactly 1 (M = 2^30, shift = 1)"},
    {"mult_above_one", "real multiplier above 1"},
    {"mult_zero", "M = 0: every output is sat(output_zero_point)"},
    {"zp_type_min", "output_zero_point at the low end of out_dtype"},
    {"zp_type_max", "output_zero_point at the high end of out_dtype"},
    {"zp_odd", "an odd output zero point together with ties"},
    {"random", "random normalized multiplier, shift and accumulators targeting unsaturated outputs"},
    {"invalid_zero_point", "TOSA ERROR_IF: output_zp != 0 for an int16 or int32 output"},
    {"invalid_unsigned_output", "TOSA ERROR_IF: unsigned (uint8) output from an int32 input"},
    {"invalid_zero_point_range", "TOSA ERROR_IF: output_zp not representable in out_t"},
};

// The note of the draws with an output zero point at an int32 extreme (gemmlowp and TFLite only:
// TOSA's zero points must fit out_dtype).
const std::pair<std::string, std::string> kZpInt32ExtremeNote = {
    "zp_int32_extreme",
    "output_zero_point INT32_MIN or INT32_MAX, which these conventions allow for every out_dtype while the scaled "
    "value plus it stays in int32 (an unsigned output with INT32_MIN: every output 0); long inputs, so that the "
    "optimized kernels' vector loops see them"};

std::vector<std::pair<std::string, std::string>> with_extreme_note(std::vector<std::pair<std::string, std::string>> n) {
  n.push_back(kZpInt32ExtremeNote);
  return n;
}

// (M, shift) of the extreme zero point draws: real multipliers ~1 and ~2 (scaled values reach
// int32's ends, so that some outputs do not saturate), 1/4 and ~2^-12.5 (accumulators of a layer).
const std::pair<std::int64_t, int> kExtremeScales[] = {
    {2147483647, 0}, {2147483647, 1}, {1LL << 30, -1}, {1518500250, -12}};

class Q31Builder {
 public:
  explicit Q31Builder(const Q31Convention& c) : c_(c) {}

  // Multipliers of the scale16 convention must be multiples of 2^16: round down (keeping >= 0).
  std::int64_t m(std::int64_t multiplier) const { return c_.scale16 ? (multiplier / 65536) * 65536 : multiplier; }

  // Adds a test with the distinct x values that lie inside the convention's REQUIREs (and are
  // not ERROR_IF). A multiplier the convention cannot represent exactly (scale16) skips the test
  // unless `round_multiplier` allows rounding it (random cases).
  void add(Group& g, std::int64_t multiplier, int shift, std::int64_t zp, std::vector<std::int64_t> xs,
           std::vector<std::string> flags, const std::string& comment, bool round_multiplier = false) {
    if (!round_multiplier && m(multiplier) != multiplier) return;
    const ordered_json attrs = q31_attributes(m(multiplier), shift, zp);
    const ordered_json all = merge_attributes(g.attributes, attrs);
    std::vector<std::int64_t> kept;
    std::set<std::int64_t> seen;
    for (auto x : xs)
      if (seen.insert(x).second &&
          classify(Requantize::op, c_.name, all, {scalar_vector(std::string(Requantize::in::x), DType::I32, {x})}) ==
              Verdict::Valid)
        kept.push_back(x);
    if (kept.empty()) return;
    add_auto_flags(all, kept, flags);
    Test t;
    t.comment = comment;
    t.flags = dedup(flags);
    t.inputs = {scalar_vector(std::string(Requantize::in::x), DType::I32, kept)};
    t.attributes = attrs;
    g.tests.push_back(std::move(t));
  }

  void add_invalid(Group& g, std::int64_t multiplier, int shift, std::int64_t zp, std::vector<std::int64_t> xs,
                   const std::string& flag, const std::string& comment) {
    Test t;
    t.comment = comment;
    t.flags = {flag};
    t.inputs = {scalar_vector(std::string(Requantize::in::x), DType::I32, xs)};
    t.attributes = q31_attributes(m(multiplier), shift, zp);
    t.invalid = true;
    g.tests.push_back(std::move(t));
  }

 private:
  static ordered_json q31_attributes(std::int64_t multiplier, int shift, std::int64_t zp) {
    ordered_json attrs;
    attr::set(attrs, Requantize::attr::multiplier, multiplier);
    attr::set(attrs, Requantize::attr::shift, shift);
    attr::set(attrs, Requantize::attr::output_zero_point, zp);
    return attrs;
  }

  static std::vector<std::string> dedup(const std::vector<std::string>& v) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& s : v)
      if (seen.insert(s).second) out.push_back(s);
    return out;
  }

  // Flags that describe the kept values: saturation (judged on the exact value, two steps beyond
  // the range so that every convention saturates) and double-rounding differences.
  void add_auto_flags(const ordered_json& attrs, const std::vector<std::int64_t>& xs,
                      std::vector<std::string>& flags) const {
    const Int M(attr::get(attrs, Requantize::attr::multiplier));
    const int shift = static_cast<int>(attr::get(attrs, Requantize::attr::shift));
    const Int zp(attr::get(attrs, Requantize::attr::output_zero_point));
    const auto range = ref::int_range(attr::get(attrs, Requantize::attr::out_dtype));
    for (auto x : xs) {
      const ref::Rat v = ref::Rat(Int(x) * M) * ref::pow2r(shift - 31) + ref::Rat(zp);
      if (v > ref::Rat(range.hi + 2)) flags.push_back("saturate_high");
      if (v < ref::Rat(range.lo - 2)) flags.push_back("saturate_low");
      if (x == kI32Min) flags.push_back("int32_min");
      if (x == kI32Max) flags.push_back("int32_max");
      try {
        if (ref::double_round_minus_single_round(Int(x), M, shift) != 0) flags.push_back("double_round_differs");
      } catch (const ref::RequireViolated&) {
        // outside one of the two MBQM domains: no statement about their difference
      }
    }
  }

  Q31Convention c_;
};

// Accumulators whose exact scaled value is near `targets` (in output steps), for (M, shift).
std::vector<std::int64_t> accumulators_for(const std::vector<std::int64_t>& targets_times_16, std::int64_t multiplier,
                                           int shift) {
  std::vector<std::int64_t> xs;
  if (multiplier == 0) return {-1000, 0, 1000};
  for (auto t : targets_times_16) {
    // x = floor(t/16 * 2^(31 - shift) / M), clamped to int32
    const ref::Rat v = ref::Rat(t, 16) * ref::pow2r(31 - shift) / ref::Rat(multiplier);
    xs.push_back(clamp_i32(ref::round_floor(v)));
  }
  return xs;
}

std::vector<Group> generate_q31(const Q31Convention& c, Rng& rng) {
  Q31Builder b(c);
  std::vector<Group> groups;
  for (const auto& t : kOutTypes) {
    Group g;
    attr::set(g.attributes, Requantize::attr::out_dtype, t.dtype);
    const bool restricted_zp = c.tosa && (t.dtype == DType::I16 || t.dtype == DType::I32);
    if (c.tosa && t.dtype == DType::U8) {
      // TOSA rejects every unsigned output from an int32 input.
      b.add_invalid(g, kOne30, -1, 0, {0, 100, -100}, "invalid_unsigned_output", "uint8 output from int32: ERROR_IF");
      b.add_invalid(g, kOne30, -8, 128, {5000, -5000}, "invalid_unsigned_output", "uint8 output, zp 128: ERROR_IF");
      groups.push_back(std::move(g));
      continue;
    }
    const std::int64_t zp_mid = restricted_zp ? 0 : (t.dtype == DType::U8 ? 128 : 0);
    const std::int64_t zp_odd = restricted_zp ? 0 : (t.dtype == DType::U8 ? 131 : 3);

    // Ties at +-0.5, +-1.5, +-2.5 of the output step, with an even and an odd zero point.
    const std::vector<std::string> ties = {"tie_0_5", "tie_1_5", "tie_2_5"};
    for (std::int64_t zp : {zp_mid, zp_odd}) {
      auto f = ties;
      if (zp % 2 != 0) f.push_back("zp_odd");
      auto f0 = f;
      f0.push_back("shift_0");
      b.add(g, kOne30, 0, zp, {1, -1, 3, -3, 5, -5}, f0, "M = 2^30, shift 0: v = x/2, exact ties");
      b.add(g, kOne30, -3, zp, {8, -8, 24, -24, 40, -40}, f, "M = 2^30, shift -3: v = x/16, exact ties");
      auto f1 = f;
      f1.push_back("shift_right_1");
      b.add(g, kOne30 / 2, -1, zp, {4, -4, 12, -12, 20, -20}, f1, "M = 2^29, shift -1: v = x/8, exact ties");
    }
    b.add(g, kOne30, -31, zp_mid, {kI32Min, kI32Max, -(1LL << 31) + 1, 1LL << 30},
          {"tie_0_5", "shift_right_31", "mult_2_pow_m32"}, "v = x/2^32: INT32_MIN is the tie -0.5");

    // INT32 extremes with several scalings.
    b.add(g, kOne30, -1, zp_mid, {kI32Min, kI32Max, kI32Min + 1, kI32Max - 1}, {"shift_right_1"},
          "v = x/4 at the int32 extremes");
    b.add(g, kI32Max, -24, zp_mid, {kI32Min, kI32Max, 0}, {}, "M = 2^31-1, shift -24 at the int32 extremes");
    b.add(g, 1518500250, -12, zp_odd, {kI32Min, kI32Max, -1, 1}, {}, "M ~ 2^31/sqrt(2), shift -12");

    // Saturation at both ends (v = x/2), around and far beyond the type's ends.
    if (t.dtype != DType::I32) {
      const std::int64_t hi = 2 * (t.hi - zp_mid), lo = 2 * (t.lo - zp_mid);
      b.add(g, kOne30, 0, zp_mid, {hi - 1, hi, hi + 1, hi + 2, hi + 50, kI32Max}, {"shift_0"},
            "v = x/2 around and beyond the high end");
      b.add(g, kOne30, 0, zp_mid, {lo + 1, lo, lo - 1, lo - 2, lo - 50, kI32Min}, {"shift_0"},
            "v = x/2 around and beyond the low end");
      b.add(g, kOne30 + (3 << 16), 3, zp_odd, {(t.hi - zp_odd) / 4 + 5, (t.lo - zp_odd) / 4 - 5, 1000000, -1000000},
            {"shift_left", "mult_above_one"}, "multiplier ~4: saturation");
    }

    // Right shifts 0, 1, 30, 31 with a generic multiplier.
    const std::vector<std::int64_t> targets = {-4003, -1600, -257, -24, -8, 0, 7, 8, 9, 100, 1601, 4003};
    const struct {
      int shift;
      const char* flag;
    } shifts[] = {{0, "shift_0"}, {-1, "shift_right_1"}, {-30, "shift_right_30"}, {-31, "shift_right_31"}};
    for (const auto& s : shifts) {
      auto xs = accumulators_for(targets, kSqrtHalf, s.shift);
      xs.push_back(kI32Min);
      xs.push_back(kI32Max);
      b.add(g, kSqrtHalf, s.shift, zp_mid, xs, {s.flag}, "M = 23170 * 2^16 ~ 2^31/sqrt(2)");
    }
    // Left shifts: x * 2^shift must fit int32 for double rounding; small accumulators.
    for (int s : {1, 2, 7, 20, 29, 30}) {
      const std::int64_t lim = (1LL << (31 - s)) - 1;
      b.add(g, kSqrtHalf, s, zp_mid, {-lim, -(lim / 3), -1, 0, 1, lim / 5, lim}, {"shift_left", "mult_above_one"},
            "a left shift of the accumulator (x * 2^shift in int32)");
    }

    // Multipliers at the edges.
    b.add(g, kOne30, -30, zp_mid, {kOne30, -kOne30, kI32Max, kI32Min, 3 * (kOne30 / 2), -3 * (kOne30 / 2)},
          {"mult_2_pow_m31", "tie_0_5", "shift_right_30"}, "real multiplier 2^-31 (M = 2^30, shift -30)");
    b.add(g, 1, 0, zp_mid, {kOne30, -kOne30, kI32Max, kI32Min, 3 * (kOne30 / 2)}, {"mult_2_pow_m31", "shift_0"},
          "real multiplier 2^-31 as M = 1, shift 0 (unnormalized)");
    b.add(g, 1 << 16, -16, zp_mid, {kOne30, -kOne30, kI32Max, kI32Min, 3 * (kOne30 / 2)}, {"mult_2_pow_m31"},
          "real multiplier 2^-31 as M = 2^16, shift -16 (representable with a 16-bit multiplier)");
    b.add(g, kI32Max, 0, zp_mid, {0, 1, -1, 2, -2, 3, -3, 255, -255, 65535, kI32Max, kI32Min},
          {"mult_below_one", "shift_0"}, "M = 2^31 - 1: (2^31-1)/2^31");
    b.add(g, kI32Max - 65535, 0, zp_mid, {0, 1, -1, 255, -255, 65535, 100000, kI32Max, kI32Min},
          {"mult_below_one", "shift_0"}, "M = 2^31 - 2^16: the largest 16-bit multiplier below 1");
    {
      std::vector<std::int64_t> xs = {t.lo - zp_mid - 1, t.lo - zp_mid, t.hi - zp_mid, t.hi - zp_mid + 1, 0, 1, -1};
      b.add(g, kOne30, 1, zp_mid, xs, {"mult_one", "shift_left"}, "M = 2^30, shift 1: exactly 1, v = x");
    }
    b.add(g, kOne30 + 1, 8, zp_mid, {0, 1, -1, 100, -100, 8388607, -8388608}, {"mult_above_one", "shift_left"},
          "M = 2^30 + 1, shift 8: 128 * (1 + 2^-30)");
    b.add(g, 0, 0, zp_odd, {kI32Min, -1, 0, 1, kI32Max}, {"mult_zero", "shift_0"}, "M = 0");
    b.add(g, 0, -5, zp_mid, {kI32Min, 12345, kI32Max}, {"mult_zero"}, "M = 0, shift -5");

    // Zero points at both ends of the type.
    if (!restricted_zp) {
      const std::vector<std::int64_t> xs = {-4000, -41, -40, -2, -1, 0, 1, 2, 40, 41, 4000};
      b.add(g, kOne30, -1, t.lo, xs, {"zp_type_min", "shift_right_1"}, "zero point at the type's low end, v = x/4");
      b.add(g, kOne30, -1, t.hi, xs, {"zp_type_max", "shift_right_1"}, "zero point at the type's high end, v = x/4");
    } else {
      b.add_invalid(g, kOne30, -1, 5, {0, 7}, "invalid_zero_point", "output_zp != 0 for an int16/int32 output");
      b.add_invalid(g, kOne30, -1, -1, {0, 7}, "invalid_zero_point", "output_zp != 0 for an int16/int32 output");
    }
    if (c.tosa && t.dtype == DType::I8) {
      b.add_invalid(g, kOne30, -1, 200, {0, 7}, "invalid_zero_point_range", "output_zp 200 does not fit int8");
      b.add_invalid(g, kOne30, -1, -129, {0, 7}, "invalid_zero_point_range", "output_zp -129 does not fit int8");
    }

    // Random cases: normalized multiplier, typical shifts, accumulators aimed at [-300, 300].
    for (int i = 0; i < 70; ++i) {
      const std::int64_t mult = rng.uniform(kOne30, kI32Max);
      const int shift = rng.coin() ? static_cast<int>(rng.uniform(-12, 0)) : static_cast<int>(rng.uniform(-31, 3));
      const std::int64_t zp = restricted_zp ? 0 : rng.uniform(t.lo < -1000 ? -1000 : t.lo, t.hi > 1000 ? 1000 : t.hi);
      // Scaled values v with v + zp in the output range (a few steps beyond it), at most +-300.
      const std::int64_t vlo = std::max<std::int64_t>(-300, t.lo - zp - 4);
      const std::int64_t vhi = std::min<std::int64_t>(300, t.hi - zp + 4);
      std::vector<std::int64_t> tg;
      for (int k = 0; k < 8; ++k) tg.push_back(rng.uniform(vlo * 16, vhi * 16));
      b.add(g, mult, shift, zp, accumulators_for(tg, b.m(mult), shift), {"random"}, "random", true);
    }
    groups.push_back(std::move(g));
  }
  // Output zero points at the int32 extremes, in groups after all others (the earlier tests keep
  // their tcIds); no random draw, so the groups above are as they were.
  if (!c.tosa)
    for (const auto& t : kOutTypes) {
      Group g;
      attr::set(g.attributes, Requantize::attr::out_dtype, t.dtype);
      for (std::int64_t zp : {kI32Min, kI32Max})
        for (const auto& [mult, shift] : kExtremeScales)
          b.add(g, mult, shift, zp,
                extreme_zero_point_accumulators(ref::Rat(mult) * ref::pow2r(shift - 31), zp, t.lo, t.hi),
                {"zp_int32_extreme"},
                std::string("output_zero_point INT32_") + (zp < 0 ? "MIN" : "MAX") + ", M = " + std::to_string(mult) +
                    ", shift " + std::to_string(shift));
      groups.push_back(std::move(g));
    }
  return groups;
}

const Q31Convention kGemmlowp{Requantize::conv::gemmlowp_double_round};
const Q31Convention kTfliteSingle{Requantize::conv::tflite_single_round};
const Q31Convention kTosaSingle{Requantize::conv::tosa_single_round, true};
const Q31Convention kTosaDouble{Requantize::conv::tosa_double_round, true};
const Q31Convention kTosa16{Requantize::conv::tosa_scale16, true, true};
// The per-channel op names the Q31 conventions as the per-tensor one does.
static_assert(PerChannel::conv::gemmlowp_double_round == Requantize::conv::gemmlowp_double_round &&
              PerChannel::conv::tflite_single_round == Requantize::conv::tflite_single_round &&
              PerChannel::conv::tosa_single_round == Requantize::conv::tosa_single_round &&
              PerChannel::conv::tosa_double_round == Requantize::conv::tosa_double_round);

QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(kGemmlowp.name, with_extreme_note(kQ31Notes), 3001,
                                                [](Rng& r) { return generate_q31(kGemmlowp, r); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(kTfliteSingle.name, with_extreme_note(kQ31Notes), 3002,
                                                [](Rng& r) { return generate_q31(kTfliteSingle, r); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(kTosaSingle.name, kQ31Notes, 3003,
                                                [](Rng& r) { return generate_q31(kTosaSingle, r); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(kTosaDouble.name, kQ31Notes, 3004,
                                                [](Rng& r) { return generate_q31(kTosaDouble, r); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(kTosa16.name, kQ31Notes, 3005,
                                                [](Rng& r) { return generate_q31(kTosa16, r); }));

// ---------------------------------------------------------------------------------------------
// op "requantize_per_channel"
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kPerChannelNotes = {
    {"per_channel_axis_last", "channels along the last dimension (TFLite conv/FC, TOSA per_channel)"},
    {"per_channel_axis_first", "channels along the first dimension (gemmlowp ...PC<VectorShape::Col>: one per row)"},
    {"per_channel_zero_multiplier", "one channel has multiplier 0 (a zero filter scale): it outputs sat(zero point)"},
    {"shift_left", "at least one channel has shift > 0"},
    {"tie_0_5", "exact ties at +-0.5 of the output step in some channel"},
    {"saturate_both", "values saturating at both ends of out_dtype"},
    {"random", "random multipliers, shifts and accumulators"},
};

// A group of out_dtype t with output zero points INT32_MIN and INT32_MAX: one channel per (M, shift)
// of kExtremeScales along the last axis, each with as many of its valid accumulators (the per-tensor
// op's REQUIREs, the same per channel) as the channel with the fewest has, spread over its list.
Group per_channel_extreme_zero_points(const Q31Convention& c, const DtypeInfo& t) {
  Group g;
  attr::set(g.attributes, PerChannel::attr::out_dtype, t.dtype);
  for (std::int64_t zp : {kI32Min, kI32Max}) {
    std::vector<std::vector<std::int64_t>> valid;
    std::vector<std::int64_t> ms, ss;
    for (const auto& [mult, shift] : kExtremeScales) {
      ordered_json one;
      attr::set(one, Requantize::attr::out_dtype, t.dtype);
      attr::set(one, Requantize::attr::multiplier, mult);
      attr::set(one, Requantize::attr::shift, shift);
      attr::set(one, Requantize::attr::output_zero_point, zp);
      auto& v = valid.emplace_back();
      for (auto x : extreme_zero_point_accumulators(ref::Rat(mult) * ref::pow2r(shift - 31), zp, t.lo, t.hi))
        if (classify(Requantize::op, c.name, one, {scalar_vector(std::string(Requantize::in::x), DType::I32, {x})}) ==
            Verdict::Valid)
          v.push_back(x);
      ms.push_back(mult);
      ss.push_back(shift);
    }
    std::size_t rows = valid[0].size();
    for (const auto& v : valid) rows = std::min(rows, v.size());
    if (rows == 0) continue;
    const auto channels = static_cast<std::int64_t>(valid.size());
    std::vector<std::int64_t> xs;
    for (std::size_t r = 0; r < rows; ++r)
      for (const auto& v : valid) xs.push_back(v[r * v.size() / rows]);
    Test test;
    test.comment = std::string("output_zero_point INT32_") + (zp < 0 ? "MIN" : "MAX") + ", " +
                   std::to_string(channels) + " channels of real multipliers ~1, ~2, 1/4, ~2^-12.5";
    test.flags = {"per_channel_axis_last", "zp_int32_extreme"};
    test.inputs = {tensor(std::string(PerChannel::in::x), DType::I32, {static_cast<std::int64_t>(rows), channels}, xs)};
    attr::set(test.attributes, PerChannel::attr::multiplier, ms);
    attr::set(test.attributes, PerChannel::attr::shift, ss);
    attr::set(test.attributes, PerChannel::attr::axis, 1);
    attr::set(test.attributes, PerChannel::attr::output_zero_point, zp);
    if (classify(PerChannel::op, c.name, merge_attributes(g.attributes, test.attributes), test.inputs) !=
        Verdict::Valid)
      throw std::logic_error("vecgen requantize_per_channel: an extreme zero point draw is not valid");
    g.tests.push_back(std::move(test));
  }
  return g;
}

std::vector<Group> generate_per_channel(const Q31Convention& c, Rng& rng) {
  std::vector<Group> groups;
  for (const auto& t : kOutTypes) {
    if (c.tosa && t.dtype == DType::U8) continue;  // ERROR_IF; covered by the per-tensor family
    Group g;
    attr::set(g.attributes, PerChannel::attr::out_dtype, t.dtype);
    const std::int64_t zp = (c.tosa && t.dtype != DType::I8) ? 0 : (t.dtype == DType::U8 ? 128 : -3);
    auto add = [&](std::vector<std::int64_t> shape, int axis, std::vector<std::int64_t> ms, std::vector<int> ss,
                   std::vector<std::int64_t> xs, std::vector<std::string> flags, const std::string& comment) {
      for (auto& m : ms)
        if (c.scale16) m = (m / 65536) * 65536;
      Test test;
      test.comment = comment;
      test.flags = std::move(flags);
      test.inputs = {tensor(std::string(PerChannel::in::x), DType::I32, shape, xs)};
      attr::set(test.attributes, PerChannel::attr::multiplier, ms);
      attr::set(test.attributes, PerChannel::attr::shift, std::vector<std::int64_t>(ss.begin(), ss.end()));
      attr::set(test.attributes, PerChannel::attr::axis, axis);
      attr::set(test.attributes, PerChannel::attr::output_zero_point, zp);
      const auto verdict =
          classify(PerChannel::op, c.name, merge_attributes(g.attributes, test.attributes), test.inputs);
      if (verdict == Verdict::Valid) g.tests.push_back(std::move(test));
      return verdict == Verdict::Valid;
    };
    // Ties in each channel, one channel with a zero multiplier.
    add({2, 3}, 1, {kOne30, 0, kOne30 / 2}, {0, -2, -1}, {1, 5, 4, -1, -5, -4},
        {"per_channel_axis_last", "per_channel_zero_multiplier", "tie_0_5"},
        "channel 0: v = x/2; channel 1: M = 0; channel 2: v = x/8");
    if (!c.tosa)  // TOSA's per_channel RESCALE always uses the last dimension
      add({3, 2}, 0, {kOne30, 1518500250, 0}, {0, -4, 0}, {1, -1, 1000, -1000, kI32Max, kI32Min},
          {"per_channel_axis_first", "per_channel_zero_multiplier", "tie_0_5"}, "one multiplier per row");
    add({2, 4}, 1, {kOne30, kOne30 + 7, kI32Max, 1518500250}, {1, 3, 0, -31},
        {3, -3, 100, 50, 70000, -70000, kOne30 - 1, kI32Min}, {"per_channel_axis_last", "shift_left"},
        "left shifts in two channels");
    if (t.dtype != DType::I32)
      add({2, 2}, 1, {kOne30, kOne30}, {0, 0}, {2 * (t.hi - zp) + 10, 2 * (t.lo - zp) - 10, kOne30 - 1, -kOne30},
          {"per_channel_axis_last", "saturate_both"}, "saturation in both channels");
    // Random: retry until the whole tensor lies inside the REQUIREs.
    for (int i = 0; i < 25; ++i) {
      for (int attempt = 0; attempt < 20; ++attempt) {
        const int channels = static_cast<int>(rng.uniform(1, 5));
        const int rows = static_cast<int>(rng.uniform(1, 3));
        std::vector<std::int64_t> ms;
        std::vector<int> ss;
        for (int k = 0; k < channels; ++k) {
          ms.push_back(rng.uniform(0, 9) == 0 ? 0 : rng.uniform(kOne30, kI32Max));
          ss.push_back(static_cast<int>(rng.uniform(-14, 1)));
        }
        std::vector<std::int64_t> xs;
        for (int r = 0; r < rows; ++r)
          for (int k = 0; k < channels; ++k) {
            const auto v = accumulators_for({rng.uniform(-300 * 16, 300 * 16)}, ms[k] == 0 ? kOne30 : ms[k], ss[k]);
            xs.push_back(v[0]);
          }
        if (add({rows, channels}, 1, ms, ss, xs, {"per_channel_axis_last", "random"}, "random")) break;
      }
    }
    groups.push_back(std::move(g));
  }
  if (!c.tosa)
    for (const auto& t : kOutTypes) groups.push_back(per_channel_extreme_zero_points(c, t));
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY(family<PerChannel>(kGemmlowp.name, with_extreme_note(kPerChannelNotes), 3011,
                                                [](Rng& r) { return generate_per_channel(kGemmlowp, r); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<PerChannel>(kTfliteSingle.name, with_extreme_note(kPerChannelNotes), 3012,
                                                [](Rng& r) { return generate_per_channel(kTfliteSingle, r); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<PerChannel>(kTosaSingle.name, kPerChannelNotes, 3013,
                                                [](Rng& r) { return generate_per_channel(kTosaSingle, r); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<PerChannel>(kTosaDouble.name, kPerChannelNotes, 3014,
                                                [](Rng& r) { return generate_per_channel(kTosaDouble, r); }));

// ---------------------------------------------------------------------------------------------
// gemmlowp's legacy stage, per tensor and per channel
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kLegacyNotes = {
    {"negative_tie",
     "(x + result_offset) * result_mult_int is an exact negative tie: the code (RoundingDivideByPOT) rounds it away "
     "from zero, the header comment's '+ 2^(shift-1) >> shift' would round it up (errata E-GEMMLOWP-1)"},
    {"positive_tie", "an exact positive tie (both readings round it up)"},
    {"saturate_low", "values below the out_dtype range"},
    {"saturate_high", "values above the out_dtype range"},
    {"shift_0", "result_shift = 0"},
    {"shift_right_1", "result_shift = 1"},
    {"shift_right_31", "result_shift = 31"},
    {"int32_extremes", "x = INT32_MIN / INT32_MAX with result_offset 0 and result_mult_int 1 (no overflow)"},
    {"mult_zero", "result_mult_int = 0 (a zero channel in the per-channel variant)"},
    {"per_channel", "per-channel result_offset and result_mult_int"},
    {"random", "random offsets, small multipliers and shifts, without int32 overflow"},
};

std::vector<Group> generate_legacy(Rng& rng) {
  std::vector<Group> groups;
  for (const auto& t : kOutTypes) {
    Group g;
    attr::set(g.attributes, Requantize::attr::out_dtype, t.dtype);
    auto add = [&](std::int64_t a, std::int64_t m, int r, std::vector<std::int64_t> xs, std::vector<std::string> flags,
                   const std::string& comment) {
      ordered_json attrs;
      attr::set(attrs, Requantize::attr::result_offset, a);
      attr::set(attrs, Requantize::attr::result_mult_int, m);
      attr::set(attrs, Requantize::attr::result_shift, r);
      std::vector<std::int64_t> kept;
      for (auto x : xs)
        if (classify(Requantize::op, Requantize::conv::gemmlowp_legacy_uint8_scale,
                     merge_attributes(g.attributes, attrs),
                     {scalar_vector(std::string(Requantize::in::x), DType::I32, {x})}) == Verdict::Valid)
          kept.push_back(x);
      if (kept.empty()) return;
      Test test;
      test.comment = comment;
      test.flags = std::move(flags);
      test.inputs = {scalar_vector(std::string(Requantize::in::x), DType::I32, kept)};
      test.attributes = attrs;
      g.tests.push_back(std::move(test));
    };
    // (x + 0) * 1 / 2: ties at every odd x. Negative ties separate the code from the comment.
    add(0, 1, 1, {-1, -3, -5, -7}, {"negative_tie", "shift_right_1"}, "x/2 at negative ties");
    add(0, 1, 1, {1, 3, 5, 7}, {"positive_tie", "shift_right_1"}, "x/2 at positive ties");
    add(-10, 3, 2, {8, 6, 4, 2}, {"negative_tie"}, "(x - 10) * 3 / 4: -6/4, -12/4 (not a tie), ...");
    add(5, 1, 0, {0, 100, -100, 250, -133}, {"shift_0"}, "result_shift 0: x + 5");
    add(0, 1, 31, {kI32Min, kI32Max, 1LL << 30, -(1LL << 30), 0}, {"shift_right_31", "int32_extremes", "negative_tie"},
        "x / 2^31: INT32_MIN -> -1, -2^30 is the tie -0.5 -> -1");
    add(0, 1, 4, {kI32Min, kI32Max}, {"int32_extremes", "saturate_low", "saturate_high"}, "x / 16");
    add(7, 0, 3, {kI32Min, 0, kI32Max}, {"mult_zero"}, "result_mult_int 0");
    if (t.dtype != DType::I32)
      add(0, 1, 0, {t.lo - 1, t.lo - 300, t.hi + 1, t.hi + 300}, {"shift_0", "saturate_low", "saturate_high"},
          "x just beyond the range");
    for (int i = 0; i < 60; ++i) {
      const std::int64_t a = rng.uniform(-300, 300);
      const std::int64_t m = rng.uniform(1, 3000);
      const int r = static_cast<int>(rng.uniform(0, 16));
      std::vector<std::int64_t> xs;
      for (int k = 0; k < 8; ++k) xs.push_back(rng.uniform(-200000, 200000));
      add(a, m, r, xs, {"random"}, "random");
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

std::vector<Group> generate_legacy_pc(Rng& rng) {
  std::vector<Group> groups;
  for (const auto& t : kOutTypes) {
    Group g;
    attr::set(g.attributes, PerChannel::attr::out_dtype, t.dtype);
    auto add = [&](std::vector<std::int64_t> shape, int axis, std::vector<std::int64_t> a, std::vector<std::int64_t> m,
                   int r, std::vector<std::int64_t> xs, std::vector<std::string> flags) {
      Test test;
      test.comment = "per-channel legacy stage";
      test.flags = std::move(flags);
      test.inputs = {tensor(std::string(PerChannel::in::x), DType::I32, shape, xs)};
      attr::set(test.attributes, PerChannel::attr::result_offset, a);
      attr::set(test.attributes, PerChannel::attr::result_mult_int, m);
      attr::set(test.attributes, PerChannel::attr::result_shift, r);
      attr::set(test.attributes, PerChannel::attr::axis, axis);
      if (classify(PerChannel::op, PerChannel::conv::gemmlowp_legacy_uint8_scale,
                   merge_attributes(g.attributes, test.attributes), test.inputs) == Verdict::Valid)
        g.tests.push_back(std::move(test));
    };
    add({2, 3}, 1, {0, 10, -3}, {1, 0, 5}, 1, {-1, 9, 2, 3, -20, 1}, {"per_channel", "mult_zero", "negative_tie"});
    add({3, 2}, 0, {0, 1, 2}, {2, 3, 4}, 3, {-2, 2, -5, 5, 1000, -1000}, {"per_channel", "negative_tie"});
    for (int i = 0; i < 20; ++i) {
      const int channels = static_cast<int>(rng.uniform(1, 4));
      std::vector<std::int64_t> a, m, xs;
      for (int k = 0; k < channels; ++k) {
        a.push_back(rng.uniform(-128, 128));
        m.push_back(rng.uniform(0, 2000));
      }
      for (int k = 0; k < 2 * channels; ++k) xs.push_back(rng.uniform(-100000, 100000));
      add({2, channels}, 1, a, m, static_cast<int>(rng.uniform(0, 12)), xs, {"per_channel", "random"});
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(Requantize::conv::gemmlowp_legacy_uint8_scale, kLegacyNotes, 3021,
                                                generate_legacy));
QSPEC_REGISTER_VECTOR_FAMILY(family<PerChannel>(PerChannel::conv::gemmlowp_legacy_uint8_scale, kLegacyNotes, 3022,
                                                generate_legacy_pc));

// ---------------------------------------------------------------------------------------------
// The fixed-point primitives: srdhm and rdbpot
// ---------------------------------------------------------------------------------------------

std::vector<Group> generate_srdhm(Rng& rng) {
  Group g;
  auto add = [&](std::vector<std::int64_t> a, std::vector<std::int64_t> b, std::vector<std::string> flags,
                 const std::string& comment) {
    Test t;
    t.comment = comment;
    t.flags = std::move(flags);
    t.inputs = {scalar_vector(std::string(cat::srdhm::in::a), DType::I32, a),
                scalar_vector(std::string(cat::srdhm::in::b), DType::I32, b)};
    g.tests.push_back(std::move(t));
  };
  add({kI32Min, kI32Min, kI32Max, kI32Max}, {kI32Min, kI32Max, kI32Min, kI32Max}, {"saturate", "int32_extremes"},
      "the one saturating product, and its neighbours");
  add({7, 1, 3, 5, 2147483647}, {kOne30, kOne30, kOne30, kOne30, 1}, {"tie_positive"},
      "7*2^30/2^31 = 3.5 -> 4; 0.5 -> 1; 1.5 -> 2; 2.5 -> 3; (2^31-1)/2^31 -> 1");
  add({-7, -1, -3, -5, kI32Min}, {kOne30, kOne30, kOne30, kOne30, 1}, {"tie_negative"},
      "-3.5 -> -3; -0.5 -> 0; -1.5 -> -1; -2.5 -> -2; -2^31/2^31 = -1");
  add({0, kI32Min, 0, kOne30}, {kI32Min, 0, 0, kOne30}, {"int32_extremes"}, "zeros and 2^30*2^30");
  for (int i = 0; i < 100; ++i) {
    std::vector<std::int64_t> a, b;
    for (int k = 0; k < 8; ++k) {
      a.push_back(rng.uniform(kI32Min, kI32Max));
      b.push_back(rng.coin() ? rng.uniform(kI32Min, kI32Max) : rng.uniform(-70000, 70000));
    }
    add(a, b, {"random"}, "random");
  }
  return {g};
}

std::vector<Group> generate_rdbpot(Rng& rng) {
  Group g;
  for (int e = 0; e <= 31; ++e) {
    std::vector<std::int64_t> xs = {kI32Min, kI32Max, 0, 1, -1};
    if (e >= 1) {
      const std::int64_t half = 1LL << (e - 1);
      for (std::int64_t k : {1, 3, 5}) {
        if (k * half <= kI32Max) xs.push_back(k * half);
        if (-k * half >= kI32Min) xs.push_back(-k * half);
      }
      xs.push_back(half - 1);
      xs.push_back(-(half - 1));
      if (half + 1 <= kI32Max) xs.push_back(half + 1);
      if (-(half + 1) >= kI32Min) xs.push_back(-(half + 1));
    }
    for (int k = 0; k < 6; ++k) xs.push_back(rng.uniform(kI32Min, kI32Max));
    Test t;
    t.comment = "exponent " + std::to_string(e) + ": extremes, exact ties (2k+1)*2^(e-1) of both signs, neighbours";
    t.flags = {"int32_extremes", "random"};
    if (e >= 1) {
      t.flags.push_back("tie_positive");
      t.flags.push_back("tie_negative");
    }
    if (e == 0) t.flags.push_back("exponent_0");
    if (e == 31) t.flags.push_back("exponent_31");
    t.inputs = {scalar_vector(std::string(cat::rdbpot::in::x), DType::I32, xs)};
    attr::set(t.attributes, cat::rdbpot::attr::exponent, e);
    g.tests.push_back(std::move(t));
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::srdhm>(cat::srdhm::conv::gemmlowp,
                                                {{"saturate", "a == b == INT32_MIN: the only saturating product"},
                                                 {"int32_extremes", "operands at the int32 extremes or zero"},
                                                 {"tie_positive", "a*b/2^31 is an exact positive tie (rounds up)"},
                                                 {"tie_negative",
                                                  "a*b/2^31 is an exact negative tie (rounds up, toward zero)"},
                                                 {"random", "random operands"}},
                                                3031, generate_srdhm));
QSPEC_REGISTER_VECTOR_FAMILY(family<cat::rdbpot>(cat::rdbpot::conv::gemmlowp,
                                                 {{"int32_extremes", "x = INT32_MIN / INT32_MAX / 0 / +-1"},
                                                  {"tie_positive", "x/2^e is an exact positive tie (rounds away: up)"},
                                                  {"tie_negative",
                                                   "x/2^e is an exact negative tie (rounds away: down)"},
                                                  {"exponent_0", "exponent 0: the identity"},
                                                  {"exponent_31", "exponent 31, the largest allowed"},
                                                  {"random", "random accumulators"}},
                                                 3032, generate_rdbpot));

// ---------------------------------------------------------------------------------------------
// op "quantize_multiplier"
// ---------------------------------------------------------------------------------------------

// float64 bit patterns of the edge multipliers.
using QM = cat::quantize_multiplier;

constexpr std::uint64_t kD_Zero = 0x0000000000000000ull;
constexpr std::uint64_t kD_NegZero = 0x8000000000000000ull;
constexpr std::uint64_t kD_One = 0x3ff0000000000000ull;
constexpr std::uint64_t kD_Half = 0x3fe0000000000000ull;
constexpr std::uint64_t kD_BelowOne = 0x3fefffffffffffffull;            // 1 - 2^-53: carries to (2^30, 1)
constexpr std::uint64_t kD_2m31 = 0x3e00000000000000ull;                // 2^-31
constexpr std::uint64_t kD_2m32 = 0x3df0000000000000ull;                // 2^-32: kept as (2^30, -31)
constexpr std::uint64_t kD_2m32_minus_2m64 = 0x3defffffffe00000ull;     // 2^-32 - 2^-64: carries, kept
constexpr std::uint64_t kD_BelowFlush = 0x3defffffffdfffffull;          // the next double below: flushed
constexpr std::uint64_t kD_2m33 = 0x3de0000000000000ull;                // 2^-33: flushed
constexpr std::uint64_t kD_Tie = 0x3fe0000000200000ull;                 // 0.5 + 2^-32: q*2^31 = 2^30 + 1/2
constexpr std::uint64_t kD_2p30 = 0x41d0000000000000ull;                // 2^30: single rounding saturates
constexpr std::uint64_t kD_2p30_minus_quarter = 0x41cfffffffe00000ull;  // 2^30 - 1/4: carries to shift 31
constexpr std::uint64_t kD_Max = 0x7fefffffffffffffull;                 // DBL_MAX
constexpr std::uint64_t kD_MinSub = 0x0000000000000001ull;              // smallest subnormal
constexpr std::uint64_t kD_Neg = 0xbfe0000000000000ull;                 // -0.5

std::int64_t as_stored(std::uint64_t bits) { return static_cast<std::int64_t>(bits); }

std::vector<Group> generate_quantize_multiplier(Rng& rng) {
  Group g;
  auto add = [&](std::vector<std::uint64_t> bits, std::vector<std::string> flags, const std::string& comment,
                 bool invalid = false) {
    std::vector<std::int64_t> stored;
    for (auto b : bits) stored.push_back(as_stored(b));
    Test t;
    t.comment = comment;
    t.flags = std::move(flags);
    t.inputs = {scalar_vector(std::string(QM::in::real_multiplier), DType::F64, stored)};
    t.invalid = invalid;
    g.tests.push_back(std::move(t));
  };
  add({kD_Zero, kD_NegZero}, {"zero"}, "0 and -0 give (0, 0)");
  add({kD_Half, kD_One, kD_BelowOne}, {"carry"}, "0.5, 1, and 1 - 2^-53 (rounds to 2^31: carry)");
  add({kD_2m31, kD_2m32, kD_2m32_minus_2m64}, {"tiny_kept"}, "2^-31, 2^-32, 2^-32 - 2^-64 (carry): not flushed");
  add({kD_BelowFlush, kD_2m33, kD_MinSub}, {"tiny_flushed"}, "below 2^-32 - 2^-64: flushed to (0, 0)");
  add({kD_Tie}, {"tie"}, "0.5 + 2^-32: q*2^31 = 2^30 + 1/2 exactly (std::round: up; IntegerFrExp: down)");
  add({kD_2p30, kD_2p30_minus_quarter, kD_Max}, {"large"}, "2^30, 2^30 - 1/4, DBL_MAX: single rounding saturates");
  add({kD_Neg}, {"negative"}, "negative multiplier: ERROR_IF", true);
  add({kD_Half, kD_Neg}, {"negative"}, "one negative element makes the test invalid", true);
  for (int i = 0; i < 60; ++i) {
    std::vector<std::uint64_t> bits;
    for (int k = 0; k < 8; ++k) {
      // exponent field spread over [2^-40, 2^12), random fraction bits
      const std::uint64_t e = static_cast<std::uint64_t>(rng.uniform(1023 - 40, 1023 + 11));
      bits.push_back((e << 52) | (rng.next() & 0x000fffffffffffffull));
    }
    add(bits, {"random"}, "random");
  }
  // Exact ties of the 22 discarded bits (default and emulated builds part).
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t e = static_cast<std::uint64_t>(rng.uniform(1023 - 20, 1023 + 5));
    const std::uint64_t top30 = rng.next() & 0x000fffffffc00000ull;
    add({(e << 52) | top30 | 0x200000ull}, {"tie"}, "discarded 22 fraction bits are exactly one half");
  }
  return {g};
}

const std::vector<std::pair<std::string, std::string>> kQuantizeMultiplierNotes = {
    {"zero", "+0.0 and -0.0"},
    {"carry", "the rounded Q31 fraction equals 2^31 and carries into the exponent (or sits just below)"},
    {"tiny_kept", "tiny multipliers that are NOT flushed (shift = -31 after any carry)"},
    {"tiny_flushed", "multipliers below 2^-32 - 2^-64: shift < -31, flushed to (0, 0)"},
    {"tie", "q*2^31 has fractional part exactly 1/2"},
    {"large", "multipliers >= 2^30 - 1/4: the single-rounding build saturates to (2^31 - 1, 30)"},
    {"negative", "a negative multiplier: ERROR_IF (invalid test)"},
    {"random", "random positive doubles between 2^-40 and 2^12"},
};

QSPEC_REGISTER_VECTOR_FAMILY(family<QM>(QM::conv::tflite_quantize_multiplier, kQuantizeMultiplierNotes, 3041,
                                        generate_quantize_multiplier));
QSPEC_REGISTER_VECTOR_FAMILY(family<QM>(QM::conv::tflite_quantize_multiplier_single_round, kQuantizeMultiplierNotes,
                                        3042, generate_quantize_multiplier));
QSPEC_REGISTER_VECTOR_FAMILY(family<QM>(QM::conv::tflite_quantize_multiplier_emulate_float, kQuantizeMultiplierNotes,
                                        3043, generate_quantize_multiplier));

std::vector<Group> generate_gemmlowp_quantize_multiplier(Rng& rng) {
  Group g;
  auto add = [&](std::vector<std::int64_t> bits, std::vector<std::string> flags, const std::string& comment) {
    Test t;
    t.comment = comment;
    t.flags = std::move(flags);
    t.inputs = {scalar_vector(std::string(QM::in::real_multiplier), DType::F32, bits)};
    g.tests.push_back(std::move(t));
  };
  add({0x3f000000, 0x3f7fffff, 0x3e800000}, {"edge"}, "0.5, 1 - 2^-24 (the largest float below 1), 0.25");
  add({0x30000000, 0x00800000, 0x00000001, 0x007fffff}, {"tiny"},
      "2^-31, FLT_MIN, the smallest subnormal, the largest subnormal: exact, large right shifts");
  for (int i = 0; i < 40; ++i) {
    std::vector<std::int64_t> bits;
    for (int k = 0; k < 8; ++k) {
      const std::int64_t e = rng.uniform(127 - 40, 126);  // [2^-40, 1)
      bits.push_back((e << 23) | rng.uniform(0, (1 << 23) - 1));
    }
    add(bits, {"random"}, "random floats in (0, 1)");
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<QM>(QM::conv::gemmlowp_quantize_multiplier_smaller_than_one,
                                        {{"edge", "0.5, the largest float below 1, 0.25"},
                                         {"tiny", "2^-31, FLT_MIN and subnormals: right shifts beyond 31"},
                                         {"random", "random floats in [2^-40, 1)"}},
                                        3044, generate_gemmlowp_quantize_multiplier));

}  // namespace
}  // namespace qspec::vecgen
