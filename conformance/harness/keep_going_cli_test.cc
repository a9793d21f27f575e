// `qspec run` on a directory with a good and a malformed vector file: exit statuses, --keep-going,
// and the good file's verdicts all present in the JSON report (spawns the qspec executable).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "build_tree_paths.h"
#include "cli_runner.h"
#include "harness_test_ops.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness;

using harness_test::find_qspec;
using harness_test::run_cli;
using Result = harness_test::CliResult;
std::string find_plugin(const std::string& name) { return harness_test::testing_plugin(name); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// (file, tcId, verdict, reason) of every test of a report, in order.
std::vector<std::string> verdicts(const nlohmann::json& report) {
  std::vector<std::string> v;
  for (const auto& t : report["tests"])
    v.push_back(t["file"].get<std::string>() + "#" + std::to_string(t["tcId"].get<std::int64_t>()) + " " + t["verdict"].get<std::string>() +
                " " + t.value("reason", std::string()));
  return v;
}

class KeepGoingCli : public ::testing::Test {
 protected:
  fs::path root = fs::temp_directory_path() / ("qspec_keep_going_cli_" + std::to_string(::getpid()));
  fs::path vectors = root / "vectors";
  std::string wrong;  // the deliberately wrong plugin: claims the test op, fails some of its tests

  void SetUp() override {
    if (find_qspec().empty()) GTEST_SKIP() << "qspec executable not found (set QSPEC_EXE)";
    if (run_cli({"--version"}).rc != 0) GTEST_SKIP() << "cannot run " << find_qspec() << " here (cross build?)";
    wrong = find_plugin("wrong_requantize");
    ASSERT_FALSE(wrong.empty()) << "build backends/testing or set QSPEC_TESTING_PLUGIN_DIR";
    fs::remove_all(root);
    const std::string good = serialize_vector_document(vecgen::generate_document(harness_test::test_family(), "9.9.9"));
    write_file_atomically(vectors / "test" / "test.half_away.json", good);
    // Truncated in the middle of its second test: the same family cut short.
    write_file_atomically(vectors / "zz" / "truncated.json", good.substr(0, good.find("\"tcId\":2") + 20));
  }
  void TearDown() override { fs::remove_all(root); }
};

TEST_F(KeepGoingCli, a_malformed_file_exits_2_and_names_the_option) {
  const Result r = run_cli({"run", "--backend", wrong, "--vectors", vectors.string(), "--progress", "never"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "malformed vector file: zz/truncated.json: tcId 2: at /testGroups/0/tests/1/")) << r.out;
  EXPECT_TRUE(contains(r.out, "truncated file?")) << r.out;
  EXPECT_TRUE(contains(r.out, "--keep-going skips such a file")) << r.out;
}

TEST_F(KeepGoingCli, keep_going_reports_the_bad_file_and_keeps_every_verdict_of_the_good_one) {
  const Result r = run_cli({"run", "--backend", wrong, "--vectors", vectors.string(), "--progress", "never", "--keep-going",
                            "--report-json", (root / "r.json").string(), "--junit", (root / "r.xml").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "SKIPPED malformed vector file (--keep-going): zz/truncated.json: tcId 2:")) << r.out;
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 7 tests:")) << r.out;
  EXPECT_TRUE(contains(r.out, "Skipped 1 malformed vector file (--keep-going):")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: INPUT ERROR (1 vector file skipped; ")) << r.out;  // the wrong plugin also fails tests

  // The same backend on the good file alone: the verdicts must be exactly those of the run above.
  const Result alone = run_cli({"run", "--backend", wrong, "--vectors", (vectors / "test" / "test.half_away.json").string(), "--progress", "never",
                                "--report-json", (root / "alone.json").string()});
  EXPECT_EQ(alone.rc, 1) << alone.out;
  const auto with_bad = read_json(root / "r.json"), without = read_json(root / "alone.json");
  EXPECT_EQ(with_bad["tests"].size(), 7u);
  EXPECT_EQ(verdicts(with_bad), verdicts(without));
  ASSERT_EQ(with_bad["skipped_files"].size(), 1u);
  EXPECT_EQ(with_bad["skipped_files"][0]["file"], "zz/truncated.json");
  EXPECT_TRUE(contains(with_bad["skipped_files"][0]["error"].get<std::string>(), "truncated file?"));
  EXPECT_EQ(with_bad["summary"]["exit_code"], 2);
  EXPECT_EQ(without["skipped_files"].size(), 0u);
  std::ifstream xml(root / "r.xml");
  std::stringstream ss;
  ss << xml.rdbuf();
  EXPECT_TRUE(contains(ss.str(), "type=\"MALFORMED_VECTOR_FILE\"")) << ss.str();
}

// A shipped file next to a file of an op no one implements: the shipped file's tests all pass.
TEST_F(KeepGoingCli, unknown_op_is_an_input_error_and_keep_going_runs_the_rest) {
  fs::remove_all(vectors / "zz");
  fs::copy_file(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "fixedpoint" / "gemmlowp.rdbpot.json", vectors / "rdbpot.json");
  const Result r = run_cli({"run", "--backend", "reference", "--vectors", vectors.string(), "--progress", "never", "--keep-going",
                            "--report-json", (root / "r.json").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "SKIPPED malformed vector file (--keep-going): test/test.half_away.json: at /op: unknown op "
                              "\"test.requantize\": not implemented by the reference or by backend 'reference'"))
      << r.out;
  const auto j = read_json(root / "r.json");
  ASSERT_FALSE(j["tests"].empty());
  for (const auto& t : j["tests"]) {
    EXPECT_EQ(t["file"], "rdbpot.json");
    EXPECT_EQ(t["verdict"], "PASS") << t.dump();
  }
}

}  // namespace
