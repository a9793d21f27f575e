// qspec waiting for a worker's next frame, and naming what went wrong when none came.
//
// wait_frame polls the worker's socket and its output pipe together (so a chatty worker never
// blocks on a full pipe), within the per-call timeout and the interrupt flag; fault_call turns a
// wait that ended without a frame into the CRASH / TIMEOUT verdict's reason, with the last lines
// the worker wrote. Shared by every kind of worker (worker_child.h); a kind's FrameFormat says
// how its frames' 16-byte headers read (the plugin worker's, worker_frames.h; the exec
// protocol's, exec_frames.h).
#pragma once

#include <csignal>
#include <cstdint>
#include <string>
#include <string_view>

#include "qspec/harness/backend_executor.h"
#include "worker_child.h"

namespace qspec::harness::worker {

// The parent's end of a worker's socket and the bytes received but not yet consumed.
struct Channel {
  int fd = -1;
  std::string inbuf;
};

// Corrupt: the bytes received are not a frame of the worker's, or announce a frame larger than
// the reply can be (a backend wrote into the socket); the worker was killed.
enum class WaitEnd { Frame, Died, Timeout, Interrupted, Corrupt };

struct Waited {
  WaitEnd end = WaitEnd::Died;
  std::uint32_t kind = 0;  // the header's second word (the plugin worker: the frame kind)
  std::string payload;     // Frame: the payload; Corrupt: what was wrong
};

// How one protocol's frames begin: a header of kHeaderSize bytes (worker_frames.h) whose second
// word is returned as Waited::kind, and the payload size it announces.
struct FrameFormat {
  char magic[4];  // every frame's first bytes: anything else is Corrupt as soon as 4 bytes came
  // Reads a complete header (which begins with the magic).
  void (*read)(const char* header, std::uint32_t& kind, std::uint64_t& payload_size);
  // The Corrupt reasons: bytes that are not a frame (`first`: the first bytes received), and a
  // frame announcing more than the reply can hold.
  std::string (*not_a_frame)(std::string_view first);
  std::string (*too_large)(std::uint64_t announced, std::uint64_t max_payload);
};
extern const FrameFormat kPluginFrames;  // the forked plugin worker's frames

struct WaitLimits {
  double timeout_seconds = 0;  // 0: none
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

// The next complete frame, or why there is none (the worker was then killed or had ended). A
// frame announcing more than `max_payload` bytes is Corrupt: no more than max_payload plus one
// read's worth is ever buffered.
Waited wait_frame(ChildProcess& p, Channel& c, const WaitLimits& limits, std::uint64_t max_payload,
                  const FrameFormat& format = kPluginFrames);

// CRASH / TIMEOUT (or `abandoned` when interrupted) for a worker that did not answer as it
// should: no frame, a corrupt stream, or a frame of a kind not expected here (the stream cannot
// be trusted any more: the worker is killed). `during` says what it was doing ("in run()",
// "while loading", ...).
BackendCall fault_call(ChildProcess& p, const Waited& w, const std::string& during, double timeout_seconds);

// "  worker output: LINE" for the worker's last lines (a verdict's detail).
std::string output_detail(const ChildProcess& p);
// "; its last output: A | B | C" for the worker's last three lines (a reason's tail), or "".
std::string last_output_text(const ChildProcess& p);

}  // namespace qspec::harness::worker
