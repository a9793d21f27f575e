// `qspec sweep`: Run property sweeps at a chosen scale (placeholder until issue 4 lands).
#include "stub.h"

namespace qspec::cli {
void add_sweep_command(CLI::App& app, Context& ctx) { add_stub_command(app, ctx, "sweep", "Run property sweeps at a chosen scale", "issue 4"); }
}  // namespace qspec::cli
