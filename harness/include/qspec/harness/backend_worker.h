// Running a backend in worker subprocesses, so that a crashing, hanging or scribbling backend
// costs one test its verdict and nothing else (`qspec run`'s default; docs/running.md).
//
// The parent fork()s a worker (no exec) that loads the backend (Backend::load) and then serves
// requests from a socket: supports(op, convention), and run one test (the request carries the
// op, convention, attributes, inputs and output shapes; the reply the status, the message and
// the output bytes). One worker serves the whole run until it crashes, hangs or grows too much.
// The parent waits for each reply at most `timeout_seconds`. What the parent concludes:
//   - the worker died from a signal: CRASH naming the signal and the last lines it wrote to
//     stderr (a C++ exception escaping a plugin shows "terminate called after throwing ...");
//   - the backend called exit(N) / _exit(N): CRASH "backend called exit(N)";
//   - no reply in time: TIMEOUT (the worker is killed with SIGKILL and reaped);
//   - a write past the end of an output buffer: each buffer ends exactly at a PROT_NONE guard
//     page, the worker's SIGSEGV handler recognizes the address: CRASH "wrote past the end of
//     output 'y' (guard page)";
//   - bytes changed before a buffer (canary) or a changed output descriptor (name, dtype,
//     rank, shape, data, size_bytes): ERROR naming the output and the field;
//   - the heap grew by more than `leak_limit_bytes` during one call: ERROR "leaked N bytes".
// After CRASH or TIMEOUT the next test gets a fresh worker. Each worker leads its own process
// group, which is killed with it (on a restart, at the end, on an interrupt): processes the
// backend forked do not outlive qspec. A worker whose heap grew by more
// than `restart_after_bytes` in total is replaced (quietly) before its next test.
//
// A backend named `exec:COMMAND` or by a manifest (exec_backend.h) is not forked but a program of
// its own, speaking the exec protocol on its stdin/stdout (docs/exec-protocol.md); the pool, the
// timeouts, the process groups and the CRASH/TIMEOUT reasons are the same.
//
// The implementation, one idea per file in harness/src: worker_frames and worker_messages (the
// protocol), worker_process, worker_test_call, worker_guard and worker_heap_meter (inside the
// worker), worker_child and worker_wait (starting, waiting on and ending a worker process),
// plugin_worker (the forked plugin kind), exec_frames and exec_worker (the exec kind),
// worker_executor (this pool).
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qspec/harness/backend_executor.h"

namespace qspec::harness {

struct WorkerOptions {
  BackendOptions backend;                                 // the run options the backend is created with
  double timeout_seconds = 10;                            // per test (and per backend load); 0: none
  std::uint64_t memory_limit_bytes = 4ull << 30;          // RLIMIT_AS growth over the inherited address space; 0: none
  std::uint64_t leak_limit_bytes = 16ull << 20;           // heap growth in one run() call that is an ERROR; 0: off
  std::uint64_t restart_after_bytes = 256ull << 20;       // replace a worker whose heap grew this much in total
  const volatile std::sig_atomic_t* interrupt = nullptr;  // nonzero: abandon the call in flight
};

// Async-signal-safe: SIGKILLs the process group of every live worker (a worker and whatever
// its backend forked). For a signal handler that is about to end qspec at once; the orderly
// way is destroying the WorkerExecutor, which does the same for its worker.
void kill_worker_process_groups() noexcept;

namespace worker {
class Worker;
class WorkerFactory;
}  // namespace worker

// The pool of worker processes (one at a time) behind the run loop, for any kind of worker
// (worker_kind.h: the forked plugin worker, the exec backend).
class WorkerExecutor : public BackendExecutor {
 public:
  // Starts the first worker, which loads `spec` and reports the backend's name, version and source.
  // Throws BackendLoadError if the backend cannot be loaded, or crashes or hangs while loading.
  static std::unique_ptr<WorkerExecutor> start(const std::string& spec, const WorkerOptions& options);
  ~WorkerExecutor() override;

  const std::string& name() const override { return name_; }
  const std::string& version() const override { return version_; }
  const std::string& source() const override { return source_; }
  void begin_file(const VectorFile& f) override;
  void end_file() override;
  void plan(const VectorFile& f, std::vector<std::size_t> tests) override;
  bool supports(const VectorFile& f) override;
  BackendCall execute(const VectorFile& f, std::size_t test_index) override;

  std::size_t workers_started() const { return started_; }
  // The claims the first worker declared in its handshake (an exec backend); nullopt for a
  // plugin, whose claims are its capabilities_json.
  const std::optional<std::vector<Capability>>& declared_claims() const { return claims_; }
  std::size_t restarts_for_memory() const { return memory_restarts_; }

 private:
  WorkerExecutor(std::unique_ptr<worker::WorkerFactory> factory, const WorkerOptions& options);
  // Starts a worker and waits for it to load the backend; false with *error set if it cannot
  // (and last_start_failure_ set when it crashed or hung doing so).
  bool start_worker(std::string* error);
  // Makes sure a worker runs; false (with file_failure_ set, unless interrupted) if it cannot.
  bool ensure_worker(const VectorFile& f);
  // supports(f.op, f.convention) in the worker, cached per pair; a fault if it crashed or hung.
  std::optional<BackendCall> ask_supports(const VectorFile& f, bool& supported);
  // The fault every further test of the current file gets (the worker cannot start), or an
  // abandoned call when interrupted.
  BackendCall cannot_start() const;
  void stop_worker();
  // The pipeline (worker_kind.h): sends f.tests[i] (at plan position `pos`, or npos) if its
  // request fits `budget`; receives the oldest reply; drops every request in flight.
  bool send_ahead(const VectorFile& f, std::size_t i, std::size_t pos, std::size_t budget);
  void top_up(const VectorFile& f);
  BackendCall receive_oldest(const VectorFile& f);
  void drop_in_flight();

  std::unique_ptr<worker::WorkerFactory> factory_;
  WorkerOptions opt_;
  std::string name_, version_, source_;
  std::optional<std::vector<Capability>> claims_;
  std::unique_ptr<worker::Worker> worker_;
  std::map<std::pair<std::string, std::string>, bool> supports_;
  // A worker could not start, or crashed or hung in supports(), for the current file: every
  // further test of the file gets this fault instead of a new attempt per test.
  std::string file_name_;
  std::optional<BackendCall> file_failure_, last_start_failure_;
  std::size_t started_ = 0, memory_restarts_ = 0;
  // The tests of the current file the runner will ask for, in order; the first one not yet sent;
  // the requests sent and not yet received (oldest first), with the bytes they hold in the socket.
  struct InFlight {
    std::size_t test, plan_pos, charge;
  };
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  const VectorFile* current_file_ = nullptr;
  std::vector<std::size_t> plan_;
  std::size_t plan_next_ = 0;
  std::deque<InFlight> in_flight_;
  std::size_t in_flight_bytes_ = 0;
};

}  // namespace qspec::harness
