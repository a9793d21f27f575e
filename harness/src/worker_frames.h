// The framing of the worker socket: {u32 magic, u32 kind, u64 payload size, payload} frames,
// the payload's building blocks (u32, u64, length-prefixed strings) and blocking send/receive.
//
// Both sides of the plugin worker (worker_process.cc in the child, plugin_worker.cc in qspec)
// use it; what each frame kind carries is in worker_messages.h. Integers are in host byte order:
// both ends are the same program on the same machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace qspec::harness::worker {

constexpr std::uint32_t kMagic = 0x57505351;  // "QSPW"
enum Kind : std::uint32_t {
  kHello = 1,          // worker -> qspec: the backend loaded (name, version, source)
  kHelloError = 2,     // worker -> qspec: it could not be loaded (the loader's message)
  kResult = 3,         // worker -> qspec: the answer to a kRun
  kGuardFault = 4,     // worker -> qspec: a write hit a guard page (the reason); the worker exits
  kSupports = 5,       // qspec -> worker: supports(op, convention)?
  kSupportsReply = 6,  // worker -> qspec: u32 0 or 1
  kRun = 7,            // qspec -> worker: run one test
};
constexpr std::size_t kHeaderSize = 16;
// The largest request the worker accepts from qspec (which is trusted: beyond it the stream is
// garbage). What qspec accepts from a worker is bounded per request (worker_messages.h).
constexpr std::uint64_t kMaxRequestPayload = 1ull << 33;  // 8 GiB

struct FrameHeader {
  std::uint32_t magic = 0, kind = 0;
  std::uint64_t size = 0;
};

inline FrameHeader read_header(const char* p) {
  FrameHeader h;
  std::memcpy(&h.magic, p, 4);
  std::memcpy(&h.kind, p + 4, 4);
  std::memcpy(&h.size, p + 8, 8);
  return h;
}

inline void put_u32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
inline void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
inline void put_str(std::string& s, const std::string& v) {
  put_u64(s, v.size());
  s += v;
}

// Building a frame in place (no copy of a large payload): begin_frame clears `s` and writes the
// header, the caller appends the payload, end_frame sets the size.
inline void begin_frame(std::string& s, Kind kind) {
  s.clear();
  put_u32(s, kMagic);
  put_u32(s, kind);
  put_u64(s, 0);
}
inline void end_frame(std::string& s) {
  const std::uint64_t size = s.size() - kHeaderSize;
  std::memcpy(s.data() + 8, &size, sizeof size);
}

inline std::string frame(Kind kind, const std::string& payload) {
  std::string f;
  begin_frame(f, kind);
  f += payload;
  end_frame(f);
  return f;
}

// Reads a payload front to back; any overrun marks it bad instead of reading past the end.
struct Reader {
  std::string_view s;
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
    std::string v(s.substr(pos, n));
    pos += n;
    return v;
  }
  // Skips n bytes (a packed tensor read in place); false if the payload is shorter.
  bool skip(std::uint64_t n) {
    if (bad || s.size() - pos < n) return !(bad = true);
    pos += n;
    return true;
  }
};

// Writes all of `data`; MSG_NOSIGNAL: a dead peer is an error return, not a SIGPIPE.
bool send_all(int fd, const char* data, std::size_t n);
inline bool send_all(int fd, const std::string& bytes) { return send_all(fd, bytes.data(), bytes.size()); }
// Reads exactly n bytes; false at EOF or on an error.
bool recv_all(int fd, char* out, std::size_t n);

// The worker's receiving end: frames arrive back to back (qspec sends requests ahead of the
// replies, WorkerExecutor's pipeline), so the bytes after one frame are the next one's and are
// kept. `buf` only grows (it is reused); one recv takes up to 64 KiB or the rest of a larger frame.
struct FrameReader {
  std::vector<char> buf;
  std::size_t have = 0;      // bytes received into buf
  std::size_t consumed = 0;  // of them, the frames already returned
};
struct ReceivedFrame {
  enum { Ok, Closed, Garbage } end = Closed;  // Closed: EOF or an error
  FrameHeader header;
  std::string_view payload;  // into the reader's buf, valid until the next call
};
// The next frame; its header is checked against max_payload.
ReceivedFrame recv_frame(int fd, FrameReader& r, std::uint64_t max_payload);

}  // namespace qspec::harness::worker
