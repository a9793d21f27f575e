// `qspec run`: run a backend against the golden vectors; verdicts, diagnostics, summary, reports.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/expectations.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"

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
  std::size_t max_diagnostics = 20;
  std::size_t explain_limit = 50;
  bool fail_on_unsupported = false;
  std::string progress = "auto";
};

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
  if (f.counts.unexpected) s += "  <-- " + std::to_string(f.counts.unexpected) + " unexpected";
  return s;
}

int run(const Context& ctx, const RunCliOptions& o) {
  std::unique_ptr<Backend> backend;
  try {
    backend = Backend::load(o.backend);
  } catch (const BackendLoadError& e) {
    std::cerr << "qspec run: " << e.what() << "\n";
    return kUsage;
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
  ro.unsupported_is_failure = o.fail_on_unsupported;

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
  ro.observer.file_done = [&](const FileResult& f) {
    progress.clear();
    std::cout << file_line(f) << "\n" << std::flush;
  };

  std::cout << "qspec run: backend " << backend->name() << " (" << backend->version() << "; " << backend->source() << ") on "
            << ro.files.size() << " vector file" << (ro.files.size() == 1 ? "" : "s") << "\n";
  RunResult result;
  try {
    result = run_vectors(*backend, ro);
  } catch (const VectorFileError& e) {
    progress.clear();
    std::cerr << "qspec run: malformed vector file: " << e.what() << "\n";
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
  try {
    if (!o.report_json.empty()) write_json_report(o.report_json, result);
    if (!o.junit.empty()) write_junit_report(o.junit, result);
  } catch (const std::exception& e) {
    std::cerr << "qspec run: cannot write report: " << e.what() << "\n";
    return kUsage;
  }
  if (result.counts.total() == 0) std::cout << "warning: no test selected\n";
  return result.exit_code() == 0 ? kOk : kFail;
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
  c->add_option("--max-diagnostics", o->max_diagnostics, "Print at most this many unexpected outcomes in full (default 20)");
  c->add_option("--explain-limit", o->explain_limit, "Name matching conventions for at most this many failures (default 50)");
  c->add_flag("--fail-on-unsupported", o->fail_on_unsupported, "Count UNSUPPORTED tests without an --expect entry as failures");
  c->add_option("--progress", o->progress, "Progress line: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->callback([&ctx, o] { ctx.exit_code = run(ctx, *o); });
}

}  // namespace qspec::cli
