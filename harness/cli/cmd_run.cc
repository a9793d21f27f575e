// `qspec run`: run a backend against the golden vectors; verdicts, diagnostics, summary, reports.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/backend_worker.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/expectations.h"
#include "qspec/harness/report_resume.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/shard.h"
#include "html_options.h"

namespace qspec::cli {
namespace {
namespace fs = std::filesystem;
using namespace qspec::harness;

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
  bool keep_going = false;
  bool all_conventions = false;
  std::string progress = "auto";
  bool no_isolate = false;              // --no-isolate: the backend runs inside qspec
  double timeout = 10;                  // --timeout SECONDS per test (0: none)
  std::size_t worker_memory_mib = 4096; // --worker-memory-limit MiB (0: none)
  std::size_t leak_limit_mib = 16;      // --leak-limit MiB (0: off)
  std::string resume;                   // --resume REPORT
  double checkpoint_seconds = 30;       // --checkpoint-seconds S
};

// SIGINT/SIGTERM: the signal number; the run stops at the next test boundary. SA_RESETHAND: a
// second signal takes the default action (ends qspec at once).
volatile std::sig_atomic_t g_interrupt = 0;
extern "C" void on_interrupt(int sig) { g_interrupt = sig; }

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sa.sa_flags = SA_RESETHAND;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

// Progress on a terminal: one status line on stderr, rewritten in place at most every 100 ms.
// Elsewhere (CI logs): nothing but the per-file lines.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  void update(const std::string& file, std::size_t done, std::size_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done != total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, file.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

std::string file_line(const FileResult& f) {
  std::string s = f.file + ": " + std::to_string(f.counts.total()) + " tests:";
  s += " " + std::to_string(f.counts.pass) + " PASS";
  if (f.counts.fail) s += ", " + std::to_string(f.counts.fail) + " FAIL";
  if (f.counts.error) s += ", " + std::to_string(f.counts.error) + " ERROR";
  if (f.counts.unsupported) s += ", " + std::to_string(f.counts.unsupported) + " UNSUPPORTED";
  if (f.counts.crash) s += ", " + std::to_string(f.counts.crash) + " CRASH";
  if (f.counts.timeout) s += ", " + std::to_string(f.counts.timeout) + " TIMEOUT";
  if (f.counts.unexpected) s += "  <-- " + std::to_string(f.counts.unexpected) + " unexpected";
  return s;
}

int run(const Context& ctx, const RunCliOptions& o) {
  // The all-conventions request reaches the backend through its environment (docs/backend-abi.md):
  // set before the backend is loaded, inherited by worker processes.
  if (o.all_conventions) ::setenv("QSPEC_ADAPTER_ALL_CONVENTIONS", "1", 1);
  install_interrupt_handlers();
  // By default the backend runs in worker subprocesses (backend_worker.h): a crash or hang costs
  // one test. --no-isolate calls it in this process (debugging).
  std::unique_ptr<Backend> backend;
  std::unique_ptr<BackendExecutor> executor;
  WorkerExecutor* workers = nullptr;
  try {
    if (o.no_isolate) {
      backend = Backend::load(o.backend);
      executor = std::make_unique<InProcessExecutor>(*backend);
    } else {
      WorkerOptions wo;
      wo.timeout_seconds = o.timeout;
      wo.memory_limit_bytes = static_cast<std::uint64_t>(o.worker_memory_mib) << 20;
      wo.leak_limit_bytes = static_cast<std::uint64_t>(o.leak_limit_mib) << 20;
      wo.interrupt = &g_interrupt;
      auto w = WorkerExecutor::start(o.backend, wo);
      workers = w.get();
      executor = std::move(w);
    }
  } catch (const BackendLoadError& e) {
    std::cerr << "qspec run: " << e.what() << "\n";
    return g_interrupt ? 128 + g_interrupt : kUsage;
  }
  // The reference backend names the convention a wrong answer matches (diagnostics only).
  std::unique_ptr<Backend> reference;
  try {
    reference = Backend::load("reference");
  } catch (const BackendLoadError&) {
  }
  const ConventionExplainer explainer(reference.get());

  Expectations expectations;
  if (!o.expect.empty()) {
    try {
      expectations = Expectations::load(o.expect);
    } catch (const ExpectationError& e) {
      std::cerr << "qspec run: " << e.what() << "\n";
      return kUsage;
    }
  }

  std::vector<fs::path> paths;
  for (const auto& v : o.vectors) paths.emplace_back(v);
  if (paths.empty()) paths.push_back(fs::path(ctx.root) / "vectors");

  RunOptions ro;
  try {
    ro.files = find_vector_files(paths);
  } catch (const VectorFileError& e) {
    std::cerr << "qspec run: " << e.what() << "\n";
    return kUsage;
  }
  ro.filters = o.filters;
  ro.expectations = o.expect.empty() ? nullptr : &expectations;
  ro.explainer = &explainer;
  ro.explain_limit = o.explain_limit;
  try {
    ro.shard = resolve_shard(o.shard);  // --shard, else GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS
  } catch (const ShardError& e) {
    std::cerr << "qspec run: " << e.what() << "\n";
    return kUsage;
  }
  ro.data_limit = o.report_data;
  ro.unsupported_is_failure = o.fail_on_unsupported;
  ro.keep_going = o.keep_going;
  // A file's (op, convention) must be known to the reference or claimed by the backend under
  // test (check_op_known): a misspelt op is an input error, not a file of UNSUPPORTED verdicts.
  if (reference) {
    try {
      for (const auto& cap : reference->capabilities()) ro.known_ops.emplace_back(cap.op, cap.convention);
    } catch (const BackendLoadError&) {
    }
  }

  // --resume: the tests the report holds are taken from it, the others run.
  std::optional<ResumeReport> resumed;
  const std::string report_json = o.report_json.empty() ? o.resume : o.report_json;
  if (!o.resume.empty()) {
    try {
      resumed = load_resume_report(o.resume);
      std::vector<std::string> names;
      for (const auto& f : ro.files) names.push_back(f.display_name);
      check_resume_matches(*resumed, o.resume, executor->name(), names, ro.filters, ro.shard);
    } catch (const ResumeError& e) {
      std::cerr << "qspec run: " << e.what() << "\n";
      return kUsage;
    }
    ro.previous = &resumed->outcomes;
    std::cout << "qspec run: resuming " << o.resume << ": " << resumed->outcomes.size()
              << " tests done before are taken from it" << (resumed->interrupted ? "" : " (it is a complete report)") << "\n";
  }
  ro.interrupt = &g_interrupt;
  if (!report_json.empty()) {  // checkpoints: a killed run leaves a recent partial report
    ro.checkpoint = [&report_json](const RunResult& partial) {
      try {
        write_json_report(report_json, partial);
      } catch (const std::exception& e) {
        std::cerr << "qspec run: cannot write the checkpoint report: " << e.what() << "\n";
      }
    };
    ro.checkpoint_seconds = o.checkpoint_seconds;
  }

  const bool tty = o.progress == "always" || (o.progress == "auto" && ::isatty(STDERR_FILENO));
  ProgressLine progress(tty);
  std::size_t shown = 0, hidden = 0;
  ro.observer.test_done = [&](const TestOutcome& t, std::size_t done, std::size_t total) {
    if (!t.as_expected) {
      if (shown < o.max_diagnostics) {
        progress.clear();
        ++shown;
        std::cout << std::string(verdict_name(t.verdict)) << (t.unexpected_pass ? " (unexpected pass)" : "") << " " << t.file
                  << " tcId " << t.tc_id << ": " << t.reason << "\n";
        if (t.unexpected_pass)
          std::cout << "  --expect said " << verdict_name(*t.expected_verdict) << " (" << t.expectation_reason
                    << "); the entry is stale\n";
        std::cout << t.diagnostic << std::flush;
      } else {
        ++hidden;
      }
    }
    progress.update(t.file, done, total);
  };
  ro.observer.file_skipped = [&](const SkippedFile& s) {
    progress.clear();
    std::cout << "SKIPPED malformed vector file (--keep-going): " << s.error << "\n" << std::flush;
  };
  ro.observer.file_done = [&](const FileResult& f) {
    progress.clear();
    std::cout << file_line(f) << "\n" << std::flush;
  };

  std::cout << "qspec run: backend " << executor->name() << " (" << executor->version() << "; " << executor->source() << ") on "
            << ro.files.size() << " vector file" << (ro.files.size() == 1 ? "" : "s")
            << (o.no_isolate ? " (in process: --no-isolate)" : "") << "\n";
  RunResult result;
  try {
    result = run_vectors(*executor, ro);
  } catch (const VectorFileError& e) {
    progress.clear();
    std::cerr << "qspec run: malformed vector file: " << e.what() << "\n(--keep-going skips such a file and runs the others)\n";
    return kUsage;
  }
  progress.clear();
  if (hidden) std::cout << "(" << hidden << " more unexpected outcomes not shown; raise --max-diagnostics or see --report-json)\n";
  if (ro.expectations)
    for (const auto& e : expectations.entries())
      if (e.uses == 0)
        std::cout << "warning: " << expectations.source() << " entry " << e.line << " (" << e.file_glob << " "
                  << (e.tc_id ? std::to_string(*e.tc_id) : "*") << ") matched no test\n";
  std::cout << summary_text(result);
  if (workers && workers->restarts_for_memory())
    std::cout << "note: the backend's worker was replaced " << workers->restarts_for_memory()
              << " times after its heap grew by more than 256 MiB\n";
  try {
    if (!report_json.empty()) write_json_report(report_json, result);
    if (!o.junit.empty()) write_junit_report(o.junit, result);
    if (!o.html.empty()) write_html_report(o.html, {json_report(result)}, html_options(ctx, o.spec_base));
  } catch (const std::exception& e) {
    std::cerr << "qspec run: cannot write report: " << e.what() << "\n";
    return kUsage;
  }
  if (ro.shard)
    std::cout << "Shard " << shard_text(*ro.shard) << ": " << result.outcomes.size() << " of " << result.selected_total
              << " selected tests (qspec report merge combines the shards' --report-json files)\n";
  if (result.interrupted) {
    const int sig = g_interrupt ? static_cast<int>(g_interrupt) : SIGINT;
    std::cout << "qspec run: interrupted by " << (sig == SIGTERM ? "SIGTERM" : "SIGINT") << " after " << result.outcomes.size()
              << " tests";
    if (!report_json.empty())
      std::cout << "; " << report_json << " holds them (\"interrupted\": true); continue with the same command and --resume "
                << report_json;
    std::cout << "\n";
    return 128 + sig;
  }
  if (result.counts.total() == 0) std::cout << "warning: no test selected\n";
  return result.exit_code() == 2 ? kUsage : result.exit_code() == 0 ? kOk : kFail;
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RunCliOptions>();
  auto* c = app.add_subcommand("run", "Run a backend against the golden vectors");
  c->add_option("--backend", o->backend, "Built-in backend name (see `qspec backends`) or path to a plugin .so")->required();
  c->add_option("--vectors", o->vectors, "Vector files or directories (repeatable; default: <root>/vectors)");
  c->add_option("--filter", o->filters,
                "Run only tests whose file matches this glob, or FILE#tcId when the glob contains '#' (repeatable)");
  c->add_option("--expect", o->expect, "Known deviations of this backend (docs/running.md)");
  c->add_option("--report-json", o->report_json, "Write the JSON report here");
  c->add_option("--junit", o->junit, "Write a JUnit XML report here");
  c->add_option("--html", o->html, "Write a self-contained HTML report here (matrix, failing tests in detail)");
  c->add_option("--spec-base", o->spec_base, "Link the HTML page's clauses to <URL>/spec/<family>.md (default: file:// into --root)");
  c->add_option("--shard", o->shard,
                "Run only shard I of N (0 <= I < N): every N-th selected test from position I; default: "
                "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS when set");
  c->add_option("--report-data", o->report_data,
                "Keep inputs, expected and actual outputs in the JSON/HTML report for at most this many non-passing tests (default 1000)");
  c->add_option("--max-diagnostics", o->max_diagnostics, "Print at most this many unexpected outcomes in full (default 20)");
  c->add_option("--explain-limit", o->explain_limit, "Name matching conventions for at most this many failures (default 50)");
  c->add_flag("--all-conventions", o->all_conventions,
             "Ask the backend to claim every convention of its ops and compute with its native arithmetic "
             "(QSPEC_ADAPTER_ALL_CONVENTIONS=1): its conformance table against every convention");
  c->add_flag("--keep-going", o->keep_going,
              "Skip a malformed vector file (reported on stdout and in the reports) and run the others; exit status 2");
  c->add_flag("--fail-on-unsupported", o->fail_on_unsupported, "Count UNSUPPORTED tests without an --expect entry as failures");
  c->add_option("--progress", o->progress, "Progress line: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->add_flag("--no-isolate", o->no_isolate,
              "Call the backend inside qspec (debugging only: a crash or hang of the backend ends the run; no timeout, "
              "guard pages or leak check)");
  c->add_option("--timeout", o->timeout, "Seconds a test may take before it is TIMEOUT and its worker killed (default 10; 0: none)")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--worker-memory-limit", o->worker_memory_mib,
                "MiB the worker's address space may grow beyond qspec's (RLIMIT_AS; default 4096; 0: none)");
  c->add_option("--leak-limit", o->leak_limit_mib,
                "A run() call that grows the worker's heap by more than this many MiB is an ERROR (default 16; 0: off)");
  c->add_option("--resume", o->resume,
                "Continue the run whose JSON report this is (same backend, vector files and filters): its tests are "
                "not run again; the complete report replaces it unless --report-json says otherwise");
  c->add_option("--checkpoint-seconds", o->checkpoint_seconds,
                "With --report-json: rewrite the report with the tests done so far at most every S seconds (default 30)")
      ->check(CLI::NonNegativeNumber);
  c->callback([&ctx, o] { ctx.exit_code = run(ctx, *o); });
}

}  // namespace qspec::cli
