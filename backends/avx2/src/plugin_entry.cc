// The avx2 backend as a plugin .so (`qspec run --backend path/to/libqspec_avx2_plugin.so`): the
// same kernels and op table as the built-in, without the built-in registration.
#include "qspec/simd/avx2_backend.h"

extern "C" QSPEC_BACKEND_EXPORT int qspec_backend_create(std::uint32_t host_abi_version, qspec_backend* out) {
  return qspec::simd::create_backend(host_abi_version, out, "avx2",
                                     qspec::simd::avx2::kernel_set(qspec::simd::cpu_features()));
}
