// `qspec eval`: Print what a backend computes for a vector file (placeholder until issue 5 lands).
#include "stub.h"

namespace qspec::cli {
void add_eval_command(CLI::App& app, Context& ctx) { add_stub_command(app, ctx, "eval", "Print what a backend computes for a vector file", "issue 5"); }
}  // namespace qspec::cli
