// Run-time CPU feature detection for the optimized backends (x86 cpuid, AArch64 hwcaps).
#pragma once

#include <string>

namespace qspec::simd {

struct CpuFeatures {
  bool avx2 = false;        // x86: AVX2 (with the OS saving ymm state)
  bool fma = false;         // x86: FMA3 (with avx2; ONNX Runtime's add kernel fuses its multiply-adds)
  bool avxvnni = false;     // x86: VEX-encoded VPDPBUSD on ymm (AVX-VNNI; Alder Lake and later, no AVX-512 needed)
  bool avx512vnni = false;  // x86: VPDPBUSD on ymm (AVX512-VNNI + AVX512VL + AVX512BW)
  bool zmm = false;         // x86: the VNNI kernels on zmm registers (avx512vnni + AVX512F)
  bool vbmi = false;        // x86: AVX512-VBMI byte permutes in the zmm kernels (zmm + AVX512_VBMI; not Cascade Lake)
  bool neon = false;        // AArch64: Advanced SIMD (always present on AArch64 Linux)
  bool dotprod = false;     // AArch64: SDOT/UDOT (HWCAP_ASIMDDP)
};

// What the CPU offers, capped by the environment variable QSPEC_SIMD_ISA: "scalar" disables
// every SIMD path, "avx2" disables VNNI, "avxvnni" keeps only AVX-VNNI's VEX VPDPBUSD (no AVX-512
// VNNI), "avx512vnni" keeps the zmm kernels without AVX512-VBMI (Skylake-X / Cascade Lake's level),
// "avx512vnni-ymm" keeps VNNI on 256-bit registers (no zmm kernels), "neon" disables the
// dot-product instructions. Tests and benchmarks use it to
// exercise the lower paths on a machine that has the higher ones.
const CpuFeatures& cpu_features();

// The features the process detected, ignoring QSPEC_SIMD_ISA.
CpuFeatures detect_cpu_features();

// `f` capped by a QSPEC_SIMD_ISA value ("" leaves it); an unknown value leaves it too and sets
// *problem (cpu_features() prints it on stderr).
CpuFeatures cap_cpu_features(CpuFeatures f, const std::string& cap, std::string* problem);

// "avx2+avx512vnni+zmm+vbmi", "avx2+avx512vnni+zmm", "avx2+avx512vnni", "avx2+avxvnni", "avx2",
// "neon+dotprod", "neon" or "scalar".
std::string isa_name(const CpuFeatures& f);

}  // namespace qspec::simd
