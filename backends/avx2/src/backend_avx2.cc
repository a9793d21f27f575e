// The `avx2` built-in backend: registers the backend under its name in the harness's registry.
#include "qspec/builtin_backends.h"
#include "qspec/simd/avx2_backend.h"

extern "C" int qspec_avx2_backend_create(std::uint32_t host_abi_version, qspec_backend* out) {
  return qspec::simd::create_backend(host_abi_version, out, "avx2",
                                     qspec::simd::avx2::kernel_set(qspec::simd::cpu_features()));
}

QSPEC_REGISTER_BUILTIN_BACKEND("avx2", qspec_avx2_backend_create);
