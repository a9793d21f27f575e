// Blocking send and receive of whole frames on the worker socket (worker_frames.h).
#include "worker_frames.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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

ReceivedFrame recv_frame(int fd, FrameReader& r, std::uint64_t max_payload) {
  static constexpr std::size_t kRead = 1 << 16;
  if (r.consumed > 0) {  // the frames returned before: move what follows them to the front
    std::memmove(r.buf.data(), r.buf.data() + r.consumed, r.have - r.consumed);
    r.have -= r.consumed;
    r.consumed = 0;
  }
  // Receives until `need` bytes are buffered; false at EOF or on an error.
  const auto fill = [&r, fd](std::size_t need) {
    if (r.buf.size() < std::max(need, kRead)) r.buf.resize(std::max(need, kRead));
    while (r.have < need) {
      const ssize_t k = ::recv(fd, r.buf.data() + r.have, r.buf.size() - r.have, 0);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return false;
      r.have += static_cast<std::size_t>(k);
    }
    return true;
  };
  ReceivedFrame f;
  if (!fill(kHeaderSize)) return f;
  f.header = read_header(r.buf.data());
  if (f.header.magic != kMagic || f.header.size > max_payload) {
    f.end = ReceivedFrame::Garbage;
    return f;
  }
  const std::size_t total = kHeaderSize + static_cast<std::size_t>(f.header.size);
  if (!fill(total)) return f;
  f.end = ReceivedFrame::Ok;
  f.payload = std::string_view(r.buf.data() + kHeaderSize, static_cast<std::size_t>(f.header.size));
  r.consumed = total;
  return f;
}

}  // namespace qspec::harness::worker
