// `qspec run --resume REPORT`: read the tests an earlier (interrupted) run finished from its JSON
// report, and check that the report belongs to the run being continued.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qspec/harness/runner.h"
#include "qspec/harness/shard.h"

namespace qspec::harness {

// The report cannot be read, is not a qspec-report/1, or belongs to another run. `qspec run`
// exits 2 on it.
struct ResumeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ResumeReport {
  std::string backend_name;
  std::vector<std::string> vector_files;  // "vector_files" (written since --resume exists)
  std::vector<std::string> filters;
  std::optional<ShardSpec> shard;  // "selection": {"shard": {"index", "count"}} (--shard)
  bool interrupted = false;
  // "files": [{"file", "fingerprint"}]: the fingerprint of each file's selected tests when the
  // report was made (RunResult::file_fingerprints); empty for a report of an older qspec.
  std::map<std::string, std::string> file_fingerprints;
  // (file, tcId) -> the outcome as reported: verdict, reason, diagnostic, comparison,
  // conventions, seconds, and the actual outputs when the report kept them ("data").
  std::map<std::pair<std::string, std::int64_t>, TestOutcome> outcomes;
};

// Reads a JSON report written by `qspec run --report-json` (complete, interrupted, or a
// checkpoint). Throws ResumeError.
ResumeReport load_resume_report(const std::filesystem::path& path);

// Throws ResumeError (naming the difference) unless `report` was made by the backend
// `backend_name` on the same vector files with the same --filter globs and --shard.
void check_resume_matches(const ResumeReport& report, const std::string& report_path, const std::string& backend_name,
                          const std::vector<std::string>& vector_files, const std::vector<std::string>& filters,
                          const std::optional<ShardSpec>& shard = std::nullopt);

}  // namespace qspec::harness
