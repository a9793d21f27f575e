// The four requantization kernels every supported convention reduces to, and their scalar forms.
//
// A convention (gemmlowp double rounding, TFLite single rounding, TOSA, TVM, XNNPACK, oneDNN,
// PyTorch...) is turned once per call into RequantParams by requant_plan.cc; the kernels then
// only know four arithmetic shapes:
//
//   kQ31Double   y = sat(RDBPOT(SRDHM(x * 2^L, M), R) + zp)
//                SRDHM(a, b) = INT32_MAX if a = b = INT32_MIN, else floor((a*b + 2^30) / 2^31)
//                RDBPOT(v, R) = round half away from zero of v / 2^R
//   kShiftRound  y = sat(floor((x'*M + c(x')) / 2^S) + zp), x' = x + input_offset (mod 2^32),
//                c(x') = c_pos if x' >= 0 else c_neg (one rounding of a 64-bit product: half up,
//                half away, TOSA double rounding...); S < 0 means the exact product x'*M*2^-S
//   kFloatThenZp y = sat(rne(fl32(fl32(x) * scale)) + zp)          rne: round half to even
//   kFloatInclZp y = sat(rne(fl32(fl32(fl32(x) * scale) + fl32(zp))))
//
// sat clamps to [qmin, qmax] of the output type. Every kernel is exact on its whole domain:
// the sums are formed so that no intermediate wraps (see the comments of each kernel).
#pragma once

#include <cstddef>
#include <cstdint>

namespace qspec::simd {

enum class OutType : std::uint8_t { I8, U8, I16, U16, I32 };

inline std::int32_t out_min(OutType t) {
  switch (t) {
    case OutType::I8: return -128;
    case OutType::U8: return 0;
    case OutType::I16: return -32768;
    case OutType::U16: return 0;
    case OutType::I32: return INT32_MIN;
  }
  return 0;
}
inline std::int32_t out_max(OutType t) {
  switch (t) {
    case OutType::I8: return 127;
    case OutType::U8: return 255;
    case OutType::I16: return 32767;
    case OutType::U16: return 65535;
    case OutType::I32: return INT32_MAX;
  }
  return 0;
}
inline int out_size(OutType t) {
  switch (t) {
    case OutType::I8:
    case OutType::U8: return 1;
    case OutType::I16:
    case OutType::U16: return 2;
    case OutType::I32: return 4;
  }
  return 4;
}

enum class RequantKind : std::uint8_t { kQ31Double, kShiftRound, kFloatThenZp, kFloatInclZp };

struct RequantParams {
  RequantKind kind = RequantKind::kQ31Double;
  OutType out = OutType::I8;
  std::int32_t qmin = -128, qmax = 127;  // saturation range (normally the out type's range)
  std::int32_t zp = 0;                   // output zero point

  // Derived by finalize(): the clamp of the value before the zero point is added. For every
  // integer v, sat(v + zp) = clamp(v, lo64, hi64) + zp with lo64 = qmin - zp, hi64 = qmax - zp;
  // for an int32 v the clipped bounds [lo_nozp, hi_nozp] = [lo64, hi64] intersected with int32 give the same
  // result and keep the addition inside int32. Where that intersection is empty (lo64 > INT32_MAX),
  // both bounds are lo64 modulo 2^32 (hi64 likewise), and the kernels add zp modulo 2^32.
  std::int64_t lo64 = -128, hi64 = 127;
  std::int32_t lo_nozp = -128, hi_nozp = 127;

  // kQ31Double
  std::int32_t multiplier = 0;
  int left_shift = 0;   // 0..31 (the product x * 2^L is taken modulo 2^32, as the C code does)
  int right_shift = 0;  // 0..31

  // kShiftRound: multiplier above, and
  std::int32_t input_offset = 0;          // added to x first, modulo 2^32 (TVM's -input_zp, gemmlowp's result_offset)
  int shift = 0;                          // S, -62..63 (negative: a left shift, c must be 0)
  std::int64_t round_pos = 0;             // c for x >= 0
  std::int64_t round_neg = 0;             // c for x < 0
  bool wide = false;                      // derived: floor((x*M + c)/2^S) can leave int32 for some int32 x
  std::int64_t wide_lo = 0, wide_hi = 0;  // derived (wide): clamp of x*M + c equivalent to [lo_nozp, hi_nozp]

  // kFloatThenZp / kFloatInclZp
  float scale = 0.0f;
  float zp_f = 0.0f;             // fl32(zp)
  bool float_narrow = false;     // derived: lo64/hi64 (kFloatThenZp) or qmin/qmax (kFloatInclZp) are
                                 // binary32 integers of magnitude <= 2^24 (the fast path)
  float flo = 0.0f, fhi = 0.0f;  // derived: float clamp bounds of the fast path
};

// Fills the derived fields; call after setting the others. Returns false if a shift or the
// parameters are outside what the kernels implement (the caller reports UNSUPPORTED).
bool finalize(RequantParams& p);

// y[i] = requantize(x[i]) for i < n; y has the element type of p.out.
using RequantFn = void (*)(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y);

// Portable implementation, also the tail of the SIMD kernels and the judge in their tests.
void requant_scalar(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y);

// One element, exactly as requant_scalar computes it (int32 result before the store).
// kQ31Double with L = 0, R >= 1 and M >= 0 (every gemmlowp / TFLite double rounding with a negative
// exponent) as one kShiftRound into s: RDBPOT(SRDHM(x, M), R) = floor((x*M + c(x)) / 2^(31+R)); false
// where p is not of that form. The argument is in requant_scalar.cc.
bool q31_as_shift_round(const RequantParams& p, RequantParams& s);
// kShiftRound with S >= 32, not wide, the zero point moved into the rounding constants into z
// (floor((x*M + c + zp * 2^S) / 2^S) = floor((x*M + c) / 2^S) + zp); false where that could leave
// int64 or the sum int32.
bool zp_into_rounding(const RequantParams& p, RequantParams& z);

std::int32_t requant_one(const RequantParams& p, std::int32_t x);

// ---- the scalar primitives, shared by every implementation ----

// SaturatingRoundingDoublingHighMul: round_half_up(a*b / 2^31), INT32_MIN^2 -> INT32_MAX.
inline std::int32_t srdhm(std::int32_t a, std::int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const std::int64_t p = static_cast<std::int64_t>(a) * b;
  // floor((p + 2^30) / 2^31): gemmlowp's sign-dependent nudge followed by a truncating division
  // is exactly this floor (for p < 0 it adds 1 - 2^30 and truncates toward zero).
  return static_cast<std::int32_t>((p + (std::int64_t{1} << 30)) >> 31);
}

// RoundingDivideByPOT: round half away from zero of x / 2^e, 0 <= e <= 31.
inline std::int32_t rdbpot(std::int32_t x, int e) {
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << e) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (remainder > threshold ? 1 : 0);
}

}  // namespace qspec::simd
