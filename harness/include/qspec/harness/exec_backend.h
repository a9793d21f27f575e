// A backend that is a program of its own: `--backend exec:'COMMAND ARGS'` or a manifest file.
//
// qspec starts the program (once per worker, reused across tests) with its stdin and stdout
// connected to qspec, and speaks the exec protocol with it (docs/exec-protocol.md): a handshake
// (names, claims, the run options), then one request and one reply per test. The program may be
// written in any language, and may itself reach the code under test elsewhere (`exec:'ssh board
// /opt/sut'`). This header says how such a backend is named; the worker kind that runs it is
// harness/src/exec_worker.h.
//
//   exec:COMMAND          the command line, split into words like a POSIX shell would split it
//                         ('...' and "..." quote, \ escapes; no variables, globs or pipes: write
//                         `exec:sh -c '...'` for those); the program is looked up on PATH.
//   FILE.json             a manifest, for CI: {"command": [...] or "...", "working_directory",
//                         "environment": {...}, "timeout", "start_timeout"} (docs/exec-protocol.md)
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qspec::harness {

struct ExecCommand {
  std::vector<std::string> argv;                                 // argv[0] is looked up on PATH
  std::string working_directory;                                 // "": qspec's own
  std::vector<std::pair<std::string, std::string>> environment;  // set on top of qspec's environment
  std::optional<double> timeout_seconds;                         // the manifest's per-test default
  std::optional<double> start_timeout_seconds;                   // the manifest's limit for the handshake
  std::string source;                                            // the backend as the user named it
};

// True for "exec:..." and for a path ending in ".json" (a manifest).
bool is_exec_backend(const std::string& spec);

// The command `spec` names; throws BackendLoadError naming the manifest file and the field, or
// what is wrong with the command line.
ExecCommand exec_command(const std::string& spec);

// Splits a command line into words: blanks separate words, '...' quotes literally, "..." quotes
// with \ escaping \ and ", a \ outside quotes escapes the next character. Throws
// std::invalid_argument for an unterminated quote or a trailing \.
std::vector<std::string> split_command_line(const std::string& line);

}  // namespace qspec::harness
