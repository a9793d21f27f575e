// Average-pooling kernels on zmm (AVX512F + BW + VL), 16 channels per step with byte-masked loads and
// stores for the last channels, bit-exact with pool_scalar: qlinear_pool_lanes.h's arithmetic on Zmm.
// TFLite's int8 Mean keeps the ymm kernel (qlinear_pool_avx2.cc), which this file calls for it.
// GCC 12 reports its own _mm512_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og as uninitialized (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include "qlinear_pool_lanes.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

template <bool kU8>
void pool_typed(const PoolParams& p, const void* x, void* y) {
  if (!run_pool_kind<Zmm>(p, [&](const auto& k) { pool_drive<Zmm, kU8>(k, p, x, y); }))
    qlinear_pool(p, x, y);  // TFLite's Mean: the ymm kernel
}

}  // namespace

void qlinear_pool_zmm(const PoolParams& p, const void* x, void* y) {
  if (p.u8)
    pool_typed<true>(p, x, y);
  else
    pool_typed<false>(p, x, y);
}

}  // namespace qspec::simd::avx2
