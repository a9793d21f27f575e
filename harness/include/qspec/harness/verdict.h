// The verdict of one vector test on one backend, and its name as printed and reported.
#pragma once

#include <optional>
#include <string_view>

namespace qspec::harness {

// PASS: the outputs equal the expected ones bit for bit, or an invalid input was rejected.
// FAIL: a wrong output, a valid input rejected, or an invalid input accepted.
// ERROR: the backend reported an internal error (or threw); it costs only this test.
// UNSUPPORTED: the backend does not implement this op/convention/parameter set.
enum class Verdict { Pass, Fail, Error, Unsupported };

constexpr std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Error: return "ERROR";
    case Verdict::Unsupported: return "UNSUPPORTED";
  }
  return "?";
}

inline std::optional<Verdict> verdict_from_name(std::string_view s) {
  for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Error, Verdict::Unsupported})
    if (verdict_name(v) == s) return v;
  return std::nullopt;
}

}  // namespace qspec::harness
