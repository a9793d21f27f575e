// The `neon` built-in backend: registers the backend under its name in the harness's registry.
#include "qspec/builtin_backends.h"
#include "qspec/simd/neon_backend.h"

extern "C" int qspec_neon_backend_create(std::uint32_t host_abi_version, qspec_backend* out) {
  return qspec::simd::create_backend(host_abi_version, out, "neon",
                                     qspec::simd::neon::kernel_set(qspec::simd::cpu_features()));
}

QSPEC_REGISTER_BUILTIN_BACKEND("neon", qspec_neon_backend_create);
