// Depthwise conv2d with VPDPBUSD on zmm (depthwise_vnni_kernel.h; AVX512F + BW + VL + VNNI): half
// the VPDPBUSD, loads and stores of the ymm kernel per output, where VPDPBUSD zmm is a full-width
// operation (Zen 5: twice the ymm MACs per cycle; Zen 4 double-pumps it, the same MACs as ymm).
#include <immintrin.h>

#include <cstdint>

#include "depthwise_vnni_kernel.h"
#include "qspec/simd/avx2_kernels.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

// Two quarters of a group entry (16 channels) per zmm: the entry's bytes 64h .. 64h + 63 are
// channels 16h .. 16h + 15 of the block in lane order, as the corrections and the output are.
struct VnniZmm : VnniVector<64> {
  using Mask = __mmask16;
  static Vec dpbusd(Vec acc, Vec a, Vec b) { return _mm512_dpbusd_epi32(acc, a, b); }
  static Mask mask(std::int64_t n) {
    return n >= 16 ? Mask{0xffff} : n <= 0 ? Mask{0} : static_cast<Mask>((1u << n) - 1);
  }
  // Unmasked where the 16 lanes are all stored (every block but a channel tail's).
  static void store(std::int32_t* y, Mask m, Vec v) {
    if (m == 0xffff) return _mm512_storeu_si512(y, v);
    _mm512_mask_storeu_epi32(y, m, v);
  }
};

}  // namespace

void depthwise_vnni512(const DepthwiseArgs& a) { depthwise_vnni_run<VnniZmm>(a); }

}  // namespace qspec::simd::avx2
