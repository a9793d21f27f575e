// Reading JSON reports back and merging them: the shards of one run into one report, and the
// reports of several backends into a report set (`qspec report merge`, `qspec report html`).
//
// Shards of one run (same backend name and version) merge only if together they are the run:
// the same selection (size and fingerprint, docs/running.md "selection"), the same shard count,
// every shard exactly once, every test (file, tcId) exactly once, each shard complete and each
// test in the shard its index says. Anything else is a MergeError naming the reports involved.
// The merged report is what the unsharded run would have written, timing fields aside: the
// summary and per-file counts are recomputed by the same code (json_report), the tests are the
// shards' test objects, verbatim, in selection order.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace qspec::harness {

inline constexpr const char* kReportSchema = "qspec-report/1";
inline constexpr const char* kReportSetSchema = "qspec-report-set/1";

// A report that cannot be read or used, or reports that do not merge (exit status 2).
class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LoadedReport {
  std::string source;             // the file name, "FILE[i]" for the i-th member of a report set
  nlohmann::ordered_json report;  // one "qspec-report/1" document
};

// Checks what merging and rendering rely on: the schema, backend.name, and tests[] whose items
// have a string "file", an integer "tcId" and a string "verdict". Throws MergeError naming `source`.
void check_report(const std::string& source, const nlohmann::ordered_json& report);

// Reads a "qspec-report/1" file (one report) or a "qspec-report-set/1" file (each member),
// checked by check_report.
std::vector<LoadedReport> read_report_file(const std::filesystem::path& path);

struct MergeOptions {
  bool allow_incomplete = false;  // missing shards or tests: warn instead of failing
};

struct MergeResult {
  std::vector<nlohmann::ordered_json> reports;  // one per backend, in order of first appearance
  std::vector<std::string> warnings;
};

MergeResult merge_reports(const std::vector<LoadedReport>& inputs, const MergeOptions& options = {});

// One report: the report itself; several: {"schema": "qspec-report-set/1", "reports": [...]}.
nlohmann::ordered_json report_document(const std::vector<nlohmann::ordered_json>& reports);

// The worst summary.exit_code of the reports (0 all as expected, 1 unexpected outcomes, 2 input errors).
int reports_exit_code(const std::vector<nlohmann::ordered_json>& reports);

}  // namespace qspec::harness
