// RunOptions::keep_going and known_ops: a malformed or unknown vector file is skipped and reported
// (summary, JSON report, JUnit), every other file's results are kept, and the exit status is 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness_test_ops.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

// The test family's vector file (7 tests; the reference of this binary implements its op).
std::string good_text() { return serialize_vector_document(vecgen::generate_document(harness_test::test_family(), "9.9.9")); }

// a/good.json and c/good.json around b/broken.json.
struct Tree {
  fs::path dir = fs::temp_directory_path() / ("qspec_keep_going_" + std::to_string(::getpid()));
  explicit Tree(const std::string& broken) {
    const std::string good = good_text();
    fs::remove_all(dir);
    write_file_atomically(dir / "a" / "good.json", good);
    write_file_atomically(dir / "b" / "broken.json", broken);
    write_file_atomically(dir / "c" / "good.json", good);
  }
  ~Tree() { fs::remove_all(dir); }
  RunOptions options() const {
    RunOptions o;
    o.files = find_vector_files({dir});
    return o;
  }
};

TEST(keep_going, without_it_a_malformed_file_ends_the_run) {
  const Tree t(std::string(100, '['));
  const auto ref = Backend::load("reference");
  try {
    run_vectors(*ref, t.options());
    FAIL() << "the malformed file was not reported";
  } catch (const VectorFileError& e) {
    EXPECT_EQ(e.file(), "b/broken.json");
    EXPECT_TRUE(contains(e.what(), "nesting deeper than 32 levels")) << e.what();
  }
}

TEST(keep_going, skips_the_malformed_file_and_keeps_every_other_result) {
  const Tree t(replaced(good_text(), "\"result\":\"valid\"", "\"result\":valid\""));
  const auto ref = Backend::load("reference");
  RunOptions o = t.options();
  o.keep_going = true;
  std::vector<std::string> seen;
  o.observer.file_skipped = [&](const SkippedFile& s) { seen.push_back(s.file); };
  const RunResult r = run_vectors(*ref, o);

  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].file, "b/broken.json");
  EXPECT_TRUE(contains(r.skipped[0].error, "b/broken.json: tcId 1: at /testGroups/0/tests/0/result: not valid JSON (line"))
      << r.skipped[0].error;
  EXPECT_EQ(seen, std::vector<std::string>{"b/broken.json"});
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].file, "a/good.json");
  EXPECT_EQ(r.files[1].file, "c/good.json");
  ASSERT_EQ(r.outcomes.size(), 14u);
  for (const auto& out : r.outcomes) EXPECT_EQ(out.verdict, Verdict::Pass) << out.file << " tcId " << out.tc_id << ": " << out.reason;
  EXPECT_EQ(r.counts.unexpected, 0u);
  EXPECT_EQ(r.exit_code(), 2);

  const std::string summary = summary_text(r);
  EXPECT_TRUE(contains(summary, "Skipped 1 malformed vector file (--keep-going):\n  b/broken.json: tcId 1:")) << summary;
  EXPECT_TRUE(contains(summary, "Result: INPUT ERROR (1 vector file skipped)")) << summary;

  const auto j = json_report(r);
  ASSERT_EQ(j["skipped_files"].size(), 1u);
  EXPECT_EQ(j["skipped_files"][0]["file"], "b/broken.json");
  EXPECT_EQ(j["skipped_files"][0]["error"], r.skipped[0].error);
  EXPECT_EQ(j["summary"]["exit_code"], 2);
  EXPECT_EQ(j["summary"]["skipped_files"], 1);
  EXPECT_EQ(j["tests"].size(), 14u);

  const std::string junit = junit_report(r);
  EXPECT_TRUE(contains(junit, "<testsuite name=\"b/broken.json\" tests=\"1\" failures=\"0\" errors=\"1\"")) << junit;
  EXPECT_TRUE(contains(junit, "type=\"MALFORMED_VECTOR_FILE\"")) << junit;
}

TEST(keep_going, the_input_error_outranks_unexpected_outcomes) {
  RunResult r;
  r.counts.unexpected = 3;
  EXPECT_EQ(r.exit_code(), 1);
  r.skipped.push_back({"x.json", "x.json: not valid JSON"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_TRUE(contains(summary_text(r), "Result: INPUT ERROR (1 vector file skipped; 3 unexpected outcomes)")) << summary_text(r);
}

// An interrupted --keep-going run still lists the files it skipped before it stopped.
TEST(keep_going, an_interrupted_run_still_lists_its_skipped_files) {
  RunResult r;
  r.interrupted = true;
  r.skipped.push_back({"x.json", "x.json: not valid JSON (line 1, column 2, byte 1)"});
  const std::string s = summary_text(r);
  EXPECT_TRUE(contains(s, "Skipped 1 malformed vector file (--keep-going):\n  x.json: not valid JSON (line 1")) << s;
  EXPECT_TRUE(contains(s, "Result: INTERRUPTED after 0 tests (0 unexpected so far, 1 vector file skipped; qspec run --resume continues)")) << s;
}

// Against the reference's capabilities: a misspelt op or convention is an input error, not a file
// of UNSUPPORTED verdicts; a pair the backend under test claims is fine even if the reference lacks it.
TEST(keep_going, unknown_op_or_convention_is_skipped_unless_the_backend_claims_it) {
  const std::string good = good_text();
  const fs::path dir = fs::temp_directory_path() / ("qspec_known_ops_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  write_file_atomically(dir / "op.json", replaced(good, "\"op\": \"test.requantize\"", "\"op\": \"test.requantise\""));
  write_file_atomically(dir / "conv.json", replaced(good, "\"convention\": \"test.half_away\"", "\"convention\": \"test.half_awya\""));
  write_file_atomically(dir / "ok.json", good);
  const auto ref = Backend::load("reference");
  RunOptions o;
  o.files = find_vector_files({dir});
  o.keep_going = true;
  for (const auto& c : ref->capabilities()) o.known_ops.emplace_back(c.op, c.convention);
  const RunResult r = run_vectors(*ref, o);
  ASSERT_EQ(r.skipped.size(), 2u);
  EXPECT_EQ(r.skipped[0].file, "conv.json");
  EXPECT_TRUE(contains(r.skipped[0].error, "conv.json: at /convention: unknown convention \"test.half_awya\" of op \"test.requantize\": "
                                           "not implemented by the reference or by backend 'reference' (known conventions of the op: "
                                           "test.half_away, "))
      << r.skipped[0].error;
  EXPECT_EQ(r.skipped[1].file, "op.json");
  EXPECT_TRUE(contains(r.skipped[1].error, "op.json: at /op: unknown op \"test.requantise\": not implemented by the reference or by "
                                           "backend 'reference'"))
      << r.skipped[1].error;
  EXPECT_EQ(r.outcomes.size(), 7u);

  // The catalogue lacks the test op, but the backend under test claims it: not an error.
  o.files = find_vector_files({dir / "ok.json"});
  o.known_ops = {{"requantize", "tflite.single_round"}};
  const RunResult claimed = run_vectors(*ref, o);
  EXPECT_TRUE(claimed.skipped.empty());
  EXPECT_EQ(claimed.outcomes.size(), 7u);
  fs::remove_all(dir);
}

}  // namespace
