// Checks the fixed-point requantization vector families: they generate, the reference evaluates them, flags are explained.
//
// The vector writer (`qspec vectors regen`) serializes what these families generate; this test
// runs the same generation and evaluates every test through the reference op registry, as the
// writer will: valid tests must evaluate without any exception, invalid tests must raise the
// clause's ERROR_IF, every flag must be explained in the family's notes, and each family must
// contain every edge category its clauses call for.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"

namespace {

using qspec::vecgen::Family;

nlohmann::ordered_json merged(const nlohmann::ordered_json& group, const nlohmann::ordered_json& test) {
  nlohmann::ordered_json m = group;
  for (auto it = test.begin(); it != test.end(); ++it) m[it.key()] = it.value();
  return m;
}

const std::vector<std::string> kQ31Edges = {
    "tie_0_5",        "tie_1_5",        "tie_2_5",        "int32_min",      "int32_max",
    "saturate_low",   "saturate_high",  "shift_0",        "shift_right_1",  "shift_right_30",
    "shift_right_31", "shift_left",     "mult_2_pow_m31", "mult_2_pow_m32", "mult_below_one",
    "mult_one",       "mult_above_one", "mult_zero",      "zp_type_min",    "zp_type_max",
    "zp_odd",         "random",         "double_round_differs"};
const std::vector<std::string> kTosaInvalid = {"invalid_zero_point", "invalid_unsigned_output",
                                               "invalid_zero_point_range"};

// Family file -> the flags it must contain.
std::map<std::string, std::vector<std::string>> required_categories() {
  std::map<std::string, std::vector<std::string>> r;
  r["requantize/gemmlowp.double_round.json"] = kQ31Edges;
  r["requantize/tflite.single_round.json"] = kQ31Edges;
  for (const char* f : {"requantize/tosa.single_round.json", "requantize/tosa.double_round.json",
                        "requantize/tosa.scale16.json"}) {
    r[f] = kQ31Edges;
    r[f].insert(r[f].end(), kTosaInvalid.begin(), kTosaInvalid.end());
  }
  for (const char* f : {"requantize_per_channel/gemmlowp.double_round.json",
                        "requantize_per_channel/tflite.single_round.json",
                        "requantize_per_channel/tosa.single_round.json",
                        "requantize_per_channel/tosa.double_round.json"})
    r[f] = {"per_channel_axis_last", "per_channel_zero_multiplier", "shift_left", "tie_0_5", "saturate_both", "random"};
  r["requantize_per_channel/gemmlowp.double_round.json"].push_back("per_channel_axis_first");
  r["requantize/gemmlowp.legacy_uint8_scale.json"] = {"negative_tie", "positive_tie", "saturate_low", "saturate_high",
                                                      "shift_0", "shift_right_1", "shift_right_31", "int32_extremes",
                                                      "mult_zero", "random"};
  r["requantize_per_channel/gemmlowp.legacy_uint8_scale.json"] = {"per_channel", "mult_zero", "negative_tie", "random"};
  r["fixedpoint/gemmlowp.srdhm.json"] = {"saturate", "int32_extremes", "tie_positive", "tie_negative", "random"};
  r["fixedpoint/gemmlowp.rdbpot.json"] = {"int32_extremes", "tie_positive", "tie_negative", "exponent_0",
                                          "exponent_31", "random"};
  for (const char* f : {"quantize_multiplier/tflite.quantize_multiplier.json",
                        "quantize_multiplier/tflite.quantize_multiplier_single_round.json",
                        "quantize_multiplier/tflite.quantize_multiplier_emulate_float.json"})
    r[f] = {"zero", "carry", "tiny_kept", "tiny_flushed", "tie", "large", "negative", "random"};
  r["quantize_multiplier/gemmlowp.quantize_multiplier_smaller_than_one.json"] = {"edge", "tiny", "random"};
  r["choose_quant_params/gemmlowp.choose_params.json"] = {
      "symmetric",     "all_positive",       "all_negative",    "min_eq_max_nonzero", "min_eq_max_zero",
      "zero_point_tie", "scale_underflow", "scale_overflow", "random"};
  r["quantize/gemmlowp.quantize.json"] = {"tie", "saturate_high", "saturate_low", "overflow", "zero", "zp_min",
                                          "zp_max", "random"};
  r["dequantize/gemmlowp.dequantize.json"] = {"zp_min", "zp_max", "negative_scale", "all_values", "random"};
  return r;
}

}  // namespace

TEST(vectors_fixedpoint, FamiliesEvaluateThroughTheReference) {
  const auto required = required_categories();
  std::set<std::string> seen_files;
  for (const Family& fam : qspec::vecgen::families()) {
    if (!required.count(fam.file)) continue;
    seen_files.insert(fam.file);
    SCOPED_TRACE(fam.file);
    const auto* impl = qspec::refops::find_op(fam.op, fam.convention);
    ASSERT_NE(impl, nullptr) << fam.op << " / " << fam.convention;
    EXPECT_FALSE(impl->diagnostic_only);
    EXPECT_FALSE(fam.clauses.empty());
    std::set<std::string> notes;
    for (const auto& [flag, text] : fam.notes) notes.insert(flag);

    qspec::vecgen::Rng rng(fam.seed);
    const auto groups = fam.generate(rng);
    std::set<std::string> flags;
    // Saturation at both ends for every non-int32 out_dtype of a requantize family.
    std::map<std::string, std::set<std::string>> flags_by_dtype;
    std::size_t tests = 0, invalid = 0;
    for (const auto& g : groups)
      for (const auto& t : g.tests) {
        ++tests;
        const auto attrs = merged(g.attributes, t.attributes);
        for (const auto& f : t.flags) {
          EXPECT_TRUE(notes.count(f)) << "flag '" << f << "' is not explained in the notes";
          flags.insert(f);
          if (attrs.contains("out_dtype")) flags_by_dtype[attrs["out_dtype"].get<std::string>()].insert(f);
        }
        if (t.invalid) {
          ++invalid;
          EXPECT_THROW(impl->fn(attrs, t.inputs), qspec::ref::ErrorIf) << t.comment;
        } else {
          std::vector<qspec::Tensor> out;
          EXPECT_NO_THROW(out = impl->fn(attrs, t.inputs)) << t.comment << " " << attrs.dump();
          for (const auto& o : out) EXPECT_EQ(o.numel(), static_cast<std::int64_t>(o.data.size()));
        }
      }
    for (const auto& cat : required.at(fam.file)) EXPECT_TRUE(flags.count(cat)) << "missing edge category " << cat;
    if (fam.op == "requantize" && fam.convention != "gemmlowp.legacy_uint8_scale") {
      for (const auto& [dtype, fs] : flags_by_dtype) {
        if (dtype == "int32" || (fam.convention.rfind("tosa.", 0) == 0 && dtype == "uint8")) continue;
        EXPECT_TRUE(fs.count("saturate_low")) << dtype;
        EXPECT_TRUE(fs.count("saturate_high")) << dtype;
      }
    }
    // QSPEC_DUMP_FAMILY=<file> prints that family's generated tests (a debugging aid).
    if (const char* dump = std::getenv("QSPEC_DUMP_FAMILY"); dump && fam.file == dump)
      for (const auto& g : groups)
        for (const auto& t : g.tests) {
          nlohmann::ordered_json j = merged(g.attributes, t.attributes);
          for (const auto& in : t.inputs) j[in.name] = in.data;
          j["flags"] = t.flags;
          j["invalid"] = t.invalid;
          std::printf("%s\n", j.dump().c_str());
        }
    EXPECT_GE(tests, 4u);
    EXPECT_LE(tests, 2000u);
    std::printf("%-72s %5zu tests (%zu invalid)\n", fam.file.c_str(), tests, invalid);
  }
  for (const auto& [file, cats] : required) EXPECT_TRUE(seen_files.count(file)) << "family not registered: " << file;
}

// Generation is deterministic: two runs give identical inputs and attributes.
TEST(vectors_fixedpoint, GenerationIsDeterministic) {
  const auto required = required_categories();
  for (const Family& fam : qspec::vecgen::families()) {
    if (!required.count(fam.file)) continue;
    qspec::vecgen::Rng r1(fam.seed), r2(fam.seed);
    const auto a = fam.generate(r1), b = fam.generate(r2);
    ASSERT_EQ(a.size(), b.size()) << fam.file;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].tests.size(), b[i].tests.size()) << fam.file;
      for (std::size_t j = 0; j < a[i].tests.size(); ++j) {
        EXPECT_EQ(a[i].tests[j].attributes, b[i].tests[j].attributes) << fam.file;
        ASSERT_EQ(a[i].tests[j].inputs.size(), b[i].tests[j].inputs.size());
        for (std::size_t k = 0; k < a[i].tests[j].inputs.size(); ++k)
          EXPECT_EQ(a[i].tests[j].inputs[k].data, b[i].tests[j].inputs[k].data) << fam.file;
      }
    }
  }
}
