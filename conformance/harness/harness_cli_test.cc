// The qspec command line end to end: run / eval / backends / vectors on generated files in a temp dir.
//
// These spawn the qspec executable of the same build ($QSPEC_EXE, else ../../harness/qspec from
// this test binary) and check exit statuses and output. The executable does not know the
// test-only op, so convention naming is checked in harness_runner_test; here: verdicts, exit
// codes, error messages, reports.
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

class Cli : public ::testing::Test {
 protected:
  fs::path root = fs::temp_directory_path() / ("qspec_cli_" + std::to_string(::getpid()));
  fs::path vectors = root / "vectors";
  fs::path file = vectors / "test" / "test.half_away.json";
  std::string wrong;

  void SetUp() override {
    if (find_qspec().empty()) GTEST_SKIP() << "qspec executable not found (set QSPEC_EXE)";
    if (run_cli({"--version"}).rc != 0) GTEST_SKIP() << "cannot run " << find_qspec() << " here (cross build?)";
    wrong = find_plugin("wrong_requantize");
    ASSERT_FALSE(wrong.empty()) << "build backends/testing or set QSPEC_TESTING_PLUGIN_DIR";
    fs::remove_all(root);
    const auto f = harness_test::test_family();
    write_file_atomically(file, serialize_vector_document(vecgen::generate_document(f, "9.9.9")));
  }
  void TearDown() override { fs::remove_all(root); }
};

TEST_F(Cli, run_catches_the_wrong_plugin_with_exit_1_and_writes_reports) {
  const Result r = run_cli({"run", "--backend", wrong, "--vectors", vectors.string(), "--report-json", (root / "r.json").string(),
                            "--junit", (root / "r.xml").string(), "--progress", "never"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "FAIL test/test.half_away.json tcId 2: 1 of 1 output elements differ; first: expected -2, got -1"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "ERROR test/test.half_away.json tcId 6: backend reported ERROR: internal error")) << r.out;
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 7 tests:")) << r.out;
  EXPECT_TRUE(contains(r.out, "Summary by op:")) << r.out;
  EXPECT_TRUE(contains(r.out, "Summary by clause:")) << r.out;
  EXPECT_TRUE(contains(r.out, "test.clause_b")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: FAILED")) << r.out;
  std::ifstream in(root / "r.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["tests"].size(), 7u);
  EXPECT_EQ(j["tests"][1]["verdict"], "FAIL");
  EXPECT_TRUE(fs::exists(root / "r.xml"));
}

TEST_F(Cli, reference_passes_and_expectations_make_the_wrong_plugin_pass) {
  // The executable does not register the test op and the reference does not claim it: a file no
  // one implements is an input error (docs/vector-format.md, Errors), not 7 UNSUPPORTED verdicts.
  Result r = run_cli({"run", "--backend", "reference", "--vectors", file.string(), "--progress", "never"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "at /op: unknown op \"test.requantize\"")) << r.out;
  // A known op that the backend does not claim is UNSUPPORTED: not a failure by default, but one
  // with --fail-on-unsupported. A run in which every test is UNSUPPORTED checked nothing: it
  // never says OK (run_selection_cli_test has the rest).
  const std::string unclaimed = std::string(QSPEC_SOURCE_DIR) + "/vectors/fixedpoint/gemmlowp.rdbpot.json";
  r = run_cli({"run", "--backend", wrong, "--vectors", unclaimed, "--progress", "never"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, " UNSUPPORTED")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: NOTHING CHECKED")) << r.out;
  r = run_cli({"run", "--backend", wrong, "--vectors", unclaimed, "--vectors", file.string(), "--progress", "never", "--filter",
               "*#1", "--filter", "fixedpoint/*"});
  EXPECT_EQ(r.rc, 0) << r.out;  // one test checked (it passes), the unclaimed file's are UNSUPPORTED
  EXPECT_TRUE(contains(r.out, "32 UNSUPPORTED")) << r.out;
  r = run_cli({"run", "--backend", wrong, "--vectors", unclaimed, "--progress", "never", "--fail-on-unsupported"});
  EXPECT_EQ(r.rc, 1) << r.out;

  std::ofstream(root / "expect.txt") << "# the wrong plugin's known bugs\n"
                                        "test/*.json * FAIL ties up and max-1 saturation\n";
  r = run_cli({"run", "--backend", wrong, "--vectors", vectors.string(), "--expect", (root / "expect.txt").string(), "--filter",
               "*#[2-4]", "--progress", "never"});
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "3 known deviations")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: OK")) << r.out;
  r = run_cli({"run", "--backend", wrong, "--vectors", vectors.string(), "--expect", (root / "expect.txt").string(), "--filter",
               "*#1", "--progress", "never"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "PASS (unexpected pass) test/test.half_away.json tcId 1")) << r.out;
}

TEST_F(Cli, malformed_vector_files_exit_2_naming_file_tcid_and_path) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto pos = text.find("\"data\":[-2]");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 11, "\"data\":[-2, 3]");
  write_file_atomically(file, text);
  const Result r = run_cli({"run", "--backend", "reference", "--vectors", vectors.string(), "--progress", "never"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "malformed vector file: test/test.half_away.json: tcId 2: at /testGroups/0/tests/1/inputs/x: "
                              "tensor 'x': data has 2 elements but shape implies 1"))
      << r.out;
}

TEST_F(Cli, usage_errors_exit_2) {
  Result r = run_cli({"run", "--backend", "no_such_backend", "--vectors", vectors.string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "no built-in backend named 'no_such_backend'")) << r.out;
  r = run_cli({"run", "--backend", find_plugin("bad_abi"), "--vectors", vectors.string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "incompatible ABI version")) << r.out;
  r = run_cli({"run", "--backend", "reference", "--vectors", (root / "nothing_here").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "no such vector file or directory")) << r.out;
  std::ofstream(root / "bad_expect.txt") << "test/*.json 1 SOMETIMES why\n";
  r = run_cli({"run", "--backend", "reference", "--vectors", vectors.string(), "--expect", (root / "bad_expect.txt").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "bad_expect.txt:1: verdict must be")) << r.out;
  r = run_cli({"run"});
  EXPECT_EQ(r.rc, 2) << r.out;
}

TEST_F(Cli, eval_prints_actual_next_to_expected) {
  const Result r = run_cli({"eval", file.string(), "--backend", wrong, "--filter", "*#2"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "tcId 2 [valid] tie at -1.5")) << r.out;
  EXPECT_TRUE(contains(r.out, "expected y int8[1] = [-2]")) << r.out;
  EXPECT_TRUE(contains(r.out, "actual   y int8[1] = [-1]")) << r.out;
  EXPECT_TRUE(contains(r.out, "1 tests shown, 1 differ")) << r.out;
  const Result ok = run_cli({"eval", file.string(), "--backend", wrong, "--filter", "*#1"});
  EXPECT_EQ(ok.rc, 0) << ok.out;
}

TEST_F(Cli, backends_lists_builtins_and_plugins) {
  const Result r = run_cli({"backends", wrong});
  // The plugin also claims the harness tests' private op, which qspec's catalogue does not have:
  // listed, marked and reported, and the exit status says so.
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "testing.wrong_requantize claims test.requantize / test.half_away, which is not a pair of "
                              "the op catalogue (spec/catalogue)"))
      << r.out;
  EXPECT_EQ(r.out.rfind("reference\t", 0) == 0 || contains(r.out, "\nreference\t"), true) << r.out;
  EXPECT_TRUE(contains(r.out, "testing.wrong_requantize\t1 (deliberately wrong)")) << r.out;
  EXPECT_TRUE(contains(r.out, "requantize / gemmlowp.double_round  -- WRONG on purpose")) << r.out;
  const Result j = run_cli({"backends", "--json"});
  EXPECT_EQ(j.rc, 0) << j.out;
  EXPECT_NO_THROW({
    const auto parsed = nlohmann::json::parse(j.out);
    EXPECT_TRUE(parsed.is_array());
  }) << j.out;
}

TEST_F(Cli, vectors_check_on_a_tree_without_families_flags_stale_files) {
  // The executable's families generate nothing under this temporary tree: every file is stale.
  fs::create_directories(vectors / "schema");
  fs::copy(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema", vectors / "schema", fs::copy_options::recursive);
  const Result r = run_cli({"vectors", "check", "--dir", vectors.string()});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: stale")) << r.out;
}

TEST_F(Cli, vectors_regen_is_byte_identical_to_a_second_regen) {
  const fs::path a = root / "a", b = root / "b";
  Result r = run_cli({"vectors", "regen", "--out", a.string(), "--only", "requantize/*", "-j", "2"});
  ASSERT_EQ(r.rc, 0) << r.out;
  r = run_cli({"vectors", "regen", "--out", b.string(), "--only", "requantize/*", "-j", "1"});
  ASSERT_EQ(r.rc, 0) << r.out;
  std::size_t files = 0;
  if (fs::exists(a))
    for (const auto& e : fs::recursive_directory_iterator(a)) {
      if (!e.is_regular_file()) continue;
      ++files;
      std::ifstream fa(e.path(), std::ios::binary), fb(b / fs::relative(e.path(), a), std::ios::binary);
      std::stringstream sa, sb;
      sa << fa.rdbuf();
      sb << fb.rdbuf();
      EXPECT_EQ(sa.str(), sb.str()) << e.path();
    }
  if (files == 0) GTEST_SKIP() << "no requantize/* family registered yet";
}

}  // namespace
