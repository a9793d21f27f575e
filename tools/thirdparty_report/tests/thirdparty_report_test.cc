// The docs/third-party.md generator on hand-made reports: measurements, classes, ISAs, expect files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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
std::string report(const std::string& version, bool second_fails = true) {
  return R"({"schema": "qspec-report/1", "backend": {"name": "lib", "version": ")" + version + R"("},
  "tests": [
    {"file": "requantize/a.json", "tcId": 1, "op": "requantize", "convention": "a", "result": "valid", "verdict": "PASS"},)" +
         (second_fails ? R"(
    {"file": "requantize/a.json", "tcId": 2, "op": "requantize", "convention": "a", "result": "valid", "verdict": "FAIL",
     "reason": "1 of 3 output elements differ", "first_difference": {"output": "y", "index": [1], "expected": "5", "actual": "4"},
     "differing_elements": 1, "total_elements": 3,
     "matching_conventions": [{"convention": "b", "description": "", "diagnostic_only": false}]},)"
                       : R"(
    {"file": "requantize/a.json", "tcId": 2, "op": "requantize", "convention": "a", "result": "valid", "verdict": "PASS"},)") +
         R"(
    {"file": "requantize/a.json", "tcId": 3, "op": "requantize", "convention": "a", "result": "invalid", "verdict": "FAIL",
     "reason": "accepted an invalid input"}]})";
}

const char* kAnnotations = R"({"annotations": [
    {"pattern": "lib|*|requantize|a|differs", "title": "T1", "kind": "library bug", "expect": "rounds the other way",
     "text": ["first", "second"]},
    {"pattern": "lib|*|*|*|accepts an invalid input", "title": "T2", "kind": "documented", "expect": "no check", "text": "x"}]})";

class ThirdpartyReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("qspec_thirdparty_report_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    in_.vectors_dir = (dir_ / "no-vectors").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  RunSummary measured(const std::string& name, const std::string& version, bool second_fails = true,
                      const std::string& cpu = "CPU A") {
    Machine m;
    m.cpu = cpu;
    m.flags = {"avx2"};
    return summarize(load_run("lib", "native", write(dir_ / name, report(version, second_fails)).string()), m);
  }
  fs::path dir_;
  RenderInput in_;
};

TEST_F(ThirdpartyReport, OneClassPerKindWithItsSmallestVectorAndItsTests) {
  const RunSummary s = measured("r.json", "lib 1.0");
  EXPECT_EQ(s.isa, "");
  ASSERT_EQ(s.classes.size(), 2u);
  EXPECT_EQ(s.classes[0].kind, "accepts an invalid input");
  EXPECT_EQ(s.classes[1].kind, "differs");
  EXPECT_EQ(s.classes[1].count, 1);
  EXPECT_EQ(s.classes[1].of_tests, 3);
  EXPECT_EQ(s.classes[1].minimal.tc_id, 2);
  EXPECT_EQ(s.classes[1].signatures.at("matches b"), 1);
  EXPECT_EQ(s.classes[1].tests, std::vector<std::string>{"requantize/a.json#2 FAIL"});
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].counts.pass, 1);
  EXPECT_EQ(s.rows[0].counts.fail, 2);
}

TEST_F(ThirdpartyReport, UnannotatedClassesAreFlaggedAndBlockExpectFiles) {
  in_.runs.push_back(measured("r.json", "lib 1.0"));
  const std::string md = render_markdown(in_);
  EXPECT_NE(md.find("UNCLASSIFIED"), std::string::npos);
  std::string why;
  EXPECT_FALSE(write_expect_file(in_, "lib", (dir_ / "expect.txt").string(), why));
  EXPECT_NE(why.find("lib|native|requantize|a|"), std::string::npos) << why;
}

TEST_F(ThirdpartyReport, AnnotationsClassifyAndWriteTheExpectLines) {
  in_.runs.push_back(measured("r.json", "lib 1.0"));
  in_.annotations = load_annotations(write(dir_ / "a.json", kAnnotations).string());
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

// A deviation seen on some ISAs only is a finding: the page names the ISAs it occurs on (and
// those it does not), and the expect entry holds for those ISAs only.
TEST_F(ThirdpartyReport, DeviationsOfSomeInstructionSetsAreNamedAndExpectedThereOnly) {
  in_.runs.push_back(measured("slow.json", "lib 1.0 (isa: avx2)"));
  in_.runs.push_back(measured("fast.json", "lib 1.0 (isa: avx512_vnni)", /*second_fails=*/false));
  EXPECT_EQ(in_.runs[0].isa, "avx2");
  in_.annotations = load_annotations(write(dir_ / "a.json", kAnnotations).string());
  const std::string md = render_markdown(in_);
  EXPECT_NE(md.find("| lib | own | `avx2` (not on `avx512_vnni`) | requantize | a | differs | 1 of 3 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| lib | own | every ISA measured | requantize | a | accepts an invalid input | 1 of 3 |"),
            std::string::npos)
      << md;
  // Two tables: the results differ between the ISAs.
  EXPECT_NE(md.find("### lib (isa `avx512_vnni`)"), std::string::npos) << md;
  EXPECT_NE(md.find("### lib (isa `avx2`)"), std::string::npos) << md;
  std::string why;
  ASSERT_TRUE(write_expect_file(in_, "lib", (dir_ / "expect.txt").string(), why)) << why;
  const std::string e = read(dir_ / "expect.txt");
  EXPECT_NE(e.find("requantize/a.json 2 FAIL isa=avx2 library bug: rounds the other way\n"), std::string::npos) << e;
  EXPECT_NE(e.find("requantize/a.json 3 FAIL documented: no check\n"), std::string::npos) << e;
}

// A variant configuration of the adapter (generate.sh's "libtorch-qnnpack", "onnxruntime-fed")
// reads the library's expect file, so its deviations are written there; another library whose
// name merely starts alike is not. Regression: only the exact label was read.
TEST_F(ThirdpartyReport, VariantConfigurationsOfTheLibraryShareItsExpectFile) {
  in_.runs.push_back(measured("own.json", "lib 1.0 (isa: avx2)", /*second_fails=*/false));
  RunSummary variant = measured("variant.json", "lib 1.0 (isa: avx2)");
  variant.label = "lib-variant";
  in_.runs.push_back(variant);
  RunSummary other = measured("other.json", "lib 1.0 (isa: sse41)");
  other.label = "library";
  in_.runs.push_back(other);
  in_.annotations = load_annotations(write(dir_ / "a.json", kAnnotations).string());
  std::string why;
  ASSERT_TRUE(write_expect_file(in_, "lib", (dir_ / "expect.txt").string(), why)) << why;
  const std::string e = read(dir_ / "expect.txt");
  EXPECT_NE(e.find("requantize/a.json 2 FAIL library bug: rounds the other way\n"), std::string::npos) << e;
  EXPECT_NE(e.find("(ISAs: avx2)"), std::string::npos) << e;  // one ISA, not the other library's
}

// A sixth pattern field classifies a class on some instruction sets only: the same class key
// can be two findings on two ISAs (oneDNN's matmul saturates at avx512_core only).
TEST_F(ThirdpartyReport, AnnotationsCanNameTheInstructionSet) {
  const auto a = load_annotations(write(dir_ / "a.json", R"({"annotations": [
      {"pattern": "lib|*|requantize|a|differs|avx2", "title": "only avx2", "kind": "library bug", "text": "t"},
      {"pattern": "lib|*|requantize|a|differs", "title": "any", "kind": "documented", "text": "t"}]})")
                                      .string());
  EXPECT_EQ(find_annotation(a, "lib|native|requantize|a|differs", "avx2")->title, "only avx2");
  EXPECT_EQ(find_annotation(a, "lib|native|requantize|a|differs", "sse41")->title, "any");
  EXPECT_EQ(find_annotation(a, "lib|native|requantize|a|differs", "")->title, "any");
  in_.runs.push_back(measured("slow.json", "lib 1.0 (isa: avx2)"));
  in_.runs.push_back(measured("other.json", "lib 1.0 (isa: sse41)"));
  in_.annotations = a;
  const std::string md = render_markdown(in_);
  const auto only = md.find("### only avx2"), any = md.find("### any");
  ASSERT_NE(only, std::string::npos) << md;
  ASSERT_NE(any, std::string::npos) << md;
  EXPECT_NE(md.find("| lib | own | `avx2` | requantize | a | differs |", only), std::string::npos) << md;
  EXPECT_NE(md.find("| lib | own | `sse41` | requantize | a | differs |", any), std::string::npos) << md;
}

// Identical results on every ISA measured: one table naming all of them.
TEST_F(ThirdpartyReport, InstructionSetsWithTheSameResultsShareATable) {
  in_.runs.push_back(measured("x.json", "lib 1.0 (isa: avx2)"));
  in_.runs.push_back(measured("y.json", "lib 1.0 (isa: sse41)"));
  in_.annotations = load_annotations(write(dir_ / "a.json", kAnnotations).string());
  const std::string md = render_markdown(in_);
  EXPECT_NE(md.find("### lib (isa `avx2`, `sse41`: the same on every ISA measured)"), std::string::npos) << md;
  EXPECT_NE(md.find("| lib | own | every ISA measured | requantize | a | differs |"), std::string::npos) << md;
}

// A measurement file round-trips; another machine at the same ISA compares equal (the machine is
// not part of the results); a changed result is named.
TEST_F(ThirdpartyReport, MeasurementsRoundTripAndCompareWithoutTheMachine) {
  const RunSummary a = measured("r.json", "lib 1.0 (isa: avx2)");
  save_measurement((dir_ / "m").string(), a);
  EXPECT_TRUE(fs::exists(dir_ / "m" / "lib.native.avx2.json"));
  const auto loaded = load_measurements((dir_ / "m").string());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_TRUE(loaded[0].same_results(a));
  EXPECT_EQ(loaded[0].machine.cpu, "CPU A");
  EXPECT_EQ(loaded[0].classes, a.classes);
  const RunSummary elsewhere = measured("s.json", "lib 1.0 (isa: avx2)", true, "CPU B");
  EXPECT_TRUE(elsewhere.same_results(a));
  const RunSummary fixed = measured("t.json", "lib 1.0 (isa: avx2)", /*second_fails=*/false);
  EXPECT_FALSE(fixed.same_results(a));
  const std::string d = fixed.difference(a);
  EXPECT_NE(d.find("requantize / a: 2 PASS, 1 FAIL"), std::string::npos) << d;
  EXPECT_NE(d.find("deviation class requantize|a|differs (1 tests recorded) does not occur here"), std::string::npos)
      << d;
  // A file under the wrong name is refused (two machines could otherwise keep one run twice).
  fs::rename(dir_ / "m" / "lib.native.avx2.json", dir_ / "m" / "lib.native.sse41.json");
  EXPECT_THROW(load_measurements((dir_ / "m").string()), std::runtime_error);
}

// A vector file added since the record (a new convention or op the library does not claim) leaves
// the measurement current: wholly unclaimed pairs are not results. A claimed pair that appears is.
TEST_F(ThirdpartyReport, PairsTheLibraryDoesNotClaimAreNotResults) {
  const RunSummary recorded = measured("r.json", "lib 1.0 (isa: avx2)");
  std::string with_new_pair = report("lib 1.0 (isa: avx2)");
  const std::string unclaimed_test =
      R"({"file": "choose_quant_params/new.json", "tcId": 1, "op": "choose_quant_params", "convention": "new",
      "result": "valid", "verdict": "UNSUPPORTED", "reason": "backend does not implement choose_quant_params / new"},)";
  with_new_pair.insert(with_new_pair.find("\"tests\": [") + 10, unclaimed_test);
  Machine m;
  m.cpu = "CPU A";
  const RunSummary here = summarize(load_run("lib", "native", write(dir_ / "n.json", with_new_pair).string()), m);
  ASSERT_EQ(here.rows.size(), recorded.rows.size() + 1);
  EXPECT_TRUE(here.same_results(recorded)) << here.difference(recorded);
  EXPECT_EQ(here.difference(recorded), "");
  std::string claimed_new_pair = with_new_pair;
  const std::string reason = "backend does not implement choose_quant_params / new";
  claimed_new_pair.replace(claimed_new_pair.find(reason), reason.size(), "the range is too wide");
  const RunSummary claimed = summarize(load_run("lib", "native", write(dir_ / "c.json", claimed_new_pair).string()), m);
  EXPECT_FALSE(claimed.same_results(recorded));
  EXPECT_NE(claimed.difference(recorded).find("choose_quant_params / new: 0 PASS, 0 FAIL, 1 UNSUPPORTED"),
            std::string::npos)
      << claimed.difference(recorded);
}

// A worker that died or hung is neither a pass nor UNSUPPORTED: counted, tabulated, classified.
TEST_F(ThirdpartyReport, CrashesAndTimeoutsAreTheirOwnClasses) {
  const fs::path p =
      write(dir_ / "c.json", R"json({"schema": "qspec-report/1", "backend": {"name": "lib", "version": "lib 1.0"},
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
  const RunSummary s = summarize(run, Machine{});
  ASSERT_EQ(s.classes.size(), 2u);
  EXPECT_EQ(s.classes[0].kind, "crash");
  EXPECT_EQ(s.classes[1].kind, "timeout");
  RenderInput in;
  in.runs.push_back(s);
  in.vectors_dir = in_.vectors_dir;
  const std::string md = render_markdown(in);
  EXPECT_NE(md.find("| requantize | a | 3 | 1 |  |  | 2 (1 CRASH, 1 TIMEOUT) |"), std::string::npos) << md;
}

}  // namespace

namespace {
// A run of own conventions with engine-operator rows: 3 qlinear.conv2d tests (a PASS, an expected
// FAIL, an UNSUPPORTED) and a requantize FAIL that no --expect line lists.
const char* kOperatorReport = R"({"schema": "qspec-report/1", "backend": {"name": "lib", "version": "lib 1.0"},
  "tests": [
    {"file": "ops/c.json", "tcId": 1, "op": "qlinear.conv2d", "convention": "c", "result": "valid", "verdict": "PASS"},
    {"file": "ops/c.json", "tcId": 2, "op": "qlinear.conv2d", "convention": "c", "result": "valid", "verdict": "FAIL",
     "expected_verdict": "FAIL", "reason": "1 of 3 output elements differ", "first_difference": {"output": "y", "index": [1],
     "expected": "5", "actual": "4"}, "differing_elements": 1, "total_elements": 3},
    {"file": "ops/c.json", "tcId": 3, "op": "qlinear.conv2d", "convention": "c", "result": "valid", "verdict": "UNSUPPORTED",
     "reason": "backend reported UNSUPPORTED: no"},
    {"file": "requantize/a.json", "tcId": 1, "op": "requantize", "convention": "a", "result": "valid", "verdict": "FAIL",
     "reason": "1 of 3 output elements differ", "first_difference": {"output": "y", "index": [1], "expected": "5",
     "actual": "4"}, "differing_elements": 1, "total_elements": 3}]})";
}  // namespace

// Under each own-conventions table: the totals (run = every verdict but UNSUPPORTED; unexplained =
// the non-passing runs no --expect line lists) and the share of engine-operator vectors run.
TEST_F(ThirdpartyReport, OwnConventionTablesGiveTotalsAndEngineOperatorCoverage) {
  Machine m;
  m.cpu = "CPU A";
  in_.runs.push_back(summarize(load_run("lib", "native", write(dir_ / "ops.json", kOperatorReport).string()), m));
  const std::string md = render_markdown(in_);
  EXPECT_NE(md.find("Totals: 4 tests, 3 run, 1 PASS, 1 known deviations, 1 unexplained. Engine operators "
                    "(qlinear.*): 2 of 3 vectors run (66.7 %).\n"),
            std::string::npos)
      << md;
}
