// `qspec run` as a library: runs a backend on vector files and decides each test's verdict.
//
// Verdicts come from the vectors only (never from the reference); the reference is consulted
// through ConventionExplainer to name the convention a wrong answer matches. A backend failure
// (ERROR status, exception) costs only its test. A malformed vector file throws VectorFileError
// (with RunOptions::keep_going it is skipped and listed in RunResult::skipped).
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qspec/harness/backend_executor.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/expectations.h"
#include "qspec/harness/run_provenance.h"
#include "qspec/harness/shard.h"
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
  std::string reason;                       // one line: why this verdict ("rejected as expected", backend message, ...)
  std::optional<Verdict> expected_verdict;  // from --expect; nullopt: PASS (or UNSUPPORTED) expected
  std::string expectation_reason;
  bool as_expected = true;
  bool unexpected_pass = false;  // an --expect entry said otherwise, but the test passed

  std::string diagnostic;  // multi-line text for FAIL/ERROR outcomes (empty otherwise)
  std::optional<Comparison> comparison;
  std::optional<ConventionReport> conventions;
  double seconds = 0;

  // Position of this test in the run's whole selection (before --shard): merging shards restores
  // the unsharded order from it.
  std::size_t index = 0;
  // The backend's outputs when it returned some and the verdict is FAIL (set by judge_test).
  std::vector<Tensor> actual;
  // The test's data, kept for the report's drill-down (HTML) of a non-passing test; see
  // RunOptions::data_limit. `actual` moves in here.
  struct Data {
    nlohmann::ordered_json attributes;
    std::vector<Tensor> inputs, expected, actual;
  };
  std::optional<Data> data;
};

struct Counts {
  std::size_t pass = 0, fail = 0, error = 0, unsupported = 0, crash = 0, timeout = 0, skipped = 0;
  std::size_t unexpected = 0, expected_deviation = 0, unexpected_pass = 0;
  std::size_t total() const { return pass + fail + error + unsupported + crash + timeout + skipped; }
  std::size_t of(Verdict v) const;  // the count of one verdict
  void add(const TestOutcome& o);
};

struct FileResult {
  std::string file;
  std::string op;
  std::string convention;
  std::vector<std::string> clauses;
  Counts counts;
};

// A vector file that could not be loaded (--keep-going): its name and the loader's message
// (VectorFileError::what(): "FILE: tcId N: at /path: problem").
struct SkippedFile {
  std::string file;
  std::string error;
};

struct RunResult {
  std::string backend_name;
  std::string backend_version;
  std::string backend_source;
  std::vector<FileResult> files;
  std::vector<TestOutcome> outcomes;
  Counts counts;
  // The vector files found (display names, sorted) and the --filter globs: `--resume` checks
  // that a report continues the same run.
  std::vector<std::string> vector_files;
  std::vector<std::string> filters;
  // The run stopped early (SIGINT/SIGTERM, or a periodic checkpoint of a run still going):
  // `outcomes` hold the tests finished so far.
  bool interrupted = false;
  // The selection before sharding: its size and a fingerprint of its tests (names and contents),
  // so that `qspec report merge` can check that shards cover one selection exactly once.
  std::size_t selected_total = 0;
  std::string selection_fingerprint;
  // The same per vector file (display name -> fingerprint of its selected tests, before sharding),
  // for every file in `files`: `--resume` runs a file again when its content changed since.
  std::map<std::string, std::string> file_fingerprints;
  // `--resume`: the files whose tests in the earlier report were dropped and run again, because
  // the file's fingerprint differs from (or is missing in) that report.
  std::vector<std::string> resume_changed_files;
  std::optional<ShardSpec> shard;  // this run's shard (nullopt: the whole selection)
  // Malformed vector files skipped by RunOptions::keep_going, in the order met.
  std::vector<SkippedFile> skipped;
  // test_identity.h: the digest of every selected test's identity (before sharding).
  std::uint64_t selection_identity = 0;
  // The versions, host and time the reports state (docs/CONFORMANCE.md 4.3); set by the caller.
  RunProvenance provenance;
  // RunOptions::only_claimed, and the vector files it left out (their pairs are not claimed).
  bool only_claimed = false;
  std::vector<std::string> unclaimed_files;
  // Not one test was checked: every outcome is UNSUPPORTED (the backend claims none of the
  // selected pairs, or declines every test), or there is none (--only-claimed left every file
  // out, or a shard holds none of the selection). Such a run supports no claim and never says OK
  // (docs/CONFORMANCE.md 4.4).
  bool nothing_checked() const { return counts.unsupported == counts.total(); }
  // 0: every outcome as expected; 1: at least one unexpected outcome, or nothing checked in a
  // whole run (a shard's empty or all-UNSUPPORTED part is judged with the others by `qspec report
  // merge`); 2: a malformed vector file was skipped (an input error outranks the verdicts of the
  // files that did run).
  int exit_code() const {
    if (!skipped.empty()) return 2;
    if (counts.unexpected != 0) return 1;
    return nothing_checked() && !shard ? 1 : 0;
  }
};

struct RunObserver {
  std::function<void(const VectorFile&, std::size_t selected)> file_started;
  std::function<void(const TestOutcome&, std::size_t done, std::size_t selected)> test_done;
  std::function<void(const FileResult&)> file_done;
  std::function<void(const SkippedFile&)> file_skipped;  // RunOptions::keep_going only
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
  // The circuit breaker: after this many consecutive CRASH/TIMEOUT verdicts in a vector file,
  // the file's remaining selected tests are not run but get SKIPPED (a failure) with the reason
  // "not run: skipped after N consecutive TIMEOUT/CRASH in this file ...". 0: off.
  std::size_t max_consecutive_faults = 5;
  // (op, convention) pairs qspec knows: the reference backend's capabilities. When non-empty, a
  // file whose pair is neither listed here nor claimed by the backend under test is malformed
  // (check_op_known): a misspelt op would otherwise pass as a file of UNSUPPORTED verdicts.
  std::vector<std::pair<std::string, std::string>> known_ops;
  // A malformed vector file is skipped and recorded in RunResult::skipped (the other files'
  // results are kept) instead of ending the run with VectorFileError.
  bool keep_going = false;
  // The JSON Schemas every file must satisfy (vectors/schema, as `qspec vectors check` applies
  // them); a violation makes the file malformed. nullptr: no schema check.
  const SchemaSet* schemas = nullptr;
  // `--only-claimed`: a file whose (op, convention) the backend does not claim is left out of the
  // selection (listed in RunResult::unclaimed_files) instead of running as UNSUPPORTED tests.
  bool only_claimed = false;
  // Copied into RunResult::provenance (and so into every checkpoint).
  RunProvenance provenance;
  // Run only this shard of the selection (round-robin over the selected tests, shard.h).
  std::optional<ShardSpec> shard;
  // Keep attributes, inputs, expected and actual outputs (TestOutcome::data) for at most this
  // many tests whose verdict is neither PASS nor UNSUPPORTED (per run, i.e. per shard).
  std::size_t data_limit = 1000;
  RunObserver observer;
  // Nonzero (the signal number) once SIGINT/SIGTERM arrived: the run stops at the next test
  // boundary, discards the test in flight and returns with RunResult::interrupted set.
  const volatile std::sig_atomic_t* interrupt = nullptr;
  // `--resume`: tests found here ((file, tcId) -> outcome of an earlier run) are not run again;
  // their outcome is taken as is (expectations are applied afresh) -- unless their file's
  // fingerprint (RunResult::file_fingerprints) is not the one in previous_fingerprints: a file
  // that changed since is run again. The outcomes of files the run has not reached yet are part
  // of every checkpoint and of an interrupted result, so resuming never loses a test.
  const std::map<std::pair<std::string, std::int64_t>, TestOutcome>* previous = nullptr;
  const std::map<std::string, std::string>* previous_fingerprints = nullptr;
  // Called with the results so far (interrupted = true) at a test boundary at most every
  // checkpoint_seconds, once a test ran since the last call, so a killed run leaves a recent
  // report behind.
  std::function<void(const RunResult&)> checkpoint;
  double checkpoint_seconds = 30;
};

bool test_selected(const std::vector<std::string>& filters, const std::string& file, std::int64_t tc_id);
// Whether a test of `file` can be selected at all (false: no filter names the file, and none is a
// FILE#tcId glob): such a file is not read.
bool file_may_be_selected(const std::vector<std::string>& filters, const std::string& file);

// Judges one test from the backend's result (exposed for tests).
TestOutcome judge_test(const Backend& backend, const VectorFile& f, const VectorTest& t,
                       const ConventionExplainer* explainer, bool explain);

// Judges one test from what an executor returned (a fault, "unsupported", or the backend's result).
TestOutcome judge_call(const VectorFile& f, const VectorTest& t, const BackendCall& call,
                       const ConventionExplainer* explainer, bool explain);

RunResult run_vectors(const Backend& backend, const RunOptions& options);
// The same through any executor (backend_worker.h: the backend in worker subprocesses).
RunResult run_vectors(BackendExecutor& executor, const RunOptions& options);

}  // namespace qspec::harness
