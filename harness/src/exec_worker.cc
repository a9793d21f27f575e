// qspec's side of an exec backend: start the program, handshake, claims, one test per exchange (exec_worker.h).
#include "exec_worker.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "exec_frames.h"
#include "qspec/core/catalogue.h"
#include "worker_frames.h"

extern char** environ;

namespace qspec::harness::worker {
namespace {

// How long a backend may take to exit on its own once qspec closed its stdin, before its process
// group is killed.
constexpr double kExitGraceSeconds = 1.0;

class ExecWorker : public Worker {
 public:
  ExecWorker(StartedChild started, const ExecCommand& command, const BackendOptions& options)
      : process_(std::move(started.process)), command_(command), options_(options) {
    channel_.fd = started.channel;
  }
  ~ExecWorker() override {
    if (channel_.fd >= 0) ::close(channel_.fd);  // EOF on its stdin: the backend's cue to exit
    process_->reap(kExitGraceSeconds);           // then its process group is killed
  }

  WorkerStart handshake(const WaitLimits& limits) override {
    WaitLimits start = limits;
    if (command_.start_timeout_seconds) start.timeout_seconds = *command_.start_timeout_seconds;
    const Waited got = exchange(exec_hello_frame(options_), start, kMaxExecHello);
    WorkerStart s;
    if (got.end != WaitEnd::Frame) {
      alive_ = false;
      s.fault = fault_call(*process_, got, "while starting", start.timeout_seconds);
      return s;
    }
    ExecHello hello;
    std::string error;
    if (!parse_exec_hello(split_exec_frame(got.payload, got.kind), hello, error)) return refuse(error);
    if (options_.all_conventions && !hello.all_conventions)
      return refuse(
          "cannot be asked for all conventions (--all-conventions): its hello answered \"all_conventions\": false, so "
          "it would claim only its own conventions. Run it without --all-conventions (docs/exec-protocol.md)");
    all_conventions_ = hello.all_conventions;
    for (const auto& c : hello.claims) {
      claimed_.insert({c.op, c.convention});
      claimed_ops_.insert(c.op);
    }
    s.ok = true;
    s.id = {hello.name, hello.version, command_.source};
    s.claims = std::move(hello.claims);
    return s;
  }

  // Answered from the claims of the handshake; in the all-conventions mode every catalogued
  // convention of a claimed op.
  std::optional<BackendCall> supports(const std::string& op, const std::string& convention, const WaitLimits&,
                                      bool& supported) override {
    supported = claimed_.count({op, convention}) > 0 ||
                (all_conventions_ && claimed_ops_.count(op) > 0 && catalogue::get().find(op, convention) != nullptr);
    return std::nullopt;
  }

  BackendCall run(const VectorFile& f, const VectorTest& t, const WaitLimits& limits) override {
    build_exec_run_frame(request_, ++id_, f, t);
    const Waited got = exchange(request_, limits, max_exec_result(t));
    if (got.end != WaitEnd::Frame) {
      alive_ = false;
      return fault_call(*process_, got, "in run()", limits.timeout_seconds);
    }
    ExecResult r = parse_exec_result(split_exec_frame(got.payload, got.kind), id_, t.expected);
    BackendCall c;
    if (r.kind == ExecResult::Answer) {
      c.result = std::move(r.result);
      return c;
    }
    if (r.kind == ExecResult::OutOfStep) {  // the replies no longer answer the requests: start afresh
      process_->kill_now();
      alive_ = false;
      c.fault = Verdict::Crash;
      c.fault_reason = r.problem + " in run(); the backend was killed" + last_output_text(*process_);
      c.fault_detail = output_detail(*process_);
      return c;
    }
    c.fault = Verdict::Error;  // a well-framed reply that does not fit the test: this test only
    c.fault_reason = r.problem;
    if (!r.result.message.empty()) c.fault_detail = "  the backend's message: " + r.result.message + "\n";
    return c;
  }

  bool alive() const override { return alive_; }
  std::uint64_t heap_growth() const override { return 0; }

 private:
  Waited exchange(const std::string& request, const WaitLimits& limits, std::uint64_t max_reply) {
    if (send_all(channel_.fd, request)) return wait_frame(*process_, channel_, limits, max_reply, kExecFrames);
    process_->reap(2);  // it closed its stdin: it is gone or going
    return {WaitEnd::Died, 0, {}};
  }

  // A handshake the backend answered, but not as the protocol wants: a load error for the user.
  WorkerStart refuse(const std::string& why) {
    process_->kill_now();
    alive_ = false;
    WorkerStart s;
    s.error = "backend '" + command_.source + "': " + why + last_output_text(*process_);
    return s;
  }

  std::unique_ptr<ChildProcess> process_;
  Channel channel_;
  const ExecCommand& command_;
  BackendOptions options_;
  std::set<std::pair<std::string, std::string>> claimed_;
  std::set<std::string> claimed_ops_;
  bool all_conventions_ = false;
  std::string request_;  // the run frame being sent (reused)
  std::uint64_t id_ = 0;
  bool alive_ = true;
};

}  // namespace

ExecWorkerFactory::ExecWorkerFactory(ExecCommand command, const WorkerOptions& options)
    : command_(std::move(command)), opt_(options) {
  // The environment the program gets: qspec's, with the manifest's variables set over it.
  std::set<std::string> overridden;
  for (const auto& [name, value] : command_.environment) {
    overridden.insert(name);
    env_strings_.push_back(name + "=" + value);
  }
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    if (!overridden.count(entry.substr(0, entry.find('=')))) env_strings_.push_back(entry);
  }
}

std::unique_ptr<Worker> ExecWorkerFactory::spawn() {
  std::vector<char*> argv, envp;
  for (auto& a : command_.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_strings_) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string& dir = command_.working_directory;
  StartedChild started = fork_worker_child([&argv, &envp, &dir](int channel) {
    // The socket becomes the program's stdin and stdout; its stderr stays qspec's output pipe.
    ::dup2(channel, STDIN_FILENO);
    ::dup2(channel, STDOUT_FILENO);
    if (channel > STDERR_FILENO) ::close(channel);
    if (!dir.empty() && ::chdir(dir.c_str()) != 0) {
      std::fprintf(stderr, "qspec: cannot enter the working directory '%s': %s\n", dir.c_str(), std::strerror(errno));
      ::_exit(127);
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "qspec: cannot start '%s': %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  });
  return std::make_unique<ExecWorker>(std::move(started), command_, opt_.backend);
}

}  // namespace qspec::harness::worker
