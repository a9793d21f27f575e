// Depthwise conv2d with VPDPBUSD on zmm (depthwise_vnni_kernel.h; AVX512F + BW + VL + VNNI): half
// the VPDPBUSD, loads and stores of the ymm kernel per output, where VPDPBUSD zmm is a full-width
// operation (Zen 5: twice the ymm MACs per cycle; Zen 4 double-pumps it, the same MACs as ymm).
// Byte outputs requantize in registers with epilogue_vnni512.h's Epilogue16, the GEMM engine's.
// GCC 12 reports its own _mm*_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og (the asan preset) as uninitialized
// (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>

#include "depthwise_vnni_kernel.h"
#include "epilogue_vnni512.h"
#include "qspec/simd/avx2_kernels.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

// Two quarters of a group entry (16 channels) per zmm: the entry's bytes 64h .. 64h + 63 are
// channels 16h .. 16h + 15 of the block in lane order, as the corrections and the output are.
struct VnniZmm : VnniVector<64> {
  using Mask = __mmask16;
  using Ep = Epilogue16;
  static Vec dpbusd(Vec acc, Vec a, Vec b) { return _mm512_dpbusd_epi32(acc, a, b); }
  static Mask mask(std::int64_t n) {
    return n >= 16 ? Mask{0xffff} : n <= 0 ? Mask{0} : static_cast<Mask>((1u << n) - 1);
  }
  static Vec load32(Mask m, const std::int32_t* p) { return _mm512_maskz_loadu_epi32(m, p); }
  // Unmasked where the 16 lanes are all stored (every block but a channel tail's).
  __attribute__((always_inline)) static void store(std::int32_t* y, Mask m, Vec v) {
    if (m == 0xffff) return _mm512_storeu_si512(y, v);
    _mm512_mask_storeu_epi32(y, m, v);
  }
  // Inlined into the strips (a call would spill their vector registers).
  __attribute__((always_inline)) static void store_bytes(std::uint8_t* y, Mask, int n, Vec v) {
    avx2::store_bytes(y, v, n);
  }
  // kBias = false: the caller started its accumulators from the bias (Sink::init).
  template <bool kBias>
  __attribute__((always_inline)) static Vec float_then_zp(const Ep& e, Vec v) {
    return avx2::float_then_zp(v, kBias ? e.bias : _mm512_setzero_si512(), e.scale, e.flo, e.fhi, e.zp);
  }
  static Vec add32(Vec a, Vec b) { return _mm512_add_epi32(a, b); }
};

}  // namespace

void depthwise_vnni512(const DepthwiseArgs& a) { depthwise_vnni_any<VnniZmm>(a); }

}  // namespace qspec::simd::avx2
