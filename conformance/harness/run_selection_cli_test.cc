// `qspec run` never says OK about a run that checked nothing, and names every directory entry it
// cannot use: an empty selection (no files, a --filter matching nothing) is exit 2 with the reason
// and no "Result" line; symlinked op directories are walked; every test UNSUPPORTED is "NOTHING
// CHECKED" (exit 1); a file no --filter can select is not read; --only-claimed leaves out the
// files of pairs the backend does not claim; dangling and looping links, FIFOs, devices and unreadable directories are
// reported by path, and --keep-going runs everything else. Spawns the qspec executable of this build.
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "cli_fixture.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness_test;

class RunSelectionCli : public CliFixture {
 protected:
  RunSelectionCli() : CliFixture("run_selection") {}
  CliResult run(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--backend", wrong, "--progress", "never"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  }
};

TEST_F(RunSelectionCli, a_directory_without_vector_files_selects_nothing_exit_2) {
  fs::create_directories(root / "empty");
  const CliResult r = run({"--vectors", (root / "empty").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "qspec run: no test selected: no vector file (*.json) in " + (root / "empty").string()))
      << r.out;
  EXPECT_FALSE(contains(r.out, "Result:")) << r.out;
}

TEST_F(RunSelectionCli, a_filter_matching_nothing_exits_2_naming_the_filter) {
  const CliResult r = run({"--vectors", vectors.string(), "--filter", "nothing/*", "--filter", "*#999"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(
      r.out, "no test selected: --filter 'nothing/*', --filter '*#999' match no test of the 1 vector file found"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "Result:")) << r.out;
}

// A file no --filter can select is not read (a filtered run no longer parses the whole tree), so
// its defects do not stop the run; a FILE#tcId glob may select any file, so then every file is read.
TEST_F(RunSelectionCli, a_file_no_filter_can_select_is_not_read) {
  fs::create_directories(vectors / "other");
  harness::write_file_atomically(vectors / "other" / "broken.json", "{\"op\": ");
  CliResult r = run({"--vectors", vectors.string(), "--filter", "test/*"});
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 7 tests:")) << r.out;
  EXPECT_FALSE(contains(r.out, "broken.json")) << r.out;
  r = run({"--vectors", vectors.string(), "--filter", "test/*", "--filter", "*#1"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "malformed vector file: other/broken.json")) << r.out;
  r = run({"--vectors", vectors.string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "malformed vector file: other/broken.json")) << r.out;
}

TEST_F(RunSelectionCli, symlinked_op_directories_are_walked) {
  const fs::path tree = root / "linked" / "vectors";
  fs::create_directories(tree);
  fs::create_directory_symlink(vectors / "test", tree / "test");
  const CliResult r = run({"--vectors", tree.string()});
  EXPECT_EQ(r.rc, 1) << r.out;  // the wrong plugin's failures: the linked file ran
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 7 tests: 2 PASS, 4 FAIL, 1 ERROR")) << r.out;
}

TEST_F(RunSelectionCli, a_link_back_into_the_walk_is_reported_not_followed) {
  fs::create_directory_symlink(vectors, vectors / "test" / "again");
  CliResult r = run({"--vectors", vectors.string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "malformed vector file: test/again: symbolic link to an enclosing directory")) << r.out;
  EXPECT_TRUE(contains(r.out, "(a loop; not followed)")) << r.out;
  r = run({"--vectors", vectors.string(), "--keep-going"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(
      r.out, "SKIPPED malformed vector file (--keep-going): test/again: symbolic link to an enclosing directory"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 7 tests:")) << r.out;
}

// Before: skipped without a word (exit 0 for a passing backend), and "no such vector file" when
// given by name.
TEST_F(RunSelectionCli, unusable_entries_are_named_and_keep_going_runs_the_rest) {
  fs::create_symlink(root / "missing.json", vectors / "dangling.json");
  ASSERT_EQ(::mkfifo((vectors / "fifo.json").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", vectors / "zero.json");
  fs::create_symlink(vectors / "self.json", vectors / "self.json");
  CliResult r = run({"--vectors", vectors.string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "malformed vector file: dangling.json: dangling symbolic link -> " +
                                  (root / "missing.json").string() + " (its target does not exist)"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "7 tests:")) << r.out;  // nothing ran
  r = run({"--vectors", vectors.string(), "--keep-going", "--report-json", (root / "r.json").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  for (const std::string problem :
       {"dangling.json: dangling symbolic link -> ",
        "fifo.json: not a regular file (a FIFO): only regular files are read", "self.json: symbolic link loop -> ",
        "zero.json: not a regular file (a character device)"})
    EXPECT_TRUE(contains(r.out, "SKIPPED malformed vector file (--keep-going): " + problem)) << problem << "\n"
                                                                                             << r.out;
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 7 tests:")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: INPUT ERROR (4 vector files skipped")) << r.out;
  const auto j = nlohmann::json::parse(read_text(root / "r.json"));
  EXPECT_EQ(j["skipped_files"].size(), 4u);
  EXPECT_EQ(j["tests"].size(), 7u);
  // Given by name: what the entry is, not "no such vector file".
  r = run({"--vectors", (vectors / "dangling.json").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "dangling symbolic link -> " + (root / "missing.json").string())) << r.out;
  r = run({"--vectors", (vectors / "self.json").string()});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "self.json: symbolic link loop")) << r.out;
  r = run({"--vectors", (root / "nothing_here.json").string()});  // absent: still a usage error
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "no such vector file or directory")) << r.out;
}

// Before: a raw filesystem error without the path ("filesystem error: ... Permission denied"),
// exit 2 even with --keep-going.
TEST_F(RunSelectionCli, an_unreadable_directory_is_named_and_keep_going_runs_the_rest) {
  const auto as_user = unprivileged_prefix();
  if (!as_user) GTEST_SKIP() << "runs as root without setpriv: file permissions cannot apply";
  fs::create_directories(vectors / "locked");
  harness::write_file_atomically(vectors / "locked" / "x.json", family_text());
  fs::permissions(vectors / "locked", fs::perms::none);
  std::vector<std::string> args = {"run", "--backend", wrong, "--progress", "never", "--vectors", vectors.string()};
  CliResult r = run_cli(args, *as_user);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "malformed vector file: locked: cannot read the directory " +
                                  (vectors / "locked").string() + ": Permission denied"))
      << r.out;
  args.push_back("--keep-going");
  r = run_cli(args, *as_user);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "SKIPPED malformed vector file (--keep-going): locked: cannot read the directory"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 7 tests:")) << r.out;
}

class NothingChecked : public RunSelectionCli {
 protected:
  void SetUp() override {
    RunSelectionCli::SetUp();
    if (IsSkipped()) return;
    // A known pair the wrong plugin does not claim: its 32 tests are UNSUPPORTED.
    fs::create_directories(vectors / "fixedpoint");
    fs::copy_file(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "fixedpoint" / "gemmlowp.rdbpot.json", unclaimed);
  }
  fs::path unclaimed = vectors / "fixedpoint" / "gemmlowp.rdbpot.json";
};

// Before: "Result: OK (every outcome as expected)", exit 0, for a backend that ran no test.
TEST_F(NothingChecked, every_test_unsupported_never_says_ok) {
  const CliResult r = run({"--vectors", unclaimed.string(), "--report-json", (root / "r.json").string()});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(
      contains(r.out,
               "Result: NOTHING CHECKED (every one of the 32 tests is UNSUPPORTED: backend testing.wrong_requantize "
               "claims none of the selected (op, convention) pairs; --only-claimed runs only the pairs it claims)"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "Result: OK")) << r.out;
  EXPECT_EQ(nlohmann::json::parse(read_text(root / "r.json"))["summary"]["exit_code"], 1);
}

TEST_F(NothingChecked, only_claimed_runs_only_the_claimed_pairs) {
  CliResult r = run({"--vectors", vectors.string(), "--only-claimed", "--filter", "*#1", "--report-json",
                     (root / "r.json").string()});
  EXPECT_EQ(r.rc, 0) << r.out;  // tcId 1 of the test file passes; the unclaimed file is not run
  EXPECT_TRUE(contains(r.out, "on 2 vector files, only the pairs it claims (--only-claimed)")) << r.out;
  EXPECT_TRUE(contains(r.out, "test/test.half_away.json: 1 tests: 1 PASS")) << r.out;
  EXPECT_FALSE(contains(r.out, "fixedpoint/gemmlowp.rdbpot.json:")) << r.out;
  EXPECT_TRUE(contains(r.out, "Total: 1 tests: 1 PASS, 0 FAIL, 0 ERROR, 0 UNSUPPORTED")) << r.out;
  EXPECT_TRUE(contains(r.out, "(--only-claimed: 1 vector file of pairs the backend does not claim not run)")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: OK")) << r.out;
  const auto j = nlohmann::json::parse(read_text(root / "r.json"));
  EXPECT_EQ(j["only_claimed"], true);
  EXPECT_EQ(j["unclaimed_files"], nlohmann::json::parse(R"(["fixedpoint/gemmlowp.rdbpot.json"])"));
  EXPECT_EQ(j["summary"]["total"], 1);
  EXPECT_EQ(j["selection"]["tests"], 1);
  // Without the option the same selection holds the unclaimed file's 32 UNSUPPORTED tests.
  r = run({"--vectors", vectors.string(), "--filter", "*#1", "--filter", "fixedpoint/*"});
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "fixedpoint/gemmlowp.rdbpot.json: 32 tests: 0 PASS, 32 UNSUPPORTED")) << r.out;
  // A backend that claims none of the selection checks nothing, claims-only or not.
  r = run({"--vectors", unclaimed.string(), "--only-claimed"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(
      contains(r.out,
               "Result: NOTHING CHECKED (backend testing.wrong_requantize claims none of the (op, convention) pairs of "
               "the 1 vector file selected; --only-claimed left them all out)"))
      << r.out;
}

}  // namespace
