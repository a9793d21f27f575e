// Golden-vector families for Glow: the two rescale implementations and Glow's own ops.
//
// (Glow's quantize / dequantize families share the float vocabulary's generators in
// float_conventions.cc.) Expected outputs come from the reference ops; the reference is used here
// only to keep inputs inside the REQUIREs and to set descriptive flags.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/glow.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/float_helpers.h"

namespace qspec::vecgen {
namespace {

using nlohmann::ordered_json;
using ref::Int;
using ref::Rat;

float fval(std::uint32_t b) {
  float f;
  __builtin_memcpy(&f, &b, sizeof f);
  return f;
}
// A float32 v = k / 2^d, exact for |k| < 2^24.
std::uint32_t dyadic(std::int64_t k, int d) { return ref::f32_round(Rat(k) * ref::pow2r(-d)); }

// Adds a test of Op's convention glow if the reference accepts it as wanted (valid, or rejected
// with ERROR_IF).
template <class Op>
void push(Group& g, const ordered_json& attrs, std::vector<Tensor> inputs, std::vector<std::string> flags,
          const std::string& comment, bool invalid = false) {
  const Verdict v = classify(Op::op, Op::conv::glow, merge_attributes(g.attributes, attrs), inputs);
  if (v == Verdict::OutsideRequire || (v == Verdict::Invalid) != invalid) return;
  Test t;
  t.comment = comment;
  t.flags = dedup(std::move(flags));
  t.inputs = std::move(inputs);
  t.attributes = attrs;
  t.invalid = invalid;
  g.tests.push_back(std::move(t));
}

// ---------------------------------------------------------------------------------------------
// op "requantize", conventions glow.cpu_rescale / glow.interpreter_rescale
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kRescaleNotes = {
    {"all_codes", "every int8 input code in one tensor"},
    {"int32_input", "int32 inputs (accumulators rescaled to int8, as libjit does for matmul / bias)"},
    {"power_of_two_up", "in_scale / out_scale = 2^e, e > 0: a plain integer multiply on the CPU"},
    {"power_of_two_down", "in_scale / out_scale = 2^-e: a rounding right shift on the CPU"},
    {"equal_scales", "in_scale == out_scale"},
    {"pre_shift", "the CPU transform pre-shifts the input (pre > 0), discarding low bits before the multiply"},
    {"cpu_vs_interpreter", "the CPU integer rescale and the Interpreter's float rescale disagree on this test"},
    {"differs_from_exact",
     "the result differs from sat(half_even((x - zp_in) * in / out) + zp_out) on exact rationals"},
    {"saturate_low", "an element clips at -128"},
    {"saturate_high", "an element clips at 127"},
    {"zp_odd", "an odd output zero point"},
    {"random", "random scales, zero points and codes"},
};

using Requantize = cat::requantize;

ordered_json rescale_attrs(std::uint32_t in_s, std::int64_t in_zp, std::uint32_t out_s, std::int64_t out_zp) {
  ordered_json a;
  attr::set(a, Requantize::attr::input_scale, in_s);
  attr::set(a, Requantize::attr::input_zero_point, in_zp);
  attr::set(a, Requantize::attr::output_scale, out_s);
  attr::set(a, Requantize::attr::output_zero_point, out_zp);
  return a;
}

// The family of `conv`; `other` is the other rescale, whose disagreements are flagged.
std::vector<Group> generate_rescale(std::string_view conv, std::string_view other, Rng& rng) {
  Group g;
  attr::set(g.attributes, Requantize::attr::out_dtype, DType::I8);
  auto add = [&](DType in_t, std::uint32_t in_s, std::int64_t in_zp, std::uint32_t out_s, std::int64_t out_zp,
                 const std::vector<std::int64_t>& xs, std::vector<std::string> flags, const std::string& comment) {
    const ordered_json attrs = rescale_attrs(in_s, in_zp, out_s, out_zp);
    const ordered_json all = merge_attributes(g.attributes, attrs);
    std::vector<std::int64_t> kept;
    bool differ = false;
    for (auto x : xs) {
      std::vector<Tensor> y, y2;
      if (classify(Requantize::op, conv, all, {scalar_vector(std::string(Requantize::in::x), in_t, {x})}, &y) !=
          Verdict::Valid)
        continue;
      kept.push_back(x);
      const Rat real = Rat(x - in_zp) * ref::f32_value(in_s) / ref::f32_value(out_s) + out_zp;
      const Int yv(y[0].data[0]);
      if (yv == 127 && real >= 128) flags.push_back("saturate_high");
      if (yv == -128 && real <= -129) flags.push_back("saturate_low");
      if (yv != ref::saturate(ref::round_half_even(real), ref::DType::I8)) flags.push_back("differs_from_exact");
      if (classify(Requantize::op, other, all, {scalar_vector(std::string(Requantize::in::x), in_t, {x})}, &y2) ==
              Verdict::Valid &&
          y2[0].data != y[0].data)
        differ = true;
    }
    if (kept.empty()) return;
    if (differ) flags.push_back("cpu_vs_interpreter");
    const std::uint32_t ratio = ref::f32_div(in_s, out_s);
    const auto p = ref::glow_rescale_params(ratio);
    if (p.pre > 0) flags.push_back("pre_shift");
    if (p.scale == 1 && p.post > 0) flags.push_back("power_of_two_down");
    if (p.pre == 0 && p.post == 0 && p.scale > 1) flags.push_back("power_of_two_up");
    if (in_s == out_s) flags.push_back("equal_scales");
    if (out_zp % 2 != 0) flags.push_back("zp_odd");
    if (in_t == DType::I32) flags.push_back("int32_input");
    Test t;
    t.comment = comment;
    t.flags = dedup(flags);
    t.inputs = {scalar_vector(std::string(Requantize::in::x), in_t, kept)};
    t.attributes = attrs;
    g.tests.push_back(std::move(t));
  };
  std::vector<std::int64_t> codes;
  for (std::int64_t q = -128; q <= 127; ++q) codes.push_back(q);
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs = {
      {f32(0.41f), f32(1.0f)}, {f32(1.0f), f32(4.0f)},  {f32(4.0f), f32(1.0f)},   {f32(0.3f), f32(0.3f)},
      {f32(0.1f), f32(0.3f)},  {f32(0.5f), f32(0.17f)}, {f32(0.02f), f32(0.05f)}, {f32(1.0f), f32(1.5f)}};
  for (const auto& [in_s, out_s] : pairs)
    for (std::int64_t in_zp : {0, -3, 127})
      for (std::int64_t out_zp : {0, 5, -128, 127})
        add(DType::I8, in_s, in_zp, out_s, out_zp, codes, {"all_codes"}, "all int8 codes");
  // int32 accumulators with small ratios (pre-shifted on the CPU).
  for (const auto& [in_s, out_s] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {f32(1e-4f), f32(0.05f)}, {f32(1e-5f), f32(0.01f)}, {f32(0.001f), f32(1.0f)}, {f32(0x1p-12f), f32(1.0f)}})
    for (std::int64_t out_zp : {0, 3}) {
      std::vector<std::int64_t> xs;
      for (std::int64_t k : {-300000, -60000, -1001, -1, 0, 1, 999, 65535, 300000, 1 << 20, -(1 << 20)})
        xs.push_back(k);
      add(DType::I32, in_s, 0, out_s, out_zp, xs, {}, "int32 accumulators, small ratio");
    }
  for (int i = 0; i < 210; ++i) {
    const std::uint32_t in_s = random_scale(rng, -10, 0), out_s = random_scale(rng, -10, 0);
    std::vector<std::int64_t> xs;
    for (int k = 0; k < 4; ++k) xs.push_back(rng.uniform(-128, 127));
    add(DType::I8, in_s, rng.uniform(-128, 127), out_s, rng.uniform(-128, 127), xs, {"random"}, "random");
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(Requantize::conv::glow_cpu_rescale, kRescaleNotes, 8701, [](Rng& rng) {
  return generate_rescale(Requantize::conv::glow_cpu_rescale, Requantize::conv::glow_interpreter_rescale, rng);
}));
QSPEC_REGISTER_VECTOR_FAMILY(family<Requantize>(Requantize::conv::glow_interpreter_rescale, kRescaleNotes, 8702,
                                                [](Rng& rng) {
                                                  return generate_rescale(Requantize::conv::glow_interpreter_rescale,
                                                                          Requantize::conv::glow_cpu_rescale, rng);
                                                }));

// ---------------------------------------------------------------------------------------------
// op glow.choose_params
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kChooseNotes = {
    {"degenerate_zero", "min = max = 0: scale 0 becomes 0.1, offset 0"},
    {"degenerate_nonzero", "min = max != 0: the range is extended to 0"},
    {"all_positive", "min > 0 (or 0): the range is extended down to 0"},
    {"all_negative", "max < 0: the range is extended up to 0"},
    {"symmetric_range", "min = -max"},
    {"tiny_range",
     "|max + min| <= FLT_EPSILON for a range that is not symmetric: the offset is forced to 0 (errata E-GLOW-1)"},
    {"huge_range", "a bound near FLT_MAX (the symmetric extension leaves the float range and is clamped)"},
    {"offset_beyond_2_24", "an int32-precision offset beyond 2^24: not a float32 (errata E-GLOW-4)"},
    {"signed_zero", "a bound is -0.0"},
    {"zero_point_tie", "the initial zero point is exactly k + 1/2: round() ties away from zero"},
    {"random", "random ranges"},
};

std::vector<Group> generate_choose(Rng& rng) {
  using Op = cat::glow_choose_params;
  using schema = Op::attr::schema_is;
  std::vector<Group> groups;
  const struct {
    std::string_view schema;
    DType precision;
  } combos[] = {{schema::asymmetric, DType::I8},
                {schema::asymmetric, DType::U8},
                {schema::asymmetric, DType::I16},
                {schema::asymmetric, DType::I32},
                {schema::symmetric, DType::I8},
                {schema::symmetric, DType::I16},
                {schema::symmetric, DType::I32},
                {schema::symmetric_with_uint8, DType::I8},
                {schema::symmetric_with_uint8, DType::I16}};
  const std::vector<std::pair<std::pair<float, float>, const char*>> fixed = {
      {{0.0f, 0.0f}, "degenerate_zero"}, {{2.5f, 2.5f}, "degenerate_nonzero"}, {{-7.0f, -7.0f}, "degenerate_nonzero"},
      {{1.0f, 2.0f}, "all_positive"},    {{0.0f, 255.0f}, "all_positive"},     {{-1.5f, -0.5f}, "all_negative"},
      {{-255.0f, 0.0f}, "all_negative"}, {{-1.0f, 1.0f}, "symmetric_range"},   {{-3.0f, 3.0f}, "symmetric_range"},
      {{0.0f, 1e-7f}, "tiny_range"},     {{-1e-8f, 5e-8f}, "tiny_range"},      {{-3e38f, 1.0f}, "huge_range"},
      {{-1.0f, 3.4e38f}, "huge_range"},  {{-0.0f, 1.0f}, "signed_zero"},       {{-1.0f, -0.0f}, "signed_zero"},
      {{-3.0f, 1.0f}, nullptr},          {{-0.75f, 0.25f}, nullptr},           {{-100.0f, 27.0f}, nullptr}};
  for (const auto& c : combos) {
    Group g;
    attr::set(g.attributes, Op::attr::schema, c.schema);
    attr::set(g.attributes, Op::attr::precision, c.precision);
    auto add = [&](float lo, float hi, std::vector<std::string> flags, const std::string& comment) {
      std::vector<Tensor> y;
      const std::vector<Tensor> in = {scalar_vector(std::string(Op::in::range), DType::F32, {f32(lo), f32(hi)})};
      if (classify(Op::op, Op::conv::glow, g.attributes, in, &y) != Verdict::Valid) return;
      if (y[1].data[0] > (1 << 24) || y[1].data[0] < -(1 << 24)) flags.push_back("offset_beyond_2_24");
      Test t;
      t.comment = comment;
      t.flags = dedup(flags);
      t.inputs = in;
      g.tests.push_back(std::move(t));
    };
    for (const auto& [r, flag] : fixed) {
      std::vector<std::string> f;
      if (flag) f.push_back(flag);
      add(r.first, r.second, f, "range [" + std::to_string(r.first) + ", " + std::to_string(r.second) + "]");
    }
    // Ranges whose asymmetric zero point is an exact tie: [-(k + 1/2) s, (qmax - qmin - k - 1/2) s]
    // with s = 1 (uint8 / int8): zero_point = qmin + k + 1/2.
    const bool tie_possible = c.schema == schema::asymmetric && (c.precision == DType::I8 || c.precision == DType::U8);
    for (std::int64_t k : {0, 1, 2, 100}) {
      const float lo = -(static_cast<float>(k) + 0.5f);
      std::vector<std::string> f;
      if (tie_possible) f.push_back("zero_point_tie");
      add(lo, 255.0f + lo, f, "range [-(k + 1/2), 255 - (k + 1/2)], k = " + std::to_string(k));
    }
    for (int i = 0; i < 20; ++i) {
      auto one = [&] {
        const float v = fval(random_scale(rng, -20, 12));
        return rng.coin() ? v : -v;
      };
      float a = one(), b = one();
      if (a > b) std::swap(a, b);
      add(a, b, {"random"}, "random");
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY({.op = std::string(cat::glow_choose_params::op),
                              .convention = std::string(cat::glow_choose_params::conv::glow),
                              .notes = kChooseNotes,
                              .seed = 8711,
                              .generate = generate_choose});

// ---------------------------------------------------------------------------------------------
// op glow.bias_params
// ---------------------------------------------------------------------------------------------

std::vector<Group> generate_bias(Rng& rng) {
  using Op = cat::glow_bias_params;
  std::vector<Group> groups;
  for (const DType precision : {DType::I32, DType::I8, DType::I16}) {
    Group g;
    attr::set(g.attributes, Op::attr::precision, precision);
    auto add = [&](std::uint32_t in, std::uint32_t w, std::uint32_t b, std::int64_t off, std::vector<std::string> flags,
                   const std::string& comment) {
      const Rat prod = ref::f32_value(ref::f32_mul(in, w)), bias = ref::f32_value(b);
      flags.push_back(prod > bias ? "product_wins" : (prod == bias ? "equal" : "profile_wins"));
      flags.push_back(precision == DType::I32 ? "int32_offset_forced" : "offset_kept");
      ordered_json attrs;
      attr::set(attrs, Op::attr::bias_offset, off);
      push<Op>(g, attrs, {scalar_vector(std::string(Op::in::scales), DType::F32, {in, w, b})}, flags, comment);
    };
    add(f32(0.5f), f32(0.25f), f32(0.1f), 7, {}, "product 0.125 > 0.1");
    add(f32(0.5f), f32(0.25f), f32(0.2f), 7, {}, "product 0.125 < 0.2");
    add(f32(0.5f), f32(0.25f), f32(0.125f), -3, {}, "product == bias scale");
    add(f32(0.1f), f32(0.1f), f32(0.01f), 0, {}, "fl32(0.1 * 0.1) vs 0.01f");
    for (int i = 0; i < (precision == DType::I32 ? 200 : 60); ++i)
      add(random_scale(rng, -12, 0), random_scale(rng, -12, 0), random_scale(rng, -24, -4), rng.uniform(-100, 100),
          {"random"}, "random");
    groups.push_back(std::move(g));
  }
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY({.op = std::string(cat::glow_bias_params::op),
                              .convention = std::string(cat::glow_bias_params::conv::glow),
                              .notes = {{"product_wins", "input_scale * weights_scale exceeds the profiled bias scale"},
                                        {"profile_wins", "the profiled bias scale is larger and is kept"},
                                        {"equal", "the product equals the profiled bias scale (kept)"},
                                        {"int32_offset_forced", "int32 bias: the offset becomes 0"},
                                        {"offset_kept", "int8 / int16 bias: the profiled offset is kept"},
                                        {"random", "random scales"}},
                              .seed = 8721,
                              .generate = generate_bias});

// ---------------------------------------------------------------------------------------------
// op glow.uint8_to_int8
// ---------------------------------------------------------------------------------------------

std::vector<Group> generate_u8_to_i8(Rng& rng) {
  using Op = cat::glow_uint8_to_int8;
  Group g;
  auto add = [&](std::int64_t zp, std::vector<std::int64_t> xs, std::vector<std::string> flags,
                 const std::string& comment, bool invalid = false) {
    ordered_json attrs;
    attr::set(attrs, Op::attr::zero_point, zp);
    push<Op>(g, attrs, {scalar_vector(std::string(Op::in::x), DType::U8, std::move(xs))}, std::move(flags), comment,
             invalid);
  };
  std::vector<std::int64_t> all;
  for (std::int64_t q = 0; q <= 255; ++q) all.push_back(q);
  for (std::int64_t zp : {0, 128, 255, 1, 127}) add(zp, all, {"all_codes"}, "every uint8 code");
  for (int i = 0; i < 300; ++i) {
    std::vector<std::int64_t> xs;
    for (int k = 0; k < 4; ++k) xs.push_back(rng.uniform(0, 255));
    add(rng.uniform(0, 255), xs, {"random"}, "random");
  }
  add(256, {1, 2}, {"invalid_zero_point"}, "zero point 256", true);
  add(-1, {1, 2}, {"invalid_zero_point"}, "zero point -1", true);
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY({.op = std::string(cat::glow_uint8_to_int8::op),
                              .convention = std::string(cat::glow_uint8_to_int8::conv::glow),
                              .notes = {{"all_codes", "every uint8 code"},
                                        {"random", "random codes and zero points"},
                                        {"invalid_zero_point", "ERROR_IF: a Caffe2 uint8 zero point outside [0, 255]"}},
                              .seed = 8731,
                              .generate = generate_u8_to_i8});

// ---------------------------------------------------------------------------------------------
// row-wise and fused row-wise
// ---------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>> kRowNotes = {
    {"degenerate_row", "a row whose values are all equal"},
    {"all_positive_row", "a row of positive values"},
    {"all_negative_row", "a row of negative values"},
    {"symmetric_row", "a row with min = -max"},
    {"tie_row", "a row whose quotients (x - offset) / scale include exact half-integers"},
    {"byte_range_row", "a row spanning [0, 255] exactly: scale 1"},
    {"tiny_row", "a row with max - min below 1e-10 (fused: scale 1) or below FLT_EPSILON (E-GLOW-1)"},
    {"random", "random rows"},
    {"invalid_shape", "ERROR_IF: the input is not a [rows, cols] matrix (or not cols + 8 bytes wide)"},
    {"invalid_row_params", "ERROR_IF: the number of row scales / offsets differs from the number of rows"},
};

// The input x (every row-wise op calls it x) holding a float32 matrix.
Tensor matrix(const std::vector<std::vector<float>>& rows) {
  static_assert(cat::glow_rowwise_quantize::in::x == cat::glow_fused_rowwise_quantize::in::x);
  Tensor t{std::string(cat::glow_rowwise_quantize::in::x),
           DType::F32,
           {static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(rows[0].size())},
           {}};
  for (const auto& r : rows)
    for (float v : r) t.data.push_back(f32(v));
  return t;
}

std::vector<std::vector<float>> random_rows(Rng& rng, int nrows, int ncols) {
  std::vector<std::vector<float>> rows(static_cast<std::size_t>(nrows));
  for (auto& r : rows) {
    const int e = static_cast<int>(rng.uniform(-10, 6));
    const std::int64_t base = rng.uniform(-1000, 1000);
    for (int j = 0; j < ncols; ++j) r.push_back(fval(dyadic(base + rng.uniform(-4000, 4000), 10 - e)));
  }
  return rows;
}

std::vector<std::vector<std::vector<float>>> special_matrices() {
  return {
      {{3.0f, 3.0f, 3.0f}, {-2.0f, -2.0f, -2.0f}},        {{0.0f, 17.0f, 255.0f}, {1.0f, 2.0f, 3.0f}},
      {{-5.0f, -1.0f, -3.0f}, {-1.0f, 0.0f, 1.0f}},       {{0.0f, 0.5f, 1.5f, 255.0f}, {0.0f, 2.5f, 100.5f, 255.0f}},
      {{1e-12f, 2e-12f, 1.5e-12f}, {0.0f, 1e-8f, 5e-8f}},
  };
}
const std::vector<std::vector<std::string>> kSpecialFlags = {{"degenerate_row"},
                                                             {"byte_range_row", "all_positive_row"},
                                                             {"all_negative_row", "symmetric_row"},
                                                             {"tie_row", "byte_range_row"},
                                                             {"tiny_row"}};

std::vector<Group> generate_rowwise_quantize(Rng& rng) {
  using Op = cat::glow_rowwise_quantize;
  using schema = Op::attr::schema_is;
  std::vector<Group> groups;
  for (const std::string_view s : {schema::asymmetric, schema::symmetric, schema::symmetric_with_uint8}) {
    Group g;
    attr::set(g.attributes, Op::attr::schema, s);
    const auto specials = special_matrices();
    for (std::size_t i = 0; i < specials.size(); ++i)
      push<Op>(g, ordered_json::object(), {matrix(specials[i])}, kSpecialFlags[i], "special rows");
    for (int i = 0; i < 100; ++i)
      push<Op>(g, ordered_json::object(), {matrix(random_rows(rng, static_cast<int>(rng.uniform(1, 3)), 4))},
               {"random"}, "random rows");
    push<Op>(g, ordered_json::object(), {scalar_vector(std::string(Op::in::x), DType::F32, {f32(1.0f), f32(2.0f)})},
             {"invalid_shape"}, "a vector, not a matrix", true);
    groups.push_back(std::move(g));
  }
  return groups;
}

std::vector<Group> generate_rowwise_dequantize(Rng& rng) {
  using Op = cat::glow_rowwise_dequantize;
  Group g;
  auto add = [&](std::int64_t rows, std::int64_t cols, std::vector<std::int64_t> data,
                 const std::vector<std::uint32_t>& scales, const std::vector<std::int64_t>& offsets,
                 std::vector<std::string> flags, const std::string& comment, bool invalid = false) {
    ordered_json attrs;
    attr::set(attrs, Op::attr::scales, scales);
    attr::set(attrs, Op::attr::offsets, offsets);
    push<Op>(g, attrs, {tensor(std::string(Op::in::x), DType::I8, {rows, cols}, std::move(data))}, flags, comment,
             invalid);
  };
  std::vector<std::int64_t> codes;
  for (std::int64_t q = -128; q <= 127; ++q) codes.push_back(q);
  add(2, 128, codes, {f32(0.1f), f32(2.0f)}, {0, -128}, {"all_codes"}, "every int8 code over two rows");
  add(2, 128, codes, {f32(1e-3f), f32(0.007f)}, {127, 5}, {"all_codes"}, "every int8 code, offsets 127 and 5");
  for (int i = 0; i < 300; ++i) {
    const std::int64_t rows = rng.uniform(1, 3), cols = rng.uniform(1, 4);
    std::vector<std::int64_t> data;
    for (std::int64_t k = 0; k < rows * cols; ++k) data.push_back(rng.uniform(-128, 127));
    std::vector<std::uint32_t> scales;
    std::vector<std::int64_t> offsets;
    for (std::int64_t r = 0; r < rows; ++r) {
      scales.push_back(random_scale(rng, -16, 4));
      offsets.push_back(rng.uniform(-128, 127));
    }
    add(rows, cols, data, scales, offsets, {"random"}, "random");
  }
  add(2, 1, {1, 2}, {f32(1.0f)}, {0}, {"invalid_row_params"}, "one scale for two rows", true);
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY({.op = std::string(cat::glow_rowwise_quantize::op),
                              .convention = std::string(cat::glow_rowwise_quantize::conv::glow),
                              .notes = {kRowNotes[0], kRowNotes[1], kRowNotes[2], kRowNotes[3], kRowNotes[4],
                                        kRowNotes[5], kRowNotes[6], kRowNotes[7], kRowNotes[8]},
                              .seed = 8741,
                              .generate = generate_rowwise_quantize});
QSPEC_REGISTER_VECTOR_FAMILY(
    {.op = std::string(cat::glow_rowwise_dequantize::op),
     .convention = std::string(cat::glow_rowwise_dequantize::conv::glow),
     .notes = {{"all_codes", "every int8 code"}, {"random", "random rows, scales and offsets"}, kRowNotes[9]},
     .seed = 8742,
     .generate = generate_rowwise_dequantize});

std::vector<Group> generate_fused_quantize(Rng& rng) {
  using Op = cat::glow_fused_rowwise_quantize;
  Group g;
  const auto specials = special_matrices();
  for (std::size_t i = 0; i < specials.size(); ++i)
    push<Op>(g, ordered_json::object(), {matrix(specials[i])}, kSpecialFlags[i], "special rows");
  for (int i = 0; i < 300; ++i)
    push<Op>(g, ordered_json::object(), {matrix(random_rows(rng, static_cast<int>(rng.uniform(1, 3)), 5))}, {"random"},
             "random rows");
  push<Op>(g, ordered_json::object(), {scalar_vector(std::string(Op::in::x), DType::F32, {f32(1.0f)})},
           {"invalid_shape"}, "a vector, not a matrix", true);
  return {g};
}

std::vector<Group> generate_fused_dequantize(Rng& rng) {
  using Op = cat::glow_fused_rowwise_dequantize;
  Group g;
  auto add = [&](const std::vector<std::vector<std::int64_t>>& codes, const std::vector<std::pair<float, float>>& so,
                 std::vector<std::string> flags, const std::string& comment) {
    const auto rows = static_cast<std::int64_t>(codes.size()), cols = static_cast<std::int64_t>(codes[0].size());
    std::vector<std::int64_t> data;
    for (std::size_t r = 0; r < codes.size(); ++r) {
      data.insert(data.end(), codes[r].begin(), codes[r].end());
      for (std::uint32_t v : {f32(so[r].first), f32(so[r].second)})
        for (int b = 0; b < 4; ++b) data.push_back((v >> (8 * b)) & 0xff);
    }
    push<Op>(g, ordered_json::object(), {tensor(std::string(Op::in::x), DType::U8, {rows, cols + 8}, data)}, flags,
             comment);
  };
  std::vector<std::int64_t> all;
  for (std::int64_t q = 0; q <= 255; ++q) all.push_back(q);
  add({all}, {{0.01f, -1.0f}}, {"all_codes"}, "every code, scale 0.01, offset -1");
  add({all}, {{1.0f, 0.0f}}, {"all_codes"}, "every code, scale 1, offset 0");
  add({all}, {{0.1f, -0.3f}}, {"all_codes"}, "every code, scale 0.1, offset -0.3 (products round)");
  add({{0, 0, 0}}, {{1.0f, 3.0f}}, {"degenerate_row"}, "a constant row stored with scale 1");
  for (int i = 0; i < 300; ++i) {
    const auto rows = rng.uniform(1, 3), cols = rng.uniform(1, 5);
    std::vector<std::vector<std::int64_t>> codes(static_cast<std::size_t>(rows));
    std::vector<std::pair<float, float>> so;
    for (auto& r : codes) {
      for (std::int64_t c = 0; c < cols; ++c) r.push_back(rng.uniform(0, 255));
      const float s = fval(random_scale(rng, -16, 2));
      const float o = fval(random_scale(rng, -8, 6)) * (rng.coin() ? -1.0f : 1.0f);
      so.push_back({s, o});
    }
    add(codes, so, {"random"}, "random");
  }
  push<Op>(g, ordered_json::object(), {tensor(std::string(Op::in::x), DType::U8, {1, 8}, {0, 0, 128, 63, 0, 0, 0, 0})},
           {"invalid_shape"}, "8 bytes: no data column", true);
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY({.op = std::string(cat::glow_fused_rowwise_quantize::op),
                              .convention = std::string(cat::glow_fused_rowwise_quantize::conv::glow),
                              .notes = {kRowNotes[0], kRowNotes[1], kRowNotes[2], kRowNotes[3], kRowNotes[4],
                                        kRowNotes[5], kRowNotes[6], kRowNotes[7], kRowNotes[8]},
                              .seed = 8751,
                              .generate = generate_fused_quantize});
QSPEC_REGISTER_VECTOR_FAMILY({.op = std::string(cat::glow_fused_rowwise_dequantize::op),
                              .convention = std::string(cat::glow_fused_rowwise_dequantize::conv::glow),
                              .notes = {{"all_codes", "every uint8 code in one row"},
                                        kRowNotes[0],
                                        {"random", "random codes, scales and offsets"},
                                        kRowNotes[8]},
                              .seed = 8752,
                              .generate = generate_fused_dequantize});

// ---------------------------------------------------------------------------------------------
// op glow.rescale_params
// ---------------------------------------------------------------------------------------------

std::vector<Group> generate_rescale_params(Rng& rng) {
  using Op = cat::glow_rescale_params;
  Group g;
  auto add = [&](std::vector<std::int64_t> scales, std::vector<std::string> flags, const std::string& comment) {
    push<Op>(g, ordered_json::object(), {scalar_vector(std::string(Op::in::scale), DType::F32, std::move(scales))},
             flags, comment);
  };
  for (int e = -30; e <= 30; e += 3) add({f32(std::ldexp(1.0f, e))}, {"power_of_two"}, "2^" + std::to_string(e));
  add({f32(0.41f), f32(1.5f), f32(1e-5f), f32(300.7f)}, {"documented"}, "hand-table scales");
  add({f32(0.5f - 0x1p-25f), f32(255.49998f), f32(255.5f), f32(256.0f - 0x1p-16f)}, {"loop_boundary"},
      "scales at the loops' boundaries");
  add({f32(1e-9f), f32(3e-12f)}, {"pre_limited"}, "tiny scales: pre stops at post / 2");
  for (int i = 0; i < 290; ++i) {
    std::vector<std::int64_t> s;
    for (int k = 0; k < 3; ++k) s.push_back(random_scale(rng, -24, 10));
    add(s, {"random"}, "random");
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY({.op = std::string(cat::glow_rescale_params::op),
                              .convention = std::string(cat::glow_rescale_params::conv::glow),
                              .notes = {{"power_of_two", "scale = 2^e: (0, 0, 2^e) or (0, -e, 1)"},
                                        {"documented", "the scales of conformance/glow_test.cc's hand table"},
                                        {"loop_boundary", "scales where a doubling loop's condition changes"},
                                        {"pre_limited",
                                         "tiny scales whose second loop stops at pre = post / 2, leaving S < 255"},
                                        {"random", "random scales"}},
                              .seed = 8761,
                              .generate = generate_rescale_params});

}  // namespace
}  // namespace qspec::vecgen
