// Tests of `qspec sweep`: its output parsers, process runner, and the CLI end to end.
//
// The end-to-end checks run the built qspec executable (<build>/harness/qspec, found relative to
// this test binary at <build>/conformance/harness/sweep_test). One runs real properties
// (round_*, 50 cases, 2 jobs). The other points --bin-dir at a temporary directory holding a
// shell script named fake_properties that prints what a failing RapidCheck + GoogleTest binary
// prints ("Falsifiable after N tests and M shrinks", the RC_PARAMS="reproduce=..." line) and
// writes a counterexample file: it tests the orchestrator's parsing and reporting, not
// RapidCheck itself.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "qspec/harness/sweep.h"

namespace {

namespace fs = std::filesystem;
using namespace qspec::harness::sweep;

// --- parsers -----------------------------------------------------------------------------------

TEST(sweep_parse, GtestListing) {
  const std::string listing =
      "Running main() from gtest_main.cc\n"
      "round_floor.\n"
      "  IsGreatestIntegerNotAbove\n"
      "  Other\n"
      "typed/0.  # TypeParam = int\n"
      "  Works\n"
      "param/suite.\n"
      "  Case/3  # GetParam() = 7\n";
  const std::vector<std::string> expected = {"round_floor.IsGreatestIntegerNotAbove", "round_floor.Other", "typed/0.Works",
                                             "param/suite.Case/3"};
  EXPECT_EQ(parse_gtest_list(listing), expected);
  EXPECT_TRUE(parse_gtest_list("").empty());
}

TEST(sweep_parse, Glob) {
  EXPECT_TRUE(glob_match("round_*", "round_half_even.NearestTiesEven"));
  EXPECT_TRUE(glob_match("round_half_even*", "round_half_even.TiesAlwaysEven"));
  EXPECT_TRUE(glob_match("*.Ties?lwaysEven", "round_half_even.TiesAlwaysEven"));
  EXPECT_TRUE(glob_match("requant_[gt]*", "requant_tvm.x"));
  EXPECT_FALSE(glob_match("round_*", "requant_gemmlowp_rdbpot.Matches"));
  EXPECT_FALSE(glob_match("round", "round_floor.X"));  // the glob covers the whole name
}

// Output captured from a real RapidCheck 0.0 + GoogleTest 1.12 failure (stdout and stderr merged).
const char* kFailingOutput =
    "Using configuration: max_success=500 seed=5\n"
    "[==========] Running 1 test from 1 test suite.\n"
    "[ RUN      ] demo_fail.Fails\n"
    "/usr/include/rapidcheck/gtest.h:29: Failure\n"
    "Failed\n"
    "Falsifiable after 23 tests and 2 shrinks\n"
    "\n"
    "std::tuple<int>:\n"
    "(50)\n"
    "\n"
    "t.cc:3:\n"
    "RC_ASSERT(x < 50)\n"
    "\n"
    "Expands to:\n"
    "50 < 50\n"
    "\n"
    "[  FAILED  ] demo_fail.Fails (0 ms)\n"
    "[==========] 1 test from 1 test suite ran. (0 ms total)\n"
    "[  FAILED  ] 1 test, listed below:\n"
    "[  FAILED  ] demo_fail.Fails\n"
    "\n"
    " 1 FAILED TEST\n"
    "Some of your RapidCheck properties had failures. To reproduce these, run with:\n"
    "RC_PARAMS=\"reproduce=B8AZl12bfZWYpx2LGFWasNXBAAAAAAAAAUAAAAAAAAAAFAAAAAAAAAQBAAAAAAAAAAIgAKAAXYBAAAgAFUA\"\n";

TEST(sweep_parse, RapidCheckFailure) {
  const PropertyReport r = parse_property_output(kFailingOutput);
  EXPECT_TRUE(r.used_rapidcheck);
  EXPECT_TRUE(r.gtest_failed);
  EXPECT_FALSE(r.gtest_ok);
  ASSERT_TRUE(r.falsified_after);
  EXPECT_EQ(*r.falsified_after, 23u);
  ASSERT_TRUE(r.shrinks);
  EXPECT_EQ(*r.shrinks, 2u);
  EXPECT_EQ(r.reproduce, "B8AZl12bfZWYpx2LGFWasNXBAAAAAAAAAUAAAAAAAAAAFAAAAAAAAAQBAAAAAAAAAAIgAKAAXYBAAAgAFUA");
  EXPECT_EQ(r.failure_text.rfind("Falsifiable after 23 tests and 2 shrinks", 0), 0u) << r.failure_text;
  EXPECT_NE(r.failure_text.find("RC_ASSERT(x < 50)"), std::string::npos);
  EXPECT_NE(r.failure_text.find("50 < 50"), std::string::npos);
  EXPECT_EQ(r.failure_text.find("FAILED"), std::string::npos);
  EXPECT_EQ(r.failure_text.find("Using configuration"), std::string::npos);
}

TEST(sweep_parse, PassAndPlainTestAndGaveUp) {
  const PropertyReport pass = parse_property_output(
      "Using configuration: seed=1 max_success=10\n[ RUN      ] a.b\n[       OK ] a.b (3 ms)\n[  PASSED  ] 1 test.\n");
  EXPECT_TRUE(pass.gtest_ok);
  EXPECT_TRUE(pass.used_rapidcheck);
  EXPECT_FALSE(pass.falsified_after);
  EXPECT_TRUE(pass.failure_text.empty());

  const PropertyReport plain = parse_property_output("[ RUN      ] a.b\n[       OK ] a.b (0 ms)\n");
  EXPECT_FALSE(plain.used_rapidcheck);  // a plain TEST never reads RC_PARAMS

  const PropertyReport skipped = parse_property_output("[ RUN      ] a.b\n[  SKIPPED ] a.b (0 ms)\n");
  EXPECT_TRUE(skipped.gtest_skipped);

  const PropertyReport gave_up = parse_property_output(
      "Using configuration: seed=1\n[ RUN      ] a.b\nx.cc:1: Failure\nFailed\nGave up after 12 tests\n\nTests run: 12\n"
      "[  FAILED  ] a.b (1 ms)\n");
  ASSERT_TRUE(gave_up.gave_up_after);
  EXPECT_EQ(*gave_up.gave_up_after, 12u);
  EXPECT_EQ(gave_up.failure_text.rfind("Gave up after 12 tests", 0), 0u);

  const PropertyReport gtest_failure =
      parse_property_output("[ RUN      ] a.b\nx.cc:7: Failure\nExpected equality\n[  FAILED  ] a.b (0 ms)\n");
  EXPECT_TRUE(gtest_failure.gtest_failed);
  EXPECT_EQ(gtest_failure.failure_text, "x.cc:7: Failure\nExpected equality");
}

TEST(sweep_parse, ShellQuote) {
  EXPECT_EQ(shell_quote("/a/b_c.d"), "/a/b_c.d");
  EXPECT_EQ(shell_quote("seed=1 max_success=2"), "'seed=1 max_success=2'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

// --- child processes ---------------------------------------------------------------------------

TEST(sweep_process, ExitStatusOutputAndEnvironment) {
  const ChildResult r = run_child({"/bin/sh", "-c", "echo out; echo err >&2; echo \"$QSPEC_SWEEP_TEST_VAR\"; exit 3"},
                                  {{"QSPEC_SWEEP_TEST_VAR", "hello"}});
  EXPECT_FALSE(r.exec_failed);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.output, "out\nerr\nhello\n");
}

TEST(sweep_process, ExecFailureTimeoutAndSignal) {
  const ChildResult missing = run_child({"/nonexistent/qspec_no_such_binary"}, {});
  EXPECT_TRUE(missing.exec_failed);
  EXPECT_NE(missing.output.find("cannot execute"), std::string::npos);

  const ChildResult slow = run_child({"/bin/sh", "-c", "sleep 5"}, {}, 0.3);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(slow.signal, SIGKILL);
  EXPECT_LT(slow.seconds, 4.0);

  const ChildResult killed = run_child({"/bin/sh", "-c", "kill -TERM $$"}, {});
  EXPECT_EQ(killed.signal, SIGTERM);
}

// --- the CLI end to end ------------------------------------------------------------------------

fs::path self_exe() { return fs::read_symlink("/proc/self/exe"); }
fs::path build_dir() { return self_exe().parent_path().parent_path().parent_path(); }  // <build>/conformance/harness/x
fs::path qspec_exe() { return build_dir() / "harness" / "qspec"; }

struct CliRun {
  int exit_code = -1;
  std::string output;
};

CliRun run_qspec(const std::string& args) {
  CliRun r;
  const std::string cmd = shell_quote(qspec_exe().string()) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = ::pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// Skips when qspec cannot run here (a cross build whose test runs under qemu-user, where the
// aarch64 qspec binary cannot be exec'd without binfmt_misc); fails when it is missing.
#define QSPEC_REQUIRE_RUNNABLE_QSPEC()                                                              \
  do {                                                                                              \
    ASSERT_TRUE(fs::exists(qspec_exe())) << qspec_exe();                                            \
    const CliRun v = run_qspec("--version");                                                           \
    if (v.exit_code == 126 || v.exit_code == 127) GTEST_SKIP() << "cannot execute qspec: " << v.output; \
    ASSERT_EQ(v.exit_code, 0) << v.output;                                                          \
  } while (0)

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path = fs::temp_directory_path() / ("qspec_sweep_test_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST(sweep_cli, RoundPropertiesPassAt50Cases) {
  QSPEC_REQUIRE_RUNNABLE_QSPEC();
  if (!fs::exists(build_dir() / "conformance" / "primitives_properties"))
    GTEST_SKIP() << "no property binaries in this build (cross builds do not build them)";
  TempDir out("round");
  const CliRun r = run_qspec("sweep --property 'round_*' --cases 50 --jobs 2 --seed 7 --progress never --out " +
                          shell_quote(out.path.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("RC_PARAMS=\"seed=7 max_success=50\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Summary (seed 7, up to 50 cases per property)"), std::string::npos) << r.output;
  // Every round.* clause has a property; each appears in the summary with its 50 cases.
  for (const char* p : {"round_floor.", "round_ceil.", "round_trunc.", "round_half_up.", "round_half_down.",
                        "round_half_away.", "round_half_even.NearestTiesEven", "round_half_even.TiesAlwaysEven"}) {
    EXPECT_NE(r.output.find(p), std::string::npos) << p << "\n" << r.output;
  }
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n  PASS +50 +[0-9.]+  round_half_even\.TiesAlwaysEven )"))) << r.output;
  EXPECT_NE(r.output.find(" passed, 0 failed;"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("FAIL "), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out.path / "logs"));  // logs are kept for failures only
}

// A stand-in for a property binary: lists two tests, passes one, fails the other the way
// RapidCheck's gtest integration reports it, and writes a counterexample file.
const char* kFakePropertyBinary = R"(#!/bin/sh
case "$1" in
  --gtest_list_tests)
    printf 'fake_prop.\n  Fails\n  Passes\n'
    exit 0 ;;
  --gtest_filter=fake_prop.Passes)
    echo "Using configuration: $RC_PARAMS" >&2
    printf '[ RUN      ] fake_prop.Passes\n[       OK ] fake_prop.Passes (1 ms)\n'
    exit 0 ;;
  --gtest_filter=fake_prop.Fails)
    echo "Using configuration: $RC_PARAMS" >&2
    printf '[ RUN      ] fake_prop.Fails\nfake.cc:29: Failure\nFailed\nFalsifiable after 7 tests and 3 shrinks\n\nstd::tuple<int>:\n(50)\n\nfake.cc:3:\nRC_ASSERT(x < 50)\n\n[  FAILED  ] fake_prop.Fails (0 ms)\n'
    mkdir -p "$QSPEC_COUNTEREXAMPLE_DIR"
    echo '{"schema": "qspec-vectors/1"}' > "$QSPEC_COUNTEREXAMPLE_DIR/fake_prop_fails.json"
    echo 'Some of your RapidCheck properties had failures. To reproduce these, run with:' >&2
    echo 'RC_PARAMS="reproduce=FAKEREPRO123"' >&2
    exit 1 ;;
esac
exit 2
)";

void write_fake_binary(const fs::path& dir) {
  const fs::path bin = dir / "fake_properties";
  std::ofstream(bin) << kFakePropertyBinary;
  fs::permissions(bin, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

TEST(sweep_cli, FailingPropertyIsReportedWithSeedReplayAndCounterexample) {
  QSPEC_REQUIRE_RUNNABLE_QSPEC();
  TempDir bin("bin"), out("out");
  write_fake_binary(bin.path);
  const CliRun r = run_qspec("sweep --bin-dir " + shell_quote(bin.path.string()) + " --cases 33 --seed 4242 --jobs 2 --progress never --out " +
                          shell_quote(out.path.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("2 properties: 1 passed, 1 failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL fake_prop.Fails (fake_properties): falsifiable after 7 tests and 3 shrinks"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("RC_ASSERT(x < 50)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("replay this case:  RC_PARAMS=reproduce=FAKEREPRO123 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("replay the run:    RC_PARAMS='seed=4242 max_success=33' "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--gtest_filter=fake_prop.Fails"), std::string::npos) << r.output;
  const fs::path ce = out.path / "fake_prop.Fails" / "fake_prop_fails.json";
  EXPECT_TRUE(fs::exists(ce));
  EXPECT_NE(r.output.find("counterexample vector: " + ce.string() + " (ready to add to vectors/)"), std::string::npos) << r.output;
  // The failing case's full output is kept, and shows the RC_PARAMS the child received.
  std::ifstream log(out.path / "logs" / "fake_prop.Fails.log");
  std::stringstream ss;
  ss << log.rdbuf();
  EXPECT_NE(ss.str().find("Using configuration: seed=4242 max_success=33"), std::string::npos) << ss.str();
  // The passing property has 33 cases and no counterexample directory.
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n  PASS +33 +[0-9.]+  fake_prop\.Passes )"))) << r.output;
  EXPECT_FALSE(fs::exists(out.path / "fake_prop.Passes"));

  // A counterexample file left from an earlier sweep is not reported again: only files the
  // property writes during this run are.
  fs::create_directories(out.path / "fake_prop.Passes");
  std::ofstream(out.path / "fake_prop.Passes" / "stale.json") << "{}";
  const CliRun again = run_qspec("sweep --bin-dir " + shell_quote(bin.path.string()) + " --property 'fake_prop.P*' --progress never --out " +
                              shell_quote(out.path.string()));
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(again.output.find("counterexample vector"), std::string::npos) << again.output;
}

TEST(sweep_cli, UsageErrorsExitTwo) {
  QSPEC_REQUIRE_RUNNABLE_QSPEC();
  TempDir bin("usage");
  const CliRun none = run_qspec("sweep --bin-dir " + shell_quote(bin.path.string()));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no *_properties binaries"), std::string::npos) << none.output;

  const CliRun missing = run_qspec("sweep --bin-dir " + shell_quote((bin.path / "nope").string()));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;

  write_fake_binary(bin.path);
  const CliRun nomatch = run_qspec("sweep --bin-dir " + shell_quote(bin.path.string()) + " --property 'no_such_*'");
  EXPECT_EQ(nomatch.exit_code, 2) << nomatch.output;
  EXPECT_NE(nomatch.output.find("no property matches 'no_such_*'"), std::string::npos) << nomatch.output;

  const CliRun list = run_qspec("sweep --bin-dir " + shell_quote(bin.path.string()) + " --list");
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("fake_prop.Fails  fake_properties"), std::string::npos) << list.output;
}

}  // namespace
