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
    backend = Backend::load(spec, opt.backend);
    heap.start();
  } catch (const std::exception& e) {
    send_all(sock, frame(kHelloError, reply_text(e.what())));
    ::_exit(0);
  }
  if (!send_all(sock, hello_frame({backend->name(), backend->version(), backend->source()}))) ::_exit(0);

  TestCall call(*backend, heap, opt.leak_limit_bytes);
  FrameReader requests;
  std::string reply;
  for (;;) {  // requests until the parent closes the socket
    const std::size_t capacity = requests.buf.capacity();
    const ReceivedFrame f = recv_frame(sock, requests, kMaxRequestPayload);
    if (f.end == ReceivedFrame::Closed) ::_exit(0);
    if (f.end == ReceivedFrame::Garbage) ::_exit(124);  // qspec sent garbage: nothing sensible to answer
    if (requests.buf.capacity() != capacity) heap.harness_grew();
    if (f.header.kind == kSupports) {
      std::string op, convention;
      if (!parse_supports(f.payload, op, convention)) ::_exit(124);
      if (!send_all(sock, supports_reply_frame(backend->supports(op, convention)))) ::_exit(0);
    } else if (f.header.kind == kRun) {
      if (!call.serve(f.payload, reply)) ::_exit(124);
      if (!send_all(sock, reply)) ::_exit(0);
    } else {
      ::_exit(124);
    }
  }
}

}  // namespace qspec::harness::worker
