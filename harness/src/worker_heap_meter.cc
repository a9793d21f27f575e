// The worker's heap-growth meter (worker_heap_meter.h): malloc's exact count, consulted when VmData grew.
#include "worker_heap_meter.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cstddef>

#ifdef QSPEC_WORKER_ASAN
// Declared here rather than through <sanitizer/allocator_interface.h>, which GCC 12 does not ship;
// libasan (GCC's and clang's) exports it.
extern "C" size_t __sanitizer_get_current_allocated_bytes(void);
#endif

namespace qspec::harness::worker {
namespace {

// Bytes allocated through malloc and still in use (the leak measure).
std::uint64_t heap_in_use() {
#ifdef QSPEC_WORKER_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 m = ::mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

}  // namespace

void HeapMeter::start() {
  page_bytes_ = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  fd_ = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  heap_start_ = heap_base_ = heap_in_use();
  vm_base_ = vm_data();
  stale_ = true;
}

std::uint64_t HeapMeter::vm_data() const {
  if (fd_ < 0) return 0;
  char buf[256];
  const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  // "size resident shared text lib data dt" in pages: the sixth field.
  const char* p = buf;
  const char* end = buf + n;
  std::uint64_t field = 0;
  for (int i = 0; i < 6; ++i) {
    while (p < end && *p == ' ') ++p;
    if (p == end || *p < '0' || *p > '9') return 0;
    field = 0;
    while (p < end && *p >= '0' && *p <= '9') field = field * 10 + static_cast<std::uint64_t>(*p++ - '0');
  }
  return field * page_bytes_;
}

std::uint64_t HeapMeter::vm_before_call() {
  if (stale_) {  // the harness's buffers grew: measure afresh, exactly too (rare: a bigger test)
    vm_after_ = vm_data();
    heap_base_ = heap_in_use();
    stale_ = false;
  }
  return vm_after_;
}

std::uint64_t HeapMeter::after_call(std::uint64_t vm_before, std::uint64_t limit) {
  const std::uint64_t vm = vm_data();
  vm_after_ = vm;
#ifdef QSPEC_WORKER_ASAN
  (void)vm_before;
  const bool suspicious = limit > 0;  // the sanitizer's count is cheap: always exact
#else
  const bool suspicious = limit > 0 && (fd_ < 0 || (vm > vm_before && vm - vm_before > limit));
#endif
  if (!suspicious && !(vm > vm_base_ && vm - vm_base_ > kRecheck)) return 0;
  const std::uint64_t heap = heap_in_use();
  const std::uint64_t growth = heap > heap_base_ ? heap - heap_base_ : 0;
  heap_base_ = heap;
  vm_base_ = vm;
  total_ = heap > heap_start_ ? heap - heap_start_ : 0;
  return suspicious && growth > limit ? growth : 0;
}

}  // namespace qspec::harness::worker
