// The lock that keeps a worker from being forked while another qspec thread is inside a library.
//
// fork() copies only the calling thread: a lock that another thread holds at that instant (an
// ASan build's allocator, which its runtime need not lock around fork; a libstdc++ or rapidjson
// one) stays locked forever in the child, and the worker hangs on its first allocation. qspec's
// only other thread is the vector loader (runner.cc), which holds this lock while it loads a
// file; fork_worker_child takes it around fork(). A respawn after a crash therefore waits for the
// file being loaded, at most one file's load.
#pragma once

#include <mutex>

namespace qspec::harness {

std::mutex& fork_guard();

}  // namespace qspec::harness
