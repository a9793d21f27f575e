// `qspec eval FILE --backend NAME`: print what a backend computes for each test next to the expected value.
//
// A built-in or plugin backend is called in this process (a developer's tool); an exec backend
// is a program of its own, driven through the worker pool as in `qspec run`.
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "qspec/harness/backend_executor.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/backend_worker.h"
#include "qspec/harness/exec_backend.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/text_safety.h"
#include "qspec/harness/vector_file.h"

namespace qspec::cli {
namespace {
using namespace qspec::harness;

struct EvalOptions {
  std::string file;
  std::string backend;
  std::vector<std::string> filters;
  std::size_t max_elements = 32;
  bool all_conventions = false;
};

std::string status_text(qspec_status s) {
  switch (s) {
    case QSPEC_STATUS_OK: return "OK";
    case QSPEC_STATUS_REJECTED: return "REJECTED";
    case QSPEC_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case QSPEC_STATUS_ERROR: return "ERROR";
  }
  return "?";
}

// The backend: in this process, or (an exec backend) in its worker.
struct EvalBackend {
  std::unique_ptr<Backend> in_process;
  std::unique_ptr<BackendExecutor> executor;
};

EvalBackend start_backend(const EvalOptions& o) {
  EvalBackend b;
  BackendOptions options;
  options.all_conventions = o.all_conventions;
  if (is_exec_backend(o.backend)) {
    WorkerOptions wo;
    wo.backend = options;
    if (const auto t = exec_command(o.backend).timeout_seconds) wo.timeout_seconds = *t;
    b.executor = WorkerExecutor::start(o.backend, wo);
  } else {
    b.in_process = Backend::load(o.backend, options);
    b.executor = std::make_unique<InProcessExecutor>(*b.in_process);
  }
  return b;
}

int eval(const EvalOptions& o) {
  EvalBackend b;
  try {
    b = start_backend(o);
  } catch (const BackendLoadError& e) {
    std::cerr << "qspec eval: " << e.what() << "\n";
    return kUsage;
  }
  BackendExecutor& backend = *b.executor;
  VectorFile f;
  try {
    const auto srcs = find_vector_files({o.file});
    if (srcs.size() != 1) {
      std::cerr << "qspec eval: give exactly one vector file\n";
      return kUsage;
    }
    f = load_vector_source(srcs[0], nullptr);
  } catch (const VectorFileError& e) {
    std::cerr << "qspec eval: " << e.what() << "\n";
    return kUsage;
  }
  // Comments, names and backend messages are untrusted: printed through terminal_safe.
  std::ostringstream out;
  const auto flush = [&out] {
    std::cout << terminal_safe(out.str()) << std::flush;
    out.str("");
  };
  out << f.display_name << ": op " << f.op << ", convention " << f.convention << ", backend " << backend.name() << "\n";
  backend.begin_file(f);
  const bool supported = backend.supports(f);
  std::size_t differ = 0, shown = 0;
  for (std::size_t i = 0; i < f.tests.size(); ++i) {
    const VectorTest& t = f.tests[i];
    if (!test_selected(o.filters, f.display_name, t.tc_id)) continue;
    flush();
    ++shown;
    out << "tcId " << t.tc_id << " [" << (t.invalid ? "invalid" : "valid") << "] " << t.comment << "\n";
    out << "  attributes " << t.attributes.dump() << "\n";
    for (const auto& in : t.inputs) out << "  input    " << format_tensor(in, o.max_elements) << "\n";
    if (!supported) {
      out << "  backend: does not implement " << f.op << " / " << f.convention << "\n";
      continue;
    }
    const BackendCall call = backend.execute(f, i);
    if (call.abandoned) break;
    if (call.fault) {  // the worker crashed, hung or misused the protocol
      ++differ;
      out << "  backend  " << verdict_name(*call.fault) << ": " << call.fault_reason << "   <-- differs\n"
          << call.fault_detail;
      continue;
    }
    const BackendResult& r = call.result;
    if (t.invalid) {
      const bool ok = r.status == QSPEC_STATUS_REJECTED;
      differ += ok ? 0 : 1;
      out << "  expected REJECTED, backend " << status_text(r.status) << (r.message.empty() ? "" : ": " + r.message)
                << (ok ? "" : "   <-- differs") << "\n";
      continue;
    }
    for (const auto& e : t.expected) out << "  expected " << format_tensor(e, o.max_elements) << "\n";
    if (r.status != QSPEC_STATUS_OK) {
      ++differ;
      out << "  backend  " << status_text(r.status) << (r.message.empty() ? "" : ": " + r.message) << "   <-- differs\n";
      continue;
    }
    const Comparison c = compare_outputs(t.expected, r.outputs);
    for (const auto& a : r.outputs) out << "  actual   " << format_tensor(a, o.max_elements) << "\n";
    if (!c.equal) {
      ++differ;
      out << "  <-- differs: " << (c.structural.empty() ? std::to_string(c.differing) + " of " + std::to_string(c.total) + " elements" : c.structural)
                << "\n";
    }
  }
  backend.end_file();
  flush();
  out << shown << " tests shown, " << differ << " differ from the expected value\n";
  flush();
  return differ == 0 ? kOk : kFail;
}

}  // namespace

void add_eval_command(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EvalOptions>();
  auto* c = app.add_subcommand("eval", "Print what a backend computes for each test of a vector file next to the expected value");
  c->add_option("file", o->file, "Vector file")->required();
  c->add_option("--backend", o->backend,
                "Built-in backend name, plugin .so path, exec:'COMMAND ARGS' or an exec manifest FILE.json")
      ->required();
  c->add_option("--filter", o->filters, "Only tests matching this glob (FILE#tcId form, as for qspec run)");
  c->add_option("--max-elements", o->max_elements, "Abbreviate tensors longer than this (default 32)");
  c->add_flag("--all-conventions", o->all_conventions,
              "Ask the backend for its all-conventions mode, as `qspec run --all-conventions` does");
  c->callback([&ctx, o] { ctx.exit_code = eval(*o); });
}

}  // namespace qspec::cli
