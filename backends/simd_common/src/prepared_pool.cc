// prepared_avg_pool (qspec/simd/backend_core.h): an average pooling's kernel parameters, derived by
// running its handler once over a kernel set whose pooling kernel records them, so that every
// convention's derivation and checks stay in its handler.
#include <optional>
#include <string_view>

#include "qspec/simd/backend_core.h"

namespace qspec::simd {
namespace {

thread_local std::optional<PoolParams> recorded;
void record(const PoolParams& p, const void*, void*) { recorded = p; }

}  // namespace

std::optional<PoolParams> prepared_avg_pool(std::string_view op, std::string_view convention,
                                            const nlohmann::ordered_json& attrs, const qspec_tensor& x,
                                            qspec_tensor& y) {
  for (const OpEntry& e : op_table()) {
    if (e.op != op || e.convention != convention) continue;
    KernelSet k = scalar_kernel_set();
    k.avg_pool = record;
    recorded.reset();
    OpCall c{k, attrs, &x, 1, &y, 1};
    e.fn(c);
    return recorded;
  }
  return std::nullopt;
}

}  // namespace qspec::simd
