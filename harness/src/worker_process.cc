// The plugin worker's main loop: limits, backend load, hello, then requests until EOF (worker_process.h).
#include "worker_process.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "worker_frames.h"
#include "worker_guard.h"
#include "worker_heap_meter.h"
#include "worker_messages.h"
#include "worker_test_call.h"

namespace qspec::harness::worker {
namespace {

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

// exit() called by the backend: skip qspec's inherited atexit handlers and destructors.
void on_exit_hook(int status, void*) { ::_exit(status); }

}  // namespace

void serve_plugin(int sock, const std::string& spec, const WorkerOptions& opt) {
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  limit_address_space(opt.memory_limit_bytes);
  ::on_exit(on_exit_hook, nullptr);
  install_guard_fault_handler(sock);

  std::unique_ptr<Backend> backend;
  HeapMeter heap;
  try {
    backend = Backend::load(spec);
    heap.start();
  } catch (const std::exception& e) {
    send_all(sock, frame(kHelloError, reply_text(e.what())));
    ::_exit(0);
  }
  if (!send_all(sock, hello_frame({backend->name(), backend->version(), backend->source()}))) ::_exit(0);

  TestCall call(*backend, heap, opt.leak_limit_bytes);
  std::string request, reply;
  for (;;) {  // requests until the parent closes the socket
    char header[kHeaderSize];
    if (!recv_all(sock, header, sizeof header)) ::_exit(0);
    const FrameHeader h = read_header(header);
    if (h.magic != kMagic || h.size > kMaxRequestPayload)
      ::_exit(124);  // qspec sent garbage: nothing sensible to answer
    request.resize(h.size);
    if (!recv_all(sock, request.data(), h.size)) ::_exit(0);
    if (h.kind == kSupports) {
      std::string op, convention;
      if (!parse_supports(request, op, convention)) ::_exit(124);
      if (!send_all(sock, supports_reply_frame(backend->supports(op, convention)))) ::_exit(0);
    } else if (h.kind == kRun) {
      if (!call.serve(request, reply)) ::_exit(124);
      if (!send_all(sock, reply)) ::_exit(0);
    } else {
      ::_exit(124);
    }
  }
}

}  // namespace qspec::harness::worker
