// The conformance runs the third-party report is made of: `qspec run --report-json` files, one per
// (library, mode), and the deviation classes their failures fall into.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace qspec::thirdparty_report {

// One test of one run, as the JSON report gives it.
struct Outcome {
  std::string file;
  std::int64_t tc_id = 0;
  std::string op, convention;
  bool invalid = false;
  std::string verdict;  // PASS, FAIL, ERROR, UNSUPPORTED, CRASH, TIMEOUT
  std::string reason;
  std::optional<std::string> expected_verdict;  // from --expect
  std::string expectation_reason;
  std::string diff_output, diff_expected, diff_actual, diff_index;
  std::int64_t differing = 0, total = 0;
  std::vector<std::string> matching;             // conventions reproducing the result (normative first)
  std::vector<std::string> matching_diagnostic;  // diagnostic-only conventions reproducing it
  std::string closest;                           // when nothing matches
  std::int64_t closest_differing = 0;
  bool operator==(const Outcome&) const = default;
};

// A run of one library: mode "native" (its own claims, with its --expect file) or "all"
// (`qspec run --all-conventions`: every convention of its ops).
struct Run {
  std::string library;
  std::string mode;
  std::string version;
  std::string report_path;
  std::vector<Outcome> outcomes;
};

// Loads a qspec-report/1 file; throws std::runtime_error naming the file and the defect.
Run load_run(const std::string& library, const std::string& mode, const std::string& path);

struct Counts {
  std::int64_t pass = 0, fail = 0, error = 0, unsupported = 0, expected = 0;
  std::int64_t crash = 0, timeout = 0;  // the adapter's worker died or hung on the test
  std::int64_t total() const { return pass + fail + error + unsupported + crash + timeout; }
  void add(const Outcome& o);
  bool operator==(const Counts&) const = default;
};

// The kind of a non-passing outcome, part of a deviation class's key: "differs" (a wrong
// output), "rejects a valid input", "accepts an invalid input", "error", "crash" or "timeout".
std::string failure_kind(const Outcome& o);

// What a wrong output matches: the conventions that reproduce it (normative ones, else
// diagnostic ones), or the closest one; for the "results match" columns.
std::string failure_signature(const Outcome& o);

// One deviation class: every non-PASS, non-UNSUPPORTED outcome of one (library, mode, op,
// requested convention, kind), with its smallest representative and what its outputs match.
struct DeviationClass {
  std::string library, mode, op, convention, kind;
  std::int64_t count = 0;     // outcomes in the class
  std::int64_t of_tests = 0;  // tests of (op, convention) in that run
  const Outcome* minimal = nullptr;
  std::map<std::string, std::int64_t> signatures;  // failure_signature -> count
  std::string key() const { return library + "|" + mode + "|" + op + "|" + convention + "|" + kind; }
  // The most frequent signatures, "sig (n); sig (n)".
  std::string top_signatures(std::size_t n) const;
};

// The classes of one run (their `minimal` points into `r`, which must outlive them), or of several.
std::vector<DeviationClass> deviation_classes(const Run& r);
std::vector<DeviationClass> deviation_classes(const std::vector<Run>& runs);

// (op, convention) -> counts for one run, sorted.
std::map<std::pair<std::string, std::string>, Counts> counts_by_op_convention(const Run& r);

}  // namespace qspec::thirdparty_report
