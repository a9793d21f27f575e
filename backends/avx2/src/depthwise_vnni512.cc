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
#include "depthwise_zmm_vector.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {

void depthwise_vnni512(const DepthwiseArgs& a) { depthwise_vnni_any<VnniZmm>(a); }

}  // namespace qspec::simd::avx2
