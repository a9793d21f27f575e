// Generates every operator vector family (vectors/gen/src/ops_nn.cc) through the reference ops:
// valid tests must evaluate, invalid tests must be rejected with ErrorIf, sizes stay small.
#include <gtest/gtest.h>

#include "qspec/vecgen.h"
#include "qspec/vecgen/generate.h"

namespace {

TEST(vectors_ops, EveryOperatorFamilyGenerates) {
  int families = 0;
  for (const auto& f : qspec::vecgen::families()) {
    if (f.file.rfind("ops/", 0) != 0) continue;
    ++families;
    SCOPED_TRACE(f.file);
    nlohmann::ordered_json doc;
    ASSERT_NO_THROW(doc = qspec::vecgen::generate_document(f, "0.1.0"));
    const auto n = doc["numberOfTests"].get<long>();
    // A few hundred tests per file: the engine operators (ops/qlinear/) hold about 550 (hand cases
    // of every ERROR_IF, ties, both saturations and the geometry categories, then draws).
    EXPECT_GE(n, 100);
    EXPECT_LE(n, 600);
    long invalid = 0;
    for (const auto& g : doc["testGroups"])
      for (const auto& t : g["tests"]) invalid += t["result"] == "invalid";
    EXPECT_LT(invalid, n);
  }
  EXPECT_GT(families, 0) << "no family writes under vectors/ops/: this check would check nothing";
}

// Generation is deterministic: two runs give the same document.
TEST(vectors_ops, Deterministic) {
  for (const auto& f : qspec::vecgen::families()) {
    if (f.file.rfind("ops/", 0) != 0) continue;
    EXPECT_EQ(qspec::vecgen::generate_document(f, "0.1.0"), qspec::vecgen::generate_document(f, "0.1.0")) << f.file;
  }
}

}  // namespace
