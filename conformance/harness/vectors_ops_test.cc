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
    // A few hundred tests per file: the engine operators (ops/qlinear/) hold up to about 610 (hand
    // cases of every ERROR_IF, ties, both saturations and the geometry categories, then draws: the
    // add and mul files' fifteen long ones took the largest from 592 to 607).
    EXPECT_GE(n, 100);
    EXPECT_LE(n, 620);
    long invalid = 0;
    for (const auto& g : doc["testGroups"])
      for (const auto& t : g["tests"]) invalid += t["result"] == "invalid";
    EXPECT_LT(invalid, n);
  }
  EXPECT_GT(families, 0) << "no family writes under vectors/ops/: this check would check nothing";
}

// That generation is deterministic is CTest vectors_check's to prove: it regenerates every family,
// these included, in a fresh process and demands the committed bytes. (A test here that generated
// every operator family twice in one process cost 37 s of the default job and proved less.)

// A conv2d test whose flags claim a geometry (dilation, padding, depthwise) writes that geometry:
// the flags and tie counts are computed from the generator's problem, the expected output from the
// written attributes, so a geometry left to its defaults would make the flags lie (a generator bug
// fixed in vectors/gen/src/ops_qlinear.cc: draw_tie_rich dropped non-default geometry).
TEST(vectors_ops, QlinearConvFlagsMatchTheWrittenGeometry) {
  int checked = 0;
  for (const auto& f : qspec::vecgen::families()) {
    if (f.file.rfind("ops/qlinear/conv2d/", 0) != 0) continue;
    const auto doc = qspec::vecgen::generate_document(f, "0.1.0");
    for (const auto& g : doc["testGroups"])
      for (const auto& t : g["tests"]) {
        if (t["result"] == "invalid") continue;
        const auto& a = t["attributes"];
        const auto has_flag = [&](const char* name) {
          for (const auto& fl : t["flags"])
            if (fl == name) return true;
          return false;
        };
        const auto any_above = [&](const char* key, long v) {
          if (!a.contains(key)) return false;
          for (const auto& e : a[key])
            if (e.get<long>() > v) return true;
          return false;
        };
        SCOPED_TRACE(f.file + " tcId " + t["tcId"].dump());
        if (has_flag("dilation")) {
          EXPECT_TRUE(any_above("dilations", 1));
        }
        if (has_flag("strides")) {
          EXPECT_TRUE(any_above("strides", 1));
        }
        if (has_flag("pad_zero_point") || has_flag("asymmetric_pads")) {
          EXPECT_TRUE(any_above("pads", 0));
        }
        if (has_flag("depthwise_multiplier")) {  // groups = C (the default 1 only when C = 1)
          const long channels = t["inputs"]["x"]["shape"][3].get<long>();
          EXPECT_EQ(a.contains("groups") ? a["groups"].get<long>() : 1L, channels);
        }
        ++checked;
      }
  }
  EXPECT_GT(checked, 0) << "no valid qlinear.conv2d test: this check would check nothing";
}

}  // namespace
