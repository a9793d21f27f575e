// `qspec sweep` output parsing: what one gtest + RapidCheck run printed (verdict, counterexample, replay string).
//
// RapidCheck's gtest integration (rapidcheck/gtest.h) reports a failure as a gtest failure whose
// message starts "Falsifiable after N tests[ and M shrinks]" (or "Gave up after N tests" when too
// many cases were discarded), followed by the shrunk arguments and the failed assertion. At exit
// it prints, on stderr, `RC_PARAMS="reproduce=..."` naming every failed property of the process;
// a sweep runs one property per process, so the string replays exactly that property. The
// "Using configuration:" line appears once RapidCheck reads RC_PARAMS, i.e. only in processes
// that ran a property (not a plain TEST).
#include <regex>
#include <sstream>

#include "qspec/harness/sweep.h"

namespace qspec::harness::sweep {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::string rtrim_lines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

PropertyReport parse_property_output(const std::string& output) {
  static const std::regex falsified_re(R"(Falsifiable after (\d+) tests?(?: and (\d+) shrinks?)?)");
  static const std::regex gave_up_re(R"(Gave up after (\d+) tests?)");
  static const std::regex reproduce_re(R"re(RC_PARAMS="reproduce=([^"\s]+)")re");

  PropertyReport r;
  r.used_rapidcheck = output.find("Using configuration:") != std::string::npos;
  std::smatch m;
  if (std::regex_search(output, m, falsified_re)) {
    r.falsified_after = std::stoull(m[1]);
    if (m[2].matched) r.shrinks = std::stoull(m[2]);
  }
  if (std::regex_search(output, m, gave_up_re)) r.gave_up_after = std::stoull(m[1]);
  if (std::regex_search(output, m, reproduce_re)) r.reproduce = m[1];

  // The failure block: from RapidCheck's first line (or, for a plain TEST, gtest's "file:line:
  // Failure" header) up to the test's closing "[  FAILED  ]" line.
  const bool rapidcheck_failure = r.falsified_after || r.gave_up_after;
  std::istringstream in(output);
  std::string line, block;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (starts_with(line, "[       OK ]")) r.gtest_ok = true;
    if (starts_with(line, "[  SKIPPED ]") && line.find('.') != std::string::npos) r.gtest_skipped = true;
    if (starts_with(line, "[  FAILED  ]")) {
      // gtest's end-of-run recap repeats "[  FAILED  ] Suite.Name" and "[  FAILED  ] 1 test, listed below:".
      if (line.find('.') != std::string::npos && line.find(" test, listed below") == std::string::npos &&
          line.find(" tests, listed below") == std::string::npos)
        r.gtest_failed = true;
      in_block = false;
      continue;
    }
    if (starts_with(line, "[ RUN      ]")) continue;
    if (!in_block && (rapidcheck_failure ? starts_with(line, "Falsifiable after") || starts_with(line, "Gave up after")
                                         : line.find(": Failure") != std::string::npos))
      in_block = true;
    const bool rapidcheck_banner = starts_with(line, "Using configuration:") || starts_with(line, "Some of your RapidCheck") ||
                                   starts_with(line, "RC_PARAMS=");
    if (in_block && !rapidcheck_banner && !starts_with(line, "[")) block += line + "\n";
  }
  r.failure_text = rtrim_lines(block);
  return r;
}

}  // namespace qspec::harness::sweep
