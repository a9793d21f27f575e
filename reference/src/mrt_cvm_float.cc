// MRT's cvm_float: a binary64 scale as (frac, exp) with frac * 2^exp ~ scale (spec/mrt_quantization.md).
#include "qspec/ref/ieee.h"
#include "qspec/ref/mrt.h"

namespace qspec::ref {

// spec: mrt.cvm_float
// A line-by-line transcription of sim_quant_helper.cvm_float on exact rationals. It computes
// the same values as MRT's binary64 loop because every step there is exact: halving a double
// >= 1 gives a normal double, doubling a double < 1 (or a subnormal) cannot overflow, and the
// third loop stays below 2^(bits-1) <= 2^31. Only round() rounds: Python 3 round() of a float is
// round-half-to-even of its exact value.
CvmFloat mrt_cvm_float(std::uint64_t number_f64, int bits) {
  QSPEC_REQUIRE(float_is_finite(number_f64, kBinary64), "mrt.cvm_float: finite number (MRT loops forever on infinity)");
  QSPEC_REQUIRE(bits <= 32, "mrt.cvm_float: bits <= 32 (frac must fit int32)");
  Rat number = f64_value(number_f64);
  QSPEC_ERROR_IF(number < 0, "mrt.cvm_float: number must be >= 0 (MRT asserts number >= 0)");
  // alpha = max(2 ** (bits - 1) - 1, 1): for bits <= 1, 2 ** (bits - 1) - 1 <= 0, so alpha = 1.
  const Int alpha = bits >= 2 ? pow2(static_cast<unsigned>(bits - 1)) - 1 : Int(1);
  int b = bits - 1;
  if (number == 0) return {Int(0), 0};
  int exp = 0;
  while (number >= 1) {
    number /= 2;
    ++exp;
  }
  while (number < 1) {  // now number is in [1, 2) and number * 2^exp is the input
    number *= 2;
    --exp;
  }
  while (b > 1) {  // at most bits - 2 doublings; stop as soon as the mantissa is an integer
    if (denominator(number) == 1) break;
    number *= 2;
    --exp;
    --b;
  }
  Int frac = round_half_even(number);
  // A carry to 2^(bits-1) is clamped to alpha, not renormalised (errata E-MRT-2).
  if (frac > alpha) frac = alpha;
  return {frac, exp};
}

}  // namespace qspec::ref
