// Exact decoding/encoding of IEEE binary formats and RNE rounding of rationals (no float ops).
#include "qspec/ref/ieee.h"

#include "qspec/ref/bits.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref {
namespace {

std::uint64_t mask(int bits) { return (bits >= 64) ? ~0ull : ((1ull << bits) - 1); }

bool sign_bit(std::uint64_t b, FloatFormat f) { return (b >> (f.mant_bits + f.exp_bits)) & 1; }

// floor(log2(r)) for r > 0.
int floor_log2(const Rat& r) {
  int e = bit_length(numerator(r)) - bit_length(denominator(r));
  // 2^(e-1) < r < 2^(e+1) from the bit lengths; settle the exact exponent.
  while (pow2r(e) > r) --e;
  while (pow2r(e + 1) <= r) ++e;
  return e;
}

}  // namespace

bool float_is_finite(std::uint64_t bits, FloatFormat f) {
  const std::uint64_t exp = (bits >> f.mant_bits) & mask(f.exp_bits);
  return exp != mask(f.exp_bits);
}

// spec: float.decode
// value = (-1)^s * 2^(E - bias) * (1 + m / 2^mant)   for 0 < E < max,
//       = (-1)^s * 2^(1 - bias) * (m / 2^mant)       for E == 0 (zero and subnormals).
Rat float_value(std::uint64_t bits, FloatFormat f) {
  QSPEC_REQUIRE(float_is_finite(bits, f), "float.decode: finite bit pattern");
  const std::uint64_t exp = (bits >> f.mant_bits) & mask(f.exp_bits);
  const std::uint64_t man = bits & mask(f.mant_bits);
  Int significand = Int(man);
  int e = 1 - f.bias();
  if (exp != 0) {
    significand += pow2(static_cast<unsigned>(f.mant_bits));
    e = static_cast<int>(exp) - f.bias();
  }
  Rat v = Rat(significand) * pow2r(e - f.mant_bits);
  return sign_bit(bits, f) ? Rat(-v) : v;
}

// spec: float.round_rne
// With p = mant_bits + 1 significant bits and emin = 1 - bias: let e = max(floor(log2|r|), emin);
// the representable values near |r| are the multiples of q = 2^(e - mant_bits), so the result is
// m*q with m = round_half_even(|r| / q). m may carry to 2^p, which is still exact (next binade).
// Overflow: if m*q >= 2^(emax+1) the rounded value is beyond the largest finite one, so the
// result is infinity (IEEE 754 7.4 with round-to-nearest).
std::uint64_t float_round(const Rat& r, FloatFormat f, bool negative_zero) {
  const int total = f.mant_bits + f.exp_bits;
  const std::uint64_t sign = (r < 0 || (r == 0 && negative_zero)) ? (1ull << total) : 0ull;
  if (r == 0) return sign;
  const Rat a = abs(r);
  const int emin = 1 - f.bias();
  const int emax = f.bias();
  int e = floor_log2(a);
  if (e < emin) e = emin;
  Int m = round_half_even(a / pow2r(e - f.mant_bits));
  if (Rat(m) * pow2r(e - f.mant_bits) >= pow2r(emax + 1)) return sign | (mask(f.exp_bits) << f.mant_bits);
  if (m == 0) return sign;  // underflow to zero
  const Int hidden = pow2(static_cast<unsigned>(f.mant_bits));
  if (m < hidden) {  // subnormal (only possible when e == emin): exponent field 0
    return sign | static_cast<std::uint64_t>(m);
  }
  if (m == 2 * hidden) {  // carry into the next binade
    m = hidden;
    ++e;
  }
  const std::uint64_t exp_field = static_cast<std::uint64_t>(e + f.bias());
  return sign | (exp_field << f.mant_bits) | static_cast<std::uint64_t>(m - hidden);
}

std::uint32_t f32_mul(std::uint32_t a, std::uint32_t b) {
  const bool neg = sign_bit(a, kBinary32) != sign_bit(b, kBinary32);
  return static_cast<std::uint32_t>(float_round(f32_value(a) * f32_value(b), kBinary32, neg));
}

std::uint32_t f32_div(std::uint32_t a, std::uint32_t b) {
  const Rat d = f32_value(b);
  QSPEC_REQUIRE(d != 0, "f32_div: nonzero divisor");
  const bool neg = sign_bit(a, kBinary32) != sign_bit(b, kBinary32);
  return static_cast<std::uint32_t>(float_round(f32_value(a) / d, kBinary32, neg));
}

std::uint32_t f32_add(std::uint32_t a, std::uint32_t b) {
  const bool both_neg_zero = (a == 0x80000000u) && (b == 0x80000000u);
  return static_cast<std::uint32_t>(float_round(f32_value(a) + f32_value(b), kBinary32, both_neg_zero));
}

std::uint32_t f32_from_int(const Int& x) { return static_cast<std::uint32_t>(float_round(Rat(x), kBinary32)); }

std::uint64_t f64_mul(std::uint64_t a, std::uint64_t b) {
  const bool neg = sign_bit(a, kBinary64) != sign_bit(b, kBinary64);
  return float_round(f64_value(a) * f64_value(b), kBinary64, neg);
}

std::uint64_t f64_div(std::uint64_t a, std::uint64_t b) {
  const Rat d = f64_value(b);
  QSPEC_REQUIRE(d != 0, "f64_div: nonzero divisor");
  const bool neg = sign_bit(a, kBinary64) != sign_bit(b, kBinary64);
  return float_round(f64_value(a) / d, kBinary64, neg);
}

std::uint64_t f64_from_f32(std::uint32_t a) {
  return float_round(f32_value(a), kBinary64, sign_bit(a, kBinary32));
}

std::uint32_t f32_from_f64(std::uint64_t a) {
  return static_cast<std::uint32_t>(float_round(f64_value(a), kBinary32, sign_bit(a, kBinary64)));
}

}  // namespace qspec::ref
