// Depthwise conv2d with VPDPBUSD on ymm (depthwise_vnni_kernel.h): built for AVX512-VNNI + VL and,
// by depthwise_avxvnni.cc, for AVX-VNNI (the instructions that differ are in vnni_isa.h).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "depthwise_vnni_kernel.h"
#include "qspec/simd/avx2_kernels.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

// One quarter of a group entry (8 channels) per ymm.
struct VnniYmm : VnniVector<32> {
  using Mask = Lanes8;
  static Vec dpbusd(Vec acc, Vec a, Vec b) { return avx2::dpbusd(acc, a, b); }
  static Mask mask(std::int64_t n) { return first_lanes(static_cast<int>(std::clamp<std::int64_t>(n, 0, 8))); }
  static void store(std::int32_t* y, Mask m, Vec v) {
    if (all_lanes(m))
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), v);
    else
      store_m32(y, m, v);
  }
};

}  // namespace

void QSPEC_VNNI_PICK(depthwise_vnni, depthwise_avxvnni)(const DepthwiseArgs& a) { depthwise_vnni_run<VnniYmm>(a); }

}  // namespace qspec::simd::avx2
