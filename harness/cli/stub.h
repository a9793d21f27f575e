// Shared "not implemented yet" subcommand body for commands whose issue has not landed.
#pragma once

#include <iostream>

#include "commands.h"

namespace qspec::cli {
inline CLI::App* add_stub_command(CLI::App& app, Context& ctx, const char* name, const char* help, const char* issue) {
  auto* c = app.add_subcommand(name, help);
  c->allow_extras();
  c->callback([&ctx, name, issue] {
    std::cerr << "qspec " << name << ": not implemented yet (" << issue << ")\n";
    ctx.exit_code = kUsage;
  });
  return c;
}
}  // namespace qspec::cli
