// The docs/third-party.md generator on a hand-made report: classes, classification, expect files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "../expect_file.h"
#include "../markdown.h"

namespace {
using namespace qspec::thirdparty_report;
namespace fs = std::filesystem;

fs::path write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Three tests: a pass, a wrong output matching another convention, an accepted invalid input.
const char* kReport = R"({"schema": "qspec-report/1", "backend": {"name": "lib", "version": "lib 1.0"},
  "tests": [
    {"file": "requantize/a.json", "tcId": 1, "op": "requantize", "convention": "a", "result": "valid", "verdict": "PASS"},
    {"file": "requantize/a.json", "tcId": 2, "op": "requantize", "convention": "a", "result": "valid", "verdict": "FAIL",
     "reason": "1 of 3 output elements differ", "first_difference": {"output": "y", "index": [1], "expected": "5", "actual": "4"},
     "differing_elements": 1, "total_elements": 3,
     "matching_conventions": [{"convention": "b", "description": "", "diagnostic_only": false}]},
    {"file": "requantize/a.json", "tcId": 3, "op": "requantize", "convention": "a", "result": "invalid", "verdict": "FAIL",
     "reason": "accepted an invalid input"}]})";

class ThirdpartyReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("qspec_thirdparty_report_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    in_.runs.push_back(load_run("lib", "native", write(dir_ / "r.json", kReport).string()));
    in_.vectors_dir = (dir_ / "no-vectors").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  RenderInput in_;
};

TEST_F(ThirdpartyReport, OneClassPerKindWithItsSmallestVector) {
  const auto classes = deviation_classes(in_.runs);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].key(), "lib|native|requantize|a|accepts an invalid input");
  EXPECT_EQ(classes[1].key(), "lib|native|requantize|a|differs");
  EXPECT_EQ(classes[1].count, 1);
  EXPECT_EQ(classes[1].of_tests, 3);
  ASSERT_NE(classes[1].minimal, nullptr);
  EXPECT_EQ(classes[1].minimal->tc_id, 2);
  EXPECT_EQ(classes[1].top_signatures(2), "matches b (1)");
}

TEST_F(ThirdpartyReport, UnannotatedClassesAreFlaggedAndBlockExpectFiles) {
  const std::string md = render_markdown(in_);
  EXPECT_NE(md.find("UNCLASSIFIED"), std::string::npos);
  std::string why;
  EXPECT_FALSE(write_expect_file(in_, "lib", (dir_ / "expect.txt").string(), why));
  EXPECT_NE(why.find("lib|native|requantize|a|"), std::string::npos) << why;
}

TEST_F(ThirdpartyReport, AnnotationsClassifyAndWriteTheExpectLines) {
  in_.annotations = load_annotations(write(dir_ / "a.json", R"({"annotations": [
      {"pattern": "lib|*|requantize|a|differs", "title": "T1", "kind": "library bug", "expect": "rounds the other way",
       "text": ["first", "second"]},
      {"pattern": "lib|*|*|*|accepts an invalid input", "title": "T2", "kind": "documented", "expect": "no check",
       "text": "x"}]})").string());
  const std::string md = render_markdown(in_);
  EXPECT_EQ(md.find("UNCLASSIFIED"), std::string::npos);
  EXPECT_NE(md.find("### T1"), std::string::npos);
  EXPECT_NE(md.find("**library bug.** first second"), std::string::npos);
  std::string why;
  ASSERT_TRUE(write_expect_file(in_, "lib", (dir_ / "expect.txt").string(), why)) << why;
  const std::string e = read(dir_ / "expect.txt");
  EXPECT_NE(e.find("requantize/a.json 2 FAIL library bug: rounds the other way\n"), std::string::npos) << e;
  EXPECT_NE(e.find("requantize/a.json 3 FAIL documented: no check\n"), std::string::npos) << e;
  EXPECT_EQ(e.find("requantize/a.json 1 "), std::string::npos) << e;
}

// A worker that died or hung is neither a pass nor UNSUPPORTED: counted, tabulated, classified.
TEST_F(ThirdpartyReport, CrashesAndTimeoutsAreTheirOwnClasses) {
  const fs::path p = write(dir_ / "c.json", R"json({"schema": "qspec-report/1", "backend": {"name": "lib", "version": "lib 1.0"},
  "tests": [
    {"file": "requantize/a.json", "tcId": 1, "op": "requantize", "convention": "a", "result": "valid", "verdict": "CRASH",
     "reason": "worker killed by signal 11 (SIGSEGV)"},
    {"file": "requantize/a.json", "tcId": 2, "op": "requantize", "convention": "a", "result": "valid", "verdict": "TIMEOUT",
     "reason": "no result within 10 s"},
    {"file": "requantize/a.json", "tcId": 3, "op": "requantize", "convention": "a", "result": "valid", "verdict": "PASS"}]})json");
  const qspec::thirdparty_report::Run run = load_run("lib", "native", p.string());
  Counts c;
  for (const auto& o : run.outcomes) c.add(o);
  EXPECT_EQ(c.crash, 1);
  EXPECT_EQ(c.timeout, 1);
  EXPECT_EQ(c.unsupported, 0);
  EXPECT_EQ(c.total(), 3);
  const auto classes = deviation_classes({run});
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].key(), "lib|native|requantize|a|crash");
  EXPECT_EQ(classes[1].key(), "lib|native|requantize|a|timeout");
  RenderInput in;
  in.runs.push_back(run);
  in.vectors_dir = in_.vectors_dir;
  const std::string md = render_markdown(in);
  EXPECT_NE(md.find("| requantize | a | 3 | 1 |  |  | 2 (1 CRASH, 1 TIMEOUT) |"), std::string::npos) << md;
}

}  // namespace
