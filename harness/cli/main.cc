// Entry point of the `qspec` command line: global options and subcommand dispatch.
#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "unknown_words.h"
#include "qspec/harness/data_root.h"

#ifndef QSPEC_VERSION
#define QSPEC_VERSION "0.0.0"
#endif
#ifndef QSPEC_DEFAULT_ROOT
#define QSPEC_DEFAULT_ROOT "."
#endif
#ifndef QSPEC_INSTALL_DATA_RELATIVE
#define QSPEC_INSTALL_DATA_RELATIVE "../share/qspec"
#endif

int main(int argc, char** argv) {
  using namespace qspec::cli;
  CLI::App app{"qspec: exact specification and conformance suite for integer-quantized NN arithmetic"};
  app.set_version_flag("--version", std::string("qspec ") + QSPEC_VERSION);
  app.require_subcommand(1);
  Context ctx;
  const auto found = qspec::harness::find_data_root(QSPEC_INSTALL_DATA_RELATIVE, QSPEC_DEFAULT_ROOT);
  ctx.root = found.path;
  ctx.root_how = found.how;
  app.add_option("--root", ctx.root,
                 "Data root holding spec/ and vectors/ (default: $QSPEC_ROOT, else ../share/qspec next to the executable, "
                 "else the build's source tree)")
      ->each([&ctx](const std::string&) { ctx.root_how = "--root"; });

  add_run_command(app, ctx);
  add_vectors_command(app, ctx);
  add_sweep_command(app, ctx);
  add_spec_command(app, ctx);
  add_backends_command(app, ctx);
  add_eval_command(app, ctx);
  add_report_command(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A misspelt word first: CLI11 would complain about a missing --backend or subcommand.
    if (e.get_exit_code() != 0 && explain_unknown_words(app, std::cerr)) return kUsage;
    const int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  } catch (const std::exception& e) {
    std::cerr << "qspec: error: " << e.what() << "\n";
    return kUsage;
  }
  return ctx.exit_code;
}
