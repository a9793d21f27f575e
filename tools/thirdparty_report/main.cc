// qspec_thirdparty_report: the measurements behind docs/third-party.md, the page, and its CI check.
//
//   qspec_thirdparty_report record --measurements DIR --run LABEL:MODE:REPORT[:SETTING]...
//       reduce `qspec run --report-json` files to measurements (with this machine and the ISA the
//       library dispatched to) and store them in DIR, replacing the same (label, mode, ISA)
//   qspec_thirdparty_report render --measurements DIR --annotations FILE --vectors DIR --out FILE
//       [--command TEXT] [--fail-on-unclassified] [--write-expect LIB=PATH...]
//       docs/third-party.md from the recorded measurements only (the same on every machine); with
//       --write-expect also LIB's --expect file from its native measurements
//   qspec_thirdparty_report check --measurements DIR --annotations FILE --run LABEL:MODE:REPORT[:SETTING]...
//       this machine's runs against the record: a run at a recorded ISA must reproduce it
//       exactly; a run at an unrecorded ISA is reported and must hold no unclassified deviation
// MODE is native (the library's own conventions, with its --expect file) or all (--all-conventions).
// Exit 0 on success; 1 if check finds a difference or an unclassified deviation (or render with
// --fail-on-unclassified finds one); 2 on a usage or input error.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "expect_file.h"
#include "markdown.h"
#include "qspec/core/catalogue.h"

namespace {
using namespace qspec::thirdparty_report;

int usage(const std::string& why) {
  std::cerr << "qspec_thirdparty_report: " << why << "\n"
            << "usage: qspec_thirdparty_report record --measurements DIR --run LABEL:MODE:REPORT[:SETTING]...\n"
            << "       qspec_thirdparty_report render --measurements DIR --annotations FILE --vectors DIR --out FILE\n"
            << "                                      [--command TEXT] [--fail-on-unclassified] [--write-expect "
               "LIB=PATH]...\n"
            << "       qspec_thirdparty_report check --measurements DIR --annotations FILE --run "
               "LABEL:MODE:REPORT[:SETTING]...\n";
  return 2;
}

// "LABEL:MODE:REPORT[:SETTING]" -> the run, summarized on this machine.
RunSummary measure(const std::string& spec) {
  const auto c1 = spec.find(':');
  const auto c2 = c1 == std::string::npos ? std::string::npos : spec.find(':', c1 + 1);
  if (c2 == std::string::npos) throw std::invalid_argument("bad --run " + spec + " (LABEL:MODE:REPORT[:SETTING])");
  const auto c3 = spec.find(':', c2 + 1);
  const std::string label = spec.substr(0, c1), mode = spec.substr(c1 + 1, c2 - c1 - 1);
  const std::string report = spec.substr(c2 + 1, c3 == std::string::npos ? std::string::npos : c3 - c2 - 1);
  const std::string setting = c3 == std::string::npos ? "" : spec.substr(c3 + 1);
  if (mode != "native" && mode != "all") throw std::invalid_argument("--run MODE must be native or all: " + spec);
  return summarize(load_run(label, mode, report), this_machine(setting));
}

int unclassified_count(const std::vector<RunSummary>& runs, const std::vector<Annotation>& annotations,
                       const std::string& prefix) {
  int n = 0;
  for (const auto& c : measured_classes(runs))
    if (!find_annotation(annotations, c.key(), c.run->isa)) {
      ++n;
      std::cerr << prefix << "unclassified deviation class: " << c.key() << " (isa "
                << (c.run->isa.empty() ? "fixed" : c.run->isa) << ", " << c.cls->count << " tests, e.g. "
                << c.cls->minimal.file << "#" << c.cls->minimal.tc_id << ")\n";
    }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("a command is required: record, render or check");
  const std::string command = argv[1];
  if (command != "record" && command != "render" && command != "check")
    return usage("unknown command '" + command + "'");
  std::string out, annotations_path, measurements;
  RenderInput in;
  in.command = "tools/thirdparty_report/generate.sh";
  bool fail_on_unclassified = false;
  std::vector<std::string> run_specs;
  std::vector<std::pair<std::string, std::string>> expect_out;  // library -> path
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc && a != "--fail-on-unclassified") return usage(a + " needs a value");
    if (a == "--out")
      out = argv[++i];
    else if (a == "--vectors")
      in.vectors_dir = argv[++i];
    else if (a == "--annotations")
      annotations_path = argv[++i];
    else if (a == "--measurements")
      measurements = argv[++i];
    else if (a == "--run")
      run_specs.push_back(argv[++i]);
    else if (a == "--command")
      in.command = argv[++i];
    else if (a == "--fail-on-unclassified")
      fail_on_unclassified = true;
    else if (a == "--write-expect") {
      const std::string v = argv[++i];
      const auto eq = v.find('=');
      if (eq == std::string::npos) return usage("--write-expect takes LIB=PATH");
      expect_out.push_back({v.substr(0, eq), v.substr(eq + 1)});
    } else {
      return usage("unknown argument " + a);
    }
  }
  if (measurements.empty()) return usage("--measurements is required");
  try {
    if (command == "record") {
      if (run_specs.empty()) return usage("record needs --run");
      for (const auto& spec : run_specs) {
        const RunSummary s = measure(spec);
        save_measurement(measurements, s);
        std::cout << "recorded " << measurements << "/" << s.file_name() << "\n";
      }
      return 0;
    }
    if (annotations_path.empty()) return usage("--annotations is required");
    in.annotations = load_annotations(annotations_path);
    if (command == "check") {
      if (run_specs.empty()) return usage("check needs --run");
      const auto recorded = load_measurements(measurements);
      std::vector<RunSummary> here;
      for (const auto& spec : run_specs) here.push_back(measure(spec));
      int problems = 0;
      for (const auto& h : here) {
        const RunSummary* r = nullptr;
        for (const auto& x : recorded)
          if (x.key() == h.key()) r = &x;
        if (!r) {
          std::cout << "UNRECORDED " << h.key() << ": this machine (" << h.machine.cpu << ") dispatches " << h.label
                    << " to isa " << (h.isa.empty() ? "fixed" : h.isa)
                    << ", which no measurement records; its deviation classes are checked"
                    << " for a classification only (record it with tools/thirdparty_report/generate.sh)\n";
          problems += unclassified_count({h}, in.annotations, "  ");
        } else if (h.same_results(*r)) {
          std::cout << "SAME " << h.key() << ": reproduces " << measurements << "/" << r->file_name()
                    << " (recorded on " << r->machine.cpu << ")\n";
        } else {
          ++problems;
          std::cout << "DIFFERENT " << h.key() << ": differs from " << measurements << "/" << r->file_name()
                    << " (recorded on " << r->machine.cpu << "; here " << h.machine.cpu << "):\n"
                    << h.difference(*r);
        }
      }
      std::cout << (problems ? "FAILED: " + std::to_string(problems) + " difference(s) or unclassified class(es)\n"
                             : "OK: every run at a recorded ISA reproduces it; no unclassified deviation\n");
      return problems ? 1 : 0;
    }
    // render
    if (out.empty()) return usage("render needs --out");
    in.runs = load_measurements(measurements);
    // The page's rows are the catalogue's pairs the libraries claim: a recorded row of a pair the
    // catalogue no longer has (renamed or removed) is a stale measurement, not a row to publish.
    for (const auto& r : in.runs)
      for (const auto& row : r.claimed_rows())
        if (!qspec::catalogue::get().find(row.op, row.convention))
          throw std::runtime_error(measurements + "/" + r.file_name() + ": row " + row.op + " / " + row.convention +
                                   " names a pair the op catalogue (spec/catalogue/) lacks; measure again");
  } catch (const std::exception& e) {
    std::cerr << "qspec_thirdparty_report: " << e.what() << "\n";
    return 2;
  }
  const std::string md = render_markdown(in);
  std::ofstream f(out + ".tmp");
  f << md;
  f.close();
  if (!f || std::rename((out + ".tmp").c_str(), out.c_str()) != 0) {
    std::cerr << "qspec_thirdparty_report: cannot write " << out << "\n";
    return 2;
  }
  for (const auto& [lib, path] : expect_out) {
    std::string why;
    if (!write_expect_file(in, lib, path, why)) {
      std::cerr << "qspec_thirdparty_report: " << why << "\n";
      return 2;
    }
    std::cout << "wrote " << path << "\n";
  }
  const int unclassified = unclassified_count(in.runs, in.annotations, "");
  for (const auto& a : in.annotations)
    if (a.uses == 0) std::cerr << "note: annotation '" << a.pattern << "' matched no deviation class\n";
  std::cout << "wrote " << out << " (" << in.runs.size() << " measurements, " << unclassified
            << " unclassified classes)\n";
  return fail_on_unclassified && unclassified ? 1 : 0;
}
