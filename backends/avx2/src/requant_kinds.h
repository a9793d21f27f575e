// Internal to the x86 requantization kernels (requant_avx2.cc on ymm, requant_avx512.cc on zmm):
// each kind's lane constants derived from RequantParams, and the choice of a kernel instantiation
// per call, written once so that the two vector widths cannot drift apart.
//
// Scalars only (no intrinsics), in an anonymous namespace: each ISA-flagged file gets its own copy,
// so the linker can never hand the AVX2 path a copy compiled with AVX-512 flags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "qspec/simd/requant.h"

namespace qspec::simd::avx2 {
namespace {

// kQ31Double's RDBPOT: round half away of r / 2^R as (r >> R) + (r & mask > half + (r < 0)).
struct Q31Lanes {
  std::int32_t mask, half;
  bool fix_overflow;  // M = INT32_MIN: SRDHM(INT32_MIN, INT32_MIN) = INT32_MAX is the one saturating case
  explicit Q31Lanes(const RequantParams& p)
      : mask(static_cast<std::int32_t>((std::int64_t{1} << p.right_shift) - 1)),
        half(static_cast<std::int32_t>(((std::int64_t{1} << p.right_shift) - 1) >> 1)),
        fix_overflow(p.multiplier == INT32_MIN) {}
};

// kShiftRound (0 <= S <= 63): the 64-bit sum's shifts that put floor(s / 2^S) in an int32 lane.
struct ShiftLanes {
  int s_lo;  // S (S < 32: a logical shift of s right by S), or S - 32 (S >= 32: an arithmetic shift of hi32(s))
  int s_hi;  // 32 - S for the odd lanes' left shift (S < 32), else 0
  std::int64_t c_diff;  // c_neg - c_pos, added where x' < 0
  bool has_offset;
  explicit ShiftLanes(const RequantParams& p)
      : s_lo(p.shift < 32 ? p.shift : p.shift - 32),
        s_hi(p.shift < 32 ? 32 - p.shift : 0),
        c_diff(p.round_neg - p.round_pos),
        has_offset(p.input_offset != 0) {}
};

// The float kinds: where the zero point is added. kInclZp adds fl32(zp) before the rounding; the
// narrow path adds the integer zp after the float clamp; the wide path adds it in binary64 (dzp).
template <bool kInclZp, bool kNarrow>
struct FloatLanes {
  double dzp;
  std::int32_t izp;
  explicit FloatLanes(const RequantParams& p) : dzp(kInclZp ? 0.0 : p.zp), izp(kInclZp || !kNarrow ? 0 : p.zp) {}
};

// q31_as_shift_round and zp_into_rounding (the folds the zmm kernels use) are requant.h's.

// The kernel for p: the functor families Q31 (Q31Double), Shift<kTwoConstants, kWide, kHighShift>
// and Float<kInclZp, kNarrow> of one width, each constructed from the parameters, run by
// V::run(functor, p, n, x, y); V::kQ31AsShiftRound says whether the width folds kQ31Double into
// kShiftRound where it can (where the sign-dependent constant costs fewer instructions than RDBPOT).
template <class V, template <bool, bool, bool> class Shift, bool kTwo, bool kWide>
void shift_round_with(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  if (p.shift >= 32) return V::run(Shift<kTwo, kWide, true>(p), p, n, x, y);
  V::run(Shift<kTwo, kWide, false>(p), p, n, x, y);
}

template <class V, class Q31, template <bool, bool, bool> class Shift, template <bool, bool> class Float>
void requant_with(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  switch (p.kind) {
    case RequantKind::kQ31Double: {
      RequantParams s;
      if (V::kQ31AsShiftRound && q31_as_shift_round(p, s)) return shift_round_with<V, Shift, true, false>(s, n, x, y);
      return V::run(Q31(p), p, n, x, y);
    }
    case RequantKind::kShiftRound: {
      if (p.shift < 0) return requant_scalar(p, n, x, y);  // exact left shifts: rare, scalar
      const bool two = p.round_pos != p.round_neg;
      if (p.wide)
        return two ? shift_round_with<V, Shift, true, true>(p, n, x, y)
                   : shift_round_with<V, Shift, false, true>(p, n, x, y);
      return two ? shift_round_with<V, Shift, true, false>(p, n, x, y)
                 : shift_round_with<V, Shift, false, false>(p, n, x, y);
    }
    case RequantKind::kFloatThenZp:
      if (p.float_narrow) return V::run(Float<false, true>(p), p, n, x, y);
      return V::run(Float<false, false>(p), p, n, x, y);
    case RequantKind::kFloatInclZp:
      if (p.float_narrow) return V::run(Float<true, true>(p), p, n, x, y);
      return V::run(Float<true, false>(p), p, n, x, y);
  }
}

}  // namespace
}  // namespace qspec::simd::avx2
