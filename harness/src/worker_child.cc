// Starting, draining, reaping and killing a worker process (worker_child.h).
#include "worker_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>

#include "fork_guard.h"
#include "qspec/harness/backend_loader.h"

namespace qspec::harness::worker {
namespace {

constexpr std::size_t kOutputTail = 16384;  // bytes of worker output qspec keeps

using Clock = std::chrono::steady_clock;

// The process groups of the live workers, for kill_worker_process_groups() in a signal handler
// (lock-free: a slot is 0 or a group id).
constexpr std::size_t kGroupSlots = 64;
std::atomic<pid_t> g_groups[kGroupSlots];

void register_group(pid_t g) {
  for (auto& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, g)) return;
  }
}

void unregister_group(pid_t g) {
  for (auto& slot : g_groups) {
    pid_t mine = g;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return static_cast<int>(fd);
  }
#endif
  (void)pid;
  return -1;
}

}  // namespace

ChildProcess::ChildProcess(pid_t pid, int output_fd) : pid_(pid), pidfd_(open_pidfd(pid)), out_(output_fd) {
  ::fcntl(out_, F_SETFL, ::fcntl(out_, F_GETFL) | O_NONBLOCK);
  register_group(pid_);
}

ChildProcess::~ChildProcess() {
  kill_now();
  if (out_ >= 0) ::close(out_);
  if (pidfd_ >= 0) ::close(pidfd_);
}

bool ChildProcess::exited() const {
  if (reaped_) return true;
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_;
}

// While the worker is not reaped its pid (the group's id) cannot be reused, so the group killed
// is the worker's.
void ChildProcess::kill_group() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);  // had the worker not its own group yet
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
  while (!exited()) {
    if (std::chrono::duration<double>(Clock::now() - t0).count() > grace_seconds) break;
    ::usleep(1000);
  }
  kill_group();  // what the worker forked goes with it (and the worker, if it lingered)
  unregister_group(pid_);
  while (::waitpid(pid_, &wait_status_, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  drain_output();
}

void ChildProcess::kill_now() {
  kill_group();
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
  pid_t pid;
  {
    const std::lock_guard<std::mutex> no_load(fork_guard());  // fork_guard.h: no lock held elsewhere
    pid = ::fork();
  }
  if (pid < 0) {
    for (int fd : {sv[0], sv[1], out[0], out[1]}) ::close(fd);
    throw BackendLoadError(std::string("cannot fork a worker: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(sv[0]);
    ::close(out[0]);
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive qspec
    if (::getppid() != parent) ::_exit(0);
    ::signal(SIGINT, SIG_IGN);  // qspec decides what an interrupt means
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    const int null = ::open("/dev/null", O_RDONLY);  // a worker in a background group must not read the terminal
    if (null >= 0 && null != STDIN_FILENO) {
      ::dup2(null, STDIN_FILENO);
      ::close(null);
    }
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[1]);
    body(sv[1]);
    ::_exit(127);  // body must not return
  }
  ::setpgid(pid, pid);  // also here: the group exists before qspec may need to kill it
  ::close(sv[1]);
  ::close(out[1]);
  return {sv[0], std::make_unique<ChildProcess>(pid, out[0])};
}

}  // namespace qspec::harness::worker

namespace qspec::harness {

void kill_worker_process_groups() noexcept {
  for (auto& slot : worker::g_groups)
    if (const pid_t g = slot.load()) ::kill(-g, SIGKILL);
}

}  // namespace qspec::harness
