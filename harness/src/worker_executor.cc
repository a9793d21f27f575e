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

void WorkerExecutor::stop_worker() {
  worker_.reset();
  drop_in_flight();  // a new worker starts with an empty socket: they are sent again
}

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

void WorkerExecutor::end_file() {
  // Requests sent ahead for tests the runner did not ask for (it stopped early): their replies
  // are read and dropped, so the next file starts with an empty socket.
  while (!in_flight_.empty() && worker_) receive_oldest(*current_file_);
  drop_in_flight();
  plan_.clear();
  plan_next_ = 0;
  current_file_ = nullptr;
  file_failure_.reset();
}

void WorkerExecutor::plan(const VectorFile& f, std::vector<std::size_t> tests) {
  drop_in_flight();
  current_file_ = &f;
  plan_ = std::move(tests);
  plan_next_ = 0;
}

void WorkerExecutor::drop_in_flight() {
  if (!in_flight_.empty() && in_flight_.front().plan_pos != npos) plan_next_ = in_flight_.front().plan_pos;
  in_flight_.clear();
  in_flight_bytes_ = 0;
}

bool WorkerExecutor::send_ahead(const VectorFile& f, std::size_t i, std::size_t pos, std::size_t budget) {
  const std::size_t charge = worker_->send_run(f, f.tests[i], budget);
  if (charge == 0) return false;
  in_flight_.push_back({i, pos, charge});
  in_flight_bytes_ += charge;
  return true;
}

// Keeps up to kMaxAhead requests in the worker's socket, within its byte budget: the worker
// starts the next test as soon as it answers one, with no round trip, and neither process
// sleeps between tests. A worker due for replacement (its heap grew too much) gets no more, so
// the queue empties and ensure_worker replaces it.
void WorkerExecutor::top_up(const VectorFile& f) {
  constexpr std::size_t kMaxAhead = 16;
  if (!worker_ || worker_->pipeline_bytes() == 0) return;
  if (opt_.restart_after_bytes > 0 && worker_->heap_growth() > opt_.restart_after_bytes) return;
  while (plan_next_ < plan_.size() && in_flight_.size() < kMaxAhead && in_flight_bytes_ < worker_->pipeline_bytes()) {
    if (!send_ahead(f, plan_[plan_next_], plan_next_, worker_->pipeline_bytes() - in_flight_bytes_)) break;
    ++plan_next_;
  }
}

BackendCall WorkerExecutor::receive_oldest(const VectorFile& f) {
  const InFlight x = in_flight_.front();
  BackendCall c = worker_->receive_run(f.tests[x.test], {opt_.timeout_seconds, opt_.interrupt});
  in_flight_.pop_front();
  in_flight_bytes_ -= x.charge;
  if (!worker_->alive()) stop_worker();  // the requests behind it were never run: sent again
  return c;
}

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
  while (!in_flight_.empty() && worker_) receive_oldest(*current_file_);  // the socket must hold only this exchange
  drop_in_flight();
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
  // Requests sent ahead for tests the runner skipped (the circuit breaker) are received and dropped.
  while (!in_flight_.empty() && in_flight_.front().test != test_index) receive_oldest(f);
  if (in_flight_.empty()) {
    if (!ensure_worker(f)) return cannot_start();
    std::size_t pos = plan_next_;
    while (pos < plan_.size() && plan_[pos] != test_index) ++pos;
    if (worker_->pipeline_bytes() == 0 || &f != current_file_ || pos == plan_.size()) {  // one exchange
      BackendCall c = worker_->run(f, f.tests[test_index], {opt_.timeout_seconds, opt_.interrupt});
      if (!worker_->alive()) stop_worker();
      return c;
    }
    send_ahead(f, test_index, pos, SIZE_MAX);
    plan_next_ = pos + 1;
  }
  top_up(f);
  return receive_oldest(f);
}

}  // namespace qspec::harness
