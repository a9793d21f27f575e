// Inside the worker: one test, from the kRun request to the kResult frame.
//
// The steps, each a function: lay the inputs out aligned; place each output in a guarded buffer
// (pre-filled, canaries below, guard page above); call the backend's run() with the guards armed,
// catching exceptions and metering the heap; check what it must not have touched (descriptors,
// canaries, heap growth); encode the result. The scratch state is reused from test to test (a
// worker lives for the whole run), so the per-test path allocates little.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/harness/backend_loader.h"
#include "worker_guard.h"
#include "worker_heap_meter.h"
#include "worker_messages.h"

namespace qspec::harness::worker {

constexpr std::size_t kMessageSize = 4096;  // the ABI's message buffer (backend.h)

class TestCall {
 public:
  TestCall(const Backend& backend, HeapMeter& heap, std::uint64_t leak_limit_bytes)
      : backend_(backend), heap_(heap), leak_limit_(leak_limit_bytes) {}
  // Serves one kRun payload and builds the kResult frame in `reply`. False if the payload is
  // malformed (qspec never sends one).
  bool serve(std::string_view payload, std::string& reply);

 private:
  // What run() returned: its status and message, or what it threw.
  struct Answer {
    int status = 0;
    std::string message;
    std::uint64_t leaked = 0;  // heap growth beyond the leak limit (0: none)
  };

  void place_inputs(std::string_view payload);
  std::string place_outputs();  // a harness error (an output could not be mapped) or ""
  Answer call_backend();
  std::string check_outputs(const Answer& a) const;

  const Backend& backend_;
  HeapMeter& heap_;
  std::uint64_t leak_limit_;

  RunRequest req_;
  std::vector<unsigned char> input_bytes_;  // every input, packed, 64-byte aligned
  std::vector<qspec_tensor> in_views_, outs_, before_;
  std::vector<std::vector<std::int64_t>> out_shapes_;  // the backend's copies of req_.outputs' shapes
  std::vector<GuardedBuffer> buffers_;
  std::vector<GuardRange> guards_;
  std::vector<std::string> guard_frames_;
  std::array<char, kMessageSize> message_{};
};

}  // namespace qspec::harness::worker
