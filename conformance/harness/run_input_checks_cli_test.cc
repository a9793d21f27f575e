// `qspec run` checks its inputs before any test runs: every vector file against the JSON Schemas
// `qspec vectors check` applies (a violation is a malformed file named with its tcId and JSON
// path), names that would be cut short as C strings, and the report paths (two options naming one
// file, a missing directory, a directory where no file can be created). Spawns the qspec
// executable of this build.
#include <nlohmann/json.hpp>

#include "cli_fixture.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness_test;
using OJ = nlohmann::ordered_json;

class RunInputChecksCli : public CliFixture {
 protected:
  RunInputChecksCli() : CliFixture("run_input_checks") {}

  // The first test of the committed requantize/tflite.single_round.json as a file of its own,
  // after `edit`; the reference backend passes it unedited.
  template <class Edit>
  fs::path requantize_file(const std::string& name, Edit edit) {
    OJ doc = OJ::parse(read_text(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "requantize" / "tflite.single_round.json"));
    OJ group = doc["testGroups"][0];
    group["tests"] = OJ::array({group["tests"][0]});
    doc["testGroups"] = OJ::array({group});
    doc["numberOfTests"] = 1;
    edit(doc["testGroups"][0]["tests"][0], doc);
    const fs::path p = vectors / "requantize" / name;
    harness::write_file_atomically(p, doc.dump());
    return p;
  }
  CliResult run_reference(const fs::path& p) {
    return run_cli({"run", "--backend", "reference", "--vectors", p.string(), "--progress", "never"});
  }
};

TEST_F(RunInputChecksCli, the_unedited_test_passes) {
  const CliResult r = run_reference(requantize_file("plain.json", [](OJ&, OJ&) {}));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "requantize/plain.json: 1 tests: 1 PASS")) << r.out;
}

// Before: ERROR (no x), PASS with x2 ignored (exit 0), ERROR (the 400-digit shift): the schemas
// that `vectors check` applies were not applied by `run`. Now the generated schema (names and
// types) and the op catalogue's check (required inputs, attribute domains) name each one.
TEST_F(RunInputChecksCli, every_file_is_schema_checked_before_its_tests_run) {
  CliResult r = run_reference(requantize_file("no_x.json", [](OJ& t, OJ&) { t["inputs"].erase("x"); }));
  EXPECT_EQ(r.rc, 2) << r.out;
  // The op catalogue's check (spec/catalogue/requantize.json) finds it: a valid test needs x.
  EXPECT_TRUE(
      contains(r.out,
               "qspec run: malformed vector file: requantize/no_x.json: tcId 1: at /testGroups/0/tests/0/inputs: "
               "missing input 'x' (spec/catalogue/requantize.json)"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "1 tests:")) << r.out;

  r = run_reference(requantize_file("x2.json", [](OJ& t, OJ&) { t["inputs"]["x2"] = t["inputs"]["x"]; }));
  EXPECT_EQ(r.rc, 2) << r.out;
  // The validator's wording, and whether it points at the object or at its extra member, are not
  // pinned down here: the file, the tcId, the JSON path and the schema file are.
  EXPECT_TRUE(contains(r.out, "requantize/x2.json: tcId 1: at /testGroups/0/tests/0/inputs")) << r.out;
  EXPECT_TRUE(contains(r.out, "schema violation (vectors/schema/requantize.schema.json): ")) << r.out;

  r = run_reference(
      requantize_file("shift.json", [](OJ& t, OJ&) { t["attributes"]["shift"] = std::string(400, '7'); }));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "requantize/shift.json: tcId 1: at /testGroups/0/tests/0/attributes/shift: attribute 'shift': "
                       "integer \"777"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "exceeds int64 (spec/catalogue/requantize.json)")) << r.out;

  // --keep-going: named, skipped, the others run.
  requantize_file("plain.json", [](OJ&, OJ&) {});
  r = run_cli({"run", "--backend", "reference", "--vectors", (vectors / "requantize").string(), "--progress", "never",
               "--keep-going"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "plain.json: 1 tests: 1 PASS")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: INPUT ERROR (3 vector files skipped)")) << r.out;
}

// Before: "requantize\u0000evil" reached the backend as the C string "requantize" and passed.
TEST_F(RunInputChecksCli, a_name_with_a_nul_is_refused) {
  const CliResult r =
      run_reference(requantize_file("nul.json", [](OJ&, OJ& doc) { doc["op"] = std::string("requantize\0evil", 15); }));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(
      contains(r.out, "requantize/nul.json: at /op: the name \"requantize\\x00evil\" holds a control character"))
      << r.out;
  EXPECT_FALSE(contains(r.out, std::string("\0", 1))) << "a NUL reached the output";
}

// Before: the second report silently replaced the first; the missing directory was created; the
// unwritable one failed after the whole run.
TEST_F(RunInputChecksCli, report_paths_are_checked_before_the_backend_starts) {
  const std::vector<std::string> run = {"run",        "--backend", wrong, "--vectors", vectors.string(),
                                        "--progress", "never"};
  const auto with = [&](std::vector<std::string> extra, const std::vector<std::string>& prefix = {}) {
    std::vector<std::string> args = run;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args, prefix);
  };
  const std::string same = (root / "same").string();
  CliResult r = with({"--report-json", same, "--junit", same});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "qspec run: --report-json and --junit name the same file " + same)) << r.out;
  EXPECT_FALSE(contains(r.out, "qspec run: backend")) << r.out;  // nothing started
  EXPECT_FALSE(fs::exists(same));
  r = with({"--html", (root / "a" / ".." / "same").string(), "--junit", same});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--junit and --html name the same file")) << r.out;

  const fs::path missing = root / "nonexistent" / "dir" / "r.json";
  r = with({"--report-json", missing.string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--report-json " + missing.string() + ": the directory " +
                                  missing.parent_path().string() + " does not exist (qspec does not create it"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "7 tests:")) << r.out;
  EXPECT_FALSE(fs::exists(root / "nonexistent"));

  r = with({"--junit", vectors.string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "is a directory, not a file name")) << r.out;

  const auto as_user = unprivileged_prefix();
  if (!as_user) GTEST_SKIP() << "runs as root without setpriv: file permissions cannot apply";
  fs::create_directories(root / "readonly");
  fs::permissions(root / "readonly", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                         fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  r = with({"--junit", (root / "readonly" / "j.xml").string()}, *as_user);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--junit " + (root / "readonly" / "j.xml").string() + ": cannot create a file in " +
                                  (root / "readonly").string() + ": Permission denied"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "7 tests:")) << r.out;
}

}  // namespace
