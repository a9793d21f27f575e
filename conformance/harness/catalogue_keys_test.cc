// The typed keys (qspec/catalogue/keys.h) and the attribute reader (qspec/core/attr.h) against the catalogue.
#include <gtest/gtest.h>

#include "qspec/catalogue/keys.h"
#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"

namespace {

namespace cat = qspec::cat;
using qspec::Attrs;
using qspec::JsonValueError;

// A key carries its catalogue entry's name and domain.
template <class Key>
const qspec::catalogue::AttributeSpec& spec_of(std::string_view op, const Key& key) {
  const auto* o = qspec::catalogue::get().op(op);
  EXPECT_NE(o, nullptr) << op;
  const auto* a = o->attribute(key.name);
  EXPECT_NE(a, nullptr) << key.name;
  return *a;
}

TEST(catalogue_keys, KeysCarryTheCataloguesNamesAndDomains) {
  EXPECT_EQ(cat::requantize::op, "requantize");
  EXPECT_EQ(cat::requantize::in::x, "x");
  EXPECT_EQ(cat::requantize::conv::gemmlowp_double_round, "gemmlowp.double_round");
  const auto& s = spec_of(cat::requantize::op, cat::requantize::attr::shift);
  EXPECT_EQ(cat::requantize::attr::shift.min, s.min);
  EXPECT_EQ(cat::requantize::attr::shift.max, s.max);
  for (const auto& op : qspec::catalogue::get().ops)
    for (const auto& c : op.conventions) EXPECT_NE(qspec::catalogue::get().find(op.name, c.name), nullptr);
}

TEST(catalogue_keys, ReaderNamesTheAttributeAndItsDomain) {
  constexpr qspec::attr::Int k{"shift", -3, 3};
  Attrs a = {{"shift", 4}};
  try {
    qspec::attr::get(a, k);
    FAIL() << "4 is outside [-3, 3]";
  } catch (const JsonValueError& e) {
    EXPECT_STREQ(e.what(), "attribute 'shift': 4 is outside [-3, 3]");
  }
  EXPECT_THROW(qspec::attr::get(Attrs::object(), k), JsonValueError);
  EXPECT_EQ(qspec::attr::get(Attrs{{"shift", "-3"}}, k), -3);  // decimal strings are integers too
  EXPECT_EQ(qspec::attr::get_or(Attrs::object(), k, std::int64_t{2}), 2);
  Attrs w = Attrs::object();
  qspec::attr::set(w, k, 1);
  EXPECT_EQ(w.dump(), R"({"shift":1})");
  EXPECT_THROW(qspec::attr::set(w, k, 9), std::logic_error);
}

TEST(catalogue_keys, OptionalIntArraysRoundTripNone) {
  constexpr qspec::attr::OptIntArray k{"begin", -8, 8};
  Attrs w = Attrs::object();
  qspec::attr::set(w, k, {std::nullopt, -2, 8});
  EXPECT_EQ(w.dump(), R"({"begin":[null,-2,8]})");
  const auto v = qspec::attr::get(w, k);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_FALSE(v[0].has_value());
  EXPECT_EQ(v[1], -2);
  EXPECT_THROW(qspec::attr::set(w, k, {9}), std::logic_error);
}

TEST(catalogue_keys, TestAttributesOverrideTheGroups) {
  const Attrs merged = qspec::merge_attributes(Attrs{{"a", 1}, {"b", 2}}, Attrs{{"b", 3}, {"c", 4}});
  EXPECT_EQ(merged.dump(), R"({"a":1,"b":3,"c":4})");
}

TEST(catalogue_keys, CheckTestRejectsUnknownAttributesAndInputs) {
  const auto* op = qspec::catalogue::get().op(cat::requantize::op);
  ASSERT_NE(op, nullptr);
  const auto* conv = op->convention(cat::requantize::conv::tflite_single_round);
  ASSERT_NE(conv, nullptr);
  Attrs a = {{"multiplier", 1 << 30}, {"shift", 0}, {"output_zero_point", 0}, {"out_dtype", "int8"}};
  EXPECT_TRUE(qspec::catalogue::check_test(*op, *conv, a, {{"x", qspec::DType::I32}}, true).empty());
  Attrs typo = a;
  typo["multipler"] = 1;
  const auto p =
      qspec::catalogue::check_test(*op, *conv, typo, {{"x", qspec::DType::I32}, {"x2", qspec::DType::I32}}, true);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].where, "attributes/multipler");
  EXPECT_NE(p[0].what.find("'multipler'"), std::string::npos) << p[0].what;
  EXPECT_EQ(p[1].where, "inputs/x2");
  Attrs missing = a;
  missing.erase("shift");
  EXPECT_FALSE(qspec::catalogue::check_test(*op, *conv, missing, {{"x", qspec::DType::I32}}, true).empty());
  EXPECT_TRUE(qspec::catalogue::check_test(*op, *conv, missing, {{"x", qspec::DType::I32}}, false).empty())
      << "an invalid test may stop at its first ERROR_IF";
}

// An optional input (qlinear.fully_connected's bias) may be absent from a valid test; a required
// one may not; "optional" on a variadic tensor is a catalogue error.
TEST(catalogue_keys, OptionalInputMayBeAbsent) {
  using Fc = cat::qlinear_fully_connected;
  const auto* op = qspec::catalogue::get().op(Fc::op);
  ASSERT_NE(op, nullptr);
  const auto* conv = op->convention(Fc::conv::onnxruntime);
  ASSERT_NE(conv, nullptr);
  Attrs a = {{std::string(Fc::attr::x_scale.name), "0x3f800000"},
             {std::string(Fc::attr::x_zero_point.name), 0},
             {std::string(Fc::attr::w_scales.name), {"0x3f800000"}},
             {std::string(Fc::attr::y_scale.name), "0x3f800000"},
             {std::string(Fc::attr::y_zero_point.name), 0}};
  const std::string x(Fc::in::x), w(Fc::in::w), b(Fc::in::b);
  EXPECT_TRUE(
      qspec::catalogue::check_test(*op, *conv, a, {{x, qspec::DType::I8}, {w, qspec::DType::I8}}, true).empty());
  EXPECT_TRUE(qspec::catalogue::check_test(*op, *conv, a,
                                           {{x, qspec::DType::I8}, {w, qspec::DType::I8}, {b, qspec::DType::I32}}, true)
                  .empty());
  const auto p = qspec::catalogue::check_test(*op, *conv, a, {{x, qspec::DType::I8}, {b, qspec::DType::I32}}, true);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].what.find("missing input 'w'"), std::string::npos) << p[0].what;
  const std::string bad = R"({"op": "t", "summary": "s", "spec": "spec/t.md",
    "inputs": [{"name": "x", "dtypes": ["int8"], "variadic": {"min": 1, "max": 2}, "optional": true}],
    "outputs": [{"name": "y", "dtypes": ["int8"]}], "attributes": {}, "conventions": []})";
  EXPECT_THROW(qspec::catalogue::parse({{"t.json", bad}}), qspec::catalogue::CatalogueError);
}

// A variadic input's dtypes are checked here, not by the generated schema (whose pattern only
// admits the names x0, x1, ...: rapidjson 1.1.0 cannot say which subschema of a pattern failed).
TEST(catalogue_keys, VariadicInputDtypesAreChecked) {
  const auto* op = qspec::catalogue::get().op(cat::concat::op);
  ASSERT_NE(op, nullptr);
  const auto* conv = op->convention(cat::concat::conv::mrt);
  ASSERT_NE(conv, nullptr);
  const Attrs a = {{"axis", 0}};
  EXPECT_TRUE(qspec::catalogue::check_test(*op, *conv, a, {{"x0", qspec::DType::I32}, {"x1", qspec::DType::I32}}, true)
                  .empty());
  const auto p =
      qspec::catalogue::check_test(*op, *conv, a, {{"x0", qspec::DType::I32}, {"x1", qspec::DType::I8}}, true);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].where, "inputs/x1");
  EXPECT_NE(p[0].what.find("dtype int8 is not allowed"), std::string::npos) << p[0].what;
}

}  // namespace
