// Inside the worker: how much a backend's heap grew during one call (the leak check) and since it
// was loaded (replacing a worker that keeps growing), at a cost of microseconds per call.
#pragma once

#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#define QSPEC_WORKER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QSPEC_WORKER_ASAN 1
#endif
#endif

namespace qspec::harness::worker {

// heap_in_use() (malloc's count of bytes in use) is exact, but mallinfo2 walks every free chunk:
// tens of microseconds in a worker forked from qspec's fragmented heap, which would triple the
// cost of a test. So it is consulted only when the kernel's cheap count of the process's private
// writable memory (VmData, one pread of /proc/self/statm) grew: by more than the leak limit in
// one call (is it a leak?), or by kRecheck since the last exact measurement (the total, for
// replacing a worker that keeps growing). A leak served from free chunks the worker inherited
// does not grow VmData; it is caught once those are used up.
//
// VmData before a call is the value measured after the previous call (one read of statm per
// test, not two) unless the harness's own buffers grew in between (harness_grew()): then it and
// the exact heap are measured afresh, so that the harness's growth is never taken for the
// backend's (under ASan too, where every call is measured exactly). What a backend's own threads
// allocate between two calls counts towards the next call.
class HeapMeter {
 public:
  void start();  // after the backend was loaded
  std::uint64_t vm_data() const;
  std::uint64_t vm_before_call();
  void harness_grew() { stale_ = true; }
  // After one run() call that began with VmData at vm_before: the heap growth to report as a
  // leak of this call (0: none beyond `limit`).
  std::uint64_t after_call(std::uint64_t vm_before, std::uint64_t limit);
  std::uint64_t total_growth() const { return total_; }  // since start()

 private:
  static constexpr std::uint64_t kRecheck = 64ull << 20;
  int fd_ = -1;
  std::uint64_t page_bytes_ = 4096;
  std::uint64_t heap_start_ = 0, heap_base_ = 0, vm_base_ = 0, total_ = 0;
  std::uint64_t vm_after_ = 0;  // VmData after the previous call
  bool stale_ = true;
};

}  // namespace qspec::harness::worker
