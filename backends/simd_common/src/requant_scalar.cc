// Portable requantization kernels (the four kinds of requant.h) and the derivation of their bounds.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "qspec/simd/requant.h"

namespace qspec::simd {
namespace {

using i128 = __int128;

constexpr std::int64_t kI32Min = INT32_MIN, kI32Max = INT32_MAX;

std::int64_t clip_i64(i128 v) {
  const i128 lo = INT64_MIN, hi = INT64_MAX;
  return static_cast<std::int64_t>(v < lo ? lo : v > hi ? hi : v);
}

// floor(v / 2^s) for 0 <= s <= 126 (arithmetic shift of a signed 128-bit value is a floor).
i128 floor_shift(i128 v, int s) { return v >> s; }

template <class T>
void store(void* y, std::size_t i, std::int32_t v) {
  const T t = static_cast<T>(v);
  std::memcpy(static_cast<unsigned char*>(y) + i * sizeof(T), &t, sizeof(T));
}

template <class T>
void run(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  for (std::size_t i = 0; i < n; ++i) store<T>(y, i, requant_one(p, x[i]));
}

}  // namespace

bool finalize(RequantParams& p) {
  if (p.qmin > p.qmax) return false;
  p.lo64 = std::int64_t{p.qmin} - p.zp;
  p.hi64 = std::int64_t{p.qmax} - p.zp;
  p.lo_nozp = static_cast<std::int32_t>(std::max<std::int64_t>(p.lo64, kI32Min));
  p.hi_nozp = static_cast<std::int32_t>(std::min<std::int64_t>(p.hi64, kI32Max));
  // [lo64, hi64] can miss int32 entirely (qmin >= 0 with zp = INT32_MIN: lo64 >= 2^31): every int32
  // v then clamps to lo64 (hi64), which is no int32. Its residue modulo 2^32 as both bounds makes
  // the clamp that constant, and the zero point's addition, modulo 2^32 in every kernel, gives
  // qmin (qmax) exactly.
  if (p.lo64 > kI32Max) p.lo_nozp = p.hi_nozp = static_cast<std::int32_t>(p.lo64);  // C++20: modulo 2^32
  if (p.hi64 < kI32Min) p.lo_nozp = p.hi_nozp = static_cast<std::int32_t>(p.hi64);
  if (p.lo_nozp > p.hi_nozp) return false;
  switch (p.kind) {
    case RequantKind::kQ31Double:
      return p.left_shift >= 0 && p.left_shift <= 31 && p.right_shift >= 0 && p.right_shift <= 31;
    case RequantKind::kShiftRound: {
      if (p.shift < -62 || p.shift > 63) return false;  // |x*M + c| < 2^63 for |c| <= 2^62, so S = 63 is fine
      if (p.shift < 0) {                                // an exact left shift: only the scalar path implements it
        if (p.round_pos != 0 || p.round_neg != 0) return false;
        p.wide = true;
        return true;
      }
      // x*M + c must not leave int64: |x*M| <= 2^62, so |c| <= 2^62 suffices.
      const std::int64_t cmax = std::int64_t{1} << 62;
      if (p.round_pos > cmax || p.round_pos < -cmax || p.round_neg > cmax || p.round_neg < -cmax) return false;
      // The extremes of floor((x*M + c(x)) / 2^S) over int32 x: the function is monotone in x on
      // x >= 0 and on x < 0 (c is constant on each), so the four end points bound it.
      const std::int64_t xs[4] = {0, kI32Max, -1, kI32Min};
      i128 tmin = 0, tmax = 0;
      for (int i = 0; i < 4; ++i) {
        const i128 c = xs[i] >= 0 ? p.round_pos : p.round_neg;
        const i128 t = floor_shift(i128{xs[i]} * p.multiplier + c, p.shift);
        if (i == 0 || t < tmin) tmin = t;
        if (i == 0 || t > tmax) tmax = t;
      }
      p.wide = tmin < kI32Min || tmax > kI32Max;
      // Clamping s = x*M + c to [lo64 * 2^S, (hi64 + 1) * 2^S - 1] clamps floor(s / 2^S) to
      // [lo64, hi64] (floor of a quotient by a positive constant is monotone); the shifted
      // value plus zp is then in [qmin, qmax], so computing it modulo 2^32 is exact.
      p.wide_lo = clip_i64(i128{p.lo64} << p.shift);
      p.wide_hi = clip_i64(((i128{p.hi64} + 1) << p.shift) - 1);
      return true;
    }
    case RequantKind::kFloatThenZp: {
      constexpr std::int64_t kExact = std::int64_t{1} << 24;  // every integer up to 2^24 is a float
      p.float_narrow = p.lo64 >= -kExact && p.hi64 <= kExact;
      p.flo = static_cast<float>(p.lo64);
      p.fhi = static_cast<float>(p.hi64);
      return true;
    }
    case RequantKind::kFloatInclZp: {
      constexpr std::int64_t kExact = std::int64_t{1} << 24;
      p.zp_f = static_cast<float>(p.zp);  // int32 -> binary32 rounds to nearest even, as C does
      p.float_narrow = std::int64_t{p.qmin} >= -kExact && std::int64_t{p.qmax} <= kExact;
      p.flo = static_cast<float>(p.qmin);
      p.fhi = static_cast<float>(p.qmax);
      return true;
    }
  }
  return false;
}

// kQ31Double with L = 0, R >= 1 and M >= 0 (every gemmlowp / TFLite double rounding with a negative
// exponent) as one kShiftRound, RDBPOT(SRDHM(x, M), R) = floor((x*M + c) / 2^(31+R)) with
// c = 2^30 + 2^(30+R) - [x < 0] * 2^31. Why: with p = x*M and t = SRDHM = floor((p + 2^30) / 2^31),
// RDBPOT(t, R) = floor((t + 2^(R-1) - [t < 0]) / 2^R), and t + k = floor((p + 2^30 + k * 2^31) / 2^31)
// for an integer k, so the two floors nest into one. [x < 0] stands for [t < 0]: they differ only where
// p is in [-2^30, 0] (x < 0 with M > 0, or M = 0), where t = 0 and the numerator is
// in [0, 2^(31+R)) either way, so the quotient is 0 = RDBPOT(0, R). M >= 0 excludes INT32_MIN^2.
// The quotient is RDBPOT of an int32 by R >= 1, so it fits int32 (not wide), and |x*M + c| < 2^63.
bool q31_as_shift_round(const RequantParams& p, RequantParams& s) {
  if (p.kind != RequantKind::kQ31Double || p.left_shift != 0 || p.right_shift < 1 || p.multiplier < 0) return false;
  s = p;
  s.kind = RequantKind::kShiftRound;
  s.input_offset = 0;
  s.shift = 31 + p.right_shift;
  s.round_pos = (std::int64_t{1} << 30) + (std::int64_t{1} << (30 + p.right_shift));
  s.round_neg = s.round_pos - (std::int64_t{1} << 31);
  s.wide = false;
  return true;
}

// kShiftRound with S >= 32, not wide: the zero point moved into the rounding constants, c' = c +
// zp * 2^S, so that floor((x*M + c') / 2^S) = floor((x*M + c) / 2^S) + zp exactly (zp * 2^S is a
// multiple of 2^S). Only where x*M + c' stays inside int64 (|c'| <= 2^62, what finalize() asks of c)
// and the sum inside int32: its extremes over int32 x are at x in {0, INT32_MAX, -1, INT32_MIN}, as in
// finalize() (monotone on x >= 0 and on x < 0, c constant on each).
bool zp_into_rounding(const RequantParams& p, RequantParams& z) {
  if (p.kind != RequantKind::kShiftRound || p.wide || p.shift < 32) return false;
  const i128 zs = i128{p.zp} << p.shift, cmax = i128{1} << 62;
  const i128 cp = p.round_pos + zs, cn = p.round_neg + zs;
  if (cp > cmax || cp < -cmax || cn > cmax || cn < -cmax) return false;
  for (const std::int64_t x : {std::int64_t{0}, std::int64_t{INT32_MAX}, std::int64_t{-1}, std::int64_t{INT32_MIN}}) {
    const i128 t = (i128{x} * p.multiplier + (x >= 0 ? cp : cn)) >> p.shift;  // floor: >> of a signed value
    if (t < INT32_MIN || t > INT32_MAX) return false;
  }
  z = p;
  z.round_pos = static_cast<std::int64_t>(cp);
  z.round_neg = static_cast<std::int64_t>(cn);
  return true;
}

std::int32_t requant_one(const RequantParams& p, std::int32_t x) {
  switch (p.kind) {
    case RequantKind::kQ31Double: {
      // x * 2^L modulo 2^32, as the int32 multiplication of gemmlowp/TFLite wraps in practice.
      const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << p.left_shift);
      const std::int32_t v = rdbpot(srdhm(shifted, p.multiplier), p.right_shift);
      // The sum lies in [qmin, qmax]; modulo 2^32, as in the SIMD kernels, for when [lo64, hi64] misses int32.
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(std::clamp(v, p.lo_nozp, p.hi_nozp)) +
                                       static_cast<std::uint32_t>(p.zp));
    }
    case RequantKind::kShiftRound: {
      x = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) + static_cast<std::uint32_t>(p.input_offset));
      if (p.shift < 0) {
        const i128 t = (i128{x} * p.multiplier) * (i128{1} << -p.shift);
        return static_cast<std::int32_t>((t < p.lo64 ? i128{p.lo64} : t > p.hi64 ? i128{p.hi64} : t) + p.zp);
      }
      const std::int64_t s = std::int64_t{x} * p.multiplier + (x >= 0 ? p.round_pos : p.round_neg);
      const std::int64_t t = s >> p.shift;  // C++20: arithmetic shift = floor
      return static_cast<std::int32_t>(std::clamp<std::int64_t>(t, p.lo64, p.hi64) + p.zp);
    }
    case RequantKind::kFloatThenZp: {
      const float f = static_cast<float>(x) * p.scale;
      // Default rounding mode: half to even. |r| < 2^53 or far outside [lo64, hi64], so
      // r + zp is exact wherever it matters.
      const double v = std::nearbyint(static_cast<double>(f)) + static_cast<double>(p.zp);
      if (!(v >= p.qmin)) return p.qmin;  // also NaN
      if (v > p.qmax) return p.qmax;
      return static_cast<std::int32_t>(v);
    }
    case RequantKind::kFloatInclZp: {
      const float f = static_cast<float>(x) * p.scale;
      const float g = f + p.zp_f;
      const double r = std::nearbyint(static_cast<double>(g));
      if (!(r >= p.qmin)) return p.qmin;
      if (r > p.qmax) return p.qmax;
      return static_cast<std::int32_t>(r);
    }
  }
  return 0;
}

void requant_scalar(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  switch (p.out) {
    case OutType::I8: return run<std::int8_t>(p, n, x, y);
    case OutType::U8: return run<std::uint8_t>(p, n, x, y);
    case OutType::I16: return run<std::int16_t>(p, n, x, y);
    case OutType::U16: return run<std::uint16_t>(p, n, x, y);
    case OutType::I32: return run<std::int32_t>(p, n, x, y);
  }
}

}  // namespace qspec::simd
