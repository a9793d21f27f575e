// The tests a built GoogleTest binary registers, read from its own --gtest_list_tests.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <sstream>

#include "qspec/spec/catalog.h"

namespace qspec::spec {
namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// "Inst/suite." (value-parameterized), "suite/0." (typed), "Prefix/suite/0." -> "suite".
std::string plain_suite(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string p; std::getline(in, p, '/');) parts.push_back(p);
  std::vector<std::string> named;
  for (const auto& p : parts)
    if (!p.empty() && p.find_first_not_of("0123456789") != std::string::npos) named.push_back(p);
  if (named.empty()) return s;
  return named.size() >= 2 ? named[1] : named[0];
}

// gtest's own rule (kDisableTestFilter "DISABLED_*:*/DISABLED_*", matched against the suite name
// and the test name separately).
bool is_disabled(const std::string& name) {
  return name.rfind("DISABLED_", 0) == 0 || name.find("/DISABLED_") != std::string::npos;
}

}  // namespace

std::vector<RegisteredTest> parse_gtest_list(const std::string& binary, const std::string& listing) {
  std::vector<RegisteredTest> out;
  std::istringstream in(listing);
  std::string line, suite_full;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto hash = line.find("  #");
    const std::string body = hash == std::string::npos ? line : line.substr(0, hash);
    if (body[0] != ' ') {
      // "suite." (possibly "suite.  # TypeParam = ..."): a suite header.
      suite_full = body.back() == '.' ? body.substr(0, body.size() - 1) : std::string();
      continue;
    }
    if (suite_full.empty()) continue;  // not the list format (a message the binary printed)
    std::string name = body.substr(body.find_first_not_of(' '));
    while (!name.empty() && name.back() == ' ') name.pop_back();
    const std::string suite = plain_suite(suite_full);
    out.push_back({binary, suite, name, is_disabled(suite_full) || is_disabled(name)});
  }
  return out;
}

void scan_test_binaries(const std::vector<std::string>& binaries, const std::vector<std::string>& runner, Scan& scan) {
  for (const auto& b : binaries) {
    scan.test_binaries.push_back(b);
    std::string cmd;
    for (const auto& r : runner) cmd += shell_quote(r) + " ";
    cmd += shell_quote(b) + " --gtest_list_tests 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
      scan.test_binary_errors.push_back(b + ": cannot run it to list its tests");
      continue;
    }
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    const int st = pclose(p);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      scan.test_binary_errors.push_back(b + ": --gtest_list_tests failed (status " + std::to_string(st) +
                                        "): " + out.substr(0, 300));
      continue;
    }
    auto tests = parse_gtest_list(b, out);
    if (tests.empty()) scan.test_binary_errors.push_back(b + ": lists no tests (is it a GoogleTest binary?)");
    for (auto& t : tests) scan.tests.push_back(std::move(t));
  }
}

}  // namespace qspec::spec
