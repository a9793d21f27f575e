// Subcommand registration for the qspec executable; each subcommand lives in its own cmd_*.cc.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace qspec::cli {

// Exit status of every qspec command: 0 all as expected, 1 failures found, 2 usage or input error.
enum Exit : int { kOk = 0, kFail = 1, kUsage = 2 };

struct Context {
  std::string root;      // the data root (spec/, vectors/, ...): --root, $QSPEC_ROOT, install layout, source tree
  std::string root_how;  // how `root` was found (qspec/harness/data_root.h), for the run header
  int exit_code = kOk;
};

// Each adds its subcommand to `app`; the callback stores its exit status in ctx.exit_code.
void add_spec_command(CLI::App& app, Context& ctx);
// `spec generate`, under the `spec` subcommand (cmd_spec_generate.cc).
void add_spec_generate_command(CLI::App& spec, Context& ctx);
void add_run_command(CLI::App& app, Context& ctx);
void add_vectors_command(CLI::App& app, Context& ctx);
void add_sweep_command(CLI::App& app, Context& ctx);
void add_backends_command(CLI::App& app, Context& ctx);
void add_eval_command(CLI::App& app, Context& ctx);
void add_report_command(CLI::App& app, Context& ctx);

}  // namespace qspec::cli
