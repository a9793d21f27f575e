// Subcommands whose issue has not landed yet: each says so and exits 2 (never a silent success).
#include <iostream>

#include "commands.h"

namespace qspec::cli {
namespace {
void stub(CLI::App& app, Context& ctx, const char* name, const char* help, const char* issue) {
  auto* c = app.add_subcommand(name, help);
  c->allow_extras();
  c->callback([&ctx, name, issue] {
    std::cerr << "qspec " << name << ": not implemented yet (" << issue << ")\n";
    ctx.exit_code = kUsage;
  });
}
}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  stub(app, ctx, "run", "Run a backend against the golden vectors", "issue 5");
}
void add_vectors_command(CLI::App& app, Context& ctx) {
  stub(app, ctx, "vectors", "Regenerate or check the golden vectors", "issue 5");
}
void add_sweep_command(CLI::App& app, Context& ctx) {
  stub(app, ctx, "sweep", "Run property sweeps at a chosen scale", "issue 4");
}
void add_backends_command(CLI::App& app, Context& ctx) {
  stub(app, ctx, "backends", "List the built-in backends", "issue 5");
}
void add_eval_command(CLI::App& app, Context& ctx) {
  stub(app, ctx, "eval", "Print what a backend computes for a vector file", "issue 5");
}

}  // namespace qspec::cli
