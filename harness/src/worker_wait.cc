// Waiting for a worker's frame within the timeout, and the CRASH/TIMEOUT reasons (worker_wait.h).
#include "worker_wait.h"

#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "worker_frames.h"

namespace qspec::harness::worker {
namespace {

using Clock = std::chrono::steady_clock;

std::string signal_text(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  const char* desc = ::sigdescr_np(sig);
  std::string s = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (desc) s += std::string(" (") + desc + ")";
  return s;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

void read_plugin_header(const char* header, std::uint32_t& kind, std::uint64_t& payload_size) {
  const FrameHeader h = read_header(header);
  kind = h.kind;
  payload_size = h.size;
}

std::string plugin_not_a_frame(std::string_view) {
  return "the worker's reply is not a frame of the worker protocol (something else wrote into qspec's socket to "
         "the worker)";
}

std::string plugin_too_large(std::uint64_t announced, std::uint64_t max_payload) {
  return "the worker sent a reply frame of " + std::to_string(announced) +
         " bytes, more than the reply can hold (at most " + std::to_string(max_payload) +
         " bytes; for a test: its outputs, a message and a few fields)";
}

}  // namespace

const FrameFormat kPluginFrames = [] {
  FrameFormat f{{}, read_plugin_header, plugin_not_a_frame, plugin_too_large};
  std::memcpy(f.magic, &kMagic, 4);  // as the worker writes it: host byte order (both ends are this program)
  return f;
}();

Waited wait_frame(ChildProcess& p, Channel& c, const WaitLimits& limits, std::uint64_t max_payload,
                  const FrameFormat& format) {
  const auto t0 = Clock::now();
  for (;;) {
    // A complete frame already buffered? (Bytes that do not begin with the magic are rejected as
    // soon as 4 of them came: a peer printing text where frames belong is named at once.)
    const bool ours = std::memcmp(c.inbuf.data(), format.magic, std::min<std::size_t>(4, c.inbuf.size())) == 0;
    if (!ours || c.inbuf.size() >= kHeaderSize) {
      std::uint32_t kind = 0;
      std::uint64_t size = 0;
      if (ours) format.read(c.inbuf.data(), kind, size);
      if (!ours || size > max_payload) {  // not the protocol's bytes, or more than the reply can hold
        std::string why =
            ours ? format.too_large(size, max_payload) : format.not_a_frame(std::string_view(c.inbuf).substr(0, 64));
        p.kill_now();
        c.inbuf.clear();
        c.inbuf.shrink_to_fit();
        return {WaitEnd::Corrupt, 0, std::move(why)};
      }
      if (c.inbuf.size() - kHeaderSize >= size) {
        Waited r{WaitEnd::Frame, kind, c.inbuf.substr(kHeaderSize, size)};
        c.inbuf.erase(0, kHeaderSize + size);
        return r;
      }
    }
    if (limits.interrupt && *limits.interrupt) {
      p.kill_now();
      return {WaitEnd::Interrupted, 0, {}};
    }
    int wait_ms = 200;  // also bounds how late an interrupt that slipped past poll is noticed
    if (limits.timeout_seconds > 0) {
      const double left = limits.timeout_seconds - std::chrono::duration<double>(Clock::now() - t0).count();
      if (left <= 0) {
        p.kill_now();
        return {WaitEnd::Timeout, 0, {}};
      }
      wait_ms = std::min(wait_ms, static_cast<int>(left * 1000) + 1);
    }
    // The socket, the worker's end (a grandchild holding the socket open must not hide it) and
    // its output; poll skips the descriptors that are -1.
    const int out = p.output_fd(), ended = p.exit_fd();
    pollfd fds[3] = {{c.fd, POLLIN, 0}, {ended, POLLIN, 0}, {out, POLLIN, 0}};
    const int n = ::poll(fds, 3, wait_ms);
    if (n < 0 && errno != EINTR) {
      p.kill_now();
      return {WaitEnd::Died, 0, {}};
    }
    if (n > 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) p.drain_output();
    if (n > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      char buf[65536];
      const ssize_t k = ::recv(c.fd, buf, sizeof buf, 0);
      if (k > 0) {
        c.inbuf.append(buf, static_cast<std::size_t>(k));
      } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
        p.reap(2);  // the socket closed: the worker is gone or going
        return {WaitEnd::Died, 0, {}};
      }
      continue;  // everything the worker sent is read before its end is noted
    }
    if ((ended >= 0 && (fds[1].revents & POLLIN)) || (ended < 0 && p.exited())) {
      p.reap(2);
      return {WaitEnd::Died, 0, {}};
    }
  }
}

BackendCall fault_call(ChildProcess& p, const Waited& w, const std::string& during, double timeout_seconds) {
  BackendCall c;
  const WaitEnd end = w.end;
  if (end == WaitEnd::Interrupted) {
    c.abandoned = true;
    return c;
  }
  if (end == WaitEnd::Frame) {
    p.kill_now();
    c.fault = Verdict::Crash;
    c.fault_reason = "the worker sent an unexpected reply (frame kind " + std::to_string(w.kind) + ") " + during +
                     "; the worker was killed";
  } else if (end == WaitEnd::Corrupt) {
    c.fault = Verdict::Crash;
    c.fault_reason = w.payload + " " + during + "; the worker was killed";
  } else if (end == WaitEnd::Timeout) {
    c.fault = Verdict::Timeout;
    c.fault_reason =
        "no answer within " + seconds_text(timeout_seconds) + " s (--timeout) " + during + "; the worker was killed";
  } else {
    c.fault = Verdict::Crash;
    const int st = p.wait_status();
    if (!p.reaped())
      c.fault_reason = "the worker stopped answering " + during;
    else if (WIFSIGNALED(st))
      c.fault_reason = "backend crashed " + during + ": " + signal_text(WTERMSIG(st));
    else if (WIFEXITED(st))
      c.fault_reason = "backend called exit(" + std::to_string(WEXITSTATUS(st)) + ") " + during;
    else
      c.fault_reason = "the worker ended " + during;
  }
  c.fault_reason += last_output_text(p);
  c.fault_detail = output_detail(p);
  return c;
}

std::string last_output_text(const ChildProcess& p) {
  const auto last = p.tail_lines(3);
  if (last.empty()) return "";
  std::string joined;
  for (const auto& l : last) joined += (joined.empty() ? "" : " | ") + l;
  if (joined.size() > 400) joined = joined.substr(0, 397) + "...";
  return "; its last output: " + joined;
}

std::string output_detail(const ChildProcess& p) {
  std::string s;
  for (const auto& l : p.tail_lines(20)) s += "  worker output: " + l + "\n";
  return s;
}

}  // namespace qspec::harness::worker
