// Blocking send and receive of whole frames on the worker socket (worker_frames.h).
#include "worker_frames.h"

#include <sys/socket.h>

#include <cerrno>

namespace qspec::harness::worker {

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

}  // namespace qspec::harness::worker
