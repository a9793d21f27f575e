// The x86 kernel levels this host cannot run, for the avx2 tests that list what they tested, and the
// ymm / zmm kernels it can.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "qspec/simd/cpu.h"

namespace qspec::simd::testing {

// " name" for each x86 level this host lacks, in the order AVX2, AVX-VNNI, AVX512-VNNI on ymm,
// AVX512-VNNI on zmm, named as the caller's test names them; empty when it runs all four. A test
// that would list fewer than four then skips (a level's kernels untested here, not passed).
inline std::string lacked_x86_levels(const std::array<const char*, 4>& names) {
  const CpuFeatures f = detect_cpu_features();
  const std::array<bool, 4> has = {f.avx2, f.avxvnni, f.avx512vnni, f.avx512vnni && f.zmm};
  std::string lacked;
  for (std::size_t i = 0; i < has.size(); ++i) {
    if (!has[i]) lacked += std::string(" ") + names[i];
  }
  return lacked;
}

// The same with a fifth level, zmm with AVX512-VBMI, for the tests whose kernels have one.
inline std::string lacked_x86_levels_vbmi(const std::array<const char*, 5>& names) {
  const CpuFeatures f = detect_cpu_features();
  std::string lacked = lacked_x86_levels({names[0], names[1], names[2], names[3]});
  if (!(f.avx512vnni && f.zmm && f.vbmi)) lacked += std::string(" ") + names[4];
  return lacked;
}

// The two widths of a kernel with an AVX2 + FMA form ("ymm") and an AVX512F + BW + VL + FMA form
// ("zmm": the zmm level's) that this CPU can run (the qlinear.add and pooling tests' lists).
template <class Fn>
struct WidthKernel {
  const char* name;
  Fn fn;
};
template <class Fn>
std::vector<WidthKernel<Fn>> ymm_zmm_kernels(Fn ymm, Fn zmm) {
  const CpuFeatures f = detect_cpu_features();
  std::vector<WidthKernel<Fn>> v;
  if (f.avx2 && f.fma) v.push_back({"ymm", ymm});
  if (f.zmm && f.fma) v.push_back({"zmm", zmm});
  return v;
}

}  // namespace qspec::simd::testing
