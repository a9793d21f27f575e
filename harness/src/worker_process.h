// What a plugin worker process does after qspec forked it (worker_child.h set up its process):
// load the backend, say hello, serve kSupports and kRun requests until qspec closes the socket.
#pragma once

#include <string>

#include "qspec/harness/backend_worker.h"

namespace qspec::harness::worker {

// Never returns (ends with _exit, so no atexit handler or destructor of qspec runs twice).
[[noreturn]] void serve_plugin(int sock, const std::string& spec, const WorkerOptions& opt);

}  // namespace qspec::harness::worker
