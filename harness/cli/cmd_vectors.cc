// `qspec vectors`: Regenerate or check the golden vectors (placeholder until issue 5 lands).
#include "stub.h"

namespace qspec::cli {
void add_vectors_command(CLI::App& app, Context& ctx) { add_stub_command(app, ctx, "vectors", "Regenerate or check the golden vectors", "issue 5"); }
}  // namespace qspec::cli
