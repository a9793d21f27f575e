// Starting, draining, reaping and killing a worker process (worker_child.h).
#include "worker_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "qspec/harness/backend_loader.h"

namespace qspec::harness::worker {
namespace {

constexpr std::size_t kOutputTail = 16384;  // bytes of worker output qspec keeps

using Clock = std::chrono::steady_clock;

}  // namespace

ChildProcess::ChildProcess(pid_t pid, int output_fd) : pid_(pid), out_(output_fd) {
  ::fcntl(out_, F_SETFL, ::fcntl(out_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  kill_now();
  if (out_ >= 0) ::close(out_);
}

void ChildProcess::drain_output() {
  if (out_ < 0) return;
  char buf[8192];
  for (;;) {
    const ssize_t k = ::read(out_, buf, sizeof buf);
    if (k > 0) {
      out_tail_.append(buf, static_cast<std::size_t>(k));
      if (out_tail_.size() > 2 * kOutputTail) out_tail_.erase(0, out_tail_.size() - kOutputTail);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) {
      ::close(out_);
      out_ = -1;
    }
    return;  // EAGAIN: nothing more for now
  }
}

void ChildProcess::reap(double grace_seconds) {
  if (reaped_ || pid_ <= 0) return;
  const auto t0 = Clock::now();
  for (;;) {
    const pid_t r = ::waitpid(pid_, &wait_status_, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (std::chrono::duration<double>(Clock::now() - t0).count() > grace_seconds) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &wait_status_, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    ::usleep(1000);
  }
  reaped_ = true;
  drain_output();
}

void ChildProcess::kill_now() {
  if (!reaped_ && pid_ > 0) ::kill(pid_, SIGKILL);
  reap(5);
}

std::vector<std::string> ChildProcess::tail_lines(std::size_t lines) const {
  std::vector<std::string> all;
  std::string cur;
  const std::string& s = out_tail_.size() > kOutputTail ? out_tail_.substr(out_tail_.size() - kOutputTail) : out_tail_;
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

StartedChild fork_worker_child(const std::function<void(int channel)>& body) {
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
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive qspec
    if (::getppid() != parent) ::_exit(0);
    ::signal(SIGINT, SIG_IGN);  // Ctrl-C reaches the whole process group: the parent decides
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[1]);
    body(sv[1]);
    ::_exit(127);  // body must not return
  }
  ::close(sv[1]);
  ::close(out[1]);
  return {sv[0], std::make_unique<ChildProcess>(pid, out[0])};
}

}  // namespace qspec::harness::worker
