// Worker subprocesses for `qspec run`: fork, serve tests over a socket, classify crashes and hangs.
//
// Protocol (parent <-> worker, one AF_UNIX stream socket), frames {u32 magic, u32 kind, u64
// payload size, payload} both ways: after kHello (or kHelloError) the worker answers each
// kSupports with kSupportsReply and each kRun (op, convention, attributes, packed inputs, output
// descriptors) with kResult (status, message, harness error, heap growth, output bytes), or
// sends kGuardFault from its SIGSEGV handler and exits. The worker's stdout and stderr go to a
// pipe the parent drains continuously (so a chatty backend never blocks) and keeps the tail of,
// for crash reasons. The worker never returns into the parent's code (it ends with _exit), so
// no atexit handler or destructor of the parent runs twice.
//
// One worker serves the whole run (it is replaced after a crash or timeout). A first design
// forked a worker per vector file that read the test from the memory it shared with qspec; it
// was 2-3x slower: every page either process wrote while the other lived was copied
// (copy-on-write), about 200,000 page faults for the shipped vectors. Sending the test costs a
// copy of its inputs instead.
#include "qspec/harness/backend_worker.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "qspec/core/abi_tensor.h"

#if defined(__SANITIZE_ADDRESS__)
#define QSPEC_WORKER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QSPEC_WORKER_ASAN 1
#endif
#endif
#ifdef QSPEC_WORKER_ASAN
// Declared here rather than through <sanitizer/allocator_interface.h>, which GCC 12 does not ship;
// libasan (GCC's and clang's) exports it.
extern "C" size_t __sanitizer_get_current_allocated_bytes(void);
#endif

namespace qspec::harness {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kMagic = 0x57505351;  // "QSPW"
enum Kind : std::uint32_t { kHello = 1, kHelloError = 2, kResult = 3, kGuardFault = 4, kSupports = 5, kSupportsReply = 6, kRun = 7 };
constexpr std::size_t kHeaderSize = 16;
constexpr std::uint64_t kMaxPayload = 1ull << 33;  // 8 GiB: beyond it the stream is garbage
constexpr std::size_t kMessageSize = 4096;         // the ABI's message buffer (backend.h)
constexpr std::size_t kCanaryBytes = 64;           // checked below every output buffer
constexpr std::size_t kStderrTail = 16384;         // bytes of worker output the parent keeps
constexpr unsigned char kFill = 0xA5;              // output pre-fill (backend.h)

unsigned char canary_byte(std::size_t i) { return static_cast<unsigned char>(0xC3 ^ (i * 37)); }

// ---- frames ----

void put_u32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_str(std::string& s, const std::string& v) {
  put_u64(s, v.size());
  s += v;
}

std::string frame(Kind kind, const std::string& payload) {
  std::string f;
  put_u32(f, kMagic);
  put_u32(f, kind);
  put_u64(f, payload.size());
  return f + payload;
}

// Reads a payload front to back; any overrun marks it bad instead of reading past the end.
struct Reader {
  const std::string& s;
  std::size_t pos = 0;
  bool bad = false;
  bool take(void* out, std::size_t n) {
    if (bad || s.size() - pos < n) return !(bad = true);
    std::memcpy(out, s.data() + pos, n);
    pos += n;
    return true;
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    take(&v, sizeof v);
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    take(&v, sizeof v);
    return v;
  }
  std::string str() {
    const std::uint64_t n = u64();
    if (bad || s.size() - pos < n) {
      bad = true;
      return {};
    }
    std::string v = s.substr(pos, n);
    pos += n;
    return v;
  }
};

// Writes all of `data`; MSG_NOSIGNAL: a dead peer is an error return, not a SIGPIPE.
bool send_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    data += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

std::string signal_text(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  const char* desc = ::sigdescr_np(sig);
  std::string s = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (desc) s += std::string(" (") + desc + ")";
  return s;
}

// ======================= the worker process =======================

// The guard pages of the call in flight, for the SIGSEGV handler (set before run(), cleared after).
struct GuardRange {
  std::uintptr_t lo = 0, hi = 0;
  const char* frame = nullptr;  // a complete kGuardFault frame, built before the call
  std::size_t frame_size = 0;
};
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

// exit() called by the backend: skip the parent's inherited atexit handlers and destructors.
void on_exit_hook(int status, void*) { ::_exit(status); }

// One output buffer slot: a private mapping whose last page is PROT_NONE; the buffer is placed
// so that it ends exactly where the guard page begins, with canary bytes right below it.
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
  ~GuardedBuffer() {
    if (base_) ::munmap(base_, size_);
  }
  // Returns the buffer start, or nullptr if the mapping failed (address-space limit).
  unsigned char* place(std::size_t bytes) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
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
    return guard() - bytes;
  }
  unsigned char* guard() const { return base_ + size_ - static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

 private:
  unsigned char* base_ = nullptr;
  std::size_t size_ = 0;
};

// Bytes allocated through malloc and still in use (the leak measure).
std::uint64_t heap_in_use() {
#ifdef QSPEC_WORKER_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 m = ::mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

// Heap-growth accounting in the worker. heap_in_use() is exact, but mallinfo2 walks every free
// chunk: tens of microseconds in a worker forked from qspec's fragmented heap, which would
// triple the cost of a test. So it is consulted only when the kernel's cheap count of the
// process's private writable memory (VmData, one pread of /proc/self/statm) grew: by more than
// the leak limit in one call (is it a leak?), or by kRecheck since the last exact measurement
// (the total, for replacing a worker that keeps growing). A leak served from free chunks the
// worker inherited does not grow VmData; it is caught once those are used up.
class HeapMeter {
 public:
  void start() {
    fd_ = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    heap_start_ = heap_base_ = heap_in_use();
    vm_base_ = vm_data();
  }
  std::uint64_t vm_data() const {
    if (fd_ < 0) return 0;
    char buf[256];
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = '\0';
    unsigned long long f[6] = {};  // size resident shared text lib data (pages)
    if (std::sscanf(buf, "%llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]) != 6) return 0;
    return f[5] * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  }
  // After one run() call that began with VmData at vm_before: the heap growth to report as a
  // leak of this call (0: none beyond `limit`).
  std::uint64_t after_call(std::uint64_t vm_before, std::uint64_t limit) {
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
  std::uint64_t total_growth() const { return total_; }  // since the worker loaded the backend

 private:
  static constexpr std::uint64_t kRecheck = 64ull << 20;
  int fd_ = -1;
  std::uint64_t heap_start_ = 0, heap_base_ = 0, vm_base_ = 0, total_ = 0;
};

std::string mib_text(std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

// The worker's state. The scratch buffers are reused from test to test (a worker lives for the
// whole run): the per-test path allocates little, so a test costs a few microseconds more than
// in process.
struct WorkerContext {
  int sock = -1;
  const WorkerOptions* opt = nullptr;
  std::unique_ptr<Backend> backend;
  std::vector<GuardedBuffer> buffers;
  HeapMeter heap;
  std::string op, convention, attrs;
  std::vector<std::string> in_names, out_names;
  std::vector<std::vector<std::int64_t>> in_shapes, out_shapes, out_shapes_sent;
  std::vector<unsigned char> input_bytes;  // every input, packed, 64-byte aligned
  std::vector<qspec_tensor> in_views, outs, before;
  std::vector<GuardRange> guards;
  std::vector<std::string> guard_frames;
  std::array<char, kMessageSize> message{};
  std::string request, reply;
};

std::size_t align64(std::size_t n) { return (n + 63) / 64 * 64; }

// Reads one tensor descriptor (name, dtype, rank, shape) of a kRun request.
bool read_descriptor(Reader& r, std::string& name, qspec_dtype& dtype, std::vector<std::int64_t>& shape) {
  name = r.str();
  dtype = static_cast<qspec_dtype>(r.u32());
  const std::uint32_t rank = r.u32();
  if (r.bad || rank > 64) return false;
  shape.resize(rank);
  for (auto& d : shape) d = static_cast<std::int64_t>(r.u64());
  return !r.bad;
}

std::size_t element_bytes(qspec_dtype d) {
  DType t;
  return from_abi_dtype(d, t) ? static_cast<std::size_t>(dtype_size(t)) : 1;
}

std::size_t numel(const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::size_t>(d < 0 ? 0 : d);
  return n;
}

// Serves one kRun request (c.request) and builds the kResult frame in c.reply.
void run_one(WorkerContext& c) {
  Reader r{c.request};
  c.op = r.str();
  c.convention = r.str();
  c.attrs = r.str();
  const std::uint32_t n_in = r.u32();
  if (r.bad || n_in > 4096) ::_exit(124);  // the parent sent garbage: nothing sensible to answer
  c.in_names.resize(n_in);
  c.in_shapes.resize(n_in);
  std::vector<qspec_dtype> in_dtypes(n_in);
  std::vector<std::size_t> in_offsets(n_in), in_sizes(n_in);
  // The payload's bytes are not aligned: copy each input into the aligned scratch.
  std::size_t total = 0;
  std::vector<std::size_t> payload_at(n_in);
  for (std::uint32_t i = 0; i < n_in; ++i) {
    if (!read_descriptor(r, c.in_names[i], in_dtypes[i], c.in_shapes[i])) ::_exit(124);
    in_sizes[i] = r.u64();
    payload_at[i] = r.pos;
    if (r.bad || c.request.size() - r.pos < in_sizes[i]) ::_exit(124);
    r.pos += in_sizes[i];
    in_offsets[i] = total;
    total += align64(in_sizes[i]);
  }
  if (c.input_bytes.size() < total + 64) c.input_bytes.resize(total + 64);
  auto* base = reinterpret_cast<unsigned char*>(align64(reinterpret_cast<std::uintptr_t>(c.input_bytes.data())));
  c.in_views.clear();
  for (std::uint32_t i = 0; i < n_in; ++i) {
    unsigned char* data = in_sizes[i] ? base + in_offsets[i] : nullptr;
    if (data) std::memcpy(data, c.request.data() + payload_at[i], in_sizes[i]);
    c.in_views.push_back(qspec_tensor{c.in_names[i].c_str(), in_dtypes[i], static_cast<std::int32_t>(c.in_shapes[i].size()),
                                      c.in_shapes[i].data(), data, in_sizes[i]});
  }

  // Outputs: each ends at a guard page, with canaries below, pre-filled with 0xA5.
  const std::uint32_t n_out = r.u32();
  if (r.bad || n_out > 4096) ::_exit(124);
  if (c.buffers.size() < n_out) c.buffers.resize(n_out);
  c.out_names.resize(n_out);
  c.out_shapes.resize(n_out);
  c.out_shapes_sent.resize(n_out);
  c.outs.assign(n_out, qspec_tensor{});
  c.guards.clear();
  c.guard_frames.resize(n_out);
  std::string harness_error;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (std::uint32_t i = 0; i < n_out; ++i) {
    qspec_dtype dtype;
    if (!read_descriptor(r, c.out_names[i], dtype, c.out_shapes_sent[i])) ::_exit(124);
    c.out_shapes[i] = c.out_shapes_sent[i];
    const std::size_t bytes = numel(c.out_shapes[i]) * element_bytes(dtype);
    unsigned char* data = nullptr;
    if (bytes > 0) {
      data = c.buffers[i].place(bytes);
      if (!data) {
        harness_error += (harness_error.empty() ? "" : "; ") + std::string("cannot map output '") + c.out_names[i] + "' (" +
                         std::to_string(bytes) + " bytes) in the worker (--worker-memory-limit?)";
        continue;
      }
      std::memset(data, kFill, bytes);
      for (std::size_t k = 0; k < kCanaryBytes; ++k) data[-static_cast<std::ptrdiff_t>(kCanaryBytes - k)] = canary_byte(k);
      c.guard_frames[i] = frame(kGuardFault, "wrote past the end of output '" + c.out_names[i] + "' (guard page)");
      const auto lo = reinterpret_cast<std::uintptr_t>(c.buffers[i].guard());
      c.guards.push_back({lo, lo + page, c.guard_frames[i].data(), c.guard_frames[i].size()});
    }
    c.outs[i] = qspec_tensor{c.out_names[i].c_str(), dtype, static_cast<std::int32_t>(c.out_shapes[i].size()),
                             c.out_shapes[i].data(), data, bytes};
  }
  c.reply.clear();
  put_u32(c.reply, kMagic);
  put_u32(c.reply, kResult);
  put_u64(c.reply, 0);  // the payload size, set at the end
  auto finish = [&c] {
    const std::uint64_t size = c.reply.size() - kHeaderSize;
    std::memcpy(c.reply.data() + 8, &size, sizeof size);
  };
  if (!harness_error.empty()) {
    put_u32(c.reply, QSPEC_STATUS_ERROR);
    put_str(c.reply, "");
    put_str(c.reply, harness_error);
    put_u64(c.reply, c.heap.total_growth());
    return finish();
  }
  c.before = c.outs;

  const qspec_backend& b = c.backend->abi();
  int status;
  std::string thrown;
  c.message[0] = '\0';
  c.message.back() = '\0';
  g_guards = c.guards.data();
  g_guard_count = c.guards.size();
  const std::uint64_t vm_before = c.heap.vm_data();
  try {
    status = b.run(b.self, c.op.c_str(), c.convention.c_str(), c.attrs.c_str(), c.in_views.empty() ? nullptr : c.in_views.data(),
                   c.in_views.size(), c.outs.empty() ? nullptr : c.outs.data(), c.outs.size(), c.message.data(), c.message.size());
  } catch (const std::exception& e) {
    status = QSPEC_STATUS_ERROR;
    thrown = std::string("backend threw an exception: ") + e.what();
  } catch (...) {
    status = QSPEC_STATUS_ERROR;
    thrown = "backend threw a non-standard exception";
  }
  const std::uint64_t leaked = c.heap.after_call(vm_before, c.opt->leak_limit_bytes);
  g_guard_count = 0;
  g_guards = nullptr;
  c.message.back() = '\0';
  std::string msg = thrown.empty() ? std::string(c.message.data()) : thrown;
  if (status < QSPEC_STATUS_OK || status > QSPEC_STATUS_ERROR) {
    msg = "backend returned unknown status " + std::to_string(status) + (msg.empty() ? "" : ": " + msg);
    status = QSPEC_STATUS_ERROR;
  }

  // What the backend must not have touched.
  auto add = [&](const std::string& e) { harness_error += (harness_error.empty() ? "" : "; ") + e; };
  for (std::uint32_t i = 0; i < n_out; ++i) {
    const qspec_tensor& a = c.outs[i];
    const qspec_tensor& o = c.before[i];
    std::string fields;
    auto field = [&](bool changed, const char* name) {
      if (changed) fields += (fields.empty() ? "" : ", ") + std::string(name);
    };
    field(a.name != o.name, "name");
    field(a.dtype != o.dtype, "dtype");
    field(a.rank != o.rank, "rank");
    field(a.shape != o.shape || c.out_shapes[i] != c.out_shapes_sent[i], "shape");
    field(a.data != o.data, "data");
    field(a.size_bytes != o.size_bytes, "size_bytes");
    const std::string& name = c.out_names[i];
    if (!fields.empty())
      add("backend changed the " + fields + " of output '" + name + "' (qspec_tensor descriptors are the harness's, read-only)");
    if (o.data) {
      const auto* data = static_cast<const unsigned char*>(o.data);
      std::size_t changed = 0;
      for (std::size_t k = 0; k < kCanaryBytes; ++k)
        if (data[-static_cast<std::ptrdiff_t>(kCanaryBytes - k)] != canary_byte(k)) ++changed;
      if (changed)
        add("wrote before the start of output '" + name + "' (" + std::to_string(changed) + " of the " +
            std::to_string(kCanaryBytes) + " canary bytes below the buffer changed)");
    }
  }
  if (leaked)
    add("leaked " + std::to_string(leaked) + " bytes in this call (the heap grew by " + mib_text(leaked) + " during run(); limit " +
        mib_text(c.opt->leak_limit_bytes) + ", --leak-limit)");

  put_u32(c.reply, static_cast<std::uint32_t>(status));
  put_str(c.reply, msg);
  put_str(c.reply, harness_error);
  put_u64(c.reply, c.heap.total_growth());
  if (harness_error.empty() && status == QSPEC_STATUS_OK)
    for (std::uint32_t i = 0; i < n_out; ++i) {
      put_u64(c.reply, c.before[i].size_bytes);
      if (c.before[i].size_bytes) c.reply.append(static_cast<const char*>(c.before[i].data), c.before[i].size_bytes);
    }
  finish();
}

// Reads exactly n bytes; false at EOF or on an error.
bool recv_all(int fd, char* out, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::recv(fd, out, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    out += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// Caps the worker's address space at what it inherited plus `extra` bytes.
void limit_address_space(std::uint64_t extra) {
#ifndef QSPEC_WORKER_ASAN  // ASan reserves terabytes of shadow memory: no RLIMIT_AS under it
  if (extra == 0) return;
  std::uint64_t pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    unsigned long long v = 0;
    if (std::fscanf(statm, "%llu", &v) == 1) pages = v;
    std::fclose(statm);
  }
  const std::uint64_t current = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const rlimit lim{static_cast<rlim_t>(current + extra), static_cast<rlim_t>(current + extra)};
  ::setrlimit(RLIMIT_AS, &lim);
#else
  (void)extra;
#endif
}

[[noreturn]] void worker_main(int sock, int out_fd, pid_t parent, const std::string& spec, const WorkerOptions& opt) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive qspec
  if (::getppid() != parent) ::_exit(0);
  ::signal(SIGINT, SIG_IGN);  // Ctrl-C reaches the whole process group: the parent decides
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  ::close(out_fd);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  limit_address_space(opt.memory_limit_bytes);
  ::on_exit(on_exit_hook, nullptr);

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
  g_reply_fd = sock;

  WorkerContext c;
  c.sock = sock;
  c.opt = &opt;
  try {
    c.backend = Backend::load(spec);
    c.heap.start();
  } catch (const std::exception& e) {
    const std::string f = frame(kHelloError, e.what());
    send_all(sock, f.data(), f.size());
    ::_exit(0);
  }
  std::string hello;
  put_str(hello, c.backend->name());
  put_str(hello, c.backend->version());
  put_str(hello, c.backend->source());
  const std::string hf = frame(kHello, hello);
  if (!send_all(sock, hf.data(), hf.size())) ::_exit(0);

  for (;;) {  // requests until the parent closes the socket
    char header[kHeaderSize];
    if (!recv_all(sock, header, sizeof header)) ::_exit(0);
    std::uint32_t magic, kind;
    std::uint64_t size;
    std::memcpy(&magic, header, 4);
    std::memcpy(&kind, header + 4, 4);
    std::memcpy(&size, header + 8, 8);
    if (magic != kMagic || size > kMaxPayload) ::_exit(124);
    c.request.resize(size);
    if (!recv_all(sock, c.request.data(), size)) ::_exit(0);
    if (kind == kSupports) {
      Reader r{c.request};
      const std::string op = r.str(), convention = r.str();
      std::string answer;
      put_u32(answer, c.backend->supports(op, convention) ? 1 : 0);
      const std::string f = frame(kSupportsReply, answer);
      if (!send_all(sock, f.data(), f.size())) ::_exit(0);
    } else if (kind == kRun) {
      run_one(c);
      if (!send_all(sock, c.reply.data(), c.reply.size())) ::_exit(0);
    } else {
      ::_exit(124);
    }
  }
}

}  // namespace

// ======================= the parent's side =======================

struct WorkerExecutor::Worker {
  pid_t pid = -1;
  int sock = -1;
  int out = -1;           // the worker's stdout+stderr
  std::string out_tail;   // its last kStderrTail bytes
  std::string inbuf;      // a partially received frame
  std::uint64_t heap_growth = 0;  // the worker's heap growth since it loaded the backend
  bool reaped = false;
  int wait_status = 0;

  ~Worker() { stop(); }

  void drain_output() {
    if (out < 0) return;
    char buf[8192];
    for (;;) {
      const ssize_t k = ::read(out, buf, sizeof buf);
      if (k > 0) {
        out_tail.append(buf, static_cast<std::size_t>(k));
        if (out_tail.size() > 2 * kStderrTail) out_tail.erase(0, out_tail.size() - kStderrTail);
        continue;
      }
      if (k < 0 && errno == EINTR) continue;
      if (k == 0) {
        ::close(out);
        out = -1;
      }
      return;  // EAGAIN: nothing more for now
    }
  }

  // Waits for the process to end (it is exiting, or was killed); kills it if it lingers.
  void reap(double grace_seconds) {
    if (reaped || pid <= 0) return;
    const auto t0 = Clock::now();
    for (;;) {
      const pid_t r = ::waitpid(pid, &wait_status, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR)) break;
      if (std::chrono::duration<double>(Clock::now() - t0).count() > grace_seconds) {
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      ::usleep(1000);
    }
    reaped = true;
    drain_output();
  }

  void kill_now() {
    if (!reaped && pid > 0) ::kill(pid, SIGKILL);
    reap(5);
  }

  void stop() {
    if (sock >= 0) ::close(sock);
    sock = -1;
    kill_now();
    if (out >= 0) ::close(out);
    out = -1;
  }

  // The last `lines` non-empty lines of the worker's output.
  std::vector<std::string> tail_lines(std::size_t lines) const {
    std::vector<std::string> all;
    std::string cur;
    const std::string& s = out_tail.size() > kStderrTail ? out_tail.substr(out_tail.size() - kStderrTail) : out_tail;
    for (char ch : s) {
      if (ch == '\n') {
        if (cur.find_first_not_of(" \t\r") != std::string::npos) all.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    if (cur.find_first_not_of(" \t\r") != std::string::npos) all.push_back(cur);
    if (all.size() > lines) all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(lines));
    return all;
  }
};

namespace {

enum class WaitEnd { Frame, Died, Timeout, Interrupted };

struct Waited {
  WaitEnd end = WaitEnd::Died;
  std::uint32_t kind = 0;
  std::string payload;
};

Waited wait_frame(WorkerExecutor::Worker& w, double timeout_seconds, const volatile std::sig_atomic_t* interrupt) {
  const auto t0 = Clock::now();
  for (;;) {
    // A complete frame already buffered?
    if (w.inbuf.size() >= kHeaderSize) {
      std::uint32_t magic, kind;
      std::uint64_t size;
      std::memcpy(&magic, w.inbuf.data(), 4);
      std::memcpy(&kind, w.inbuf.data() + 4, 4);
      std::memcpy(&size, w.inbuf.data() + 8, 8);
      if (magic != kMagic || size > kMaxPayload) {  // something else wrote into our socket
        w.kill_now();
        return {WaitEnd::Died, 0, {}};
      }
      if (w.inbuf.size() - kHeaderSize >= size) {
        Waited r{WaitEnd::Frame, kind, w.inbuf.substr(kHeaderSize, size)};
        w.inbuf.erase(0, kHeaderSize + size);
        return r;
      }
    }
    if (interrupt && *interrupt) {
      w.kill_now();
      return {WaitEnd::Interrupted, 0, {}};
    }
    int wait_ms = 200;  // also bounds how late an interrupt that slipped past poll is noticed
    if (timeout_seconds > 0) {
      const double left = timeout_seconds - std::chrono::duration<double>(Clock::now() - t0).count();
      if (left <= 0) {
        w.kill_now();
        return {WaitEnd::Timeout, 0, {}};
      }
      wait_ms = std::min(wait_ms, static_cast<int>(left * 1000) + 1);
    }
    pollfd fds[2] = {{w.sock, POLLIN, 0}, {w.out, POLLIN, 0}};
    const int n = ::poll(fds, w.out >= 0 ? 2 : 1, wait_ms);
    if (n < 0 && errno != EINTR) {
      w.kill_now();
      return {WaitEnd::Died, 0, {}};
    }
    if (n <= 0) continue;
    if (w.out >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) w.drain_output();
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[65536];
      const ssize_t k = ::recv(w.sock, buf, sizeof buf, 0);
      if (k > 0) {
        w.inbuf.append(buf, static_cast<std::size_t>(k));
      } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
        w.reap(2);  // the socket closed: the worker is gone or going
        return {WaitEnd::Died, 0, {}};
      }
    }
  }
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// CRASH/TIMEOUT/ERROR for a worker that did not answer; `during` says what it was doing.
BackendCall fault_call(WorkerExecutor::Worker& w, WaitEnd end, const std::string& during, double timeout_seconds) {
  BackendCall c;
  if (end == WaitEnd::Interrupted) {
    c.abandoned = true;
    return c;
  }
  if (end == WaitEnd::Timeout) {
    c.fault = Verdict::Timeout;
    c.fault_reason = "no answer within " + seconds_text(timeout_seconds) + " s (--timeout) " + during + "; the worker was killed";
  } else {
    c.fault = Verdict::Crash;
    const int st = w.wait_status;
    if (!w.reaped) c.fault_reason = "the worker stopped answering " + during;
    else if (WIFSIGNALED(st)) c.fault_reason = "backend crashed " + during + ": " + signal_text(WTERMSIG(st));
    else if (WIFEXITED(st)) c.fault_reason = "backend called exit(" + std::to_string(WEXITSTATUS(st)) + ") " + during;
    else c.fault_reason = "the worker ended " + during;
  }
  const auto last = w.tail_lines(3);
  if (!last.empty()) {
    std::string joined;
    for (const auto& l : last) joined += (joined.empty() ? "" : " | ") + l;
    if (joined.size() > 400) joined = joined.substr(0, 397) + "...";
    c.fault_reason += "; its last output: " + joined;
  }
  for (const auto& l : w.tail_lines(20)) c.fault_detail += "  worker output: " + l + "\n";
  return c;
}

}  // namespace

namespace {

// Forks a worker that loads `spec` and serves requests.
std::unique_ptr<WorkerExecutor::Worker> spawn_worker(const std::string& spec, const WorkerOptions& opt) {
  int sv[2], out[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw BackendLoadError(std::string("cannot create the worker socket: ") + std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    throw BackendLoadError(std::string("cannot create the worker pipe: ") + std::strerror(errno));
  }
  std::cout.flush();  // the child must not inherit (and later flush) buffered output
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {sv[0], sv[1], out[0], out[1]}) ::close(fd);
    throw BackendLoadError(std::string("cannot fork a worker: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(sv[0]);
    ::close(out[0]);
    worker_main(sv[1], out[1], parent, spec, opt);
  }
  ::close(sv[1]);
  ::close(out[1]);
  auto w = std::make_unique<WorkerExecutor::Worker>();
  w->pid = pid;
  w->sock = sv[0];
  w->out = out[0];
  ::fcntl(w->out, F_SETFL, ::fcntl(w->out, F_GETFL) | O_NONBLOCK);
  return w;
}

struct Hello {
  std::string name, version, source;
};

bool parse_hello(const std::string& payload, Hello& h) {
  Reader r{payload};
  h.name = r.str();
  h.version = r.str();
  h.source = r.str();
  return !r.bad;
}

void put_descriptor(std::string& s, const Tensor& t) {
  put_str(s, t.name);
  put_u32(s, static_cast<std::uint32_t>(to_abi_dtype(t.dtype)));
  put_u32(s, static_cast<std::uint32_t>(t.shape.size()));
  for (std::int64_t d : t.shape) put_u64(s, static_cast<std::uint64_t>(d));
}

// The kRun frame for one test: op, convention, attributes, inputs (descriptors and packed
// bytes), output descriptors. Built into `s` (reused).
void build_run_request(std::string& s, const VectorFile& f, const VectorTest& t) {
  s.clear();
  put_u32(s, kMagic);
  put_u32(s, kRun);
  put_u64(s, 0);
  put_str(s, f.op);
  put_str(s, f.convention);
  put_str(s, t.attributes.dump());
  put_u32(s, static_cast<std::uint32_t>(t.inputs.size()));
  for (const Tensor& in : t.inputs) {
    put_descriptor(s, in);
    const std::size_t bytes = static_cast<std::size_t>(in.numel()) * static_cast<std::size_t>(dtype_size(in.dtype));
    put_u64(s, bytes);
    const std::size_t at = s.size();
    s.resize(at + bytes);
    for (std::size_t i = 0; i < in.data.size(); ++i) store_element(in.dtype, s.data() + at, i, in.data[i]);
  }
  put_u32(s, static_cast<std::uint32_t>(t.expected.size()));
  for (const Tensor& e : t.expected) put_descriptor(s, e);
  const std::uint64_t size = s.size() - kHeaderSize;
  std::memcpy(s.data() + 8, &size, sizeof size);
}

}  // namespace

std::unique_ptr<WorkerExecutor> WorkerExecutor::start(const std::string& spec, const WorkerOptions& options) {
  std::unique_ptr<WorkerExecutor> ex(new WorkerExecutor(spec, options));
  std::string error;
  if (!ex->start_worker(&error)) throw BackendLoadError(error);
  ex->name_ = ex->hello_name_;
  ex->version_ = ex->hello_version_;
  ex->source_ = ex->hello_source_;
  return ex;
}

WorkerExecutor::WorkerExecutor(std::string spec, const WorkerOptions& options) : spec_(std::move(spec)), opt_(options) {}

WorkerExecutor::~WorkerExecutor() { stop_worker(); }

void WorkerExecutor::stop_worker() { worker_.reset(); }

bool WorkerExecutor::start_worker(std::string* error) {
  stop_worker();
  std::unique_ptr<Worker> w;
  try {
    w = spawn_worker(spec_, opt_);
  } catch (const BackendLoadError& e) {
    *error = e.what();
    return false;
  }
  ++started_;
  const Waited got = wait_frame(*w, opt_.timeout_seconds, opt_.interrupt);
  Hello h;
  if (got.end == WaitEnd::Frame && got.kind == kHello && parse_hello(got.payload, h)) {
    hello_name_ = h.name;
    hello_version_ = h.version;
    hello_source_ = h.source;
    worker_ = std::move(w);
    return true;
  }
  if (got.end == WaitEnd::Frame && got.kind == kHelloError) {
    *error = got.payload;
  } else {
    const BackendCall c = fault_call(*w, got.end, "while loading", opt_.timeout_seconds);
    *error = c.abandoned ? "interrupted while loading backend '" + spec_ + "'" : "backend '" + spec_ + "': " + c.fault_reason;
    last_start_failure_ = c;
  }
  return false;
}

void WorkerExecutor::begin_file(const VectorFile& f) {
  if (file_name_ != f.display_name) file_failure_.reset();
  file_name_ = f.display_name;
}

void WorkerExecutor::end_file() { file_failure_.reset(); }

// The worker for the next request, started (again) if needed; on failure sets file_failure_
// for the current file (a backend that cannot even be loaded again fails the whole file).
bool WorkerExecutor::ensure_worker(const VectorFile& f) {
  if (file_name_ != f.display_name) {
    file_failure_.reset();
    file_name_ = f.display_name;
  }
  if (file_failure_) return false;
  if (worker_ && opt_.restart_after_bytes > 0 && worker_->heap_growth > opt_.restart_after_bytes) {
    stop_worker();  // a fresh worker: the heap it grew is gone with it
    ++memory_restarts_;
  }
  if (worker_) return true;
  std::string error;
  last_start_failure_.reset();
  if (start_worker(&error)) return true;
  BackendCall c;
  if (last_start_failure_) {
    c = *last_start_failure_;
    if (c.abandoned) return false;  // interrupted: not a property of the file
  } else {
    c.fault = Verdict::Error;
    c.fault_reason = "the worker could not load the backend again: " + error;
  }
  file_failure_ = c;
  return false;
}

// Asks the worker whether it claims (op, convention); cached per pair.
std::optional<BackendCall> WorkerExecutor::ask_supports(const VectorFile& f, bool& supported) {
  const auto key = std::make_pair(f.op, f.convention);
  if (const auto it = supports_.find(key); it != supports_.end()) {
    supported = it->second;
    return std::nullopt;
  }
  if (!ensure_worker(f)) {
    if (file_failure_) return file_failure_;
    BackendCall c;
    c.abandoned = true;
    return c;
  }
  std::string payload;
  put_str(payload, f.op);
  put_str(payload, f.convention);
  const std::string req = frame(kSupports, payload);
  Worker& w = *worker_;
  Waited got;
  if (send_all(w.sock, req.data(), req.size())) {
    got = wait_frame(w, opt_.timeout_seconds, opt_.interrupt);
  } else {
    w.reap(2);
    got.end = WaitEnd::Died;
  }
  if (got.end == WaitEnd::Frame && got.kind == kSupportsReply && got.payload.size() == 4) {
    supported = got.payload != std::string(4, '\0');
    supports_[key] = supported;
    return std::nullopt;
  }
  if (got.end == WaitEnd::Frame) {
    w.kill_now();
    got.end = WaitEnd::Died;
  }
  BackendCall c = fault_call(w, got.end, "in supports(\"" + f.op + "\", \"" + f.convention + "\")", opt_.timeout_seconds);
  stop_worker();
  if (!c.abandoned) file_failure_ = c;  // every test of the file gets it; no new attempt per test
  return c;
}

bool WorkerExecutor::supports(const VectorFile& f) {
  bool supported = true;
  if (ask_supports(f, supported)) return true;  // a crash: let its tests run into the failure
  return supported;
}

BackendCall WorkerExecutor::execute(const VectorFile& f, std::size_t test_index) {
  bool supported = true;
  if (auto failed = ask_supports(f, supported)) return *failed;
  if (!supported) {
    BackendCall c;
    c.supported = false;
    return c;
  }
  if (!ensure_worker(f)) {
    if (file_failure_) return *file_failure_;
    BackendCall c;
    c.abandoned = true;
    return c;
  }
  Worker& w = *worker_;
  const VectorTest& t = f.tests[test_index];
  build_run_request(request_, f, t);
  Waited got;
  if (send_all(w.sock, request_.data(), request_.size())) {
    got = wait_frame(w, opt_.timeout_seconds, opt_.interrupt);
  } else {
    w.reap(2);
    got.end = WaitEnd::Died;
  }
  if (got.end == WaitEnd::Frame && got.kind == kGuardFault) {
    w.reap(2);
    BackendCall c;
    c.fault = Verdict::Crash;
    c.fault_reason = got.payload;
    for (const auto& l : w.tail_lines(20)) c.fault_detail += "  worker output: " + l + "\n";
    stop_worker();
    return c;
  }
  if (got.end != WaitEnd::Frame || got.kind != kResult) {
    if (got.end == WaitEnd::Frame) {  // an unexpected frame: the stream cannot be trusted any more
      w.kill_now();
      got.end = WaitEnd::Died;
    }
    BackendCall c = fault_call(w, got.end, "in run()", opt_.timeout_seconds);
    stop_worker();
    return c;
  }
  Reader r{got.payload};
  BackendCall c;
  const std::uint32_t status = r.u32();
  std::string message = r.str();
  const std::string harness_error = r.str();
  w.heap_growth = r.u64();
  if (!harness_error.empty()) {
    c.fault = Verdict::Error;
    c.fault_reason = harness_error;
    if (!message.empty()) c.fault_detail = "  the backend's message: " + message + "\n";
    return c;
  }
  c.result.status = static_cast<qspec_status>(status);
  c.result.message = std::move(message);
  if (c.result.status == QSPEC_STATUS_OK) {
    for (const Tensor& e : t.expected) {
      const std::string bytes = r.str();
      Tensor a{e.name, e.dtype, e.shape, {}};
      const std::size_t n = bytes.size() / static_cast<std::size_t>(dtype_size(e.dtype));
      a.data.reserve(n);
      for (std::size_t i = 0; i < n; ++i) a.data.push_back(load_element(e.dtype, bytes.data(), i));
      c.result.outputs.push_back(std::move(a));
    }
  }
  if (r.bad) {
    c = BackendCall{};
    c.fault = Verdict::Crash;
    c.fault_reason = "the worker sent a malformed reply";
    stop_worker();
  }
  return c;
}

}  // namespace qspec::harness
