// `qspec sweep` execution: child processes (fork/execve, merged output pipes, poll), J at a time.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "qspec/harness/sweep.h"

extern char** environ;

namespace qspec::harness::sweep {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A running child whose stdout and stderr both go to one pipe we read.
struct Child {
  pid_t pid = -1;
  int fd = -1;  // read end; -1 once EOF was seen
  Clock::time_point start;
  ChildResult result;
  std::size_t index = 0;  // position in the caller's list
  std::map<fs::path, fs::file_time_type> ce_before;  // counterexample files present before the run
};

// The environment for execve: ours, with `overrides` replacing or adding entries.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos && overrides.count(kv.substr(0, eq))) continue;
    env.push_back(kv);
  }
  for (const auto& [k, v] : overrides) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// Starts argv with the environment overrides. An exec failure is reported through a second
// close-on-exec pipe (it stays empty when execve succeeds), so the parent can tell "could not
// run" from "ran and failed".
Child spawn(std::vector<std::string> argv, const std::map<std::string, std::string>& env_overrides) {
  Child c;
  c.start = Clock::now();
  std::vector<std::string> env = child_environment(env_overrides);
  std::vector<char*> argv_p = c_strings(argv), env_p = c_strings(env);
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw SweepError(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    throw SweepError(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) throw SweepError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until execve.
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::execve(argv_p[0], argv_p.data(), env_p.data());
    const int e = errno;
    [[maybe_unused]] const auto n = ::write(err[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  int e = 0;
  ssize_t n;
  do n = ::read(err[0], &e, sizeof e);
  while (n < 0 && errno == EINTR);
  ::close(err[0]);
  c.pid = pid;
  c.fd = out[0];
  if (n == static_cast<ssize_t>(sizeof e)) {
    c.result.exec_failed = true;
    c.result.output = "cannot execute " + argv[0] + ": " + std::strerror(e) + "\n";
  }
  return c;
}

// Reads what is available; at EOF closes the pipe and reaps the child.
void pump(Child& c) {
  char buf[65536];
  const ssize_t n = ::read(c.fd, buf, sizeof buf);
  if (n > 0) {
    c.result.output.append(buf, static_cast<std::size_t>(n));
    return;
  }
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  ::close(c.fd);
  c.fd = -1;
  int st = 0;
  while (::waitpid(c.pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) c.result.exit_code = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) c.result.signal = WTERMSIG(st);
  c.result.seconds = seconds_since(c.start);
}

// Waits up to `wait_ms` for output of any running child and consumes it; kills children past
// their timeout. Returns the indices (into `running`) of children that finished.
std::vector<std::size_t> step(std::vector<Child>& running, double timeout_seconds, int wait_ms) {
  std::vector<pollfd> fds;
  for (const auto& c : running) fds.push_back({c.fd, POLLIN, 0});
  const int n = ::poll(fds.data(), fds.size(), wait_ms);
  if (n < 0 && errno != EINTR) throw SweepError(std::string("poll: ") + std::strerror(errno));
  std::vector<std::size_t> done;
  for (std::size_t i = 0; i < running.size(); ++i) {
    Child& c = running[i];
    if (n > 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) pump(c);
    if (c.fd >= 0 && timeout_seconds > 0 && !c.result.timed_out && seconds_since(c.start) > timeout_seconds) {
      // Kill and reap it now rather than waiting for EOF: a grandchild it started may still hold
      // the pipe open. What the child printed so far stays in the output.
      ::kill(c.pid, SIGKILL);
      c.result.timed_out = true;
      int st = 0;
      while (::waitpid(c.pid, &st, 0) < 0 && errno == EINTR) {
      }
      if (WIFSIGNALED(st)) c.result.signal = WTERMSIG(st);
      if (WIFEXITED(st)) c.result.exit_code = WEXITSTATUS(st);
      ::close(c.fd);
      c.fd = -1;
      c.result.seconds = seconds_since(c.start);
    }
    if (c.fd < 0) done.push_back(i);
  }
  return done;
}

std::map<fs::path, fs::file_time_type> json_files(const fs::path& dir) {
  std::map<fs::path, fs::file_time_type> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json" && e.is_regular_file(ec)) files[e.path()] = e.last_write_time(ec);
  return files;
}

fs::path counterexample_dir(const SweepOptions& o, const PropertyTarget& t) { return o.out_dir / unit_name(t); }

PropertyOutcome classify(const PropertyTarget& t, const Child& c, const SweepOptions& o) {
  PropertyOutcome p;
  p.target = t;
  p.output = c.result.output;
  p.exit_code = c.result.exit_code;
  p.signal = c.result.signal;
  p.seconds = c.result.seconds;
  p.report = parse_property_output(p.output);
  if (c.result.exec_failed) {
    p.status = Status::Crash;
    p.reason = "could not be started";
  } else if (c.result.timed_out) {
    p.status = Status::Timeout;
    p.reason = "killed after " + std::to_string(o.timeout_seconds) + " s";
  } else if (c.result.signal) {
    p.status = Status::Crash;
    p.reason = std::string("killed by signal ") + std::to_string(c.result.signal) + " (" + ::strsignal(c.result.signal) + ")";
  } else if (c.result.exit_code == 0 && p.report.gtest_skipped) {
    p.status = Status::Skip;
  } else if (c.result.exit_code == 0 && p.report.gtest_ok) {
    p.status = Status::Pass;
    if (p.report.used_rapidcheck) p.cases = o.cases;
  } else {
    p.status = Status::Fail;
    if (p.report.falsified_after) {
      p.cases = p.report.falsified_after;
      p.reason = "falsifiable after " + std::to_string(*p.report.falsified_after) + " tests";
      if (p.report.shrinks) p.reason += " and " + std::to_string(*p.report.shrinks) + " shrinks";
    } else if (p.report.gave_up_after) {
      p.cases = p.report.gave_up_after;
      p.reason = "gave up after " + std::to_string(*p.report.gave_up_after) + " tests (too many discarded cases)";
    } else if (c.result.exit_code == 0) {
      p.reason = "exit status 0 but the test did not report OK (was it run?)";
    } else {
      p.reason = "exit status " + std::to_string(c.result.exit_code);
    }
  }
  // Counterexample files this run created or rewrote.
  for (const auto& [path, mtime] : json_files(counterexample_dir(o, t))) {
    const auto before = c.ce_before.find(path);
    if (before == c.ce_before.end() || before->second != mtime) p.counterexample_files.push_back(path);
  }
  return p;
}

void keep_log(PropertyOutcome& p, const SweepOptions& o) {
  std::error_code ec;
  const fs::path dir = o.out_dir / "logs";
  fs::create_directories(dir, ec);
  const fs::path file = dir / (unit_name(p.target) + ".log");
  std::ofstream f(file);
  f << p.output;
  if (f) p.log_file = file;
}

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::Pass: return "PASS";
    case Status::Fail: return "FAIL";
    case Status::Skip: return "SKIP";
    case Status::Timeout: return "TIMEOUT";
    case Status::Crash: return "CRASH";
  }
  return "?";
}

std::string shell_quote(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-") ==
                                       std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string rc_params(const SweepOptions& o) {
  std::string p = "seed=" + std::to_string(o.seed) + " max_success=" + std::to_string(o.cases);
  if (!o.rc_extra.empty()) p += " " + o.rc_extra;
  return p;
}

std::string rc_params(const SweepOptions& o, const PropertyTarget& t) {
  if (!t.seed) return rc_params(o);
  SweepOptions unit = o;
  unit.seed = *t.seed;
  return rc_params(unit);
}

std::vector<std::string> property_argv(const PropertyTarget& t) { return {t.binary.string(), "--gtest_filter=" + t.test}; }

ChildResult run_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env_overrides,
                      double timeout_seconds) {
  std::vector<Child> running;
  running.push_back(spawn(argv, env_overrides));
  while (running.front().fd >= 0) step(running, timeout_seconds, 100);
  return running.front().result;
}

std::vector<PropertyOutcome> run_sweep(const std::vector<PropertyTarget>& targets, const SweepOptions& o,
                                       const SweepObserver& observer) {
  std::vector<PropertyOutcome> outcomes(targets.size());
  std::vector<Child> running;
  std::size_t next = 0, done = 0;
  const unsigned jobs = o.jobs ? o.jobs : 1;
  auto last_tick = Clock::now();
  while (done < targets.size()) {
    while (running.size() < jobs && next < targets.size()) {
      const PropertyTarget& t = targets[next];
      std::map<std::string, std::string> env = {{"RC_PARAMS", rc_params(o, t)},
                                                {"QSPEC_COUNTEREXAMPLE_DIR", counterexample_dir(o, t).string()},
                                                {"GTEST_COLOR", "no"}};
      const auto before = json_files(counterexample_dir(o, t));
      if (observer.started) observer.started(t);
      running.push_back(spawn(property_argv(t), env));
      running.back().index = next;
      running.back().ce_before = before;
      ++next;
    }
    const std::vector<std::size_t> finished = step(running, o.timeout_seconds, 100);
    for (auto it = finished.rbegin(); it != finished.rend(); ++it) {  // erase from the back
      Child& c = running[*it];
      PropertyOutcome p = classify(targets[c.index], c, o);
      if (p.status != Status::Pass && p.status != Status::Skip) keep_log(p, o);
      outcomes[c.index] = std::move(p);
      ++done;
      if (observer.finished) observer.finished(outcomes[c.index], done, targets.size());
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(*it));
    }
    if (observer.tick && Clock::now() - last_tick >= std::chrono::milliseconds(100)) {
      last_tick = Clock::now();
      std::vector<const PropertyTarget*> names;
      for (const auto& c : running) names.push_back(&targets[c.index]);
      observer.tick(done, targets.size(), names);
    }
  }
  return outcomes;
}

}  // namespace qspec::harness::sweep
