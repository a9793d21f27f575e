// `qspec run`: run a backend against the golden vectors; verdicts, diagnostics, summary, reports.
//
// run() reads as the steps of a run, each a function of one concern: check what the user gave
// (output paths, --expect, --shard, the vector files, the schemas) before anything starts; start
// the backend; set up the run (known ops, --resume, checkpoints, what is shown); run; then the
// summary, the reports and the exit status.
#include <signal.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "commands.h"
#include "html_options.h"
#include "qspec/core/catalogue.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/backend_worker.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/exec_backend.h"
#include "qspec/harness/expectations.h"
#include "qspec/harness/output_paths.h"
#include "qspec/harness/report_resume.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/run_provenance.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/shard.h"
#include "run_cli_options.h"
#include "run_console.h"

#ifndef QSPEC_VERSION
#define QSPEC_VERSION "0.0.0"
#endif

namespace qspec::cli {
namespace {
namespace fs = std::filesystem;
using namespace qspec::harness;

// SIGINT/SIGTERM: the signal number; the run stops at the next test boundary. A second signal
// ends qspec at once (the default action), after killing the workers' process groups, which
// would otherwise keep what a backend forked running.
volatile std::sig_atomic_t g_interrupt = 0;
extern "C" void on_interrupt(int sig) {
  if (g_interrupt) {
    kill_worker_process_groups();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  g_interrupt = sig;
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sa.sa_flags = 0;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int usage_error(RunConsole& con, const std::string& message) {
  con.err("qspec run: " + message + "\n");
  return kUsage;
}

// What the user gave, read and checked before the backend starts.
struct RunInputs {
  Expectations expectations;
  std::optional<ShardSpec> shard;
  std::vector<VectorSource> files;
  std::unique_ptr<SchemaSet> schemas;
};

// Every input error is found here, before any test runs: report paths that would collide, lie
// in a missing directory or cannot be written; a bad --expect or --shard; --vectors that name
// nothing, or directories without a single vector file; schemas that cannot be loaded.
std::optional<int> read_inputs(const Context& ctx, const RunCliOptions& o, RunInputs& in, RunConsole& con) {
  if (const auto problem = check_output_files({{"--report-json", o.report_json},
                                               {"--resume (rewritten in place)", o.report_json.empty() ? o.resume : ""},
                                               {"--junit", o.junit},
                                               {"--html", o.html}}))
    return usage_error(con, *problem);
  try {
    if (!o.expect.empty()) in.expectations = Expectations::load(o.expect);
    in.shard = resolve_shard(o.shard);  // --shard, else GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS
    std::vector<fs::path> paths(o.vectors.begin(), o.vectors.end());
    if (paths.empty()) paths.push_back(fs::path(ctx.root) / "vectors");
    in.files = find_vector_files(paths);
    if (in.files.empty()) {
      std::string where;
      for (const auto& p : paths) where += (where.empty() ? "" : ", ") + p.string();
      return usage_error(con, "no test selected: no vector file (*.json) in " + where + "; nothing to check");
    }
    // The schemas `qspec vectors check` applies, from this qspec's data root: every file must
    // satisfy them before its tests run (docs/running.md, "Malformed vector files").
    in.schemas = std::make_unique<SchemaSet>(fs::path(ctx.root) / "vectors" / "schema");
  } catch (const ExpectationError& e) {
    return usage_error(con, e.what());
  } catch (const ShardError& e) {
    return usage_error(con, e.what());
  } catch (const VectorFileError& e) {
    return usage_error(con, e.what());
  } catch (const std::runtime_error& e) {  // SchemaSet
    return usage_error(
        con, std::string("cannot load the vector schemas: ") + e.what() + " (--root names the qspec data root)");
  }
  return std::nullopt;
}

struct BackendUnderTest {
  std::unique_ptr<Backend> in_process;  // --no-isolate
  std::unique_ptr<BackendExecutor> executor;
  WorkerExecutor* workers = nullptr;  // the executor, when isolated
};

// By default the backend runs in worker subprocesses (backend_worker.h): a crash or hang costs
// one test. --no-isolate calls it in this process (debugging). An exec backend is a process of
// its own; its manifest may give the per-test timeout when --timeout does not.
std::optional<BackendUnderTest> start_backend(const RunCliOptions& o, RunConsole& con) {
  BackendUnderTest b;
  BackendOptions options;  // the run options the backend is created with (backend.h, ABI version 2)
  options.all_conventions = o.all_conventions;
  try {
    if (o.no_isolate) {
      b.in_process = Backend::load(o.backend, options);
      b.executor = std::make_unique<InProcessExecutor>(*b.in_process);
    } else {
      WorkerOptions wo;
      wo.backend = options;
      wo.timeout_seconds = o.timeout;
      if (is_exec_backend(o.backend) && !o.timeout_given)
        if (const auto manifest = exec_command(o.backend).timeout_seconds) wo.timeout_seconds = *manifest;
      wo.memory_limit_bytes = static_cast<std::uint64_t>(o.worker_memory_mib) << 20;
      wo.leak_limit_bytes = static_cast<std::uint64_t>(o.leak_limit_mib) << 20;
      wo.interrupt = &g_interrupt;
      auto w = WorkerExecutor::start(o.backend, wo);
      b.workers = w.get();
      b.executor = std::move(w);
    }
  } catch (const BackendLoadError& e) {
    con.err("qspec run: " + std::string(e.what()) + "\n");
    return std::nullopt;
  }
  if (b.workers && b.workers->declared_claims())
    for (const auto& c : *b.workers->declared_claims())
      if (!catalogue::get().find(c.op, c.convention))
        con.err("qspec run: warning: " + b.executor->name() + " claims " + c.op + " / " + c.convention +
                ", which is not a pair of the op catalogue (spec/catalogue)\n");
  return b;
}

// The (op, convention) pairs the reference implements: a file's pair must be one of them or be
// claimed by the backend under test (check_op_known), so a misspelt op is an input error, not a
// file of UNSUPPORTED verdicts.
std::vector<std::pair<std::string, std::string>> reference_pairs(const Backend* reference) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!reference) return pairs;
  try {
    for (const auto& cap : reference->capabilities()) pairs.emplace_back(cap.op, cap.convention);
  } catch (const BackendLoadError&) {
  }
  return pairs;
}

// --resume: the tests the report holds are taken from it, the others run.
std::optional<int> load_resume(const RunCliOptions& o, const std::string& backend_name, const RunOptions& ro,
                               std::optional<ResumeReport>& resumed, RunConsole& con) {
  if (o.resume.empty()) return std::nullopt;
  try {
    resumed = load_resume_report(o.resume);
    std::vector<std::string> names;
    for (const auto& f : ro.files) names.push_back(f.display_name);
    check_resume_matches(*resumed, o.resume, backend_name, names, ro.filters, ro.shard);
  } catch (const ResumeError& e) {
    return usage_error(con, e.what());
  }
  con.out("qspec run: resuming " + o.resume + ": " + std::to_string(resumed->outcomes.size()) +
          " tests done before are taken from it" + (resumed->interrupted ? "" : " (it is a complete report)") + "\n");
  return std::nullopt;
}

// The number of tests the run will execute (selection, shard, --only-claimed), for the progress
// line: the files are loaded once more without their schema check (a malformed one counts 0;
// the run reports it). Only done when the progress line is shown.
std::size_t count_selected_tests(const RunOptions& ro, BackendExecutor& executor) {
  std::size_t position = 0, count = 0;
  for (const auto& src : ro.files) {
    if (g_interrupt) break;
    try {
      const VectorFile f = load_vector_source(src, nullptr);
      if (ro.only_claimed && !executor.supports(f)) continue;
      for (const auto& t : f.tests)
        if (test_selected(ro.filters, f.display_name, t.tc_id) && (!ro.shard || in_shard(*ro.shard, position++)))
          ++count;
    } catch (const VectorFileError&) {
    }
  }
  return count;
}

std::string header_line(const RunCliOptions& o, const BackendExecutor& e, std::size_t files) {
  return "qspec run: backend " + e.name() + " (" + e.version() + "; " + e.source() + ") on " + std::to_string(files) +
         " vector file" + (files == 1 ? "" : "s") +
         (o.only_claimed ? ", only the pairs it claims (--only-claimed)" : "") +
         (o.no_isolate ? " (in process: --no-isolate)" : "") + "\n";
}

// Why nothing was selected: no file, or the filters match no test.
std::string empty_selection_reason(const RunCliOptions& o, const RunResult& r) {
  std::string globs;
  for (const auto& g : o.filters) globs += (globs.empty() ? "--filter '" : ", --filter '") + g + "'";
  return "no test selected: " +
         (globs.empty() ? std::string("the vector files hold no test") : globs + " match no test") + " of the " +
         std::to_string(r.vector_files.size()) + " vector file" + (r.vector_files.size() == 1 ? "" : "s") +
         " found; nothing to check";
}

void write_reports(const Context& ctx, const RunCliOptions& o, const RunResult& result) {
  if (!o.json_output().empty()) write_json_report(o.json_output(), result);
  if (!o.junit.empty()) write_junit_report(o.junit, result);
  if (!o.html.empty()) write_html_report(o.html, {json_report(result)}, html_options(ctx, o.spec_base));
}

// The run as the library sees it: the selection, and how outcomes are judged and explained.
RunOptions run_options(const RunCliOptions& o, const RunInputs& in, const ConventionExplainer& explainer,
                       const Backend* reference) {
  RunOptions ro;
  ro.files = in.files;
  ro.filters = o.filters;
  ro.shard = in.shard;
  ro.only_claimed = o.only_claimed;
  ro.schemas = in.schemas.get();
  ro.known_ops = reference_pairs(reference);
  ro.keep_going = o.keep_going;
  ro.expectations = o.expect.empty() ? nullptr : &in.expectations;
  ro.unsupported_is_failure = o.fail_on_unsupported;
  ro.max_consecutive_faults = o.max_consecutive_faults;
  ro.explainer = &explainer;
  ro.explain_limit = o.explain_limit;
  ro.data_limit = o.report_data;
  ro.interrupt = &g_interrupt;
  ro.provenance = capture_provenance(QSPEC_VERSION);
  return ro;
}

// What the run reports while it goes: the console's lines, and checkpoints of the JSON report
// (a killed run leaves a recent partial report).
void report_as_it_goes(RunOptions& ro, const RunCliOptions& o, RunConsole& con) {
  ro.observer.test_done = [&con](const TestOutcome& t, std::size_t, std::size_t) { con.test_done(t); };
  ro.observer.file_skipped = [&con](const SkippedFile& s) { con.file_skipped(s); };
  ro.observer.file_done = [&con](const FileResult& f) { con.file_done(f); };
  if (o.json_output().empty()) return;
  ro.checkpoint = [&o, &con](const RunResult& partial) {
    try {
      write_json_report(o.json_output(), partial);
    } catch (const std::exception& e) {
      con.err("qspec run: cannot write the checkpoint report: " + std::string(e.what()) + "\n");
    }
  };
  ro.checkpoint_seconds = o.checkpoint_seconds;
}

// After the run: the summary, the reports, the notes, and the exit status.
int finish(const Context& ctx, const RunCliOptions& o, const RunInputs& in, RunResult& result,
           const BackendUnderTest& b, RunConsole& con) {
  if (result.selected_total == 0 && result.skipped.empty() && result.unclaimed_files.empty() && !result.interrupted)
    return usage_error(con, empty_selection_reason(o, result));  // before any "Result" line: nothing ran
  if (con.hidden())
    con.out("(" + std::to_string(con.hidden()) +
            " more unexpected outcomes not shown; raise --max-diagnostics or see --report-json)\n");
  if (!o.expect.empty())
    for (const auto& e : in.expectations.entries())
      if (e.uses == 0)
        con.out("warning: " + in.expectations.source() + " entry " + std::to_string(e.line) + " (" + e.file_glob + " " +
                (e.tc_id ? std::to_string(*e.tc_id) : "*") + ") matched no test\n");
  result.provenance.finished = utc_timestamp();
  con.summary(summary_text(result));
  if (b.workers && b.workers->restarts_for_memory())
    con.out("note: the backend's worker was replaced " + std::to_string(b.workers->restarts_for_memory()) +
            " times after its heap grew by more than 256 MiB\n");
  try {
    write_reports(ctx, o, result);
  } catch (const std::exception& e) {
    return usage_error(con, std::string("cannot write report: ") + e.what());
  }
  if (result.shard)
    con.out("Shard " + shard_text(*result.shard) + ": " + std::to_string(result.outcomes.size()) + " of " +
            std::to_string(result.selected_total) +
            " selected tests (qspec report merge combines the shards' --report-json files)\n");
  if (result.interrupted) {
    const int sig = g_interrupt ? static_cast<int>(g_interrupt) : SIGINT;
    std::string s = "qspec run: interrupted by " + std::string(sig == SIGTERM ? "SIGTERM" : "SIGINT") + " after " +
                    std::to_string(result.outcomes.size()) + " tests";
    if (!o.json_output().empty())
      s += "; " + o.json_output() +
           " holds them (\"interrupted\": true); continue with the same command and --resume " + o.json_output();
    con.out(s + "\n");
    return 128 + sig;
  }
  const int rc = result.exit_code();
  return rc == 2 ? kUsage : rc == 0 ? kOk : kFail;
}

int run(const Context& ctx, const RunCliOptions& o) {
  install_interrupt_handlers();
  RunConsole con(console_mode(o.progress, o.color), o.max_diagnostics);
  RunInputs in;
  if (const auto rc = read_inputs(ctx, o, in, con)) return *rc;
  std::optional<BackendUnderTest> b = start_backend(o, con);
  if (!b) return g_interrupt ? 128 + g_interrupt : kUsage;
  BackendExecutor& executor = *b->executor;
  // The reference backend names the convention a wrong answer matches (diagnostics only).
  std::unique_ptr<Backend> reference;
  try {
    reference = Backend::load("reference");
  } catch (const BackendLoadError&) {
  }
  const ConventionExplainer explainer(reference.get());

  in.expectations.select_isa(isa_of_version(executor.version()));  // entries marked isa= hold on that ISA only
  RunOptions ro = run_options(o, in, explainer, reference.get());
  std::optional<ResumeReport> resumed;
  if (const auto rc = load_resume(o, executor.name(), ro, resumed, con)) return *rc;
  if (resumed) {
    ro.previous = &resumed->outcomes;
    ro.previous_fingerprints = &resumed->file_fingerprints;  // a file changed since is run again
  }
  report_as_it_goes(ro, o, con);

  con.out(header_line(o, executor, ro.files.size()));
  con.out("qspec run: data root " + ctx.root + " (" + ctx.root_how + ")\n");
  if (con.shows_progress()) con.start_progress(count_selected_tests(ro, executor));
  RunResult result;
  try {
    result = run_vectors(executor, ro);
  } catch (const VectorFileError& e) {
    return usage_error(con, std::string("malformed vector file: ") + e.what() +
                                "\n(--keep-going skips such a file and runs the others)");
  }
  con.clear_progress();
  for (const auto& f : result.resume_changed_files)
    con.out("qspec run: --resume: " + f + " changed since " + o.resume +
            " was made (or the report has no fingerprint of it): its tests were run again\n");
  return finish(ctx, o, in, result, *b, con);
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RunCliOptions>();
  auto* c = app.add_subcommand("run", "Run a backend against the golden vectors");
  c->add_option("--backend", o->backend,
                "Built-in backend name (see `qspec backends`), path to a plugin .so, exec:'COMMAND ARGS' (a program "
                "speaking the exec protocol, docs/exec-protocol.md) or its manifest FILE.json")
      ->required();
  c->add_option("--vectors", o->vectors, "Vector files or directories (repeatable; default: <root>/vectors)");
  c->add_option("--filter", o->filters,
                "Run only tests whose file matches this glob, or FILE#tcId when the glob contains '#' (repeatable)");
  c->add_option("--expect", o->expect, "Known deviations of this backend (docs/running.md)");
  c->add_option("--report-json", o->report_json, "Write the JSON report here");
  c->add_option("--junit", o->junit, "Write a JUnit XML report here");
  c->add_option("--html", o->html, "Write a self-contained HTML report here (matrix, failing tests in detail)");
  c->add_option("--spec-base", o->spec_base,
                "Link the HTML page's clauses to <URL>/spec/<family>.md (default: file:// into --root)");
  c->add_option("--shard", o->shard,
                "Run only shard I of N (0 <= I < N): every N-th selected test from position I; default: "
                "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS when set");
  c->add_option("--report-data", o->report_data,
                "Keep inputs, expected and actual outputs in the JSON/HTML report for at most this many non-passing "
                "tests (default 1000)");
  c->add_option("--max-diagnostics", o->max_diagnostics,
                "Print at most this many unexpected outcomes in full (default 20)");
  c->add_option("--explain-limit", o->explain_limit,
                "Name matching conventions for at most this many failures (default 50)");
  c->add_flag("--all-conventions", o->all_conventions,
              "Ask the backend to claim every convention of its ops and compute with its native arithmetic (a run "
              "option of the backend ABI, version 2): its conformance table against every convention");
  c->add_flag("--only-claimed", o->only_claimed,
              "Run only the vector files whose (op, convention) the backend claims; the others are left out of the "
              "selection instead of counting as UNSUPPORTED (a run that checks nothing still fails)");
  c->add_flag("--keep-going", o->keep_going,
              "Skip a malformed vector file (reported on stdout and in the reports) and run the others; exit status 2");
  c->add_flag("--fail-on-unsupported", o->fail_on_unsupported,
              "Count UNSUPPORTED tests without an --expect entry as failures");
  c->add_option("--progress", o->progress,
                "Progress line on stderr (tests done/total, elapsed, ETA): auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->add_option("--color", o->color, "Colour on stdout: auto (on a terminal, unless NO_COLOR is set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->add_flag("--no-isolate", o->no_isolate,
              "Call the backend inside qspec (debugging only: a crash or hang of the backend ends the run; no timeout, "
              "guard pages or leak check)");
  c->add_option("--timeout", o->timeout,
                "Seconds a test may take before it is TIMEOUT and its worker killed (default 10, or an exec "
                "backend manifest's \"timeout\"; 0: none)")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--worker-memory-limit", o->worker_memory_mib,
                "MiB the worker's address space may grow beyond qspec's (RLIMIT_AS; default 4096; 0: none)");
  c->add_option(
      "--leak-limit", o->leak_limit_mib,
      "A run() call that grows the worker's heap by more than this many MiB is an ERROR (default 16; 0: off)");
  c->add_option("--max-consecutive-faults", o->max_consecutive_faults,
                "After N consecutive TIMEOUT/CRASH verdicts in a vector file, give the file's remaining tests the verdict "
                "SKIPPED (a failure) instead of running them (default 5; 0: run every test)");
  c->add_option("--resume", o->resume,
                "Continue the run whose JSON report this is (same backend, vector files and filters): its tests are "
                "not run again; the complete report replaces it unless --report-json says otherwise");
  c->add_option(
       "--checkpoint-seconds", o->checkpoint_seconds,
       "With --report-json: rewrite the report with the tests done so far at most every S seconds (default 30)")
      ->check(CLI::NonNegativeNumber);
  c->callback([&ctx, o, c] {
    o->timeout_given = c->count("--timeout") > 0;
    ctx.exit_code = run(ctx, *o);
  });
}

}  // namespace qspec::cli
