// Run-time CPU feature detection: __builtin_cpu_supports on x86, getauxval(AT_HWCAP) on AArch64.
#include "qspec/simd/cpu.h"

#include <cstdlib>
#include <cstring>

#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace qspec::simd {

CpuFeatures detect_cpu_features() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2");
  f.avx512vnni = f.avx2 && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512bw");
#elif defined(__aarch64__)
  f.neon = true;
#if defined(__linux__) && defined(HWCAP_ASIMDDP)
  f.dotprod = (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#endif
#endif
  return f;
}

namespace {
CpuFeatures capped_features() {
  CpuFeatures f = detect_cpu_features();
  const char* cap = std::getenv("QSPEC_SIMD_ISA");
  if (cap == nullptr || *cap == '\0') return f;
  if (std::strcmp(cap, "scalar") == 0) return CpuFeatures{};
  if (std::strcmp(cap, "avx2") == 0) f.avx512vnni = false;
  if (std::strcmp(cap, "neon") == 0) f.dotprod = false;
  return f;
}
}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = capped_features();
  return f;
}

std::string isa_name(const CpuFeatures& f) {
  if (f.avx2) return f.avx512vnni ? "avx2+avx512vnni" : "avx2";
  if (f.neon) return f.dotprod ? "neon+dotprod" : "neon";
  return "scalar";
}

}  // namespace qspec::simd
