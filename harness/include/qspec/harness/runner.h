// `qspec run` as a library: runs a backend on vector files and decides each test's verdict.
//
// Verdicts come from the vectors only (never from the reference); the reference is consulted
// through ConventionExplainer to name the convention a wrong answer matches. A backend failure
// (ERROR status, exception) costs only its test. A malformed vector file throws VectorFileError.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qspec/harness/backend_loader.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/expectations.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/verdict.h"

namespace qspec::harness {

struct TestOutcome {
  std::string file;
  std::int64_t tc_id = 0;
  std::string op;
  std::string convention;
  std::vector<std::string> clauses;
  std::string comment;
  std::vector<std::string> flags;
  bool invalid = false;  // the vector's "result" is "invalid"

  Verdict verdict = Verdict::Pass;
  std::string reason;    // one line: why this verdict ("rejected as expected", backend message, ...)
  std::optional<Verdict> expected_verdict;  // from --expect; nullopt: PASS (or UNSUPPORTED) expected
  std::string expectation_reason;
  bool as_expected = true;
  bool unexpected_pass = false;  // an --expect entry said otherwise, but the test passed

  std::string diagnostic;  // multi-line text for FAIL/ERROR outcomes (empty otherwise)
  std::optional<Comparison> comparison;
  std::optional<ConventionReport> conventions;
  double seconds = 0;
};

struct Counts {
  std::size_t pass = 0, fail = 0, error = 0, unsupported = 0, unexpected = 0, expected_deviation = 0, unexpected_pass = 0;
  std::size_t total() const { return pass + fail + error + unsupported; }
  void add(const TestOutcome& o);
};

struct FileResult {
  std::string file;
  std::string op;
  std::string convention;
  std::vector<std::string> clauses;
  Counts counts;
};

struct RunResult {
  std::string backend_name;
  std::string backend_version;
  std::string backend_source;
  std::vector<FileResult> files;
  std::vector<TestOutcome> outcomes;
  Counts counts;
  // 0: every outcome as expected; 1: at least one unexpected outcome.
  int exit_code() const { return counts.unexpected == 0 ? 0 : 1; }
};

struct RunObserver {
  std::function<void(const VectorFile&, std::size_t selected)> file_started;
  std::function<void(const TestOutcome&, std::size_t done, std::size_t selected)> test_done;
  std::function<void(const FileResult&)> file_done;
};

struct RunOptions {
  std::vector<VectorSource> files;
  // Globs (fnmatch, '*' matches '/'); a test runs if any matches. A glob containing '#' is
  // matched against "FILE#tcId", any other glob against FILE. Empty: every test.
  std::vector<std::string> filters;
  const Expectations* expectations = nullptr;
  const ConventionExplainer* explainer = nullptr;
  std::size_t explain_limit = 100;  // name conventions for at most this many failures
  bool unsupported_is_failure = false;
  RunObserver observer;
};

bool test_selected(const std::vector<std::string>& filters, const std::string& file, std::int64_t tc_id);

// Judges one test from the backend's result (exposed for tests).
TestOutcome judge_test(const Backend& backend, const VectorFile& f, const VectorTest& t, const ConventionExplainer* explainer,
                       bool explain);

RunResult run_vectors(const Backend& backend, const RunOptions& options);

}  // namespace qspec::harness
