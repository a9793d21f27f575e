// Backend loading (built-in registry or dlopen) and exception-safe calls through the C ABI.
#include "qspec/harness/backend_loader.h"

#include <dlfcn.h>

#include <nlohmann/json.hpp>

#include "qspec/core/abi_tensor.h"
#include "qspec/builtin_backends.h"
#include "qspec/harness/exec_backend.h"

namespace qspec::harness {
namespace {

constexpr std::size_t kMessageSize = 4096;

std::string status_name(int s) {
  switch (s) {
    case QSPEC_STATUS_OK: return "OK";
    case QSPEC_STATUS_REJECTED: return "REJECTED";
    case QSPEC_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case QSPEC_STATUS_ERROR: return "ERROR";
    default: return "unknown status " + std::to_string(s);
  }
}

// A backend's entry points: qspec_backend_create2 (takes run options) and/or qspec_backend_create.
struct EntryPoints {
  qspec_backend_create_fn create = nullptr;
  qspec_backend_create2_fn create2 = nullptr;
};

// Calls the entry point and validates what it filled in; throws BackendLoadError naming `what`.
//
// qspec_backend_create2 is preferred and given the options. qspec_backend_create is called with
// version 2 and, if the backend refuses it, with version 1: a version-1 backend must refuse
// every other host version (its header's contract), and its table is a version-2 table.
qspec_backend create_checked(const EntryPoints& entry, const BackendOptions& options, const std::string& what) {
  qspec_backend b{};
  int rc = 0;
  const char* called = entry.create2 ? "qspec_backend_create2" : "qspec_backend_create";
  try {
    if (entry.create2) {
      const qspec_backend_options o{sizeof(qspec_backend_options),
                                    options.all_conventions ? QSPEC_BACKEND_OPTION_ALL_CONVENTIONS : 0u};
      rc = entry.create2(QSPEC_BACKEND_ABI_VERSION, &o, &b);
    } else {
      rc = entry.create(QSPEC_BACKEND_ABI_VERSION, &b);
      if (rc != 0) {
        b = qspec_backend{};
        rc = entry.create(1, &b);
      }
    }
  } catch (const std::exception& e) {
    throw BackendLoadError(what + ": " + called + " threw: " + e.what());
  }
  if (rc != 0)
    throw BackendLoadError(what + ": " + called + " returned " + std::to_string(rc) +
                           " (incompatible ABI version or creation failed; the harness speaks ABI version " +
                           std::to_string(QSPEC_BACKEND_ABI_VERSION) +
                           (entry.create2 ? "" : " and, through qspec_backend_create, version 1") + ")");
  auto fail = [&](const std::string& why) {
    if (b.destroy) b.destroy(b.self);
    throw BackendLoadError(what + ": " + why);
  };
  if (b.abi_version != QSPEC_BACKEND_ABI_VERSION && (entry.create2 || b.abi_version != 1))
    fail("backend speaks ABI version " + std::to_string(b.abi_version) + ", the harness speaks " +
         std::to_string(QSPEC_BACKEND_ABI_VERSION) + (entry.create2 ? "" : " (and 1)"));
  if (b.name == nullptr || b.name[0] == '\0') fail("backend has no name");
  if (b.run == nullptr || b.supports == nullptr) fail("backend's function table lacks run or supports");
  if (options.all_conventions && !entry.create2)
    fail("cannot be asked for all conventions (--all-conventions): it takes no run options (" +
         std::string(b.abi_version == 1 ? "it was built for ABI version 1, which has none"
                                        : "it exports qspec_backend_create, not qspec_backend_create2") +
         "), so it would claim only its own conventions. Run it without --all-conventions (docs/backend-abi.md, "
         "\"Run options\")");
  return b;
}

}  // namespace

bool is_backend_path(const std::string& spec) {
  return spec.find('/') != std::string::npos || (spec.size() > 3 && spec.compare(spec.size() - 3, 3, ".so") == 0);
}

std::unique_ptr<Backend> Backend::load(const std::string& spec, const BackendOptions& options) {
  if (is_exec_backend(spec))
    throw BackendLoadError("backend '" + spec +
                           "' is a program of its own (the exec protocol): it runs only in its own process, never "
                           "inside qspec (not with --no-isolate)");
  if (!is_backend_path(spec)) {
    const BuiltinBackend* builtin = find_builtin_backend(spec);
    if (!builtin) {
      std::string known;
      for (const auto& n : builtin_backend_names()) known += (known.empty() ? "" : ", ") + n;
      throw BackendLoadError("no built-in backend named '" + spec + "' (built-in: " + (known.empty() ? "none" : known) +
                             "; give a path containing '/' to load a plugin)");
    }
    return std::make_unique<Backend>(
        create_checked({builtin->create, builtin->create2}, options, "built-in backend '" + spec + "'"), nullptr,
        "built-in");
  }
  dlerror();
  void* handle = dlopen(spec.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    throw BackendLoadError("cannot load backend plugin '" + spec + "': " + (err ? err : "dlopen failed"));
  }
  const EntryPoints entry{reinterpret_cast<qspec_backend_create_fn>(dlsym(handle, "qspec_backend_create")),
                          reinterpret_cast<qspec_backend_create2_fn>(dlsym(handle, "qspec_backend_create2"))};
  if (!entry.create && !entry.create2) {
    dlclose(handle);
    throw BackendLoadError("backend plugin '" + spec + "' exports neither qspec_backend_create nor qspec_backend_create2");
  }
  try {
    return std::make_unique<Backend>(create_checked(entry, options, "backend plugin '" + spec + "'"), handle, spec);
  } catch (...) {
    dlclose(handle);
    throw;
  }
}

Backend::Backend(const qspec_backend& b, void* handle, std::string source)
    : b_(b), handle_(handle), source_(std::move(source)), name_(b.name ? b.name : ""), version_(b.version ? b.version : "") {}

Backend::~Backend() {
  if (b_.destroy) b_.destroy(b_.self);
  if (handle_) dlclose(handle_);
}

std::string Backend::capabilities_json() const {
  if (!b_.capabilities_json) return "[]";
  const char* s = b_.capabilities_json(b_.self);
  return s ? s : "[]";
}

std::vector<Capability> Backend::capabilities() const {
  std::vector<Capability> out;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(capabilities_json());
  } catch (const std::exception& e) {
    throw BackendLoadError("backend '" + name_ + "': capabilities_json is not JSON: " + e.what());
  }
  if (!j.is_array()) throw BackendLoadError("backend '" + name_ + "': capabilities_json must be a JSON array");
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("op") || !e["op"].is_string())
      throw BackendLoadError("backend '" + name_ + "': every capability needs a string \"op\"");
    Capability c;
    c.op = e["op"].get<std::string>();
    auto str = [&](const char* k) { return e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string(); };
    c.convention = str("convention");
    c.note = str("note");
    c.description = str("description");
    if (e.contains("clauses") && e["clauses"].is_array())
      for (const auto& id : e["clauses"])
        if (id.is_string()) c.clauses.push_back(id.get<std::string>());
    c.diagnostic_only = e.contains("diagnostic_only") && e["diagnostic_only"].is_boolean() && e["diagnostic_only"].get<bool>();
    out.push_back(std::move(c));
  }
  return out;
}

bool Backend::supports(const std::string& op, const std::string& convention) const {
  try {
    return b_.supports(b_.self, op.c_str(), convention.c_str()) != 0;
  } catch (...) {
    return false;
  }
}

BackendResult Backend::run(const std::string& op, const std::string& convention, const std::string& attrs_json,
                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) const {
  std::vector<AbiTensor> in_store, out_store;
  in_store.reserve(inputs.size());
  out_store.reserve(outputs.size());
  for (const auto& t : inputs) in_store.emplace_back(t);
  for (const auto& t : outputs) out_store.emplace_back(t, /*fill_pattern=*/true);
  std::vector<qspec_tensor> in_views, out_views;
  for (auto& t : in_store) in_views.push_back(t.view());
  for (auto& t : out_store) out_views.push_back(t.view());

  std::vector<char> message(kMessageSize, '\0');
  BackendResult r;
  int status;
  try {
    status = b_.run(b_.self, op.c_str(), convention.c_str(), attrs_json.c_str(), in_views.empty() ? nullptr : in_views.data(),
                    in_views.size(), out_views.empty() ? nullptr : out_views.data(), out_views.size(), message.data(),
                    message.size());
  } catch (const std::exception& e) {
    r.status = QSPEC_STATUS_ERROR;
    r.message = std::string("backend threw an exception: ") + e.what();
    return r;
  } catch (...) {
    r.status = QSPEC_STATUS_ERROR;
    r.message = "backend threw a non-standard exception";
    return r;
  }
  message.back() = '\0';
  r.message = message.data();
  if (status < QSPEC_STATUS_OK || status > QSPEC_STATUS_ERROR) {
    r.status = QSPEC_STATUS_ERROR;
    r.message = "backend returned " + status_name(status) + (r.message.empty() ? "" : ": " + r.message);
    return r;
  }
  r.status = static_cast<qspec_status>(status);
  if (r.status == QSPEC_STATUS_OK)
    for (const auto& t : out_store) r.outputs.push_back(t.to_tensor());
  return r;
}

}  // namespace qspec::harness
