// The fixed-point vector families (gemmlowp, TFLite, TOSA): checks beyond what every family gets.
//
// Scope: the families of the normative pairs whose clauses are stated in spec/tflite_tosa.md and
// spec/gemmlowp.md (catalogue_scope.h): the Q31 requantize conventions, gemmlowp's legacy stage,
// srdhm, rdbpot, quantize_multiplier, choose_quant_params and gemmlowp's quantize / dequantize.
// Not repeated here: the reference function, the family and its file, the required flags
// (catalogue_families_test.cc), valid tests evaluating and invalid ones raising their ERROR_IF,
// every flag explained (the vector writer, CTest vectors_check).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catalogue_scope.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/catalogue.h"
#include "qspec/vecgen.h"

namespace {

using qspec::vecgen::Family;
namespace cat = qspec::cat;
namespace attr = qspec::attr;

std::vector<const Family*> fixedpoint_families() {
  return qspec::test::families_stated_in({"tflite_tosa.md", "gemmlowp.md"});
}

// Every convention of the fixed-point primitives and every requantize convention with a Q31
// multiplier is in scope: a family cannot silently leave these tests. A convention of these ops
// whose clause is stated with the float conventions (ONNX DynamicQuantizeLinear's parameters for
// choose_quant_params) is checked by vectors_tvm_glow_float_test.cc instead.
TEST(vectors_fixedpoint, ScopeHoldsEveryFixedPointConvention) {
  std::set<std::pair<std::string, std::string>> scope, float_scope;
  for (const Family* f : fixedpoint_families()) scope.insert({f->op, f->convention});
  for (const Family* f : qspec::test::families_stated_in({"float_conventions.md"}))
    float_scope.insert({f->op, f->convention});
  const auto& catalogue = qspec::catalogue::get();
  for (std::string_view op :
       {cat::srdhm::op, cat::rdbpot::op, cat::quantize_multiplier::op, cat::choose_quant_params::op})
    for (const auto& c : catalogue.op(op)->conventions)
      EXPECT_TRUE(scope.count({std::string(op), c.name}) || float_scope.count({std::string(op), c.name}))
          << op << " / " << c.name;
  for (std::string_view op : {cat::requantize::op, cat::requantize_per_channel::op})
    for (const auto& c : catalogue.op(op)->conventions)
      if (!c.diagnostic_only && c.uses(cat::requantize::attr::multiplier.name)) {
        EXPECT_TRUE(scope.count({std::string(op), c.name})) << op << " / " << c.name;
      }
}

// Every per-tensor Q31 requantize family saturates at both ends of every narrow output type it
// has valid tests for (the catalogue's required flags only ask for one of each in the family).
TEST(vectors_fixedpoint, Q31RequantizeSaturatesBothEndsOfEveryNarrowType) {
  using R = cat::requantize;
  int checked = 0;
  for (const Family* f : fixedpoint_families()) {
    const auto* conv = qspec::catalogue::get().find(f->op, f->convention);
    if (f->op != R::op || !conv->uses(R::attr::multiplier.name)) continue;
    SCOPED_TRACE(f->file);
    ++checked;
    qspec::vecgen::Rng rng(f->seed);
    std::map<qspec::DType, std::set<std::string>> flags_by_dtype;  // valid tests only
    for (const auto& g : f->generate(rng))
      for (const auto& t : g.tests)
        if (!t.invalid) {
          const auto attrs = qspec::merge_attributes(g.attributes, t.attributes);
          flags_by_dtype[attr::get(attrs, R::attr::out_dtype)].insert(t.flags.begin(), t.flags.end());
        }
    for (const auto& [dtype, fs] : flags_by_dtype) {
      if (dtype == qspec::DType::I32) continue;
      EXPECT_TRUE(fs.count("saturate_low")) << qspec::dtype_name(dtype);
      EXPECT_TRUE(fs.count("saturate_high")) << qspec::dtype_name(dtype);
    }
  }
  EXPECT_GE(checked, 1);
}

// Generation is deterministic (two runs in one process give identical inputs and attributes) and
// each family is of a reviewable size.
TEST(vectors_fixedpoint, GenerationIsDeterministic) {
  for (const Family* f : fixedpoint_families()) {
    SCOPED_TRACE(f->file);
    qspec::vecgen::Rng r1(f->seed), r2(f->seed);
    const auto a = f->generate(r1), b = f->generate(r2);
    ASSERT_EQ(a.size(), b.size());
    std::size_t tests = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].tests.size(), b[i].tests.size());
      tests += a[i].tests.size();
      for (std::size_t j = 0; j < a[i].tests.size(); ++j) {
        EXPECT_EQ(a[i].tests[j].attributes, b[i].tests[j].attributes);
        ASSERT_EQ(a[i].tests[j].inputs.size(), b[i].tests[j].inputs.size());
        for (std::size_t k = 0; k < a[i].tests[j].inputs.size(); ++k)
          EXPECT_EQ(a[i].tests[j].inputs[k].data, b[i].tests[j].inputs[k].data);
      }
    }
    EXPECT_GE(tests, 4u);
    EXPECT_LE(tests, 2000u);
    std::printf("%-72s %5zu tests\n", f->file.c_str(), tests);
    // QSPEC_DUMP_FAMILY=<file> prints that family's generated tests (a debugging aid).
    if (const char* dump = std::getenv("QSPEC_DUMP_FAMILY"); dump && f->file == dump)
      for (const auto& g : a)
        for (const auto& t : g.tests) {
          nlohmann::ordered_json j = qspec::merge_attributes(g.attributes, t.attributes);
          for (const auto& in : t.inputs) j[in.name] = in.data;
          j["flags"] = t.flags;
          j["invalid"] = t.invalid;
          std::printf("%s\n", j.dump().c_str());
        }
  }
}

}  // namespace
