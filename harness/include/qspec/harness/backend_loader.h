// Loading a backend (built-in by name, or a plugin .so by path) and calling it through the C ABI.
//
// Backend wraps one qspec_backend: it checks the ABI version and the function table when it is
// created, turns every call into C++ values, and never lets a backend failure escape as
// anything but a status: a C++ exception thrown by a built-in backend becomes
// QSPEC_STATUS_ERROR for that one test, so the run goes on.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "qspec/backend.h"
#include "qspec/core/tensor.h"

namespace qspec::harness {

// The backend cannot be loaded or created (missing file, no qspec_backend_create symbol, ABI
// version mismatch, incomplete function table). `qspec run` exits 2 on it.
struct BackendLoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One entry of the backend's capabilities_json.
struct Capability {
  std::string op;
  std::string convention;
  std::string note;         // "note" (free text)
  std::string description;  // "description" (the reference backend: what the convention does)
  std::vector<std::string> clauses;
  bool diagnostic_only = false;
};

struct BackendResult {
  qspec_status status = QSPEC_STATUS_ERROR;
  std::string message;
  std::vector<Tensor> outputs;  // filled only for QSPEC_STATUS_OK: the buffers after the call
};

// What the user asked of the run that changes what a backend claims or computes: the run
// options of ABI version 2 (qspec_backend_options), given to the backend when it is created.
struct BackendOptions {
  bool all_conventions = false;  // --all-conventions (QSPEC_BACKEND_OPTION_ALL_CONVENTIONS)
};

// True if `spec` names a file (contains '/' or ends in ".so"), false for a built-in name.
bool is_backend_path(const std::string& spec);

class Backend {
 public:
  // `spec` is a built-in name ("reference") or a path to a plugin shared library. A backend
  // exporting qspec_backend_create2 is given `options`; one that exports only
  // qspec_backend_create cannot be: asking it for all conventions is a BackendLoadError that
  // says so (its claims would silently be its own conventions only).
  static std::unique_ptr<Backend> load(const std::string& spec, const BackendOptions& options = {});
  // Wraps an already-created backend (tests); `handle` is a dlopen handle or nullptr.
  Backend(const qspec_backend& b, void* handle, std::string source);
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& source() const { return source_; }  // "built-in" or the plugin path
  std::uint32_t abi_version() const { return b_.abi_version; }  // 1 or 2
  std::string capabilities_json() const;                   // "[]" when the backend gives none
  // Parsed capabilities; throws BackendLoadError if the JSON is malformed.
  std::vector<Capability> capabilities() const;
  bool supports(const std::string& op, const std::string& convention) const;
  // The raw function table (the worker process calls run() on buffers it places itself).
  const qspec_backend& abi() const { return b_; }

  // Runs one test. `outputs` give each output's name, dtype and shape (their data is ignored);
  // for an invalid test there are none. Never throws for a backend failure.
  BackendResult run(const std::string& op, const std::string& convention, const std::string& attrs_json,
                    const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) const;

 private:
  qspec_backend b_{};
  void* handle_ = nullptr;
  std::string source_;
  std::string name_;
  std::string version_;
};

}  // namespace qspec::harness
