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

ReceivedFrame recv_frame(int fd, std::vector<char>& buf, std::uint64_t max_payload) {
  constexpr std::size_t kFirstRead = 1 << 16;
  if (buf.size() < kFirstRead) buf.resize(kFirstRead);
  ReceivedFrame f;
  std::size_t got = 0;
  while (got < kHeaderSize) {
    const ssize_t k = ::recv(fd, buf.data() + got, kFirstRead - got, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return f;
    got += static_cast<std::size_t>(k);
  }
  f.header = read_header(buf.data());
  if (f.header.magic != kMagic || f.header.size > max_payload || got > kHeaderSize + f.header.size) {
    f.end = ReceivedFrame::Garbage;
    return f;
  }
  const std::size_t total = kHeaderSize + static_cast<std::size_t>(f.header.size);
  if (buf.size() < total) buf.resize(total);
  if (!recv_all(fd, buf.data() + got, total - got)) return f;
  f.end = ReceivedFrame::Ok;
  f.payload = std::string_view(buf.data() + kHeaderSize, static_cast<std::size_t>(f.header.size));
  return f;
}

}  // namespace qspec::harness::worker
