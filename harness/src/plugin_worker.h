// The forked plugin worker, seen from qspec: a fork of qspec (no exec) that loads the backend
// (Backend::load) and serves kSupports and kRun frames (worker_messages.h) on a socket.
//
// A first design forked a worker per vector file that read the test from the memory it shared
// with qspec; it was 2-3x slower: every page either process wrote while the other lived was
// copied (copy-on-write), about 200,000 page faults for the shipped vectors. Sending the test
// costs a copy of its inputs instead.
#pragma once

#include <memory>
#include <string>

#include "qspec/harness/backend_worker.h"
#include "worker_kind.h"

namespace qspec::harness::worker {

class PluginWorkerFactory : public WorkerFactory {
 public:
  PluginWorkerFactory(std::string spec, const WorkerOptions& options) : spec_(std::move(spec)), opt_(options) {}
  std::unique_ptr<Worker> spawn() override;
  const std::string& spec() const override { return spec_; }

 private:
  std::string spec_;
  WorkerOptions opt_;
};

}  // namespace qspec::harness::worker
