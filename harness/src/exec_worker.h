// The exec worker, seen from qspec: a program of the user's (exec_backend.h) started with its stdin
// and stdout on qspec's socket, speaking the exec protocol (exec_frames.h, docs/exec-protocol.md).
//
// It is the second kind of worker beside the forked plugin (plugin_worker.h), with the same
// policy from the pool (worker_executor.cc): started by fork_worker_child in a process group of
// its own (so what it forks ends with it), its stderr drained into the tail that CRASH and
// TIMEOUT reasons quote, every wait bounded by the timeout and the interrupt flag, replaced
// after a crash or a hang. Unlike a plugin it declares its claims in the handshake, so supports()
// is answered in qspec without a round trip; there are no guard pages or heap meter (the program
// owns its memory: its outputs are bytes in a reply, checked against the test's shapes).
#pragma once

#include <memory>
#include <string>

#include "qspec/harness/backend_worker.h"
#include "qspec/harness/exec_backend.h"
#include "worker_kind.h"

namespace qspec::harness::worker {

class ExecWorkerFactory : public WorkerFactory {
 public:
  ExecWorkerFactory(ExecCommand command, const WorkerOptions& options);
  std::unique_ptr<Worker> spawn() override;
  const std::string& spec() const override { return command_.source; }

 private:
  ExecCommand command_;
  WorkerOptions opt_;
  // argv and the environment, built before fork (the child only calls execvpe).
  std::vector<std::string> env_strings_;
};

}  // namespace qspec::harness::worker
