// A measurement: what one `qspec run` of one adapter found, reduced to what docs/third-party.md
// shows, with the machine and instruction set it was taken on. Committed under
// tools/thirdparty_report/measurements/ (one file per run label, mode and ISA) so the page is
// rendered from data, and a host re-measures and compares only the runs whose ISA it reproduces.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report_model.h"

namespace qspec::thirdparty_report {

// Where a measurement was taken. Not compared between machines.
struct Machine {
  std::string cpu;                 // /proc/cpuinfo "model name"
  std::vector<std::string> flags;  // the ISA flags that matter to the libraries' dispatch
  std::string setting;             // the run's environment setting, e.g. ONEDNN_MAX_CPU_ISA=AVX2 ("" none)
};

// The machine this process runs on (CPU model and the relevant /proc/cpuinfo flags).
Machine this_machine(const std::string& setting);

// One table row: an (op, convention) of a run.
struct Row {
  std::string op, convention;
  Counts counts;
  std::int64_t unclaimed = 0;                      // tests of a pair the backend does not claim at all
  std::map<std::string, std::int64_t> signatures;  // failure_signature -> count (non-PASS, non-UNSUPPORTED)
  bool operator==(const Row&) const = default;
};

// A deviation class as measured: its key fields, count, what its outputs match, the smallest
// representative and (native runs) every test in it, for the --expect files.
struct ClassSummary {
  std::string op, convention, kind;
  std::int64_t count = 0, of_tests = 0;
  std::map<std::string, std::int64_t> signatures;
  Outcome minimal;                 // fields used by the page only
  std::vector<std::string> tests;  // "file#tcId VERDICT", native runs only
  bool operator==(const ClassSummary&) const = default;
};

struct RunSummary {
  std::string label;    // run label: library and configuration (onednn, libtorch-qnnpack)
  std::string mode;     // native | all
  std::string version;  // the adapter's version string
  std::string isa;      // dispatched ISA from the version ("isa: X"); "" when fixed at build time
  Machine machine;
  std::vector<Row> rows;                            // sorted by (op, convention)
  std::map<std::string, std::int64_t> unsupported;  // "op: normalized reason" -> count
  std::vector<ClassSummary> classes;                // sorted by (op, convention, kind)

  std::string key() const { return label + "|" + mode + "|" + (isa.empty() ? "-" : isa); }
  // The file name under measurements/: "<label>.<mode>.<isa or fixed>.json".
  std::string file_name() const;
  // The rows of pairs the library claimed at least one test of. A pair it claims no test of says
  // nothing about the library: a vector file added since the record (a new convention or op) must
  // not make a measurement stale.
  std::vector<Row> claimed_rows() const;
  // Everything but the machine and the wholly unclaimed pairs: what another machine at the same ISA
  // must reproduce.
  bool same_results(const RunSummary& o) const {
    return label == o.label && mode == o.mode && version == o.version && isa == o.isa &&
           claimed_rows() == o.claimed_rows() && unsupported == o.unsupported && classes == o.classes;
  }
  // A few lines naming where two summaries of the same key differ (for the CI check's message).
  std::string difference(const RunSummary& o) const;
};

RunSummary summarize(const Run& run, const Machine& machine);

nlohmann::json to_json(const RunSummary& s);
// Throws std::runtime_error naming `where` and the field on a malformed measurement.
RunSummary summary_from_json(const nlohmann::json& j, const std::string& where);

// Every *.json under `dir`, sorted by key; throws naming a malformed file.
std::vector<RunSummary> load_measurements(const std::string& dir);
// Writes `s` to dir/s.file_name() (pretty JSON, stable order), replacing an older measurement.
void save_measurement(const std::string& dir, const RunSummary& s);

// Deviation classes of summaries (their keys, for annotations), one per class and summary.
struct MeasuredClass {
  const RunSummary* run;
  const ClassSummary* cls;
  std::string key() const {
    return run->label + "|" + run->mode + "|" + cls->op + "|" + cls->convention + "|" + cls->kind;
  }
};
std::vector<MeasuredClass> measured_classes(const std::vector<RunSummary>& runs);

// UNSUPPORTED messages grouped by what they say: standalone numbers become N.
std::string normalize_reason(const std::string& r);

}  // namespace qspec::thirdparty_report
