// IEEE-754 binary32/binary64 as exact dyadic rationals, with round-to-nearest-even modelled exactly.
//
// The reference never executes a floating-point instruction. Where a clause specifies a float
// computation (XNNPACK's fp32 requantization, oneDNN, Glow's nearbyintf, TFLite's double
// multiplier), each IEEE operation is modelled as "compute the exact rational result, then round
// it to the nearest representable value, ties to even" (IEEE 754-2008 4.3.1, 5.4.1), which is
// what the hardware does in the default rounding mode.
#pragma once

#include <cstdint>

#include "qspec/ref/exact.h"

namespace qspec::ref {

struct FloatFormat {
  int mant_bits;  // stored fraction bits (23 for binary32)
  int exp_bits;   // exponent field bits (8 for binary32)
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
};
inline constexpr FloatFormat kBinary32{23, 8};
inline constexpr FloatFormat kBinary64{52, 11};

// spec: float.decode
// The exact value of a finite bit pattern. REQUIRE the pattern is finite (not inf/NaN).
Rat float_value(std::uint64_t bits, FloatFormat f);
bool float_is_finite(std::uint64_t bits, FloatFormat f);

// spec: float.round_rne
// The float nearest to r, ties to even; magnitudes that round beyond the largest finite value
// give infinity. `negative_zero` selects the sign of a zero result (IEEE: the sign of the exact
// product/quotient; +0 for an exact zero sum in round-to-nearest).
std::uint64_t float_round(const Rat& r, FloatFormat f, bool negative_zero = false);

// binary32 helpers. Each is the IEEE operation on finite operands: exact result, one RNE rounding.
inline Rat f32_value(std::uint32_t b) { return float_value(b, kBinary32); }
inline std::uint32_t f32_round(const Rat& r) { return static_cast<std::uint32_t>(float_round(r, kBinary32)); }
std::uint32_t f32_mul(std::uint32_t a, std::uint32_t b);
std::uint32_t f32_div(std::uint32_t a, std::uint32_t b);  // REQUIRE b != 0
std::uint32_t f32_add(std::uint32_t a, std::uint32_t b);
std::uint32_t f32_from_int(const Int& x);  // (float)x, RNE (cvtsi2ss)
inline Rat f64_value(std::uint64_t b) { return float_value(b, kBinary64); }
inline std::uint64_t f64_round(const Rat& r) { return float_round(r, kBinary64); }
std::uint64_t f64_mul(std::uint64_t a, std::uint64_t b);
std::uint64_t f64_div(std::uint64_t a, std::uint64_t b);  // REQUIRE b != 0
std::uint64_t f64_from_f32(std::uint32_t a);              // exact widening
std::uint32_t f32_from_f64(std::uint64_t a);              // RNE narrowing

}  // namespace qspec::ref
