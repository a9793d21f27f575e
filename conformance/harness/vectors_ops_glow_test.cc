// Generates the Glow operator vector families (ops/glow/*.json) and TVM's average pool family
// through the reference ops: sizes, invalid (ERROR_IF) tests present, flags used, determinism.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>
#include <string>

#include "qspec/vecgen/generate.h"
#include "qspec/vecgen.h"

namespace {

bool in_scope(const std::string& file) { return file.rfind("ops/glow/", 0) == 0 || file == "ops/tvm/qnn_avg_pool2d.json"; }

TEST(vectors_ops_glow, EveryFamilyGeneratesWithErrorIfTests) {
  std::set<std::string> files;
  for (const auto& f : qspec::vecgen::families()) {
    if (!in_scope(f.file)) continue;
    files.insert(f.file);
    SCOPED_TRACE(f.file);
    nlohmann::ordered_json doc;
    ASSERT_NO_THROW(doc = qspec::vecgen::generate_document(f, "0.1.0"));
    const auto n = doc["numberOfTests"].get<long>();
    EXPECT_GE(n, 100);
    EXPECT_LE(n, 400);
    long invalid = 0;
    std::set<std::string> flags_used;
    for (const auto& g : doc["testGroups"])
      for (const auto& t : g["tests"]) {
        invalid += t["result"] == "invalid";
        for (const auto& fl : t["flags"]) flags_used.insert(fl.get<std::string>());
      }
    EXPECT_GE(invalid, 1);  // every family tests an ERROR_IF rejection
    EXPECT_LT(invalid, n / 4);
    // The edge cases each family is meant to hold are present (flags explained in its notes).
    static const std::map<std::string, std::vector<std::string>> expected_flags = {
        {"ops/glow/fully_connected.json", {"tie_offset", "large_bias", "float_sum", "saturation", "int16"}},
        {"ops/glow/convolution.json", {"tie_offset", "large_bias", "float_sum", "int16"}},
        {"ops/glow/rowwise_fully_connected.json", {"tie_offset", "int16"}},
        {"ops/glow/fused_rowwise_sparse_lengths_weighted_sum.json", {"glow_unit_test", "order", "empty_segment", "unused_indices"}},
        {"ops/glow/rescale.json", {"saturation"}},
        {"ops/glow/rescale_cpu.json", {"saturation"}},
        {"ops/glow/topk.json", {"ties"}},
        {"ops/glow/max_pool.json", {"empty_window"}},
        {"ops/tvm/qnn_avg_pool2d.json", {"truncation", "pad_is_integer_zero", "requantized", "clip"}}};
    const auto it = expected_flags.find(f.file);
    if (it != expected_flags.end()) {
      for (const auto& flag : it->second) EXPECT_TRUE(flags_used.count(flag)) << "flag " << flag << " unused";
    }
  }
  for (const char* want : {"ops/glow/fully_connected.json", "ops/glow/convolution.json", "ops/glow/rowwise_fully_connected.json",
                           "ops/glow/fused_rowwise_sparse_lengths_weighted_sum.json", "ops/glow/rescale.json", "ops/glow/rescale_cpu.json",
                           "ops/glow/reshape.json", "ops/glow/slice.json", "ops/glow/gather.json", "ops/glow/topk.json",
                           "ops/glow/max_pool.json", "ops/tvm/qnn_avg_pool2d.json"})
    EXPECT_TRUE(files.count(want)) << want;
}

TEST(vectors_ops_glow, Deterministic) {
  for (const auto& f : qspec::vecgen::families()) {
    if (!in_scope(f.file)) continue;
    EXPECT_EQ(qspec::vecgen::generate_document(f, "0.1.0"), qspec::vecgen::generate_document(f, "0.1.0")) << f.file;
  }
}

}  // namespace
