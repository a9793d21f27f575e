// The options of `qspec run` as parsed from the command line (cmd_run.cc registers them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace qspec::cli {

struct RunCliOptions {
  std::string backend;
  std::vector<std::string> vectors;
  std::vector<std::string> filters;
  std::string expect;
  std::string report_json;
  std::string junit;
  std::string html;       // --html FILE
  std::string spec_base;  // --spec-base URL (links of the HTML page)
  std::string shard;      // --shard I/N
  std::size_t report_data = 1000;
  std::size_t max_diagnostics = 20;
  std::size_t explain_limit = 50;
  bool fail_on_unsupported = false;
  bool only_claimed = false;  // --only-claimed: leave out the files of pairs the backend does not claim
  bool keep_going = false;
  bool all_conventions = false;
  std::string progress = "auto";
  std::string color = "auto";
  bool no_isolate = false;               // --no-isolate: the backend runs inside qspec
  double timeout = 10;                   // --timeout SECONDS per test (0: none)
  bool timeout_given = false;            // --timeout was on the command line (else a manifest's may apply)
  std::size_t worker_memory_mib = 4096;  // --worker-memory-limit MiB (0: none)
  std::size_t leak_limit_mib = 16;       // --leak-limit MiB (0: off)
  std::string resume;                    // --resume REPORT
  double checkpoint_seconds = 30;        // --checkpoint-seconds S
  std::size_t max_consecutive_faults = 5;  // --max-consecutive-faults N (0: off)

  // Where the JSON report goes: --report-json, else the --resume report (rewritten in place).
  const std::string& json_output() const { return report_json.empty() ? resume : report_json; }
};

}  // namespace qspec::cli
