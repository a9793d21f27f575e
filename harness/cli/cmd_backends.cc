// `qspec backends`: List the built-in backends (placeholder until issue 5 lands).
#include "stub.h"

namespace qspec::cli {
void add_backends_command(CLI::App& app, Context& ctx) { add_stub_command(app, ctx, "backends", "List the built-in backends", "issue 5"); }
}  // namespace qspec::cli
