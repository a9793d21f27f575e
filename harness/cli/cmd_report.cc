// `qspec report merge|html`: combine JSON reports (shards, several backends) and render them as HTML.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "html_options.h"
#include "qspec/harness/output_paths.h"
#include "qspec/harness/report_merge.h"
#include "qspec/harness/vectors_tree.h"

namespace qspec::cli {
namespace {
using namespace qspec::harness;

struct ReportCliOptions {
  std::string out;
  std::vector<std::string> inputs;
  bool allow_incomplete = false;
  std::string html_out;
  std::string title = "qspec conformance report";
  std::string spec_base;
  std::size_t max_failures = 300;
};

// Reads every input and merges them; nullopt (after printing why) on an error.
std::optional<MergeResult> load_and_merge(const char* cmd, const ReportCliOptions& o) {
  try {
    std::vector<LoadedReport> in;
    for (const auto& f : o.inputs) {
      auto r = read_report_file(f);
      in.insert(in.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
    }
    MergeOptions mo;
    mo.allow_incomplete = o.allow_incomplete;
    MergeResult m = merge_reports(in, mo);
    for (const auto& w : m.warnings) std::cerr << "qspec report " << cmd << ": warning: " << w << "\n";
    return m;
  } catch (const MergeError& e) {
    std::cerr << "qspec report " << cmd << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

void print_summary(const MergeResult& m) {
  for (const auto& r : m.reports) {
    const auto& s = r["summary"];
    std::cout << "  " << r["backend"].value("name", "?") << ": " << s.value("total", 0) << " tests, "
              << s.value("unexpected", 0) << " unexpected; selection " << r["selection"].value("tests", 0)
              << " tests\n";
  }
}

int merge(const ReportCliOptions& o) {
  if (const auto problem = check_output_files({{"OUT", o.out}})) {  // before reading the inputs
    std::cerr << "qspec report merge: " << *problem << "\n";
    return kUsage;
  }
  // `qspec report merge shard-*.json` would make the first shard the output: refuse an output
  // that is also an input, and an output that exists but is not a report (a typo'd argument).
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& in : o.inputs)
    if (fs::weakly_canonical(in, ec) == fs::weakly_canonical(o.out, ec)) {
      std::cerr << "qspec report merge: the output " << o.out
                << " is also an input (usage: qspec report merge OUT.json IN.json...)\n";
      return kUsage;
    }
  if (fs::exists(o.out, ec)) {
    try {
      read_report_file(o.out);
    } catch (const MergeError& e) {
      std::cerr << "qspec report merge: the output " << o.out
                << " exists and is not a qspec report; not overwriting it (" << e.what() << ")\n";
      return kUsage;
    }
  }
  const auto m = load_and_merge("merge", o);
  if (!m) return kUsage;
  try {
    write_file_atomically(o.out, report_document(m->reports).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                          /*create_parent_directories=*/false);
  } catch (const std::exception& e) {
    std::cerr << "qspec report merge: cannot write " << o.out << ": " << e.what() << "\n";
    return kUsage;
  }
  std::cout << "qspec report merge: " << o.inputs.size() << " input" << (o.inputs.size() == 1 ? "" : "s") << " -> "
            << o.out << " (" << m->reports.size() << " backend" << (m->reports.size() == 1 ? "" : "s") << ")\n";
  print_summary(*m);
  return reports_exit_code(m->reports);
}

int html(const Context& ctx, const ReportCliOptions& o) {
  if (const auto problem = check_output_files({{"--output", o.html_out}})) {
    std::cerr << "qspec report html: " << *problem << "\n";
    return kUsage;
  }
  const auto m = load_and_merge("html", o);
  if (!m) return kUsage;
  HtmlOptions ho = html_options(ctx, o.spec_base);
  ho.title = o.title;
  ho.max_failures = o.max_failures;
  try {
    write_html_report(o.html_out, m->reports, ho);
  } catch (const std::exception& e) {
    std::cerr << "qspec report html: cannot write " << o.html_out << ": " << e.what() << "\n";
    return kUsage;
  }
  std::cout << "qspec report html: " << o.html_out << " (" << m->reports.size() << " backend"
            << (m->reports.size() == 1 ? "" : "s") << ")\n";
  print_summary(*m);
  return kOk;
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto* c = app.add_subcommand(
      "report", "Merge JSON reports (shards, several backends) and render them as HTML (docs/running.md)");
  c->require_subcommand(1);

  auto mo = std::make_shared<ReportCliOptions>();
  auto* m = c->add_subcommand("merge", "Merge the shards of a run, and the runs of several backends, into OUT.json");
  m->add_option("out", mo->out, "The merged report (one backend: a qspec-report/1; several: a qspec-report-set/1)")
      ->required();
  m->add_option("inputs", mo->inputs, "JSON reports (qspec run --report-json) or report sets")->required();
  m->add_flag("--allow-incomplete", mo->allow_incomplete,
              "Merge even if shards or tests are missing (warn instead of failing)");
  m->callback([&ctx, mo] { ctx.exit_code = merge(*mo); });

  auto ho = std::make_shared<ReportCliOptions>();
  auto* h = c->add_subcommand("html", "Render JSON reports (shards are merged first) as one self-contained HTML page");
  h->add_option("inputs", ho->inputs, "JSON reports or report sets")->required();
  h->add_option("-o,--output", ho->html_out, "The HTML file to write")->required();
  h->add_option("--title", ho->title, "Page title");
  h->add_option("--spec-base", ho->spec_base,
                "Link clauses to <URL>/spec/<family>.md#<heading> (default: file:// links into --root)");
  h->add_option("--max-failures", ho->max_failures,
                "Drill-downs per backend (default 300; further failing tests are counted)");
  h->add_flag("--allow-incomplete", ho->allow_incomplete, "Render even if shards or tests are missing");
  h->callback([&ctx, ho] { ctx.exit_code = html(ctx, *ho); });
}

}  // namespace qspec::cli
