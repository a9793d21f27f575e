// qspec's handle on one worker process, whatever runs in it: how it is started, its output, its end.
//
// Every kind of worker (today the forked plugin worker, plugin_worker.h) is started through
// fork_worker_child: a socket pair is its channel to qspec, its stdout and stderr go to a pipe
// that qspec drains continuously (so a chatty backend never blocks) and keeps the tail of, for
// crash reasons; its stdin is /dev/null; it dies with qspec (PR_SET_PDEATHSIG).
//
// Each worker leads a process group of its own, and ending a worker ends its group: processes a
// backend forks (helpers, daemons) go with the worker when it is restarted, when the run ends,
// and when qspec is interrupted, instead of outliving qspec. (A process that leaves the group
// with setsid/setpgid escapes this, as it would escape a terminal's job control.) Being in
// another group also keeps the terminal's Ctrl-C away from workers: qspec decides.
//
// ChildProcess knows when the worker ended even while another process (a grandchild that
// inherited the socket) keeps its channel open: it watches a pidfd (Linux >= 5.3), else polls.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace qspec::harness::worker {

class ChildProcess {
 public:
  ChildProcess(pid_t pid, int output_fd);
  ~ChildProcess();  // kills and reaps it if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int output_fd() const { return out_; }  // -1 once it closed its output
  // Readable (POLLIN) once the process ended; -1 when the kernel has no pidfd (poll exited()).
  int exit_fd() const { return pidfd_; }
  // Whether the process ended (it is not reaped: wait_status() needs reap()).
  bool exited() const;
  bool reaped() const { return reaped_; }
  int wait_status() const { return wait_status_; }  // valid once reaped()

  // Reads what the worker wrote so far (non-blocking) into the kept tail.
  void drain_output();
  // Waits for the process to end (it is exiting, or was killed), killing it if it lingers, then
  // kills what is left of its process group and reaps it.
  void reap(double grace_seconds);
  // Kills the process and its process group, and reaps it.
  void kill_now();
  // The last `lines` non-empty lines of the worker's output.
  std::vector<std::string> tail_lines(std::size_t lines) const;

 private:
  void kill_group();

  pid_t pid_ = -1;
  int pidfd_ = -1;
  int out_ = -1;
  std::string out_tail_;
  bool reaped_ = false;
  int wait_status_ = 0;
};

struct StartedChild {
  int channel = -1;  // qspec's end of the socket pair (close-on-exec)
  std::unique_ptr<ChildProcess> process;
};

// Forks a worker. In the child: a process group of its own, PR_SET_PDEATHSIG, SIGINT ignored
// (qspec decides what an interrupt means), stdin from /dev/null, stdout and stderr into the
// output pipe; then `body(channel)` runs with the child's end of the socket pair and must not
// return. Throws BackendLoadError if the socket, the
// pipe or the process cannot be created.
StartedChild fork_worker_child(const std::function<void(int channel)>& body);

}  // namespace qspec::harness::worker
