// The runner on deliberately wrong backends: verdicts, diagnostics naming conventions, expectations,
// robustness against failing backends, backend loading, and the JSON / JUnit reports.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "build_tree_paths.h"
#include "harness_test_ops.h"
#include "qspec/builtin_backends.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"
#include "qspec/vecgen/generate.h"
#include "vector_dir_fixture.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness;

using harness_test::testing_plugin;

using harness_test::VectorDir;

std::map<std::int64_t, const TestOutcome*> by_id(const RunResult& r) {
  std::map<std::int64_t, const TestOutcome*> m;
  for (const auto& o : r.outcomes) m[o.tc_id] = &o;
  return m;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(harness_runner, reference_backend_passes_its_own_vectors) {
  VectorDir v("runner");
  const auto ref = Backend::load("reference");
  const RunResult r = run_vectors(*ref, v.options());
  ASSERT_EQ(r.outcomes.size(), 7u);
  for (const auto& o : r.outcomes) EXPECT_EQ(o.verdict, Verdict::Pass) << o.tc_id << ": " << o.reason << o.diagnostic;
  EXPECT_EQ(by_id(r)[5]->reason, "rejected as expected: ERROR_IF: test.requantize: multiplier < 0");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].file, "test/test.half_away.json");
}

TEST(harness_runner, wrong_plugin_fails_with_convention_diagnostics) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty())
      << "build backends/testing (libqspec_testing_wrong_requantize.so) or set QSPEC_TESTING_PLUGIN_DIR";
  VectorDir v("runner");
  const auto wrong = Backend::load(plugin);
  EXPECT_EQ(wrong->name(), "testing.wrong_requantize");
  const auto ref = Backend::load("reference");
  const ConventionExplainer explainer(ref.get());
  RunOptions o = v.options();
  o.explainer = &explainer;
  const RunResult r = run_vectors(*wrong, o);
  auto t = by_id(r);
  ASSERT_EQ(t.size(), 7u);

  EXPECT_EQ(t[1]->verdict, Verdict::Pass);  // positive ties: half up == half away

  // Negative tie: -1.5 -> expected -2, the plugin rounds up to -1, which test.half_up reproduces.
  EXPECT_EQ(t[2]->verdict, Verdict::Fail);
  const std::string& d2 = t[2]->diagnostic;
  EXPECT_TRUE(contains(d2, "expected -2, got -1 at y[0] (flat index 0); 1 of 1 output elements differ")) << d2;
  EXPECT_TRUE(contains(d2, "input x int32[1] = [-2]")) << d2;
  EXPECT_TRUE(contains(d2, "clauses: test.clause_a, test.clause_b")) << d2;
  EXPECT_TRUE(contains(d2, "comment: tie at -1.5  [flags: NegativeTie]")) << d2;
  EXPECT_TRUE(contains(d2,
                       "expected -2, got -1: your result matches test.half_up (rounds ties toward +inf); "
                       "the spec (test.half_away) says: ties away from zero"))
      << d2;
  ASSERT_TRUE(t[2]->conventions);
  ASSERT_EQ(t[2]->conventions->matches.size(), 1u);
  EXPECT_EQ(t[2]->conventions->matches[0].convention, "test.half_up");
  EXPECT_TRUE(t[2]->conventions->matches[0].diagnostic_only);
  EXPECT_EQ(t[2]->conventions->evaluated, 2u);  // half_up and half_even; needs_bias does not apply

  // -4.5, -1.5, 1.5: two elements differ; half_even agrees on -4.5 only, so only half_up matches.
  EXPECT_EQ(t[3]->verdict, Verdict::Fail);
  EXPECT_TRUE(contains(t[3]->diagnostic, "expected -5, got -4 at y[0] (flat index 0); 2 of 3 output elements differ"))
      << t[3]->diagnostic;
  ASSERT_TRUE(t[3]->comparison);
  EXPECT_EQ(t[3]->comparison->differing, 2);
  EXPECT_TRUE(contains(t[3]->diagnostic, "your result matches test.half_up")) << t[3]->diagnostic;

  // Saturation off by one: no convention reproduces 126.
  EXPECT_EQ(t[4]->verdict, Verdict::Fail);
  EXPECT_TRUE(contains(t[4]->diagnostic, "expected 127, got 126")) << t[4]->diagnostic;
  EXPECT_TRUE(contains(t[4]->diagnostic,
                       "none of the 2 other registered conventions of 'test.requantize' reproduces your "
                       "result (closest: test.half_even, 1 element differ)"))
      << t[4]->diagnostic;

  EXPECT_EQ(t[5]->verdict, Verdict::Pass);   // the invalid multiplier is rejected
  EXPECT_EQ(t[6]->verdict, Verdict::Error);  // the simulated crash costs only this test...
  EXPECT_TRUE(contains(t[6]->reason, "simulated crash")) << t[6]->reason;
  EXPECT_TRUE(t[7]->verdict == Verdict::Pass || t[7]->verdict == Verdict::Fail);  // ...the run goes on

  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_GE(r.counts.fail, 3u);
  EXPECT_EQ(r.counts.error, 1u);
}

TEST(harness_runner, explain_limit_bounds_the_convention_search) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("runner");
  const auto wrong = Backend::load(plugin);
  const auto ref = Backend::load("reference");
  const ConventionExplainer explainer(ref.get());
  RunOptions o = v.options();
  o.explainer = &explainer;
  o.explain_limit = 1;
  const RunResult r = run_vectors(*wrong, o);
  auto t = by_id(r);
  EXPECT_TRUE(t[2]->conventions);
  EXPECT_FALSE(t[3]->conventions);
  EXPECT_FALSE(contains(t[3]->diagnostic, "your result matches"));
}

TEST(harness_runner, expectations_turn_known_failures_into_passes_and_flag_stale_entries) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("runner");
  const auto wrong = Backend::load(plugin);
  const Expectations ex = Expectations::parse(
      "# known deviations of the wrong plugin\n"
      "test/*.json 2 FAIL rounds ties up\n"
      "test/*.json 3 FAIL rounds ties up   \n"
      "test/*.json 4 FAIL saturates at max-1\n"
      "test/test.half_away.json 6 ERROR crashes on 12345\n"
      "test/*.json 1 FAIL stale entry: this test passes\n"
      "*#7 * PASS never matches: an --expect glob is matched against file names only\n"
      "test/*.json 7 FAIL random ties\n",
      "expect.txt");
  RunOptions o = v.options();
  o.expectations = &ex;
  const RunResult r = run_vectors(*wrong, o);
  auto t = by_id(r);
  EXPECT_TRUE(t[2]->as_expected);
  EXPECT_EQ(t[2]->expectation_reason, "rounds ties up");
  EXPECT_TRUE(t[3]->as_expected);
  EXPECT_EQ(t[3]->expectation_reason, "rounds ties up");
  EXPECT_TRUE(t[6]->as_expected);
  EXPECT_FALSE(t[1]->as_expected);
  EXPECT_TRUE(t[1]->unexpected_pass);
  EXPECT_EQ(r.counts.unexpected_pass, t[7]->verdict == Verdict::Pass ? 2u : 1u);
  EXPECT_EQ(r.exit_code(), 1);  // an unexpected pass means the expectations are stale
  EXPECT_EQ(ex.entries()[5].uses, 0u);
}

TEST(harness_runner, expectation_files_in_json_and_their_errors) {
  const Expectations ex = Expectations::parse(
      R"({"schema": "qspec-expect/1", "expectations": [
           {"file": "a/*.json", "tcId": 3, "verdict": "UNSUPPORTED", "reason": "r"},
           {"file": "*", "tcId": "*", "verdict": "FAIL"}]})",
      "e.json");
  ASSERT_EQ(ex.entries().size(), 2u);
  EXPECT_EQ(ex.find("a/x.json", 3)->verdict, Verdict::Unsupported);
  EXPECT_EQ(ex.find("a/x.json", 4)->verdict, Verdict::Fail);
  EXPECT_EQ(ex.find("b/c/d.json", 1)->verdict, Verdict::Fail);  // '*' matches '/'
  EXPECT_THROW(Expectations::parse("x.json 1 MAYBE why\n", "e"), ExpectationError);
  EXPECT_THROW(Expectations::parse("x.json one FAIL why\n", "e"), ExpectationError);
  EXPECT_THROW(Expectations::parse("x.json\n", "e"), ExpectationError);
  try {
    Expectations::parse("\n\nx.json 1 MAYBE why\n", "exp.txt");
  } catch (const ExpectationError& e) {
    EXPECT_TRUE(contains(e.what(), "exp.txt:3:")) << e.what();
  }
}

// A library whose results depend on the CPU (oneDNN's int8 convolution without VNNI) keeps one
// expect file: entries marked isa= hold only for a backend reporting that instruction set.
TEST(harness_runner, expectation_entries_can_hold_for_some_instruction_sets_only) {
  EXPECT_EQ(isa_of_version("oneDNN 2.6.3 (isa: avx2, runtime OMP)"), "avx2");
  EXPECT_EQ(isa_of_version("XNNPACK 0.0~git (isa: avx512skx)"), "avx512skx");
  EXPECT_EQ(isa_of_version("example 1.0 (scalar C)"), "");
  const std::string text =
      "ops/conv.json 85 FAIL isa=avx2,avx512_core halves the weights\n"
      "ops/conv.json 86 FAIL isa=avx2\n"
      "ops/pool.json * FAIL float running max\n";
  Expectations on_avx2 = Expectations::parse(text, "e");
  on_avx2.select_isa("avx2");
  ASSERT_NE(on_avx2.find("ops/conv.json", 85), nullptr);
  EXPECT_EQ(on_avx2.find("ops/conv.json", 85)->reason, "halves the weights");
  EXPECT_EQ(on_avx2.find("ops/conv.json", 86)->reason, "");
  EXPECT_NE(on_avx2.find("ops/pool.json", 1), nullptr);
  Expectations on_vnni = Expectations::parse(text, "e");
  on_vnni.select_isa("avx512_core_vnni");
  EXPECT_EQ(on_vnni.find("ops/conv.json", 85), nullptr);  // expected to pass there
  EXPECT_NE(on_vnni.find("ops/pool.json", 1), nullptr);
  EXPECT_EQ(on_vnni.entries().size(), 1u);  // the others are not "unused": they do not apply
  Expectations no_isa = Expectations::parse(text, "e");
  no_isa.select_isa("");
  EXPECT_EQ(no_isa.entries().size(), 1u);
  Expectations json = Expectations::parse(
      R"({"expectations": [{"file": "a.json", "tcId": 1, "verdict": "FAIL", "isa": ["sse41", "avx2"], "reason": "r"}]})",
      "e.json");
  json.select_isa("sse41");
  EXPECT_NE(json.find("a.json", 1), nullptr);
  EXPECT_THROW(Expectations::parse("a.json 1 FAIL isa= r\n", "e"), ExpectationError);
  EXPECT_THROW(Expectations::parse("a.json 1 FAIL isa=avx2,,x r\n", "e"), ExpectationError);
  EXPECT_THROW(Expectations::parse(R"({"expectations": [{"file": "a", "verdict": "FAIL", "isa": "avx2"}]})", "e"),
               ExpectationError);
}

// A library that reports two dispatchers in one ISA name (libtorch: ATen's kernels, then oneDNN's)
// names the one a deviation depends on with a glob, so the entry holds whatever the other is.
TEST(harness_runner, expectation_isa_globs_match_a_part_of_the_reported_instruction_set) {
  const std::string text = "add.json 24 FAIL isa=aten_avx2-* ATen's AVX2 vector path\n";
  for (const char* isa : {"aten_avx2-dnnl_avx2", "aten_avx2-dnnl_avx512_core_amx"}) {
    Expectations e = Expectations::parse(text, "e");
    e.select_isa(isa);
    EXPECT_NE(e.find("add.json", 24), nullptr) << isa;
  }
  for (const char* isa : {"aten_avx512-dnnl_avx512_core_bf16", "aten_no_avx-dnnl_avx2", ""}) {
    Expectations e = Expectations::parse(text, "e");
    e.select_isa(isa);
    EXPECT_EQ(e.find("add.json", 24), nullptr) << isa;
  }
  EXPECT_THROW(Expectations::parse("a.json 1 FAIL isa=aten_[avx2] r\n", "e"), ExpectationError);
}

TEST(harness_runner, filters_select_files_and_test_ids) {
  EXPECT_TRUE(test_selected({}, "a/b.json", 1));
  EXPECT_TRUE(test_selected({"a/*"}, "a/b.json", 1));
  EXPECT_FALSE(test_selected({"c/*"}, "a/b.json", 1));
  EXPECT_TRUE(test_selected({"a/b.json#1"}, "a/b.json", 1));
  EXPECT_FALSE(test_selected({"a/b.json#1"}, "a/b.json", 11));
  EXPECT_TRUE(test_selected({"*#1?"}, "a/b.json", 11));
  EXPECT_TRUE(test_selected({"x", "*b.json"}, "a/b.json", 2));
}

// ---- in-process backends with scripted misbehaviour ----

enum class Misbehaviour { Throw, AcceptEverything, UnknownStatus, ClaimNothing };

struct Scripted {
  Misbehaviour mode;
};

qspec_status scripted_run(void* self, const char*, const char*, const char*, const qspec_tensor*, size_t, qspec_tensor*,
                          size_t, char* message, size_t size) {
  switch (static_cast<Scripted*>(self)->mode) {
    case Misbehaviour::Throw: throw std::runtime_error("kaboom");
    case Misbehaviour::UnknownStatus: std::snprintf(message, size, "what"); return static_cast<qspec_status>(42);
    default: return QSPEC_STATUS_OK;  // writes nothing: outputs keep the harness's fill pattern
  }
}
int scripted_supports(void* self, const char*, const char*) {
  return static_cast<Scripted*>(self)->mode == Misbehaviour::ClaimNothing ? 0 : 1;
}

RunResult run_scripted(Misbehaviour mode, const VectorDir& v) {
  Scripted s{mode};
  qspec_backend b{};
  b.abi_version = QSPEC_BACKEND_ABI_VERSION;
  b.name = "scripted";
  b.version = "0";
  b.self = &s;
  b.supports = scripted_supports;
  b.run = scripted_run;
  const Backend backend(b, nullptr, "test");
  return run_vectors(backend, v.options());
}

TEST(harness_runner, a_throwing_backend_costs_each_test_an_error_and_the_run_completes) {
  VectorDir v("runner");
  const RunResult r = run_scripted(Misbehaviour::Throw, v);
  ASSERT_EQ(r.outcomes.size(), 7u);
  for (const auto& o : r.outcomes) {
    EXPECT_EQ(o.verdict, Verdict::Error);
    EXPECT_EQ(o.reason, "backend reported ERROR: backend threw an exception: kaboom");
  }
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(harness_runner, accepting_an_invalid_input_fails_and_unwritten_outputs_are_caught) {
  VectorDir v("runner");
  const RunResult r = run_scripted(Misbehaviour::AcceptEverything, v);
  auto t = by_id(r);
  EXPECT_EQ(t[5]->verdict, Verdict::Fail);
  EXPECT_EQ(t[5]->reason, "accepted an invalid input");
  EXPECT_TRUE(contains(t[5]->diagnostic, "QSPEC_STATUS_REJECTED")) << t[5]->diagnostic;
  EXPECT_EQ(t[1]->verdict, Verdict::Fail);                                 // the 0xA5 fill pattern is not the answer
  EXPECT_TRUE(contains(t[1]->diagnostic, "got -91")) << t[1]->diagnostic;  // int8 0xA5
}

TEST(harness_runner, unknown_status_is_an_error_and_unclaimed_ops_are_unsupported) {
  VectorDir v("runner");
  RunResult r = run_scripted(Misbehaviour::UnknownStatus, v);
  EXPECT_EQ(r.outcomes[0].verdict, Verdict::Error);
  EXPECT_EQ(r.outcomes[0].reason, "backend reported ERROR: backend returned unknown status 42: what");
  r = run_scripted(Misbehaviour::ClaimNothing, v);
  for (const auto& o : r.outcomes) EXPECT_EQ(o.verdict, Verdict::Unsupported);
  EXPECT_EQ(r.counts.unexpected, 0u);  // UNSUPPORTED is not a failure unless asked...
  EXPECT_EQ(r.counts.unsupported, 7u);
  EXPECT_TRUE(r.nothing_checked());  // ...but a run in which every test is UNSUPPORTED checked nothing
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_TRUE(contains(summary_text(r), "Result: NOTHING CHECKED (every one of the 7 tests is UNSUPPORTED"))
      << summary_text(r);
  EXPECT_FALSE(contains(summary_text(r), "Result: OK")) << summary_text(r);
}

// ---- loading ----

int create_test_builtin(std::uint32_t abi, qspec_backend* out) {
  if (abi != QSPEC_BACKEND_ABI_VERSION) return 1;
  *out = qspec_backend{};
  out->abi_version = QSPEC_BACKEND_ABI_VERSION;
  out->name = "test.builtin";
  out->version = "7";
  out->supports = scripted_supports;
  out->run = scripted_run;
  static Scripted s{Misbehaviour::ClaimNothing};
  out->self = &s;
  return 0;
}
QSPEC_REGISTER_BUILTIN_BACKEND("test.builtin", create_test_builtin);

TEST(harness_runner, builtin_registry_and_plugin_loading_errors) {
  const auto b = Backend::load("test.builtin");
  EXPECT_EQ(b->name(), "test.builtin");
  EXPECT_EQ(b->version(), "7");
  EXPECT_EQ(b->source(), "built-in");
  EXPECT_EQ(b->capabilities_json(), "[]");  // no capabilities_json function: an empty list
  const auto names = builtin_backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "reference"), names.end());
  try {
    Backend::load("no_such_backend");
    FAIL();
  } catch (const BackendLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "no built-in backend named 'no_such_backend'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "reference")) << e.what();
  }
  try {
    Backend::load("/no/such/plugin.so");
    FAIL();
  } catch (const BackendLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "cannot load backend plugin '/no/such/plugin.so'")) << e.what();
  }
  const std::string bad = testing_plugin("bad_abi");
  ASSERT_FALSE(bad.empty());
  try {
    Backend::load(bad);
    FAIL();
  } catch (const BackendLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "incompatible ABI version")) << e.what();
  }
}

TEST(harness_runner, reference_capabilities_list_every_registered_convention) {
  const auto ref = Backend::load("reference");
  bool half_up = false, half_away = false;
  for (const auto& c : ref->capabilities()) {
    if (c.op != "test.requantize") continue;
    if (c.convention == "test.half_up") half_up = c.diagnostic_only && c.description == "rounds ties toward +inf";
    if (c.convention == "test.half_away")
      half_away = !c.diagnostic_only && c.clauses == std::vector<std::string>{"test.clause_a", "test.clause_b"};
  }
  EXPECT_TRUE(half_up);
  EXPECT_TRUE(half_away);
  EXPECT_TRUE(ref->supports("test.requantize", "test.half_even"));
  EXPECT_FALSE(ref->supports("test.requantize", "test.nothing"));
}

// ---- reports ----

TEST(harness_runner, json_and_junit_reports_describe_every_test) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("runner");
  const auto wrong = Backend::load(plugin);
  const auto ref = Backend::load("reference");
  const ConventionExplainer explainer(ref.get());
  const Expectations ex = Expectations::parse("test/*.json 4 FAIL saturates at max-1\n", "e");
  RunOptions o = v.options();
  o.explainer = &explainer;
  o.expectations = &ex;
  const RunResult r = run_vectors(*wrong, o);

  const auto j = json_report(r);
  EXPECT_EQ(j["schema"], "qspec-report/1");
  EXPECT_EQ(j["backend"]["name"], "testing.wrong_requantize");
  EXPECT_EQ(j["tests"].size(), 7u);
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  EXPECT_EQ(j["summary"]["by_op"]["test.requantize"]["total"], 7);
  EXPECT_EQ(j["summary"]["by_clause"]["test.clause_b"]["ERROR"], 1);
  const auto& t2 = j["tests"][1];
  EXPECT_EQ(t2["tcId"], 2);
  EXPECT_EQ(t2["verdict"], "FAIL");
  EXPECT_EQ(t2["first_difference"]["expected"], "-2");
  EXPECT_EQ(t2["first_difference"]["actual"], "-1");
  EXPECT_EQ(t2["first_difference"]["index"], nlohmann::ordered_json::parse("[0]"));
  EXPECT_EQ(t2["matching_conventions"][0]["convention"], "test.half_up");
  EXPECT_EQ(j["tests"][3]["expected_verdict"], "FAIL");
  EXPECT_EQ(j["tests"][3]["as_expected"], true);

  const std::string x = junit_report(r);
  EXPECT_EQ(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u);
  EXPECT_TRUE(contains(x, "<testsuite name=\"test/test.half_away.json\" tests=\"7\"")) << x;
  // No '.' in a classname but between directories: readers split it at the last one.
  EXPECT_TRUE(contains(x, "<testcase classname=\"test.test_half_away\" name=\"tcId 2\"")) << x;
  EXPECT_TRUE(
      contains(x, "<failure message=\"1 of 1 output elements differ; first: expected -2, got -1\" type=\"FAIL\">"))
      << x;
  EXPECT_TRUE(contains(x, "<error message=\"backend reported ERROR: internal error: simulated crash on input 12345\""))
      << x;
  EXPECT_TRUE(contains(x, "<skipped message=\"FAIL (expected: saturates at max-1)\"/>")) << x;
  std::size_t cases = 0;
  for (std::size_t p = x.find("<testcase "); p != std::string::npos; p = x.find("<testcase ", p + 1)) ++cases;
  EXPECT_EQ(cases, 7u);

  const fs::path out = v.root / "reports" / "r.xml";
  EXPECT_ANY_THROW(write_junit_report(out, r));  // a report never creates directories
  fs::create_directories(out.parent_path());
  write_junit_report(out, r);
  EXPECT_TRUE(fs::exists(out));
}

TEST(harness_runner, explainer_without_reference_says_nothing) {
  const ConventionExplainer none(nullptr);
  const ConventionReport r = none.explain("op", "c", "{}", {}, {}, {});
  EXPECT_FALSE(r.available);
  EXPECT_EQ(describe_conventions("op", "c", r), "");
}

TEST(harness_runner, element_formatting_is_exact) {
  EXPECT_EQ(format_element(DType::I32, -7), "-7");
  EXPECT_EQ(format_element(DType::F32, 0x3f800000), "0x3f800000 (1)");
  EXPECT_EQ(format_element(DType::F64, 0x3ff8000000000000LL), "0x3ff8000000000000 (1.5)");
  EXPECT_EQ(format_index({2, 3}, 5), "[1, 2]");
  Tensor t{"x", DType::I8, {20}, {}};
  for (int i = 0; i < 20; ++i) t.data.push_back(i);
  EXPECT_EQ(format_tensor(t, 8), "x int8[20] = [0, 1, 2, 3, ..., 18, 19] (20 elements)");
}

// ---- the real gemmlowp requantization vectors, once that family exists ----

TEST(harness_runner, wrong_plugin_fails_the_gemmlowp_requantize_vectors) {
  const char* dir = std::getenv("QSPEC_VECTORS_DIR");  // default: the source tree's vectors/
  const fs::path file =
      (dir ? fs::path(dir) : fs::path(QSPEC_SOURCE_DIR) / "vectors") / "requantize" / "gemmlowp.double_round.json";
  if (!fs::exists(file)) GTEST_SKIP() << file << " does not exist yet";
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  const auto wrong = Backend::load(plugin);
  const auto ref = Backend::load("reference");
  const ConventionExplainer explainer(ref.get());
  RunOptions o;
  o.files = find_vector_files({file});
  o.explainer = &explainer;
  o.explain_limit = 40;
  const RunResult r = run_vectors(*wrong, o);
  EXPECT_EQ(r.exit_code(), 1);
  std::size_t tie_fails = 0, matched = 0;
  for (const auto& t : r.outcomes) {
    if (t.verdict != Verdict::Fail) continue;
    const bool tie = std::find(t.flags.begin(), t.flags.end(), "tie_0_5") != t.flags.end();
    tie_fails += tie;
    if (t.conventions && !t.conventions->matches.empty()) {
      ++matched;
      EXPECT_TRUE(contains(t.diagnostic, "your result matches")) << t.diagnostic;
      EXPECT_TRUE(contains(t.diagnostic, "the spec (gemmlowp.double_round) says")) << t.diagnostic;
    }
  }
  EXPECT_GT(tie_fails, 0u) << "the exact -0.5 ties must expose ties-up rounding";
  EXPECT_GT(matched, 0u) << "some failure must be attributed to a named convention (e.g. q31.exact.half_up)";
}

}  // namespace
