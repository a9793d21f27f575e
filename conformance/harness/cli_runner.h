// Runs this build's qspec executable from a harness test and captures its exit status and output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "build_tree_paths.h"
#include "qspec/harness/sweep.h"  // shell_quote

namespace qspec::harness_test {

struct CliResult {
  int rc = -1;
  std::string out;  // stdout and stderr together
};

// `PREFIX... qspec ARGS... 2>&1` (find_qspec()); rc is -1 when it did not exit normally. The
// prefix is a command that runs qspec (`env NAME=VALUE`, `setpriv ...`).
inline CliResult run_cli(const std::vector<std::string>& args, const std::vector<std::string>& prefix = {}) {
  std::string cmd;
  for (const auto& p : prefix) cmd += harness::sweep::shell_quote(p) + " ";
  cmd += harness::sweep::shell_quote(find_qspec());
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

// A prefix that runs qspec without root's privileges, so that file permissions apply to it:
// nothing when this test does not run as root; `setpriv` to the user and group 65534 (nobody)
// when it does; nullopt when it runs as root and setpriv is missing.
inline std::optional<std::vector<std::string>> unprivileged_prefix() {
  if (::geteuid() != 0) return std::vector<std::string>{};
  for (const char* p : {"/usr/bin/setpriv", "/bin/setpriv"})
    if (::access(p, X_OK) == 0) return std::vector<std::string>{p, "--reuid=65534", "--regid=65534", "--clear-groups"};
  return std::nullopt;
}

}  // namespace qspec::harness_test
