// Depthwise conv2d with VPDPBUSD on ymm (depthwise_vnni_kernel.h): built for AVX512-VNNI + VL and,
// by depthwise_avxvnni.cc, for AVX-VNNI (the instructions that differ are in vnni_isa.h). Byte
// outputs requantize in registers with epilogue_vnni.h's Epilogue8, the ymm GEMM engine's.
// GCC 12 reports its own _mm*_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og (the asan preset) as uninitialized
// (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "depthwise_vnni_kernel.h"
#include "epilogue_vnni.h"
#include "qspec/simd/avx2_kernels.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

// One quarter of a group entry (8 channels) per ymm.
struct VnniYmm : VnniVector<32> {
  using Mask = Lanes8;
  using Ep = Epilogue8;
  static Vec dpbusd(Vec acc, Vec a, Vec b) { return avx2::dpbusd(acc, a, b); }
  static Mask mask(std::int64_t n) { return first_lanes(static_cast<int>(std::clamp<std::int64_t>(n, 0, 8))); }
  // Inlined into the strips (a call would spill their vector registers).
  __attribute__((always_inline)) static Vec load32(Mask m, const std::int32_t* p) { return load_z32(m, p); }
  __attribute__((always_inline)) static void store_bytes(std::uint8_t* y, Mask m, int n, Vec v) {
    store_low_bytes(y, m, n, v);
  }
  // kBias = false: the caller started its accumulators from the bias (Sink::init).
  template <bool kBias>
  __attribute__((always_inline)) static Vec float_then_zp(const Ep& e, Vec v) {
    return avx2::float_then_zp(v, kBias ? e.bias : _mm256_setzero_si256(), e.scale, _mm256_set1_ps(e.flo),
                               _mm256_set1_ps(e.fhi), _mm256_set1_epi32(e.zp));
  }
  static Vec add32(Vec a, Vec b) { return _mm256_add_epi32(a, b); }
  static constexpr bool kOneSweep = false;  // 16 registers: a sweep holds two quarters, not a pixel's four
  __attribute__((always_inline)) static void store(std::int32_t* y, Mask m, Vec v) {
    if (all_lanes(m))
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), v);
    else
      store_m32(y, m, v);
  }
};

}  // namespace

void QSPEC_VNNI_PICK(depthwise_vnni, depthwise_avxvnni)(const DepthwiseArgs& a) { depthwise_vnni_any<VnniYmm>(a); }

}  // namespace qspec::simd::avx2
