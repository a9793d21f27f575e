// Rendering of the machines, conformance tables and deviation paragraphs (see markdown.h).
#include "markdown.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "qspec/harness/diagnostics.h"
#include "qspec/harness/vector_file.h"

namespace qspec::thirdparty_report {
namespace {

std::string n(std::int64_t v) { return v == 0 ? "" : std::to_string(v); }

// The ERROR column: errors, and the tests whose worker crashed or hung, named when there are any.
std::string error_cell(const Counts& c) {
  std::string s = n(c.error + c.crash + c.timeout);
  if (c.crash || c.timeout) {
    std::string parts;
    if (c.crash) parts += std::to_string(c.crash) + " CRASH";
    if (c.timeout) parts += (parts.empty() ? "" : ", ") + std::to_string(c.timeout) + " TIMEOUT";
    s += " (" + parts + ")";
  }
  return s;
}

// The totals line under a table of own conventions: tests, those run (every verdict but
// UNSUPPORTED), PASS, the known deviations (--expect) and the unexplained rest, which CI holds at 0;
// and, where the library runs engine operators (the qlinear.* ops), the share of their vectors it
// runs rather than declines (issue 16's operator coverage).
std::string native_totals(const std::vector<Row>& rows) {
  Counts all, ops;
  const auto add = [](Counts& c, const Counts& r) {
    c.pass += r.pass;
    c.fail += r.fail;
    c.error += r.error;
    c.unsupported += r.unsupported;
    c.crash += r.crash;
    c.timeout += r.timeout;
    c.expected += r.expected;
  };
  for (const auto& row : rows) {
    if (row.unclaimed == row.counts.total()) continue;  // as in the table: a pair it does not implement
    add(all, row.counts);
    if (row.op.rfind("qlinear.", 0) == 0) add(ops, row.counts);
  }
  const auto run = [](const Counts& c) { return c.total() - c.unsupported; };
  const std::int64_t bad = all.fail + all.error + all.crash + all.timeout;
  std::string s = "Totals: " + std::to_string(all.total()) + " tests, " + std::to_string(run(all)) + " run, " +
                  std::to_string(all.pass) + " PASS, " + std::to_string(all.expected) + " known deviations, " +
                  std::to_string(bad - all.expected) + " unexplained.";
  if (ops.total() > 0) {
    const std::int64_t per_mille = (run(ops) * 1000 + ops.total() / 2) / ops.total();
    s += " Engine operators (qlinear.*): " + std::to_string(run(ops)) + " of " + std::to_string(ops.total()) +
         " vectors run (" + std::to_string(per_mille / 10) + "." + std::to_string(per_mille % 10) + " %).";
  }
  return s + "\n";
}

// "`file` tcId N: attributes ...; inputs ...": the representative vector, read from the vector
// file itself so the paragraph is self-contained.
std::string describe_vector(const std::string& vectors_dir, const Outcome& o) {
  std::ostringstream s;
  s << "`" << o.file << "` tcId " << o.tc_id;
  try {
    const auto f = harness::load_vector_file(std::filesystem::path(vectors_dir) / o.file, o.file);
    for (const auto& t : f.tests) {
      if (t.tc_id != o.tc_id) continue;
      s << ": attributes `" << t.attributes.dump() << "`";
      for (const auto& in : t.inputs) s << "; input `" << harness::format_tensor(in, 8) << "`";
      if (!t.comment.empty()) s << " (" << t.comment << ")";
      break;
    }
  } catch (const std::exception& e) {
    s << " (vector file not readable: " << e.what() << ")";
  }
  return s.str();
}

std::string outcome_text(const std::string& library, const Outcome& o) {
  std::ostringstream s;
  if (!o.diff_expected.empty())
    s << "Expected `" << o.diff_output << o.diff_index << " = " << o.diff_expected << "`, " << library << " gives `"
      << o.diff_actual << "` (" << o.differing << " of " << o.total << " elements differ).";
  else
    s << library << ": " << o.reason << ".";
  return s.str();
}

std::string mode_title(const std::string& mode) { return mode == "all" ? "every convention" : "its own conventions"; }

std::string top_signatures(const std::map<std::string, std::int64_t>& sigs, std::size_t limit, bool ellipsis) {
  std::vector<std::pair<std::int64_t, std::string>> v;
  for (const auto& [s, cnt] : sigs) v.push_back({-cnt, s});
  std::sort(v.begin(), v.end());
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < limit; ++i)
    out += (i ? "; " : "") + v[i].second + " (" + std::to_string(-v[i].first) + ")";
  if (ellipsis && v.size() > limit) out += "; ...";
  return out;
}

// Page order: the libraries in the order the page has always had, then any other run label.
int label_rank(const std::string& label) {
  static const std::vector<std::string> order = {"gemmlowp",         "xnnpack",     "onednn",         "libtorch",
                                                 "libtorch-qnnpack", "onnxruntime", "onnxruntime-fed"};
  const auto it = std::find(order.begin(), order.end(), label);
  return it == order.end() ? static_cast<int>(order.size()) : static_cast<int>(it - order.begin());
}

// Instruction sets from the most capable down, by the feature their name carries.
int isa_rank(const std::string& isa) {
  static const std::vector<std::string> order = {"amx", "bf16", "vnni", "avx512", "avx2", "avx", "sse"};
  for (std::size_t i = 0; i < order.size(); ++i)
    if (isa.find(order[i]) != std::string::npos) return static_cast<int>(i);
  return static_cast<int>(order.size());
}

bool run_order(const RunSummary* a, const RunSummary* b) {
  return std::make_tuple(label_rank(a->label), a->label, isa_rank(a->isa), a->isa) <
         std::make_tuple(label_rank(b->label), b->label, isa_rank(b->isa), b->isa);
}

std::string isa_text(const std::string& isa) { return isa.empty() ? "fixed at build time" : "`" + isa + "`"; }

std::string isa_list(const std::vector<const RunSummary*>& runs) {
  std::string s;
  for (const auto* r : runs) s += (s.empty() ? "" : ", ") + isa_text(r->isa);
  return s;
}

// The runs of one label and mode, grouped by identical tables (rows and UNSUPPORTED reasons):
// a library whose results do not depend on the ISA gets one table naming every ISA measured.
std::vector<std::vector<const RunSummary*>> table_groups(const std::vector<const RunSummary*>& runs) {
  std::vector<std::vector<const RunSummary*>> groups;
  for (const auto* r : runs) {
    bool placed = false;
    for (auto& g : groups)
      if (g.front()->rows == r->rows && g.front()->unsupported == r->unsupported) {
        g.push_back(r);
        placed = true;
        break;
      }
    if (!placed) groups.push_back({r});
  }
  return groups;
}

void render_machines(std::ostringstream& md, const std::vector<const RunSummary*>& runs) {
  md << "## Machines and instruction sets\n\n"
     << "Libraries pick their kernels by the CPU they run on, and their results can depend on it: oneDNN\n"
     << "dispatches by its effective ISA (`ONEDNN_MAX_CPU_ISA` lowers it), XNNPACK by the CPU's features,\n"
     << "libtorch by ATen's CPU capability (`ATEN_CPU_CAPABILITY` lowers it) and, for its onednn engine,\n"
     << "oneDNN's. So every run on this page is a measurement recorded with the machine it ran on and the\n"
     << "instruction set the library dispatched to (`isa`, which the adapter names in its version string),\n"
     << "kept as data in `tools/thirdparty_report/measurements/`; the page is rendered from that data\n"
     << "alone. CI measures again on its own host (CTest `thirdparty_measurements_match.<run>`; each library's\n"
     << "own conventions at every setting, the every-convention diagnosis at its first setting): a run at\n"
     << "an ISA recorded here must reproduce the recorded results exactly; a run at an ISA not recorded\n"
     << "here is reported as unrecorded and must contain no unclassified deviation. A deviation that occurs on some\n"
     << "ISAs only is listed with those ISAs named; the `--expect` files mark its entries `isa=`.\n\n"
     << "| run | isa | version (as the adapter reports it) | measured on | setting |\n|---|---|---|---|---|\n";
  std::set<std::string> seen;
  std::map<std::string, std::vector<std::string>> machines;  // cpu -> flags
  for (const auto* r : runs) {
    machines[r->machine.cpu] = r->machine.flags;
    if (!seen.insert(r->label + "|" + r->isa).second) continue;
    md << "| " << r->label << " | " << isa_text(r->isa) << " | " << r->version << " | " << r->machine.cpu << " | "
       << (r->machine.setting.empty() ? "" : "`" + r->machine.setting + "`") << " |\n";
  }
  md << "\n";
  for (const auto& [cpu, flags] : machines) {
    md << cpu << ", ISA flags that matter here:";
    for (const auto& f : flags) md << " `" << f << "`";
    md << ".\n";
  }
  md << "\nlibtorch runs twice: `libtorch` with its default quantized engine (onednn in Debian's build, which\n"
     << "has no fbgemm), as a user gets it, and `libtorch-qnnpack` with `QSPEC_LIBTORCH_QENGINE=qnnpack`.\n"
     << "The lower ISAs of oneDNN and libtorch are measured on the same machine by lowering the libraries'\n"
     << "own dispatch (the setting column). ONNX Runtime (npm `onnxruntime-node`, run by the node client\n"
     << "`backends/onnxruntime/client.js` through the exec protocol) has no such switch: MLAS picks its kernels\n"
     << "from CPUID, and its `isa` is the one MLAS selects on the CPU measured (`backends/onnxruntime/isa.js`);\n"
     << "its lower ISAs are measured by running the client under `qemu-x86_64 -cpu Haswell` (AVX2, no\n"
     << "AVX-512) and `-cpu Nehalem` (SSE4.2), whose CPUID makes MLAS dispatch to those kernels\n"
     << "(`backends/onnxruntime/qemu_cpu.sh`, the setting `QSPEC_ORT_QEMU_CPU`).\n"
     << "It runs twice: `onnxruntime` with constant weights, which ONNX Runtime prepacks (and convolves with\n"
     << "MLAS's symmetric int8 kernels where they apply), as a deployed model has them, and `onnxruntime-fed`\n"
     << "with the weights fed at each run (`QSPEC_ORT_WEIGHTS=fed`), the unpacked path.\n"
     << "A machine with other instruction sets (AVX-VNNI, AMX, no AVX-512)\n"
     << "adds its measurements with `tools/thirdparty_report/generate.sh`, which replaces only the runs it\n"
     << "measured.\n\n";
}

void render_tables(std::ostringstream& md, const std::vector<const RunSummary*>& runs, const std::string& mode) {
  std::vector<const RunSummary*> of_mode;
  for (const auto* r : runs)
    if (r->mode == mode) of_mode.push_back(r);
  if (of_mode.empty()) return;
  md << "## Each library on " << mode_title(mode) << "\n\n";
  if (mode == "native")
    md << "Known deviations are the FAIL outcomes the library's `--expect` file lists (each one is a deviation class\n"
       << "below). UNSUPPORTED means the library cannot express the op, convention or parameter set (the\n"
       << "adapter says why; the reasons are listed after the table).\n\n";
  else
    md << "\"Results match\" names the conventions that reproduce the library's answer on its failing tests,\n"
       << "most frequent first (the count is the number of failing tests with that signature).\n\n";
  std::vector<std::string> labels;
  for (const auto* r : of_mode)
    if (std::find(labels.begin(), labels.end(), r->label) == labels.end()) labels.push_back(r->label);
  for (const auto& label : labels) {
    std::vector<const RunSummary*> of_label;
    for (const auto* r : of_mode)
      if (r->label == label) of_label.push_back(r);
    const auto groups = table_groups(of_label);
    for (const auto& g : groups) {
      md << "### " << label;
      if (of_label.size() > 1 || !g.front()->isa.empty())
        md << " (isa " << isa_list(g)
           << (of_label.size() > 1 && groups.size() == 1 ? ": the same on every ISA measured" : "") << ")";
      md << "\n\n";
      if (mode == "native")
        md << "| op | convention | tests | PASS | FAIL | UNSUPPORTED | ERROR | known deviations "
              "|\n|---|---|---|---|---|---|---|---|\n";
      else
        md << "| op | convention | tests | PASS | FAIL | UNSUPPORTED | ERROR | results match "
              "|\n|---|---|---|---|---|---|---|---|\n";
      for (const auto& row : g.front()->rows) {
        const Counts& c = row.counts;
        if (row.unclaimed == c.total()) continue;  // an op the library does not implement at all
        md << "| " << row.op << " | " << row.convention << " | " << c.total() << " | " << n(c.pass) << " | "
           << n(c.fail) << " | " << n(c.unsupported) << " | " << error_cell(c) << " | "
           << (mode == "native" ? n(c.expected) : top_signatures(row.signatures, 3, false)) << " |\n";
      }
      if (mode == "native") md << "\n" << native_totals(g.front()->rows);
      if (!g.front()->unsupported.empty()) {
        md << "\nUNSUPPORTED, by reason (numbers shown as N):\n\n";
        for (const auto& [reason, cnt] : g.front()->unsupported) md << "- " << cnt << " x " << reason << "\n";
      }
      md << "\n";
    }
  }
}

// One row of a deviation paragraph's table: a class of one (label, mode) at the ISAs where it
// is the same; `absent` names the measured ISAs of that run where the class does not occur.
struct ClassRow {
  const RunSummary* run;
  const ClassSummary* cls;
  const Annotation* annotation;  // nullptr: unclassified
  std::vector<const RunSummary*> isas;
  std::vector<const RunSummary*> absent;
};

std::string isa_cell(const ClassRow& row, std::size_t measured) {
  if (measured <= 1) return row.run->isa.empty() ? "fixed" : "`" + row.run->isa + "`";
  std::string s;
  for (const auto* r : row.isas) s += (s.empty() ? "" : ", ") + ("`" + r->isa + "`");
  if (row.absent.empty() && row.isas.size() == measured) return "every ISA measured";
  if (!row.absent.empty()) {
    s += " (not on";
    for (std::size_t i = 0; i < row.absent.size(); ++i) s += (i ? ", `" : " `") + row.absent[i]->isa + "`";
    s += ")";
  }
  return s;
}

void render_classes(std::ostringstream& md, const RenderInput& in, const std::vector<const RunSummary*>& runs) {
  md << "## Deviation classes\n\n"
     << "A deviation class is every non-passing, non-UNSUPPORTED outcome of one (library, run, op, vector\n"
     << "convention, kind), kind being a wrong output (`differs`), a rejected valid input, an accepted invalid\n"
     << "input, or an error. Each paragraph below is an engineer's finding recorded in\n"
     << "`tools/thirdparty_report/annotations.json` (matched to classes by pattern); the classes it covers,\n"
     << "their counts, the ISAs they occur on, what their outputs match and the smallest vector of each are\n"
     << "generated.\n\n";
  // key (label|mode|op|convention|kind) -> rows, in page order of the runs.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<ClassRow>> rows;
  std::map<std::string, std::vector<const RunSummary*>> runs_of;  // label|mode -> measured runs
  for (const auto* r : runs) runs_of[r->label + "|" + r->mode].push_back(r);
  for (const auto* r : runs)
    for (const auto& c : r->classes) {
      const std::string key = r->label + "|" + r->mode + "|" + c.op + "|" + c.convention + "|" + c.kind;
      if (!rows.count(key)) keys.push_back(key);
      auto& list = rows[key];
      const Annotation* a = find_annotation(in.annotations, key, r->isa);
      bool placed = false;
      for (auto& row : list)
        if (*row.cls == c && row.annotation == a) {
          row.isas.push_back(r);
          placed = true;
          break;
        }
      if (!placed) list.push_back({r, &c, a, {r}, {}});
    }
  for (auto& [key, list] : rows) {
    const auto& measured = runs_of[list.front().run->label + "|" + list.front().run->mode];
    std::set<const RunSummary*> present;
    for (const auto& row : list) present.insert(row.isas.begin(), row.isas.end());
    for (auto& row : list)
      for (const auto* r : measured)
        if (!present.count(r)) row.absent.push_back(r);
  }
  if (keys.empty()) md << "None: every test passed or was UNSUPPORTED.\n\n";
  // Annotation -> its rows, in page order.
  std::vector<std::vector<const ClassRow*>> groups(in.annotations.size() + 1);
  for (const auto& key : keys)
    for (const auto& row : rows[key])
      groups[row.annotation ? static_cast<std::size_t>(row.annotation - in.annotations.data()) : in.annotations.size()]
          .push_back(&row);
  auto size_of = [](const Outcome& o) { return o.total > 0 ? o.total : INT64_MAX; };
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) continue;
    const Annotation* a = g < in.annotations.size() ? &in.annotations[g] : nullptr;
    md << "### " << (a ? a->title : std::string("UNCLASSIFIED: not yet investigated")) << "\n\n";
    md << "**" << (a ? a->kind : std::string("unclassified")) << ".** "
       << (a ? a->text : std::string("No annotation covers these classes: investigate them and record the finding."))
       << "\n\n";
    const ClassRow* best = nullptr;
    for (const auto* row : groups[g])
      if (!best || size_of(row->cls->minimal) < size_of(best->cls->minimal)) best = row;
    if (best) {
      md << "Smallest vector (" << best->run->label << (best->run->isa.empty() ? "" : " at `" + best->run->isa + "`")
         << ", " << mode_title(best->run->mode) << "): " << describe_vector(in.vectors_dir, best->cls->minimal) << ". "
         << outcome_text(best->run->label, best->cls->minimal);
      if (!best->cls->minimal.matching.empty() || !best->cls->minimal.matching_diagnostic.empty()) {
        md << " Conventions reproducing it:";
        for (const auto& m : best->cls->minimal.matching) md << " `" << m << "`";
        for (const auto& m : best->cls->minimal.matching_diagnostic) md << " `" << m << "` (diagnostic)";
        md << ".";
      }
      md << "\n\n";
    }
    md << "| library | run | isa | op | vector convention | kind | tests | results match | smallest vector |\n"
       << "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto* row : groups[g]) {
      const ClassSummary& c = *row->cls;
      const std::size_t measured = runs_of[row->run->label + "|" + row->run->mode].size();
      md << "| " << row->run->label << " | " << (row->run->mode == "all" ? "every" : "own") << " | "
         << isa_cell(*row, measured) << " | " << c.op << " | " << c.convention << " | " << c.kind << " | " << c.count
         << " of " << c.of_tests << " | "
         << (c.kind == "differs" ? top_signatures(c.signatures, 2, true) : std::string("")) << " | ";
      md << "`" << c.minimal.file << "#" << c.minimal.tc_id << "`";
      if (!c.minimal.diff_expected.empty())
        md << ": expected " << c.minimal.diff_expected << ", got " << c.minimal.diff_actual;
      md << " |\n";
    }
    md << "\n";
  }
  if (!groups.back().empty()) md << "**" << groups.back().size() << " deviation classes are UNCLASSIFIED.**\n";
}

}  // namespace

std::string render_markdown(const RenderInput& in) {
  std::vector<const RunSummary*> runs;
  for (const auto& r : in.runs) runs.push_back(&r);
  std::stable_sort(runs.begin(), runs.end(), run_order);
  std::ostringstream md;
  md << "# Third-party libraries under qspec\n\n"
     << "<!-- Generated by tools/thirdparty_report from the measurements in tools/thirdparty_report/measurements/;\n"
     << "     do not edit by hand. Measure on this machine and regenerate with: " << in.command << " -->\n\n"
     << "qspec's main job is holding a real engine to the specification. This page is that job done on the\n"
     << "quantized-arithmetic libraries Debian 12 packages, each driven through an adapter plugin\n"
     << "(`backends/<library>/`, the backend C ABI) exactly as an out-of-tree user would write one. Every\n"
     << "number below comes from a `qspec run` of the shipped vectors; every deviation class is shown with the\n"
     << "smallest vector that exhibits it and is classified as the library's documented behaviour, a library\n"
     << "bug, a qspec bug, or an artefact of translating parameters between conventions.\n\n"
     << "ONNX Runtime, which ships no C header, is driven the other way a user can: a Node.js program\n"
     << "speaking qspec's exec protocol (`backends/onnxruntime/client.js`, docs/exec-protocol.md) builds each\n"
     << "test's one-operator ONNX model, runs it with `onnxruntime-node` (pinned by\n"
     << "`backends/onnxruntime/package-lock.json`, installed by `backends/onnxruntime/install.sh`) and answers\n"
     << "the outputs; its runs are\n\n"
     << "```sh\n"
     << "qspec run --backend backends/onnxruntime/onnxruntime.json --expect backends/onnxruntime/expect.txt\n"
     << "qspec run --backend backends/onnxruntime/onnxruntime.json --all-conventions\n"
     << "```\n\n"
     << "Two runs per library:\n"
     << "- **own conventions**: the adapter claims only what the library implements (`qspec backends`), and\n"
     << "  the run uses the library's `--expect` file (`backends/<library>/expect.txt`); CI runs it and it must\n"
     << "  be green.\n"
     << "- **every convention**: with `qspec run --all-conventions` (a run option of the backend ABI, given\n"
     << "  to the adapter when it is created) the adapter accepts every convention of\n"
     << "  the ops it implements, translates the parameters as a user porting a model would (a Q31 multiplier\n"
     << "  and shift become the nearest float32 scale; a float32 scale becomes TFLite's QuantizeMultiplier;\n"
     << "  TVM's input/output scale pair becomes their float32 quotient after subtracting the input zero\n"
     << "  point) and computes with the library's own arithmetic. The failures say which convention the\n"
     << "  library's results actually match (the harness evaluates every registered convention on each\n"
     << "  failing test).\n\n";
  render_machines(md, runs);
  render_tables(md, runs, "native");
  render_tables(md, runs, "all");
  render_classes(md, in, runs);
  return md.str();
}

}  // namespace qspec::thirdparty_report
