// The x86 kernel family XNNPACK selects on this CPU, for the adapter's version string ("isa: ...").
#include "xnn_isa.h"

namespace qspec::xnnpack_adapter {

std::string dispatched_isa() {
#if defined(__x86_64__) || defined(__i386__)
  // The order and the feature tests of this snapshot's src/init.c for its qs8/qu8 GEMM, vadd and
  // conversion kernels (cpuinfo there, the same CPUID bits here). XNNPACK has no switch to force a
  // lower level, so a run measures the host's level only.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return "avx512skx";
  if (__builtin_cpu_supports("xop")) return "xop";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  if (__builtin_cpu_supports("avx")) return "avx";
  if (__builtin_cpu_supports("sse4.1")) return "sse41";
  return "sse2";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "other";
#endif
}

}  // namespace qspec::xnnpack_adapter
