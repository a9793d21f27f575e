// Average-pooling kernels (qspec/simd/qlinear_pool.h) on AVX2, 8 channels per int32 lane group,
// bit-exact with pool_scalar: XNNPACK's, the fp32 epilogue's, ONNX Runtime's and TFLite's window
// arithmetic from qlinear_pool_lanes.h on ymm, and TFLite's int8 Mean (requant_kinds_avx2.h's SRDHM /
// RDBPOT, then the rounded division), which has no zmm form.
//
// Compiled with -mavx2 -mfma like the add kernels (simd_lanes.h's Ymm), though no pooling
// convention fuses a multiply-add: every float step is its own instruction (-ffp-contract=off).
#include <immintrin.h>

#include <cstdint>

#include "qlinear_pool_lanes.h"
#include "qspec/simd/avx2_kernels.h"
#include "requant_kinds_avx2.h"

namespace qspec::simd::avx2 {
namespace {

// TFLite's int8 Mean: MBQM with double rounding of acc 2^left (in int32: the handler's bound),
// round_half_away of that over n = H W (every window: global, no padding), + zy, clamped.
struct TfliteMeanPool : CodeSum<Ymm>, HalfAwayDiv<Ymm> {
  using Pixel = HalfAwayDiv<Ymm>::Pixel;
  Q31Double q;
  __m256i zy, lo, hi;
  explicit TfliteMeanPool(const PoolParams& p)
      : CodeSum<Ymm>(p),
        q([&] {
          RequantParams r;
          r.kind = RequantKind::kQ31Double;
          r.multiplier = p.qm;
          r.left_shift = p.left, r.right_shift = p.right;
          r.lo_nozp = INT32_MIN, r.hi_nozp = INT32_MAX, r.zp = 0;
          return r;
        }()),
        zy(_mm256_set1_epi32(p.zy)),
        lo(_mm256_set1_epi32(p.lo)),
        hi(_mm256_set1_epi32(p.hi)),
        n(static_cast<std::size_t>(p.g.kh * p.g.kw)) {}
  std::size_t n;
  using HalfAwayDiv<Ymm>::pixel;
  __m256i finish(__m256i a, const Pixel& d) const {
    return Ymm::clamp(_mm256_add_epi32(HalfAwayDiv<Ymm>::div(q(less_zx(a, n)), d), zy), lo, hi);
  }
};

template <bool kU8>
void pool_typed(const PoolParams& p, const void* x, void* y) {
  if (run_pool_kind<Ymm>(p, [&](const auto& k) { pool_drive<Ymm, kU8>(k, p, x, y); })) return;
  pool_drive<Ymm, kU8>(TfliteMeanPool(p), p, x, y);
}

}  // namespace

void qlinear_pool(const PoolParams& p, const void* x, void* y) {
  if (p.u8)
    pool_typed<true>(p, x, y);
  else
    pool_typed<false>(p, x, y);
}

}  // namespace qspec::simd::avx2
