// Guarded output buffers, canaries and the guard-page fault handler of the worker (worker_guard.h).
#include "worker_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace qspec::harness::worker {
namespace {

unsigned char canary_byte(std::size_t i) { return static_cast<unsigned char>(0xC3 ^ (i * 37)); }

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

// The guard pages of the call in flight, for the signal handler (set before run(), cleared after).
const GuardRange* volatile g_guards = nullptr;
volatile std::size_t g_guard_count = 0;
volatile int g_reply_fd = -1;

// SIGSEGV/SIGBUS in the worker: an access to a guard page is reported as such; anything else is
// passed on to the default action (the parent then sees the signal).
void on_fault(int sig, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const GuardRange* guards = g_guards;
  const std::size_t n = g_guard_count;
  if (info->si_code > 0)  // a real fault (not kill/raise)
    for (std::size_t i = 0; guards && i < n; ++i)
      if (addr >= guards[i].lo && addr < guards[i].hi) {
        const char* p = guards[i].frame;
        std::size_t left = guards[i].frame_size;
        while (left > 0) {
          const ssize_t k = ::send(g_reply_fd, p, left, MSG_NOSIGNAL);
          if (k <= 0) break;
          p += k;
          left -= static_cast<std::size_t>(k);
        }
        ::_exit(125);
      }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);  // pending until the handler returns, then fatal
}

}  // namespace

GuardedBuffer::~GuardedBuffer() {
  if (base_) ::munmap(base_, size_);
}

unsigned char* GuardedBuffer::place(std::size_t bytes) {
  const std::size_t page = page_size();
  const std::size_t need = (bytes + kCanaryBytes + page - 1) / page * page + page;
  if (size_ < need) {
    if (base_) ::munmap(base_, size_);
    base_ = nullptr;
    size_ = 0;
    void* p = ::mmap(nullptr, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    if (::mprotect(static_cast<unsigned char*>(p) + need - page, page, PROT_NONE) != 0) {
      ::munmap(p, need);
      return nullptr;
    }
    base_ = static_cast<unsigned char*>(p);
    size_ = need;
  }
  unsigned char* data = guard() - bytes;
  std::memset(data, kFill, bytes);
  for (std::size_t k = 0; k < kCanaryBytes; ++k) data[-static_cast<std::ptrdiff_t>(kCanaryBytes - k)] = canary_byte(k);
  return data;
}

unsigned char* GuardedBuffer::guard() const { return base_ + size_ - page_size(); }

std::size_t changed_canaries(const unsigned char* data) {
  std::size_t changed = 0;
  for (std::size_t k = 0; k < kCanaryBytes; ++k)
    if (data[-static_cast<std::ptrdiff_t>(kCanaryBytes - k)] != canary_byte(k)) ++changed;
  return changed;
}

void install_guard_fault_handler(int reply_fd) {
  static std::vector<char> alt_stack(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt_stack.data();
  ss.ss_size = alt_stack.size();
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, nullptr);
  ::sigaction(SIGBUS, &sa, nullptr);
  g_reply_fd = reply_fd;
}

void arm_guards(const GuardRange* ranges, std::size_t n) {
  g_guards = ranges;
  g_guard_count = n;
}

void disarm_guards() {
  g_guard_count = 0;
  g_guards = nullptr;
}

}  // namespace qspec::harness::worker
