// Lane-wise int32 addition and subtraction modulo 2^32, for the kernels that rely on wrap-around.
//
// GCC's arm_neon.h implements vaddq_s32/vsubq_s32 with the vector extension's `a + b` on signed
// lanes, where overflow is undefined behaviour like scalar int overflow (UBSan reports it, and
// the optimizer may assume it does not happen). The same operation on unsigned lanes is defined
// to wrap and compiles to the same ADD/SUB instruction.
#pragma once

#include <arm_neon.h>

namespace qspec::simd::neon {

inline int32x4_t wrapping_add(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_u32(vaddq_u32(vreinterpretq_u32_s32(a), vreinterpretq_u32_s32(b)));
}

inline int32x4_t wrapping_sub(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_u32(vsubq_u32(vreinterpretq_u32_s32(a), vreinterpretq_u32_s32(b)));
}

}  // namespace qspec::simd::neon
