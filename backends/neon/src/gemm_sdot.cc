// The SDOT inner product (compiled with +dotprod; called only when HWCAP_ASIMDDP is set).
#include <arm_neon.h>

#include <cstdint>

namespace qspec::simd::neon {

// sum_t a[t] * b[t] over 16 * k16 signed bytes; each SDOT lane adds four exact products.
std::int32_t dot_sdot(const std::int8_t* a, const std::int8_t* b, std::int64_t k16) {
  int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
  std::int64_t t = 0;
  for (; t + 2 <= k16; t += 2) {
    acc0 = vdotq_s32(acc0, vld1q_s8(a + 16 * t), vld1q_s8(b + 16 * t));
    acc1 = vdotq_s32(acc1, vld1q_s8(a + 16 * t + 16), vld1q_s8(b + 16 * t + 16));
  }
  if (t < k16) acc0 = vdotq_s32(acc0, vld1q_s8(a + 16 * t), vld1q_s8(b + 16 * t));
  return vaddvq_s32(vaddq_s32(acc0, acc1));
}

}  // namespace qspec::simd::neon
