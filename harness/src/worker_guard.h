// Inside the worker: output buffers that end at a PROT_NONE guard page with canary bytes below
// them, and the SIGSEGV/SIGBUS handler that turns a write into a guard page into a reason.
//
// A write past the end of an output faults on the guard page; the handler sends the kGuardFault
// frame prepared for that buffer (nothing is built inside the handler) and exits the worker. A
// write just before the start changes canary bytes, which are checked after the call. Any other
// fault takes the default action, so qspec sees the signal and names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace qspec::harness::worker {

constexpr std::size_t kCanaryBytes = 64;  // checked below every output buffer
constexpr unsigned char kFill = 0xA5;     // output pre-fill (backend.h)

// One output buffer slot: a private mapping whose last page is PROT_NONE; the buffer is placed
// so that it ends exactly where the guard page begins, with canary bytes right below it. The
// mapping is kept and reused while the buffers fit (a worker lives for the whole run).
class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  GuardedBuffer(GuardedBuffer&& o) noexcept { *this = std::move(o); }
  GuardedBuffer& operator=(GuardedBuffer&& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(size_, o.size_);
    return *this;
  }
  ~GuardedBuffer();
  // Returns the start of a `bytes`-long buffer filled with kFill, with canaries below it; nullptr
  // if the mapping failed (address-space limit).
  unsigned char* place(std::size_t bytes);
  unsigned char* guard() const;                 // the guard page
  std::size_t mapped() const { return size_; }  // bytes mapped (they count as the worker's memory)

 private:
  unsigned char* base_ = nullptr;
  std::size_t size_ = 0;
};

// How many of the kCanaryBytes below `data` (a buffer from GuardedBuffer::place) changed.
std::size_t changed_canaries(const unsigned char* data);

// A guard page armed for the call in flight, and the complete kGuardFault frame to send if it is hit.
struct GuardRange {
  std::uintptr_t lo = 0, hi = 0;
  const char* frame = nullptr;
  std::size_t frame_size = 0;
};

// Installs the SIGSEGV/SIGBUS handler (on its own stack) that reports an access to an armed
// guard page on `reply_fd`.
void install_guard_fault_handler(int reply_fd);
// The guard pages of the call about to start (the array must live until disarm_guards()).
void arm_guards(const GuardRange* ranges, std::size_t n);
void disarm_guards();

}  // namespace qspec::harness::worker
