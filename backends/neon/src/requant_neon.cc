// NEON requantization kernels (4 int32 lanes per step), bit-exact with requant_scalar on every input.
//
// SQRDMULH is exactly gemmlowp's SaturatingRoundingDoublingHighMul: (2ab + 2^31) >> 32 with the
// one saturating case INT32_MIN^2. RoundingDivideByPOT is NOT done with SRSHL/vrshl (that rounds
// ties up, so -2.5 -> -2 where RDBPOT gives -3): it uses the same remainder/threshold compare as
// the scalar code. The 64-bit single rounding uses SMULL and SSHL (arithmetic 64-bit shifts).
#include <arm_neon.h>

#include "narrow_store_neon.h"
#include "qspec/simd/neon_kernels.h"
#include "wrapping.h"

namespace qspec::simd::neon {
namespace {

struct Q31Double {
  int32x4_t lsh, m, mask, half, rsh, lo, hi, zp;
  explicit Q31Double(const RequantParams& p)
      : lsh(vdupq_n_s32(p.left_shift)),
        m(vdupq_n_s32(p.multiplier)),
        mask(vdupq_n_s32(static_cast<std::int32_t>((std::int64_t{1} << p.right_shift) - 1))),
        half(vdupq_n_s32(static_cast<std::int32_t>(((std::int64_t{1} << p.right_shift) - 1) >> 1))),
        rsh(vdupq_n_s32(-p.right_shift)),
        lo(vdupq_n_s32(p.lo_nozp)),
        hi(vdupq_n_s32(p.hi_nozp)),
        zp(vdupq_n_s32(p.zp)) {}
  int32x4_t operator()(int32x4_t x) const {
    x = vshlq_s32(x, lsh);                    // x * 2^L modulo 2^32
    const int32x4_t r = vqrdmulhq_s32(x, m);  // SRDHM
    const int32x4_t rem = vandq_s32(r, mask);
    const int32x4_t thr = vsubq_s32(half, vshrq_n_s32(r, 31));  // (mask >> 1) + (r < 0)
    int32x4_t q = vshlq_s32(r, rsh);                            // arithmetic shift right by R
    q = vsubq_s32(q, vreinterpretq_s32_u32(vcgtq_s32(rem, thr)));
    q = vminq_s32(vmaxq_s32(q, lo), hi);
    return wrapping_add(q, zp);  // modulo 2^32: [lo64, hi64] may miss int32 (requant.h, finalize())
  }
};

struct ShiftRound {
  int32x4_t off, lo, hi, zp;
  int32x2_t m;
  int64x2_t c_pos, c_diff, sh, wlo, whi;
  bool wide;
  explicit ShiftRound(const RequantParams& p)
      : off(vdupq_n_s32(p.input_offset)),
        lo(vdupq_n_s32(p.lo_nozp)),
        hi(vdupq_n_s32(p.hi_nozp)),
        zp(vdupq_n_s32(p.zp)),
        m(vdup_n_s32(p.multiplier)),
        c_pos(vdupq_n_s64(p.round_pos)),
        c_diff(vdupq_n_s64(p.round_neg - p.round_pos)),
        sh(vdupq_n_s64(-p.shift)),
        wlo(vdupq_n_s64(p.wide_lo)),
        whi(vdupq_n_s64(p.wide_hi)),
        wide(p.wide) {}
  int64x2_t half(int32x2_t x) const {
    int64x2_t s = vmull_s32(x, m);                        // exact 64-bit products
    const int64x2_t neg = vshrq_n_s64(vmovl_s32(x), 63);  // all ones where x < 0
    s = vaddq_s64(s, vaddq_s64(c_pos, vandq_s64(neg, c_diff)));
    if (wide) {  // clamp x*M + c so that the quotient lands in [lo64, hi64] (requant.h)
      s = vbslq_s64(vcgtq_s64(wlo, s), wlo, s);
      s = vbslq_s64(vcgtq_s64(s, whi), whi, s);
    }
    return vshlq_s64(s, sh);  // arithmetic shift right by S: floor(s / 2^S)
  }
  int32x4_t operator()(int32x4_t x) const {
    x = wrapping_add(x, off);  // modulo 2^32, as the scalar path
    int32x4_t r = vcombine_s32(vmovn_s64(half(vget_low_s32(x))), vmovn_s64(half(vget_high_s32(x))));
    if (!wide) r = vminq_s32(vmaxq_s32(r, lo), hi);
    return wrapping_add(r, zp);  // wide: the low 32 bits of a value in [qmin - zp, qmax - zp], + zp modulo 2^32, is exact
  }
};

template <bool kInclZp>
struct FloatKind {
  float32x4_t scale, zp_f, flo, fhi;
  int32x4_t zp;
  explicit FloatKind(const RequantParams& p)
      : scale(vdupq_n_f32(p.scale)),
        zp_f(vdupq_n_f32(p.zp_f)),
        flo(vdupq_n_f32(p.flo)),
        fhi(vdupq_n_f32(p.fhi)),
        zp(vdupq_n_s32(kInclZp ? 0 : p.zp)) {}
  int32x4_t operator()(int32x4_t x) const {
    float32x4_t f = vmulq_f32(vcvtq_f32_s32(x), scale);  // SCVTF rounds to nearest even
    if (kInclZp) f = vaddq_f32(f, zp_f);
    // Integer bounds commute with the rounding; FMAXNM maps NaN to the bound, as the scalar path.
    f = vminnmq_f32(vmaxnmq_f32(f, flo), fhi);
    return wrapping_add(vcvtnq_s32_f32(f), zp);  // FCVTNS: nearest, ties to even; + zp modulo 2^32 as above
  }
};

template <class F>
void drive(const F& f, const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  const std::size_t es = static_cast<std::size_t>(out_size(p.out));
  narrow_loop_any(
      p.out, n, y, [&](std::size_t i) { return f(vld1q_s32(x + i)); },
      [&](std::size_t i) { requant_scalar(p, n - i, x + i, static_cast<unsigned char*>(y) + i * es); });
}

}  // namespace

void requant(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  switch (p.kind) {
    case RequantKind::kQ31Double: return drive(Q31Double(p), p, n, x, y);
    case RequantKind::kShiftRound:
      if (p.shift < 0) return requant_scalar(p, n, x, y);  // exact left shifts: rare, scalar
      return drive(ShiftRound(p), p, n, x, y);
    case RequantKind::kFloatThenZp:
      if (!p.float_narrow) return requant_scalar(p, n, x, y);
      return drive(FloatKind<false>(p), p, n, x, y);
    case RequantKind::kFloatInclZp:
      if (!p.float_narrow) return requant_scalar(p, n, x, y);
      return drive(FloatKind<true>(p), p, n, x, y);
  }
}

}  // namespace qspec::simd::neon
