// Shared fixtures of the report tests (merge, shards, HTML): vector files of the private test op
// written to a temporary directory, the wrong plugin of backends/testing, and run helpers.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "build_tree_paths.h"
#include "harness_test_ops.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"

namespace qspec::report_test {

namespace fs = std::filesystem;

using harness_test::testing_plugin;

// The test family's vector file written under `copies` names (test/a.json, test/b.json, ...),
// so a run has 7 * copies tests in several files.
struct VectorFiles {
  fs::path root;
  fs::path dir;
  explicit VectorFiles(int copies, const std::string& tag) {
    root = fs::temp_directory_path() / ("qspec_report_" + tag + "_" + std::to_string(::getpid()));
    dir = root / "vectors";
    fs::remove_all(root);
    const std::string bytes =
        harness::serialize_vector_document(vecgen::generate_document(harness_test::test_family(), "9.9.9"));
    for (int i = 0; i < copies; ++i)
      harness::write_file_atomically(dir / "test" / (std::string(1, static_cast<char>('a' + i)) + ".json"), bytes);
  }
  ~VectorFiles() { fs::remove_all(root); }
  harness::RunOptions options() const {
    harness::RunOptions o;
    o.files = harness::find_vector_files({dir});
    return o;
  }
};

// The JSON report of `backend` on these files, optionally one shard of it.
inline nlohmann::ordered_json run_report(const harness::Backend& backend, const VectorFiles& v,
                                         std::optional<harness::ShardSpec> shard = std::nullopt,
                                         const harness::ConventionExplainer* explainer = nullptr) {
  harness::RunOptions o = v.options();
  o.shard = shard;
  o.explainer = explainer;
  return harness::json_report(harness::run_vectors(backend, o));
}

// The report without its timing fields (they differ from run to run).
inline nlohmann::ordered_json without_timing(nlohmann::ordered_json j) {
  for (auto& t : j["tests"]) t.erase("seconds");
  return j;
}

}  // namespace qspec::report_test
