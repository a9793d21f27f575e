// NEON float -> integer quantization and integer -> float dequantization, bit-exact with the scalar
// path: the same IEEE binary32 steps on 4 lanes (FDIV/FMUL/FADD, FRINTN or FRINTA, FCVTZS).
#include <arm_neon.h>

#include "narrow_store_neon.h"
#include "qspec/simd/neon_kernels.h"
#include "wrapping.h"

namespace qspec::simd::neon {

void quantize(const QuantizeParams& p, std::size_t n, const float* x, void* y) {
  if (!p.narrow) return quantize_scalar(p, n, x, y);
  const float32x4_t s = vdupq_n_f32(p.s), pre = vdupq_n_f32(p.pre_zp), post = vdupq_n_f32(p.post_zpf);
  const float32x4_t flo = vdupq_n_f32(p.flo), fhi = vdupq_n_f32(p.fhi);
  const int32x4_t zp = vdupq_n_s32(p.post == QuantizeParams::Post::kInt ? static_cast<std::int32_t>(p.post_zp) : 0);
  const bool away = p.round == QuantizeParams::Round::kHalfAway;
  auto f = [&](std::size_t i) {
    const float32x4_t xv = vld1q_f32(x + i);
    float32x4_t v = p.divide ? vdivq_f32(xv, s) : vmulq_f32(xv, s);
    if (p.pre_add) v = vaddq_f32(v, pre);
    float32x4_t r = away ? vrndaq_f32(v) : vrndnq_f32(v);  // FRINTA: ties away; FRINTN: ties to even
    if (p.post == QuantizeParams::Post::kFloat) r = vaddq_f32(r, post);
    r = vminnmq_f32(vmaxnmq_f32(r, flo), fhi);  // integer bounds: the saturation; NaN -> the low bound
    return vaddq_s32(vcvtq_s32_f32(r), zp);     // r is integral: the truncating convert is exact
  };
  const std::size_t es = static_cast<std::size_t>(out_size(p.out));
  narrow_loop_any(p.out, n, y, f,
                  [&](std::size_t i) { quantize_scalar(p, n - i, x + i, static_cast<unsigned char*>(y) + i * es); });
}

void dequantize(std::size_t n, const std::int32_t* x, std::int32_t zp, float s, float* y) {
  const int32x4_t z = vdupq_n_s32(zp);
  const float32x4_t sv = vdupq_n_f32(s);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int32x4_t xv = vld1q_s32(x + i), d = wrapping_sub(xv, z);
    // A lane whose int32 subtraction overflowed (x - zp is exact in the spec) goes scalar.
    const uint32x4_t ovf = vreinterpretq_u32_s32(vandq_s32(veorq_s32(xv, z), veorq_s32(xv, d)));
    if (vmaxvq_u32(vshrq_n_u32(ovf, 31)) != 0) {
      dequantize_scalar(4, x + i, zp, s, y + i);
      continue;
    }
    vst1q_f32(y + i, vmulq_f32(vcvtq_f32_s32(d), sv));
  }
  if (i < n) dequantize_scalar(n - i, x + i, zp, s, y + i);
}

}  // namespace qspec::simd::neon
