// qspec's side of the forked plugin worker: start it, hello, supports, run one test (plugin_worker.h).
#include "plugin_worker.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "worker_process.h"

namespace qspec::harness::worker {
namespace {

class PluginWorker : public Worker {
 public:
  explicit PluginWorker(StartedChild started) : process_(std::move(started.process)) {
    channel_.fd = started.channel;
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    if (::getsockopt(channel_.fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) == 0 && sndbuf > 0)
      pipeline_bytes_ = std::min<std::size_t>(32 << 10, static_cast<std::size_t>(sndbuf) / 4);
  }
  ~PluginWorker() override {
    if (channel_.fd >= 0) ::close(channel_.fd);
    process_.reset();  // killed and reaped
  }

  WorkerStart handshake(const WaitLimits& limits) override {
    const Waited got = wait_frame(*process_, channel_, limits, kMaxHelloPayload);
    WorkerStart s;
    if (got.end == WaitEnd::Frame && got.kind == kHello && parse_hello(got.payload, s.id)) {
      s.ok = true;
      return s;
    }
    alive_ = false;
    if (got.end == WaitEnd::Frame && got.kind == kHelloError) {
      s.error = got.payload;
      return s;
    }
    s.fault = fault_call(*process_, got, "while loading", limits.timeout_seconds);
    return s;
  }

  std::optional<BackendCall> supports(const std::string& op, const std::string& convention, const WaitLimits& limits,
                                      bool& supported) override {
    const Waited got = exchange(supports_frame(op, convention), limits, kMaxSupportsPayload);
    if (got.end == WaitEnd::Frame && got.kind == kSupportsReply && parse_supports_reply(got.payload, supported))
      return std::nullopt;
    return fault(got, "in supports(\"" + op + "\", \"" + convention + "\")", limits);
  }

  BackendCall run(const VectorFile& f, const VectorTest& t, const WaitLimits& limits) override {
    build_run_frame(request_, f, t);
    // A failed send means the worker is gone: receive_run finds the socket closed.
    (void)send_all(channel_.fd, request_);
    return receive_run(t, limits);
  }

  // The worker (worker_process.cc) reads frames back to back and answers in order. A quarter of
  // the socket's send buffer (the kernel's default 208 KiB; each queued request is charged its
  // size plus kSkbOverhead) at most 32 KiB.
  std::size_t pipeline_bytes() const override { return pipeline_bytes_; }
  std::size_t send_run(const VectorFile& f, const VectorTest& t, std::size_t budget) override {
    build_run_frame(request_, f, t);
    const std::size_t charge = request_.size() + kSkbOverhead;
    if (charge > budget) return 0;
    (void)send_all(channel_.fd, request_);  // failed: the worker is gone (receive_run says so)
    return charge;
  }

  BackendCall receive_run(const VectorTest& t, const WaitLimits& limits) override {
    const Waited got = wait_frame(*process_, channel_, limits, max_result_payload(t));
    if (got.end == WaitEnd::Frame && got.kind == kGuardFault) {  // the worker named its fault and exited
      process_->reap(2);
      alive_ = false;
      BackendCall c;
      c.fault = Verdict::Crash;
      c.fault_reason = got.payload;
      c.fault_detail = output_detail(*process_);
      return c;
    }
    if (got.end != WaitEnd::Frame || got.kind != kResult) return fault(got, "in run()", limits);
    ResultReply reply;
    BackendCall c;
    if (!parse_result(got.payload, t.expected, reply)) {
      process_->kill_now();
      alive_ = false;
      c.fault = Verdict::Crash;
      c.fault_reason = "the worker sent a malformed reply";
      return c;
    }
    heap_growth_ = reply.heap_growth;
    if (!reply.harness_error.empty()) {  // the harness caught the backend misusing its buffers
      c.fault = Verdict::Error;
      c.fault_reason = reply.harness_error;
      if (!reply.message.empty()) c.fault_detail = "  the backend's message: " + reply.message + "\n";
      return c;
    }
    c.result.status = static_cast<qspec_status>(reply.status);
    c.result.message = std::move(reply.message);
    c.result.outputs = std::move(reply.outputs);
    return c;
  }

  bool alive() const override { return alive_; }
  std::uint64_t heap_growth() const override { return heap_growth_; }

 private:
  // Sends a request and waits for the reply frame.
  Waited exchange(const std::string& request, const WaitLimits& limits, std::uint64_t max_reply) {
    if (send_all(channel_.fd, request)) return wait_frame(*process_, channel_, limits, max_reply);
    process_->reap(2);
    return {WaitEnd::Died, 0, {}};
  }

  // The fault for a reply that did not come or was not the expected one; the worker is ended.
  BackendCall fault(const Waited& got, const std::string& during, const WaitLimits& limits) {
    alive_ = false;
    return fault_call(*process_, got, during, limits.timeout_seconds);
  }

  std::unique_ptr<ChildProcess> process_;
  Channel channel_;
  static constexpr std::size_t kSkbOverhead = 1024;  // the kernel's bookkeeping per queued send
  std::string request_;                              // the kRun frame being sent (reused)
  std::size_t pipeline_bytes_ = 0;
  std::uint64_t heap_growth_ = 0;
  bool alive_ = true;
};

}  // namespace

std::unique_ptr<Worker> PluginWorkerFactory::spawn() {
  const std::string& spec = spec_;
  const WorkerOptions& opt = opt_;
  return std::make_unique<PluginWorker>(
      fork_worker_child([&spec, &opt](int channel) { serve_plugin(channel, spec, opt); }));
}

}  // namespace qspec::harness::worker
