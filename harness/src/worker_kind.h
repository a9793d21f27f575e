// What the worker pool (WorkerExecutor, backend_worker.h) needs from a kind of worker process.
//
// The pool owns the policy every kind shares: one worker at a time, started again after a crash,
// a timeout or too much heap growth; a file whose worker cannot start or crashes in supports()
// fails as a whole; supports() answers cached per (op, convention); the interrupt flag and the
// per-call timeout. A kind says how to start a worker and how to exchange one request with it:
// the forked plugin worker (plugin_worker.h), and a program of its own speaking the exec protocol
// on its stdin/stdout (exec_worker.h). Both are started through fork_worker_child
// (worker_child.h) and waited on with wait_frame and fault_call (worker_wait.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qspec/harness/backend_executor.h"
#include "worker_messages.h"
#include "worker_wait.h"

namespace qspec::harness::worker {

// How the first exchange with a new worker ended.
struct WorkerStart {
  bool ok = false;
  BackendIdentity id;  // ok: the backend's name, version and source
  // ok, for a kind whose handshake declares the claims (the exec protocol): the (op, convention)
  // pairs as the backend gave them.
  std::optional<std::vector<Capability>> claims;
  std::string error;                 // !ok: one line for the user (the loader's message, or the fault)
  std::optional<BackendCall> fault;  // !ok because it crashed, hung or was interrupted while loading
};

// One live worker. After a call that ended it (a fault), alive() is false and the pool replaces it.
class Worker {
 public:
  virtual ~Worker() = default;
  // Waits until the backend is loaded (called once, first).
  virtual WorkerStart handshake(const WaitLimits& limits) = 0;
  // Whether the backend claims (op, convention): nullopt with `supported` set, or the fault.
  virtual std::optional<BackendCall> supports(const std::string& op, const std::string& convention,
                                              const WaitLimits& limits, bool& supported) = 0;
  // Runs one test: the backend's answer, or the fault the harness observed.
  virtual BackendCall run(const VectorFile& f, const VectorTest& t, const WaitLimits& limits) = 0;
  // Pipelining (WorkerExecutor sends tests ahead): a kind whose worker serves requests strictly
  // in order, and keeps the bytes of a request that arrives while it works on the one before,
  // says how many request bytes may wait in the socket (0: none; it cannot pipeline). Then
  // send_run queues a test without waiting for its reply, if its request fits `budget` bytes
  // (returns the bytes it charged, or 0 and sends nothing), and receive_run(t) returns the reply to
  // the oldest request not yet received (`t` is that request's test). A fault ends the worker, so
  // the requests behind the test it happened in were never run (the executor sends them again to
  // the next worker): the verdict belongs to the oldest request, as without pipelining. qspec
  // never blocks in a send as long as the bytes waiting stay within pipeline_bytes(), so a worker
  // blocked sending replies is always read, and a hung one is always timed out.
  virtual std::size_t pipeline_bytes() const { return 0; }
  virtual std::size_t send_run(const VectorFile& f, const VectorTest& t, std::size_t budget) {
    (void)f;
    (void)t;
    (void)budget;
    return 0;
  }
  virtual BackendCall receive_run(const VectorTest& t, const WaitLimits& limits) {
    (void)t;
    (void)limits;
    return {};
  }
  virtual bool alive() const = 0;
  // Heap growth of the backend since it was loaded (0 when the kind cannot tell).
  virtual std::uint64_t heap_growth() const = 0;
};

// Starts workers of one kind for one backend.
class WorkerFactory {
 public:
  virtual ~WorkerFactory() = default;
  // Throws BackendLoadError if no process can be started at all.
  virtual std::unique_ptr<Worker> spawn() = 0;
  virtual const std::string& spec() const = 0;  // the backend as the user named it
};

}  // namespace qspec::harness::worker
