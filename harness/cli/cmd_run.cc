// `qspec run`: Run a backend against the golden vectors (placeholder until issue 5 lands).
#include "stub.h"

namespace qspec::cli {
void add_run_command(CLI::App& app, Context& ctx) { add_stub_command(app, ctx, "run", "Run a backend against the golden vectors", "issue 5"); }
}  // namespace qspec::cli
