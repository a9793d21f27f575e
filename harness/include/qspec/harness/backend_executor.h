// How the run loop reaches a backend: in this process, or through a worker subprocess.
//
// The run loop (runner.h) asks an executor for one test at a time and judges what comes back.
// An executor either returns the backend's own answer (status, message, outputs) or a fault the
// harness observed itself: the worker died (CRASH), did not answer in time (TIMEOUT), or
// misused its buffers (ERROR with the harness's reason). See backend_worker.h for the isolated
// executor and docs/running.md ("Isolation") for the policy.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "qspec/harness/backend_loader.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/verdict.h"

namespace qspec::harness {

struct BackendCall {
  bool supported = true;         // false: the backend does not claim (op, convention); run() was not called
  BackendResult result;          // the backend's answer (when no fault)
  std::optional<Verdict> fault;  // Crash, Timeout or Error observed by the harness; overrides `result`
  std::string fault_reason;      // one line
  std::string fault_detail;      // multi-line (e.g. the worker's last stderr lines); may be empty
  bool abandoned = false;        // interrupted (SIGINT/SIGTERM) before it finished: not a result
};

class BackendExecutor {
 public:
  virtual ~BackendExecutor() = default;
  virtual const std::string& name() const = 0;
  virtual const std::string& version() const = 0;
  virtual const std::string& source() const = 0;
  // Called before the first execute() of a file and after its last one; `f` stays alive in
  // between (an isolated executor forks its worker from this memory image).
  virtual void begin_file(const VectorFile& f) { (void)f; }
  virtual void end_file() {}
  // After begin_file: the tests of f the caller intends to execute, in order (f.tests indices).
  // A hint: an isolated executor sends them to its worker ahead of the calls; the caller may
  // still stop early or skip some.
  virtual void plan(const VectorFile& f, std::vector<std::size_t> tests) {
    (void)f;
    (void)tests;
  }
  // Whether the backend claims f's (op, convention) at all (its supports()). An isolated
  // executor that cannot find out (the worker crashed in supports()) answers true, so the
  // file's tests are run and get the CRASH verdict.
  virtual bool supports(const VectorFile& f) = 0;
  // Runs f.tests[test_index]. Never throws for a backend failure.
  virtual BackendCall execute(const VectorFile& f, std::size_t test_index) = 0;
};

// Calls the backend in this process (`qspec run --no-isolate`, library users, tests): a crash
// or hang of the backend is a crash or hang of the caller.
class InProcessExecutor : public BackendExecutor {
 public:
  explicit InProcessExecutor(const Backend& b) : b_(b) {}
  const std::string& name() const override { return b_.name(); }
  const std::string& version() const override { return b_.version(); }
  const std::string& source() const override { return b_.source(); }
  bool supports(const VectorFile& f) override { return b_.supports(f.op, f.convention); }
  BackendCall execute(const VectorFile& f, std::size_t test_index) override {
    BackendCall c;
    c.supported = b_.supports(f.op, f.convention);
    if (!c.supported) return c;
    const VectorTest& t = f.tests[test_index];
    c.result = b_.run(f.op, f.convention, t.attributes.dump(), t.inputs, t.expected);
    return c;
  }

 private:
  const Backend& b_;
};

}  // namespace qspec::harness
