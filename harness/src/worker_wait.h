// qspec waiting for a worker's next frame, and naming what went wrong when none came.
//
// wait_frame polls the worker's socket and its output pipe together (so a chatty worker never
// blocks on a full pipe), within the per-call timeout and the interrupt flag; fault_call turns a
// wait that ended without a frame into the CRASH / TIMEOUT verdict's reason, with the last lines
// the worker wrote. Shared by every kind of worker (worker_child.h).
#pragma once

#include <csignal>
#include <cstdint>
#include <string>

#include "qspec/harness/backend_executor.h"
#include "worker_child.h"

namespace qspec::harness::worker {

// The parent's end of a worker's socket and the bytes received but not yet consumed.
struct Channel {
  int fd = -1;
  std::string inbuf;
};

enum class WaitEnd { Frame, Died, Timeout, Interrupted };

struct Waited {
  WaitEnd end = WaitEnd::Died;
  std::uint32_t kind = 0;
  std::string payload;
};

struct WaitLimits {
  double timeout_seconds = 0;  // 0: none
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

// The next complete frame, or why there is none (the worker was then killed or had ended).
Waited wait_frame(ChildProcess& p, Channel& c, const WaitLimits& limits);

// CRASH / TIMEOUT (or `abandoned` when interrupted) for a worker that did not answer; `during`
// says what it was doing ("in run()", "while loading", ...).
BackendCall fault_call(ChildProcess& p, WaitEnd end, const std::string& during, double timeout_seconds);

// "  worker output: LINE" for the worker's last lines (a verdict's detail).
std::string output_detail(const ChildProcess& p);

}  // namespace qspec::harness::worker
