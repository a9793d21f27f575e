// The worker pool behind `qspec run`: one worker at a time, restarted after faults (backend_worker.h).
#include "exec_worker.h"
#include "plugin_worker.h"
#include "qspec/harness/backend_worker.h"
#include "qspec/harness/exec_backend.h"
#include "worker_kind.h"

namespace qspec::harness {

std::unique_ptr<WorkerExecutor> WorkerExecutor::start(const std::string& spec, const WorkerOptions& options) {
  std::unique_ptr<worker::WorkerFactory> factory;
  if (is_exec_backend(spec))
    factory = std::make_unique<worker::ExecWorkerFactory>(exec_command(spec), options);
  else
    factory = std::make_unique<worker::PluginWorkerFactory>(spec, options);
  std::unique_ptr<WorkerExecutor> ex(new WorkerExecutor(std::move(factory), options));
  std::string error;
  if (!ex->start_worker(&error)) throw BackendLoadError(error);
  return ex;
}

WorkerExecutor::WorkerExecutor(std::unique_ptr<worker::WorkerFactory> factory, const WorkerOptions& options)
    : factory_(std::move(factory)), opt_(options) {}

WorkerExecutor::~WorkerExecutor() { stop_worker(); }

void WorkerExecutor::stop_worker() { worker_.reset(); }

bool WorkerExecutor::start_worker(std::string* error) {
  stop_worker();
  std::unique_ptr<worker::Worker> w;
  try {
    w = factory_->spawn();
  } catch (const BackendLoadError& e) {
    *error = e.what();
    return false;
  }
  ++started_;
  const worker::WorkerStart s = w->handshake({opt_.timeout_seconds, opt_.interrupt});
  if (s.ok) {
    if (started_ == 1) {  // the identity the run reports: the first worker's
      name_ = s.id.name;
      version_ = s.id.version;
      source_ = s.id.source;
      claims_ = s.claims;
    }
    worker_ = std::move(w);
    return true;
  }
  if (s.fault) {
    *error = s.fault->abandoned ? "interrupted while loading backend '" + factory_->spec() + "'"
                                : "backend '" + factory_->spec() + "': " + s.fault->fault_reason;
    last_start_failure_ = s.fault;
  } else {
    *error = s.error;
  }
  return false;
}

void WorkerExecutor::begin_file(const VectorFile& f) {
  if (file_name_ != f.display_name) file_failure_.reset();
  file_name_ = f.display_name;
}

void WorkerExecutor::end_file() { file_failure_.reset(); }

// The worker for the next request, started (again) if needed; on failure sets file_failure_
// for the current file (a backend that cannot even be loaded again fails the whole file).
bool WorkerExecutor::ensure_worker(const VectorFile& f) {
  if (file_name_ != f.display_name) {
    file_failure_.reset();
    file_name_ = f.display_name;
  }
  if (file_failure_) return false;
  if (worker_ && opt_.restart_after_bytes > 0 && worker_->heap_growth() > opt_.restart_after_bytes) {
    stop_worker();  // a fresh worker: the heap it grew is gone with it
    ++memory_restarts_;
  }
  if (worker_) return true;
  std::string error;
  last_start_failure_.reset();
  if (start_worker(&error)) return true;
  BackendCall c;
  if (last_start_failure_) {
    c = *last_start_failure_;
    if (c.abandoned) return false;  // interrupted: not a property of the file
  } else {
    c.fault = Verdict::Error;
    c.fault_reason = "the worker could not load the backend again: " + error;
  }
  file_failure_ = c;
  return false;
}

BackendCall WorkerExecutor::cannot_start() const {
  if (file_failure_) return *file_failure_;
  BackendCall c;
  c.abandoned = true;
  return c;
}

// Asks the worker whether it claims (op, convention); cached per pair.
std::optional<BackendCall> WorkerExecutor::ask_supports(const VectorFile& f, bool& supported) {
  const auto key = std::make_pair(f.op, f.convention);
  if (const auto it = supports_.find(key); it != supports_.end()) {
    supported = it->second;
    return std::nullopt;
  }
  if (!ensure_worker(f)) return cannot_start();
  auto failed = worker_->supports(f.op, f.convention, {opt_.timeout_seconds, opt_.interrupt}, supported);
  if (!failed) {
    supports_[key] = supported;
    return std::nullopt;
  }
  stop_worker();
  if (!failed->abandoned) file_failure_ = failed;  // every test of the file gets it; no new attempt per test
  return failed;
}

bool WorkerExecutor::supports(const VectorFile& f) {
  bool supported = true;
  if (ask_supports(f, supported)) return true;  // a crash: let its tests run into the failure
  return supported;
}

BackendCall WorkerExecutor::execute(const VectorFile& f, std::size_t test_index) {
  bool supported = true;
  if (auto failed = ask_supports(f, supported)) return *failed;
  if (!supported) {
    BackendCall c;
    c.supported = false;
    return c;
  }
  if (!ensure_worker(f)) return cannot_start();
  BackendCall c = worker_->run(f, f.tests[test_index], {opt_.timeout_seconds, opt_.interrupt});
  if (!worker_->alive()) stop_worker();
  return c;
}

}  // namespace qspec::harness
