// `qspec backends`: list built-in backends (and any plugins or exec backends given) with version and capabilities.
//
// A plugin is loaded in this process and describes itself through capabilities_json; an exec
// backend (exec:'COMMAND', or a manifest) is started and declares its claims in its handshake.
//
// A capability whose (op, convention) is not a pair of the op catalogue (spec/catalogue) is marked
// and makes the command exit 1: a backend that claims a pair no vector can test would report
// nothing about it (CTest catalogue_backend_claims runs this over every built-in backend).
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "qspec/builtin_backends.h"
#include "qspec/core/catalogue.h"
#include "qspec/harness/backend_loader.h"
#include "qspec/harness/backend_worker.h"
#include "qspec/harness/exec_backend.h"
#include "qspec/harness/text_safety.h"

namespace qspec::cli {
namespace {
using namespace qspec::harness;

struct BackendsOptions {
  std::vector<std::string> plugins;  // described after the built-ins
  std::vector<std::string> named;    // --backend: only these are described (as `qspec run --backend` names one)
  bool json = false;
  bool verbose = false;
  bool all_conventions = false;
};

// What `qspec backends` shows of one backend.
struct Described {
  std::string name, version, source;
  std::vector<Capability> caps;
  nlohmann::ordered_json caps_json;  // as the backend gave them
};

// Loads `spec` and reads its capabilities; throws BackendLoadError.
Described describe(const std::string& spec, const BackendOptions& options) {
  Described d;
  if (is_exec_backend(spec)) {
    WorkerOptions wo;
    wo.backend = options;
    if (const auto t = exec_command(spec).timeout_seconds) wo.timeout_seconds = *t;
    const auto w = WorkerExecutor::start(spec, wo);
    d = {w->name(), w->version(), w->source(), *w->declared_claims(), nlohmann::ordered_json::array()};
    for (const auto& c : d.caps) d.caps_json.push_back({{"op", c.op}, {"convention", c.convention}, {"note", c.note}});
    return d;
  }
  const auto b = Backend::load(spec, options);
  d = {b->name(), b->version(), b->source(), b->capabilities(), {}};
  d.caps_json = nlohmann::ordered_json::parse(b->capabilities_json());
  return d;
}

int list_backends(const BackendsOptions& o) {
  std::vector<std::string> specs = o.named.empty() ? builtin_backend_names() : o.named;
  specs.insert(specs.end(), o.plugins.begin(), o.plugins.end());
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  std::ostringstream out;  // a plugin's names and texts are untrusted: printed through terminal_safe
  int rc = kOk;
  BackendOptions options;
  options.all_conventions = o.all_conventions;
  for (const auto& spec : specs) {
    const BuiltinBackend* builtin =
        is_backend_path(spec) || is_exec_backend(spec) ? nullptr : find_builtin_backend(spec);
    if (o.all_conventions && o.named.empty() && builtin && !builtin->create2) {  // the user did not name it
      out << spec << "\t(takes no run options: cannot be asked for all conventions)\n";
      continue;
    }
    Described b;
    try {
      b = describe(spec, options);
    } catch (const BackendLoadError& e) {
      std::cerr << "qspec backends: " << e.what() << "\n";
      rc = kUsage;
      continue;
    }
    const std::vector<Capability>& caps = b.caps;
    auto catalogued = [](const Capability& c) { return catalogue::get().find(c.op, c.convention) != nullptr; };
    for (const auto& c : caps)
      if (!catalogued(c)) {
        std::cerr << "qspec backends: " << b.name << " claims " << c.op << " / " << c.convention
                  << ", which is not a pair of the op catalogue (spec/catalogue)\n";
        rc = rc == kOk ? kFail : rc;
      }
    if (o.json) {
      all.push_back({{"name", b.name}, {"version", b.version}, {"source", b.source}, {"capabilities", b.caps_json}});
      continue;
    }
    std::size_t normative = 0;
    for (const auto& c : caps) normative += c.diagnostic_only ? 0 : 1;
    out << b.name << "\t" << b.version << "\t" << b.source << "\t" << normative << " op conventions"
        << (caps.size() != normative ? " (+" + std::to_string(caps.size() - normative) + " diagnostic-only)" : "")
        << "\n";
    for (const auto& c : caps) {
      if (c.diagnostic_only && !o.verbose) continue;
      out << "    " << c.op << " / " << (c.convention.empty() ? "*" : c.convention)
          << (c.diagnostic_only ? " [diagnostic only]" : "") << (catalogued(c) ? "" : " [NOT IN THE CATALOGUE]");
      const std::string text = !c.note.empty() ? c.note : c.description;
      if (!text.empty()) out << "  -- " << text;
      out << "\n";
    }
  }
  std::cout << terminal_safe(out.str());
  if (o.json) std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return rc;
}

}  // namespace

void add_backends_command(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<BackendsOptions>();
  auto* c =
      app.add_subcommand("backends", "List the built-in backends (and given plugins): name, version, capabilities");
  c->add_option("plugins", o->plugins,
                "Plugin .so paths, exec:'COMMAND ARGS' or exec manifests (FILE.json) to describe as well");
  c->add_option("--backend", o->named,
                "Describe only this backend, named as for `qspec run --backend` (built-in, plugin, exec:'COMMAND ARGS' "
                "or a manifest; repeatable)");
  c->add_flag("--all-conventions", o->all_conventions,
              "Describe the backends as `qspec run --all-conventions` creates them (a backend that cannot be asked "
              "is an error)");
  c->add_flag("--json", o->json, "Print JSON instead of text");
  c->add_flag("-v,--verbose", o->verbose, "Also list diagnostic-only conventions");
  c->callback([&ctx, o] { ctx.exit_code = list_backends(*o); });
}

}  // namespace qspec::cli
