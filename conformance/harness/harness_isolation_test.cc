// Worker isolation, interrupts and --resume at the library level: the isolated executor gives
// the in-process verdicts, an interrupt stops the run at a test boundary, checkpoints and
// resumed reports reproduce an uninterrupted run, and every verdict is tabulated.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "build_tree_paths.h"
#include "cli_runner.h"
#include "harness_test_ops.h"
#include "vector_dir_fixture.h"
#include "qspec/harness/backend_worker.h"
#include "qspec/harness/expectations.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/report_resume.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness;
using OJ = nlohmann::ordered_json;

using harness_test::testing_plugin;

using harness_test::VectorDir;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The report's tests without timing: what must not depend on how or when a test ran.
OJ tests_without_time(const OJ& report) {
  OJ t = report.at("tests");
  for (auto& e : t) e.erase("seconds");
  return t;
}

TEST(harness_isolation, the_worker_gives_the_in_process_verdicts_reasons_and_diagnostics) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty()) << "build backends/testing or set QSPEC_TESTING_PLUGIN_DIR";
  VectorDir v("isolation");
  const auto ref = Backend::load("reference");
  const ConventionExplainer explainer(ref.get());
  RunOptions o = v.options();
  o.explainer = &explainer;
  const auto in_process = Backend::load(plugin);
  const RunResult a = run_vectors(*in_process, o);
  auto workers = WorkerExecutor::start(plugin, WorkerOptions{});
  EXPECT_EQ(workers->name(), "testing.wrong_requantize");
  EXPECT_EQ(workers->source(), plugin);
  const RunResult b = run_vectors(*workers, o);
  ASSERT_EQ(a.outcomes.size(), 7u);
  EXPECT_EQ(tests_without_time(json_report(a)), tests_without_time(json_report(b)));
  EXPECT_EQ(b.counts.fail, a.counts.fail);
  EXPECT_EQ(b.counts.error, 1u);  // the plugin's simulated internal error, as in process
  EXPECT_EQ(workers->workers_started(), 1u);  // one worker served the whole run
}

TEST(harness_isolation, the_reference_backend_passes_in_a_worker) {
  VectorDir v("isolation");
  auto workers = WorkerExecutor::start("reference", WorkerOptions{});
  const RunResult r = run_vectors(*workers, v.options());
  ASSERT_EQ(r.outcomes.size(), 7u);
  for (const auto& o : r.outcomes) EXPECT_EQ(o.verdict, Verdict::Pass) << o.tc_id << ": " << o.reason;
}

TEST(harness_isolation, a_backend_that_cannot_load_is_a_load_error) {
  try {
    WorkerExecutor::start("no_such_backend", WorkerOptions{});
    FAIL() << "expected BackendLoadError";
  } catch (const BackendLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "no built-in backend named 'no_such_backend'")) << e.what();
  }
  const std::string bad = testing_plugin("bad_abi");
  ASSERT_FALSE(bad.empty());
  try {
    WorkerExecutor::start(bad, WorkerOptions{});
    FAIL() << "expected BackendLoadError";
  } catch (const BackendLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "incompatible ABI version")) << e.what();
  }
}

// The shipped gemmlowp file with the faulty plugins (they implement only that convention).
fs::path gemmlowp_file() { return fs::path(QSPEC_SOURCE_DIR) / "vectors" / "requantize" / "gemmlowp.double_round.json"; }

TEST(harness_isolation, an_interrupt_abandons_the_test_in_flight_and_keeps_the_others) {
  const std::string hang = testing_plugin("faulty_hang");
  ASSERT_FALSE(hang.empty());
  if (!fs::exists(gemmlowp_file())) GTEST_SKIP() << gemmlowp_file() << " does not exist";
  static volatile std::sig_atomic_t flag = 0;
  flag = 0;
  WorkerOptions wo;
  wo.timeout_seconds = 0;  // no timeout: only the interrupt ends the hang
  wo.interrupt = &flag;
  auto workers = WorkerExecutor::start(hang, wo);
  RunOptions o;
  o.files = find_vector_files({gemmlowp_file()});
  o.filters = {"*#2", "*#3", "*#4", "*#5"};  // tcId 4 hangs (its first input element is odd)
  o.interrupt = &flag;
  // The interrupt comes 300 ms after tcId 3 is done, while 4 hangs (not on a timer from the start:
  // loading the file can take longer than that in a sanitizer build on a busy machine).
  std::thread stopper;
  o.observer.test_done = [&stopper](const TestOutcome& t, std::size_t, std::size_t) {
    if (t.tc_id == 3)
      stopper = std::thread([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        flag = SIGINT;
      });
  };
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = run_vectors(*workers, o);
  if (stopper.joinable()) stopper.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_TRUE(r.interrupted);
  ASSERT_EQ(r.outcomes.size(), 2u);  // 2 and 3; 4 was abandoned, 5 never started
  EXPECT_EQ(r.outcomes[0].tc_id, 2);
  EXPECT_EQ(r.outcomes[1].tc_id, 3);
  EXPECT_EQ(json_report(r)["interrupted"], true);
  EXPECT_TRUE(contains(summary_text(r), "Result: INTERRUPTED after 2 tests")) << summary_text(r);
}

TEST(harness_isolation, a_crash_in_one_test_costs_only_that_test) {
  const std::string segv = testing_plugin("faulty_segv");
  ASSERT_FALSE(segv.empty());
  if (!fs::exists(gemmlowp_file())) GTEST_SKIP() << gemmlowp_file() << " does not exist";
  auto workers = WorkerExecutor::start(segv, WorkerOptions{});
  RunOptions o;
  o.files = find_vector_files({gemmlowp_file()});
  o.filters = {"*#[1-6]"};  // tcIds 1 and 4 crash
  const RunResult r = run_vectors(*workers, o);
  ASSERT_EQ(r.outcomes.size(), 6u);
  for (const auto& t : r.outcomes) {
    const bool crashes = t.tc_id == 1 || t.tc_id == 4;
    EXPECT_EQ(t.verdict, crashes ? Verdict::Crash : Verdict::Pass) << t.tc_id << ": " << t.reason;
    if (crashes) {
      EXPECT_TRUE(contains(t.reason, "SIGSEGV")) << t.reason;
    }
  }
  EXPECT_EQ(r.counts.crash, 2u);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(workers->workers_started(), 3u);  // the first, and one after each crash
}

// The leak check does not take the harness's own growth for the backend's: a test with 1 MiB of
// input after a small one grows the worker's request and input buffers (the worker then measures
// VmData afresh before the call), and with --leak-limit 1 no call is reported as leaking. (Run
// through the command line: its worker is forked from a small heap, so that the buffers' growth
// shows in VmData.)
TEST(harness_isolation, the_harness_growing_its_buffers_is_not_a_leak) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  if (!fs::exists(gemmlowp_file())) GTEST_SKIP() << gemmlowp_file() << " does not exist";
  VectorDir v("isolation_big");
  OJ doc = OJ::parse(std::ifstream(gemmlowp_file()));
  OJ group = doc["testGroups"][0];
  OJ small = group["tests"][0];
  OJ big = small;
  big["tcId"] = 2;
  constexpr std::size_t kElements = std::size_t{1} << 18;  // 1 MiB of int32, the most a tensor may hold
  big["inputs"].begin().value()["shape"] = OJ::array({kElements});
  big["inputs"].begin().value()["data"] = OJ(std::vector<std::int64_t>(kElements, 2));
  big["expected"].begin().value()["shape"] = OJ::array({kElements});
  big["expected"].begin().value()["data"] = OJ(std::vector<std::int64_t>(kElements, 0));
  group["tests"] = OJ::array({small, big});
  doc["testGroups"] = OJ::array({group});
  doc["numberOfTests"] = 2;
  const fs::path file = v.dir / "requantize" / "big.json";
  write_file_atomically(file, doc.dump());
  const fs::path report = v.root / "big_report.json";
  const auto r = harness_test::run_cli({"run", "--backend", plugin, "--vectors", file.string(), "--leak-limit", "1", "--progress",
                                        "never", "--report-json", report.string()});
  EXPECT_EQ(r.rc, 1) << r.out;  // tcId 2 expects zeros: FAIL
  EXPECT_FALSE(contains(r.out, "leaked")) << r.out;
  const OJ rep = OJ::parse(std::ifstream(report));
  ASSERT_EQ(rep["tests"].size(), 2u) << r.out;
  for (const auto& t : rep["tests"]) EXPECT_NE(t["verdict"], "ERROR") << t.dump();
}

// The circuit breaker: a backend that hangs on every test costs max_consecutive_faults
// timeouts per file, not one per test; the rest of the file is SKIPPED, a failure, said in the
// summary and in JUnit as an error. Off (0), every test runs.
TEST(harness_isolation, consecutive_faults_skip_the_rest_of_the_file) {
  const std::string hang = testing_plugin("faulty_hang_all");
  ASSERT_FALSE(hang.empty());
  if (!fs::exists(gemmlowp_file())) GTEST_SKIP() << gemmlowp_file() << " does not exist";
  WorkerOptions wo;
  wo.timeout_seconds = 0.2;
  auto workers = WorkerExecutor::start(hang, wo);
  RunOptions o;
  o.files = find_vector_files({gemmlowp_file()});
  o.filters = {"*#[1-8]"};
  o.max_consecutive_faults = 3;
  const RunResult r = run_vectors(*workers, o);
  ASSERT_EQ(r.outcomes.size(), 8u);
  EXPECT_EQ(workers->workers_started(), 3u);  // for tests 1-3; the skipped ones needed none
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(r.outcomes[i].verdict, i < 3 ? Verdict::Timeout : Verdict::Skipped) << r.outcomes[i].tc_id;
    EXPECT_FALSE(r.outcomes[i].as_expected);
  }
  EXPECT_TRUE(contains(r.outcomes[3].reason, "not run: skipped after 3 consecutive TIMEOUT/CRASH in this file (the last TIMEOUT; "
                                             "--max-consecutive-faults 3"))
      << r.outcomes[3].reason;
  EXPECT_EQ(r.counts.skipped, 5u);
  EXPECT_EQ(r.counts.unexpected, 8u);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_TRUE(contains(summary_text(r), "3 TIMEOUT, 5 SKIPPED (after consecutive TIMEOUT/CRASH)")) << summary_text(r);
  EXPECT_EQ(json_report(r)["summary"]["SKIPPED"], 5);
  const std::string x = junit_report(r);
  EXPECT_TRUE(contains(x, "type=\"SKIPPED\">")) << x;
  EXPECT_TRUE(contains(x, "errors=\"8\"")) << x;

  // A PASS in between starts the count again: the half-hanging plugin hangs on tcIds 1, 4, 11, 12.
  const std::string half = testing_plugin("faulty_hang");
  ASSERT_FALSE(half.empty());
  auto some = WorkerExecutor::start(half, wo);
  RunOptions p = o;
  p.filters = {"*#[1-9]", "*#1[0-3]"};
  p.max_consecutive_faults = 2;
  const RunResult h = run_vectors(*some, p);
  ASSERT_EQ(h.outcomes.size(), 13u);
  EXPECT_EQ(h.counts.timeout, 4u);  // 1, 4, 11, 12: the second pair trips it
  EXPECT_EQ(h.counts.skipped, 1u);  // 13
  EXPECT_EQ(h.outcomes.back().verdict, Verdict::Skipped);

  o.max_consecutive_faults = 0;  // off
  o.filters = {"*#[1-4]"};
  const RunResult all = run_vectors(*workers, o);
  EXPECT_EQ(all.counts.timeout, 4u);
  EXPECT_EQ(all.counts.skipped, 0u);
}

// Whether process `pid` exists and is not a zombie.
bool process_runs(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return false;
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

// What a signal handler calls before ending qspec at once (cmd_run.cc): the worker's process
// group, with what its backend forked, is killed. (backends/testing's harness_worker_process_group
// covers restarts, the end of a run and SIGTERM through the command line.)
TEST(harness_isolation, kill_worker_process_groups_ends_what_the_backend_forked) {
  const std::string plugin = testing_plugin("faulty_fork");
  ASSERT_FALSE(plugin.empty());
  if (!fs::exists(gemmlowp_file())) GTEST_SKIP() << gemmlowp_file() << " does not exist";
  const fs::path log = fs::temp_directory_path() / ("qspec_fork_" + std::to_string(::getpid()) + ".log");
  fs::remove(log);
  ::setenv("QSPEC_TESTING_FORK_LOG", log.c_str(), 1);
  auto workers = WorkerExecutor::start(plugin, WorkerOptions{});
  RunOptions o;
  o.files = find_vector_files({gemmlowp_file()});
  o.filters = {"*#1"};  // its first input element is odd: the plugin forks
  const RunResult r = run_vectors(*workers, o);
  ::unsetenv("QSPEC_TESTING_FORK_LOG");
  ASSERT_EQ(r.outcomes.size(), 1u);
  EXPECT_EQ(r.outcomes[0].verdict, Verdict::Pass) << r.outcomes[0].reason;
  long worker = 0, child = 0;
  std::ifstream(log) >> worker >> child;
  fs::remove(log);
  ASSERT_GT(child, 0) << "the plugin logged no forked process";
  EXPECT_TRUE(process_runs(child));
  kill_worker_process_groups();
  // SIGKILL ends both, in no set order: wait for both (a loaded machine showed the grandchild gone
  // and the worker not yet).
  for (int i = 0; i < 200 && (process_runs(child) || process_runs(worker)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(process_runs(child)) << "process " << child << " forked by the worker survives";
  EXPECT_FALSE(process_runs(worker)) << "the worker " << worker << " survives";
}

// ---- interrupts, checkpoints and --resume in the run loop ----

TEST(harness_resume, an_interrupt_before_a_test_stops_the_run_there) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("isolation");
  const auto b = Backend::load(plugin);
  static volatile std::sig_atomic_t flag = 0;
  flag = 0;
  RunOptions o = v.options();
  o.interrupt = &flag;
  o.observer.test_done = [](const TestOutcome&, std::size_t done, std::size_t) {
    if (done == 3) flag = SIGTERM;
  };
  const RunResult r = run_vectors(*b, o);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.outcomes.size(), 3u);
  ASSERT_EQ(r.files.size(), 1u);  // the file's finished part is kept, with its counts
  EXPECT_EQ(r.files[0].counts.total(), 3u);
}

TEST(harness_resume, checkpoints_are_partial_reports_of_the_tests_done) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("isolation");
  const auto b = Backend::load(plugin);
  RunOptions o = v.options();
  std::vector<std::size_t> sizes;
  o.checkpoint = [&](const RunResult& partial) {
    EXPECT_TRUE(partial.interrupted);
    EXPECT_EQ(partial.counts.total(), partial.outcomes.size());
    ASSERT_EQ(partial.files.size(), 1u);
    EXPECT_EQ(partial.files[0].counts.total(), partial.outcomes.size());
    sizes.push_back(partial.outcomes.size());
  };
  o.checkpoint_seconds = 0;  // after every test
  const RunResult r = run_vectors(*b, o);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7}));
}

TEST(harness_resume, a_report_read_back_reproduces_the_run_without_calling_the_backend) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("isolation");
  const auto b = Backend::load(plugin);
  const auto ref = Backend::load("reference");
  const ConventionExplainer explainer(ref.get());
  RunOptions o = v.options();
  o.explainer = &explainer;
  const RunResult full = run_vectors(*b, o);
  const fs::path report = v.root / "full.json";
  write_json_report(report, full);

  // Everything from the report: no test reaches the backend (a backend that claims nothing
  // would make every test UNSUPPORTED if it were asked).
  const ResumeReport rr = load_resume_report(report);
  EXPECT_EQ(rr.backend_name, "testing.wrong_requantize");
  EXPECT_EQ(rr.vector_files, std::vector<std::string>{"test/test.half_away.json"});
  EXPECT_FALSE(rr.interrupted);
  EXPECT_EQ(rr.outcomes.size(), 7u);
  qspec_backend nothing{};
  nothing.abi_version = QSPEC_BACKEND_ABI_VERSION;
  nothing.name = "testing.wrong_requantize";
  nothing.supports = [](void*, const char*, const char*) { return 0; };
  nothing.run = [](void*, const char*, const char*, const char*, const qspec_tensor*, size_t, qspec_tensor*, size_t, char*,
                   size_t) { return QSPEC_STATUS_ERROR; };
  const Backend claims_nothing(nothing, nullptr, "test");
  RunOptions again = o;
  again.previous = &rr.outcomes;
  const RunResult resumed = run_vectors(claims_nothing, again);
  EXPECT_EQ(json_report(resumed)["tests"], json_report(full)["tests"]);  // seconds included: carried over
  EXPECT_EQ(json_report(resumed)["summary"], json_report(full)["summary"]);

  // Half of it from a partial report, the rest run again: equal up to timing.
  RunResult half = full;
  half.outcomes.resize(3);
  half.interrupted = true;
  write_json_report(v.root / "half.json", half);
  const ResumeReport hr = load_resume_report(v.root / "half.json");
  EXPECT_TRUE(hr.interrupted);
  RunOptions rest = o;
  rest.previous = &hr.outcomes;
  const RunResult completed = run_vectors(*b, rest);
  EXPECT_EQ(tests_without_time(json_report(completed)), tests_without_time(json_report(full)));
  EXPECT_EQ(json_report(completed)["summary"], json_report(full)["summary"]);
}

// A resumed run never holds fewer tests than the report it resumed: no checkpoint while it only
// replays the report, and its checkpoints and an interrupted result carry the report's tests it
// has not reached yet (with --checkpoint-seconds 0, killed resumed runs used to shrink).
TEST(harness_resume, a_resumed_run_never_holds_fewer_tests_than_its_report) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("isolation");
  const auto b = Backend::load(plugin);
  const RunResult full = run_vectors(*b, v.options());
  ASSERT_EQ(full.outcomes.size(), 7u);
  auto resume_from = [&](const std::vector<std::size_t>& done, const std::string& name) {
    RunResult part = full;
    part.outcomes.clear();
    for (std::size_t i : done) part.outcomes.push_back(full.outcomes[i]);
    part.interrupted = true;
    write_json_report(v.root / name, part);
    return load_resume_report(v.root / name);
  };
  for (const auto& done : {std::vector<std::size_t>{0, 1, 2, 3, 4}, std::vector<std::size_t>{1, 3, 5}}) {
    const ResumeReport pr = resume_from(done, "part.json");
    RunOptions again = v.options();
    again.previous = &pr.outcomes;
    again.previous_fingerprints = &pr.file_fingerprints;
    std::vector<std::size_t> sizes;
    again.checkpoint = [&](const RunResult& c) {
      sizes.push_back(c.outcomes.size());
      EXPECT_EQ(c.counts.total(), c.outcomes.size());
      std::size_t in_files = 0;
      for (const auto& f : c.files) in_files += f.counts.total();
      EXPECT_EQ(in_files, c.outcomes.size());
      EXPECT_EQ(c.file_fingerprints, full.file_fingerprints);
    };
    again.checkpoint_seconds = 0;
    const RunResult r = run_vectors(*b, again);
    EXPECT_EQ(tests_without_time(json_report(r)), tests_without_time(json_report(full)));
    ASSERT_FALSE(sizes.empty());
    for (std::size_t n : sizes) EXPECT_GE(n, done.size()) << "a checkpoint lost tests of the report";
    EXPECT_EQ(sizes.size(), 7 - done.size()) << "one checkpoint per test run, none while replaying";

    static volatile std::sig_atomic_t flag = 0;
    flag = SIGINT;  // interrupted before its first test
    RunOptions stopped = again;
    stopped.checkpoint = nullptr;
    stopped.interrupt = &flag;
    const RunResult s = run_vectors(*b, stopped);
    EXPECT_TRUE(s.interrupted);
    EXPECT_EQ(s.outcomes.size(), done.size());
    EXPECT_EQ(s.counts.total(), done.size());
    ASSERT_EQ(s.files.size(), 1u);
    EXPECT_EQ(s.files[0].counts.total(), done.size());
    EXPECT_EQ(s.file_fingerprints, full.file_fingerprints);
  }
}

// A vector file whose content changed under the same name since the report is run again (the
// report's verdicts for it are stale); the others are taken from the report.
TEST(harness_resume, a_vector_file_changed_since_the_report_is_run_again) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("isolation");
  const auto b = Backend::load(plugin);
  const RunResult full = run_vectors(*b, v.options());
  write_json_report(v.root / "full.json", full);
  const ResumeReport rr = load_resume_report(v.root / "full.json");
  ASSERT_EQ(rr.file_fingerprints.size(), 1u);

  // Unchanged: everything from the report.
  RunOptions same = v.options();
  same.previous = &rr.outcomes;
  same.previous_fingerprints = &rr.file_fingerprints;
  const RunResult unchanged = run_vectors(*b, same);
  EXPECT_TRUE(unchanged.resume_changed_files.empty());
  EXPECT_EQ(json_report(unchanged)["tests"], json_report(full)["tests"]);  // seconds too: nothing ran

  // One expected value of a passing test changed: that test now fails.
  const auto pass = std::find_if(full.outcomes.begin(), full.outcomes.end(),
                                 [](const TestOutcome& t) { return t.verdict == Verdict::Pass && !t.invalid; });
  ASSERT_NE(pass, full.outcomes.end());
  const fs::path file = v.options().files.at(0).path;
  OJ doc = OJ::parse(std::ifstream(file));
  for (auto& g : doc["testGroups"])
    for (auto& t : g["tests"])
      if (t["tcId"] == pass->tc_id) {
        OJ& e = t["expected"].begin().value()["data"][0];
        e = e.get<std::int64_t>() == 0 ? 1 : 0;
      }
  write_file_atomically(file, doc.dump(1));
  RunOptions changed = v.options();
  changed.previous = &rr.outcomes;
  changed.previous_fingerprints = &rr.file_fingerprints;
  const RunResult r = run_vectors(*b, changed);
  EXPECT_EQ(r.resume_changed_files, std::vector<std::string>{pass->file});
  EXPECT_NE(r.file_fingerprints.at(pass->file), rr.file_fingerprints.at(pass->file));
  const auto now = std::find_if(r.outcomes.begin(), r.outcomes.end(), [&](const TestOutcome& t) { return t.tc_id == pass->tc_id; });
  ASSERT_NE(now, r.outcomes.end());
  EXPECT_EQ(now->verdict, Verdict::Fail) << "the stale PASS of the report was kept";
  EXPECT_EQ(r.exit_code(), 1);

  // A report without per-file fingerprints (an older qspec's) cannot vouch for any file.
  const std::map<std::string, std::string> none;
  RunOptions old = v.options();
  old.previous = &rr.outcomes;
  old.previous_fingerprints = &none;
  EXPECT_EQ(run_vectors(*b, old).resume_changed_files, std::vector<std::string>{pass->file});
}

TEST(harness_resume, expectations_are_applied_afresh_to_resumed_tests) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  VectorDir v("isolation");
  const auto b = Backend::load(plugin);
  const Expectations ex = Expectations::parse("test/*.json 2 FAIL ties up\n", "e");
  RunOptions o = v.options();
  o.expectations = &ex;
  const RunResult first = run_vectors(*b, o);
  write_json_report(v.root / "r.json", first);
  const ResumeReport rr = load_resume_report(v.root / "r.json");
  RunOptions plain = v.options();  // no --expect this time
  plain.previous = &rr.outcomes;
  const RunResult again = run_vectors(*b, plain);
  const auto it = std::find_if(again.outcomes.begin(), again.outcomes.end(), [](const TestOutcome& t) { return t.tc_id == 2; });
  ASSERT_NE(it, again.outcomes.end());
  EXPECT_EQ(it->verdict, Verdict::Fail);
  EXPECT_FALSE(it->expected_verdict.has_value());
  EXPECT_FALSE(it->as_expected);
  EXPECT_EQ(again.counts.expected_deviation, 0u);
  EXPECT_GT(again.counts.unexpected, first.counts.unexpected);
}

TEST(harness_resume, a_report_of_another_run_is_refused) {
  ResumeReport r;
  r.backend_name = "a";
  r.vector_files = {"x.json", "y.json"};
  r.filters = {"*#1"};
  EXPECT_NO_THROW(check_resume_matches(r, "R", "a", {"x.json", "y.json"}, {"*#1"}));
  auto refused = [&](const std::string& backend, const std::vector<std::string>& files, const std::vector<std::string>& filters,
                     const std::string& why) {
    try {
      check_resume_matches(r, "R", backend, files, filters);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const ResumeError& e) {
      EXPECT_TRUE(contains(e.what(), "cannot resume from R: ")) << e.what();
      EXPECT_TRUE(contains(e.what(), why)) << e.what();
    }
  };
  refused("b", {"x.json", "y.json"}, {"*#1"}, "backend 'a', this run's backend is 'b'");
  refused("a", {"x.json"}, {"*#1"}, "other vector files");
  refused("a", {"x.json", "y.json"}, {}, "other --filter globs");
  try {
    check_resume_matches(r, "R", "a", {"x.json", "y.json"}, {"*#1"}, ShardSpec{1, 4});
    ADD_FAILURE() << "accepted a report of the whole selection for shard 1/4";
  } catch (const ResumeError& e) {
    EXPECT_TRUE(contains(e.what(), "the whole selection, this run is shard 1/4")) << e.what();
  }

  VectorDir v("isolation");
  std::ofstream(v.root / "not.json") << "{\"schema\": \"something-else\"}";
  EXPECT_THROW(load_resume_report(v.root / "not.json"), ResumeError);
  std::ofstream(v.root / "old.json") << "{\"schema\": \"qspec-report/1\", \"tests\": []}";
  try {
    load_resume_report(v.root / "old.json");
    ADD_FAILURE() << "a report without vector_files was accepted";
  } catch (const ResumeError& e) {
    EXPECT_TRUE(contains(e.what(), "does not list its vector files")) << e.what();
  }
  EXPECT_THROW(load_resume_report(v.root / "missing.json"), ResumeError);
}

// ---- every verdict is tabulated ----

TEST(harness_verdicts, every_verdict_has_a_name_a_count_and_a_report_entry) {
  for (Verdict v : kAllVerdicts) EXPECT_EQ(verdict_from_name(verdict_name(v)), v);
  EXPECT_EQ(verdict_from_name("CRASH"), Verdict::Crash);
  EXPECT_EQ(verdict_from_name("TIMEOUT"), Verdict::Timeout);
  EXPECT_FALSE(verdict_from_name("SOMETIMES").has_value());

  RunResult r;
  r.backend_name = "b";
  const Verdict vs[] = {Verdict::Pass, Verdict::Crash, Verdict::Timeout, Verdict::Timeout};
  std::int64_t id = 0;
  for (Verdict v : vs) {
    TestOutcome o;
    o.file = "f.json";
    o.tc_id = ++id;
    o.op = "op";
    o.verdict = v;
    o.reason = std::string(verdict_name(v)) + " reason";
    o.as_expected = v == Verdict::Pass;
    r.counts.add(o);
    r.outcomes.push_back(o);
  }
  EXPECT_EQ(r.counts.total(), 4u);
  EXPECT_EQ(r.counts.of(Verdict::Crash), 1u);
  EXPECT_EQ(r.counts.of(Verdict::Timeout), 2u);
  EXPECT_EQ(r.counts.unexpected, 3u);
  const auto j = json_report(r);
  for (Verdict v : kAllVerdicts) EXPECT_TRUE(j["summary"].contains(std::string(verdict_name(v)))) << verdict_name(v);
  EXPECT_EQ(j["summary"]["CRASH"], 1);
  EXPECT_EQ(j["summary"]["TIMEOUT"], 2);
  EXPECT_EQ(j["summary"]["by_op"]["op"]["TIMEOUT"], 2);
  const std::string x = junit_report(r);
  EXPECT_TRUE(contains(x, "<error message=\"CRASH reason\" type=\"CRASH\">")) << x;
  EXPECT_TRUE(contains(x, "<error message=\"TIMEOUT reason\" type=\"TIMEOUT\">")) << x;
  EXPECT_TRUE(contains(x, "errors=\"3\"")) << x;
  const std::string s = summary_text(r);
  EXPECT_TRUE(contains(s, "4 tests: 1 PASS, 0 FAIL, 0 ERROR, 0 UNSUPPORTED, 1 CRASH, 2 TIMEOUT")) << s;
  EXPECT_TRUE(contains(s, "CRASH TIMEOUT SKIPPED  unexpected")) << s;

  const Expectations ex = Expectations::parse("a.json 3 CRASH known\nb.json * TIMEOUT slow\n", "e");
  EXPECT_EQ(ex.find("a.json", 3)->verdict, Verdict::Crash);
  EXPECT_EQ(ex.find("b.json", 9)->verdict, Verdict::Timeout);
  try {
    Expectations::parse("a.json 3 SOMETIMES x\n", "e");
    ADD_FAILURE();
  } catch (const ExpectationError& e) {
    EXPECT_TRUE(contains(e.what(), "CRASH, TIMEOUT")) << e.what();
  }
}

}  // namespace
