// Generates the Glow operator vector families (the ops of spec/operators_glow.md) and TVM's
// average pool family through the reference ops: sizes, invalid (ERROR_IF) tests present,
// determinism. Which families exist, their files and their required flags are the catalogue's,
// checked for every pair by catalogue_families_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "qspec/catalogue/keys.h"
#include "qspec/core/catalogue.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/generate.h"

namespace {

bool in_scope(const qspec::vecgen::Family& f) {
  if (f.op == qspec::cat::tvm_qnn_avg_pool2d::op) return true;
  const auto* op = qspec::catalogue::get().op(f.op);
  return op && op->spec == "spec/operators_glow.md";
}

TEST(vectors_ops_glow, EveryFamilyGeneratesWithErrorIfTests) {
  int families = 0;
  for (const auto& f : qspec::vecgen::families()) {
    if (!in_scope(f)) continue;
    ++families;
    SCOPED_TRACE(f.file);
    nlohmann::ordered_json doc;
    ASSERT_NO_THROW(doc = qspec::vecgen::generate_document(f, "0.1.0"));
    const auto n = doc["numberOfTests"].get<long>();
    EXPECT_GE(n, 100);
    EXPECT_LE(n, 400);
    long invalid = 0;
    for (const auto& g : doc["testGroups"])
      for (const auto& t : g["tests"]) invalid += t["result"] == "invalid";
    EXPECT_GE(invalid, 1);  // every family tests an ERROR_IF rejection
    EXPECT_LT(invalid, n / 4);
  }
  EXPECT_GE(families, 12);  // the scope still selects the Glow operators and TVM's average pool
}

TEST(vectors_ops_glow, Deterministic) {
  for (const auto& f : qspec::vecgen::families()) {
    if (!in_scope(f)) continue;
    EXPECT_EQ(qspec::vecgen::generate_document(f, "0.1.0"), qspec::vecgen::generate_document(f, "0.1.0")) << f.file;
  }
}

}  // namespace
