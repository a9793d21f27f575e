// `qspec sweep` as a library: find the property-test binaries, run chosen properties at scale, parse results.
//
// A sweep runs the same RapidCheck properties CTest runs, but with a chosen seed and case count.
// Each selected property (a gtest "Suite.Name" of a <build>/conformance/*_properties binary) runs
// in its own child process with RC_PARAMS="seed=S max_success=N" and
// QSPEC_COUNTEREXAMPLE_DIR=<out>/<Suite.Name>, up to J at a time; its combined stdout/stderr is
// parsed for RapidCheck's verdict ("Falsifiable after N tests", the `reproduce` string) and the
// counterexample vector files the property wrote (conformance/support/ops_counterexample.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qspec/harness/shard.h"

namespace qspec::harness::sweep {

namespace fs = std::filesystem;

// A discovery or usage problem (no binaries, a binary that cannot list its tests): exit status 2.
class SweepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --- Discovery ------------------------------------------------------------------------------

// The default binary directory: <build>/conformance, where <build>/harness/qspec is `self_exe`.
fs::path default_bin_dir(const fs::path& self_exe);

// The executable regular files named *_properties directly in `dir`, sorted by name.
// Throws SweepError if `dir` is not a directory.
std::vector<fs::path> find_property_binaries(const fs::path& dir);

// The "Suite.Name" entries of `binary --gtest_list_tests` output (parameter comments dropped).
std::vector<std::string> parse_gtest_list(const std::string& listing);

// Shell-style glob over the whole text: `*` any run, `?` one character, `[...]` a class.
bool glob_match(const std::string& pattern, const std::string& text);

struct PropertyTarget {
  fs::path binary;
  std::string test;  // "Suite.Name"
  std::optional<std::uint64_t> seed;  // this unit's RapidCheck seed (--seeds K); nullopt: SweepOptions::seed
};

// "Suite.Name", or "Suite.Name@SEED" for a unit with its own seed (also its directory and log name).
std::string unit_name(const PropertyTarget& t);

// The work units of a sweep, the list `--shard` deals out. With seeds_per_property K > 1 each
// property becomes K units with the seeds seed, seed+1, ..., seed+K-1 (property-major order);
// with K = 1 the units are the properties themselves (seed unset: the sweep's seed). A shard
// keeps every N-th unit from position I (round-robin, shard.h); with K a multiple of N every
// shard runs every property with K/N seeds, which balances shards whatever the properties cost.
std::vector<PropertyTarget> sweep_units(const std::vector<PropertyTarget>& properties, std::uint64_t seed, std::uint64_t seeds_per_property,
                                        const std::optional<ShardSpec>& shard);

// Lists every binary's tests (running `binary --gtest_list_tests`) and keeps those matching any
// of `globs` (all when `globs` is empty), in binary then listing order.
std::vector<PropertyTarget> select_properties(const std::vector<fs::path>& binaries, const std::vector<std::string>& globs);

// --- One property's output -------------------------------------------------------------------

// What the output of one gtest/RapidCheck run says.
struct PropertyReport {
  bool used_rapidcheck = false;   // RapidCheck printed "Using configuration" (a property, not a plain TEST)
  bool gtest_ok = false;          // "[       OK ] Suite.Name"
  bool gtest_failed = false;      // "[  FAILED  ] Suite.Name"
  bool gtest_skipped = false;     // "[  SKIPPED ] Suite.Name"
  std::optional<std::uint64_t> falsified_after;  // "Falsifiable after N tests"
  std::optional<std::uint64_t> shrinks;          // "... and M shrinks"
  std::optional<std::uint64_t> gave_up_after;    // "Gave up after N tests" (too many discards)
  std::string failure_text;  // the failure block (counterexample, failed assertion), trimmed
  std::string reproduce;     // the value after RC_PARAMS="reproduce=..."
};
PropertyReport parse_property_output(const std::string& output);

// --- Running ----------------------------------------------------------------------------------

struct SweepOptions {
  std::uint64_t cases = 1000;  // RapidCheck max_success
  std::uint64_t seed = 0;      // RapidCheck seed
  std::string rc_extra;        // more RC_PARAMS settings appended verbatim ("max_size=50 noshrink=1")
  unsigned jobs = 1;
  fs::path out_dir;            // counterexamples go to <out_dir>/<Suite.Name>/, failure logs to <out_dir>/logs/
  double timeout_seconds = 0;  // per property; 0: none
};

enum class Status { Pass, Fail, Skip, Timeout, Crash };
const char* status_name(Status s);

struct PropertyOutcome {
  PropertyTarget target;
  Status status = Status::Pass;
  std::string reason;        // one line for a non-PASS status ("falsifiable after 23 tests and 2 shrinks")
  PropertyReport report;
  std::string output;        // combined stdout+stderr of the child
  int exit_code = -1;        // when the child exited
  int signal = 0;            // when a signal ended it
  double seconds = 0;
  std::optional<std::uint64_t> cases;        // cases run: N on a pass, the falsifying test's number on a failure
  std::vector<fs::path> counterexample_files;  // vector files the property wrote during this run
  fs::path log_file;                         // the full output, kept for failures
};

// The RC_PARAMS value for a run of these options.
std::string rc_params(const SweepOptions& o);
// The same for one unit: its own seed when it has one.
std::string rc_params(const SweepOptions& o, const PropertyTarget& t);

// The environment and command line used to run one property (for replay lines, too).
std::vector<std::string> property_argv(const PropertyTarget& t);

struct SweepObserver {
  std::function<void(const PropertyTarget&)> started;
  std::function<void(const PropertyOutcome&, std::size_t done, std::size_t total)> finished;
  std::function<void(std::size_t done, std::size_t total, const std::vector<const PropertyTarget*>& running)> tick;  // ~10 Hz
};

// Runs every target, at most o.jobs at a time; outcomes come back in `targets` order.
std::vector<PropertyOutcome> run_sweep(const std::vector<PropertyTarget>& targets, const SweepOptions& o,
                                       const SweepObserver& observer = {});

// --- Lower level: run one child process and capture its output --------------------------------

struct ChildResult {
  std::string output;
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  bool exec_failed = false;
  double seconds = 0;
};

// Runs argv[0] with argv[1..] and the current environment plus `env_overrides`, stdout and stderr
// merged; returns when it ends (killed after `timeout_seconds` when > 0).
ChildResult run_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env_overrides,
                      double timeout_seconds = 0);

// A POSIX-shell-quoted word ('...' when it holds anything outside [A-Za-z0-9_./=:,+-]).
std::string shell_quote(const std::string& s);

}  // namespace qspec::harness::sweep
