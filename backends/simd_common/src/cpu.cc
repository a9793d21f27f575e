// Run-time CPU feature detection: __builtin_cpu_supports on x86, getauxval(AT_HWCAP) on AArch64.
#include "qspec/simd/cpu.h"

#include <cstdio>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

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
  f.fma = f.avx2 && __builtin_cpu_supports("fma");
  // AVX-VNNI: CPUID.(EAX=7,ECX=1):EAX bit 4. Its ymm state is the OS's AVX state, which
  // __builtin_cpu_supports("avx2") already requires (XGETBV).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  f.avxvnni = f.avx2 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
  f.avx512vnni = f.avx2 && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512bw");
  f.zmm = f.avx512vnni && __builtin_cpu_supports("avx512f");
  f.vbmi = f.zmm && __builtin_cpu_supports("avx512vbmi");
#elif defined(__aarch64__)
  f.neon = true;
#if defined(__linux__) && defined(HWCAP_ASIMDDP)
  f.dotprod = (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#endif
#endif
  return f;
}

CpuFeatures cap_cpu_features(CpuFeatures f, const std::string& cap, std::string* problem) {
  if (cap.empty()) return f;
  if (cap == "scalar") return CpuFeatures{};
  if (cap == "avx2") {
    f.avxvnni = f.avx512vnni = f.zmm = f.vbmi = false;
    return f;
  }
  if (cap == "avxvnni") {
    f.avx512vnni = f.zmm = f.vbmi = false;
    return f;
  }
  if (cap == "avx512vnni-ymm") {
    f.zmm = f.vbmi = false;
    return f;
  }
  if (cap == "avx512vnni") {
    f.vbmi = false;
    return f;
  }
  if (cap == "neon") {
    f.dotprod = false;
    return f;
  }
  if (problem)
    *problem = "QSPEC_SIMD_ISA=" + cap +
               " is not one of scalar, avx2, avxvnni, avx512vnni-ymm, avx512vnni, neon: ignored, the best path runs";
  return f;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    const char* cap = std::getenv("QSPEC_SIMD_ISA");
    std::string problem;
    const CpuFeatures capped = cap_cpu_features(detect_cpu_features(), cap ? cap : "", &problem);
    // A misspelt cap must not pass silently for a test of the lower path: say so (the backend's
    // version string names the path that runs, e.g. "0.1.0 (avx2, ...)").
    if (!problem.empty()) std::fprintf(stderr, "qspec: %s\n", problem.c_str());
    return capped;
  }();
  return f;
}

std::string isa_name(const CpuFeatures& f) {
  if (f.avx2) {
    if (f.avx512vnni) return f.zmm ? (f.vbmi ? "avx2+avx512vnni+zmm+vbmi" : "avx2+avx512vnni+zmm") : "avx2+avx512vnni";
    return f.avxvnni ? "avx2+avxvnni" : "avx2";
  }
  if (f.neon) return f.dotprod ? "neon+dotprod" : "neon";
  return "scalar";
}

}  // namespace qspec::simd
