// Runs this build's qspec executable from a harness test and captures its exit status and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "build_tree_paths.h"
#include "qspec/harness/sweep.h"  // shell_quote

namespace qspec::harness_test {

struct CliResult {
  int rc = -1;
  std::string out;  // stdout and stderr together
};

// `qspec ARGS... 2>&1` (find_qspec()); rc is -1 when it did not exit normally.
inline CliResult run_cli(const std::vector<std::string>& args) {
  std::string cmd = harness::sweep::shell_quote(find_qspec());
  for (const auto& a : args) cmd += " " + harness::sweep::shell_quote(a);
  cmd += " 2>&1";
  CliResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace qspec::harness_test
