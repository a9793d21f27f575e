// The verdict of one vector test on one backend, and its name as printed and reported.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace qspec::harness {

// PASS: the outputs equal the expected ones bit for bit, or an invalid input was rejected.
// FAIL: a wrong output, a valid input rejected, or an invalid input accepted.
// ERROR: the backend reported an internal error (or threw), or the harness caught it misusing
//   its buffers (changed an output descriptor, wrote before an output, leaked memory); it costs
//   only this test.
// UNSUPPORTED: the backend does not implement this op/convention/parameter set.
// CRASH: the backend's worker process died during this test (a signal such as SIGSEGV or
//   SIGABRT, exit() called, a write past the end of an output buffer); the worker is restarted.
// TIMEOUT: the backend did not return within `--timeout`; its worker was killed and restarted.
// CRASH and TIMEOUT exist only with worker isolation (the default of `qspec run`).
// SKIPPED: not run, because the tests before it in its vector file ended in a row of CRASH and
//   TIMEOUT verdicts (RunOptions::max_consecutive_faults, `--max-consecutive-faults`): a
//   backend that hangs on everything must not cost timeout x tests. It counts as a failure.
enum class Verdict { Pass, Fail, Error, Unsupported, Crash, Timeout, Skipped };

// Every verdict, in report order: code that tabulates verdicts iterates this.
inline constexpr std::array<Verdict, 7> kAllVerdicts = {Verdict::Pass,  Verdict::Fail,    Verdict::Error,  Verdict::Unsupported,
                                                        Verdict::Crash, Verdict::Timeout, Verdict::Skipped};

constexpr std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Error: return "ERROR";
    case Verdict::Unsupported: return "UNSUPPORTED";
    case Verdict::Crash: return "CRASH";
    case Verdict::Timeout: return "TIMEOUT";
    case Verdict::Skipped: return "SKIPPED";
  }
  return "?";
}

inline std::optional<Verdict> verdict_from_name(std::string_view s) {
  for (Verdict v : kAllVerdicts)
    if (verdict_name(v) == s) return v;
  return std::nullopt;
}

}  // namespace qspec::harness
