// The worker's heap-growth meter (worker_heap_meter.h): malloc's exact count, consulted when VmData grew.
#include "worker_heap_meter.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>

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
  fd_ = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  heap_start_ = heap_base_ = heap_in_use();
  vm_base_ = vm_data();
}

std::uint64_t HeapMeter::vm_data() const {
  if (fd_ < 0) return 0;
  char buf[256];
  const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long f[6] = {};  // size resident shared text lib data (pages)
  if (std::sscanf(buf, "%llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]) != 6) return 0;
  return f[5] * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::uint64_t HeapMeter::after_call(std::uint64_t vm_before, std::uint64_t limit) {
  const std::uint64_t vm = vm_data();
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
