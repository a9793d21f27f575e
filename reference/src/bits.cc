// Bit counting exactly as MRT's Python and CVM's C++ compute it, on exact integers/rationals.
#include "qspec/ref/bits.h"

#include "qspec/ref/rounding.h"

namespace qspec::ref {

// spec: bits.bit_length
int bit_length(const Int& n) {
  QSPEC_REQUIRE(n >= 0, "bits.bit_length: n >= 0");
  int b = 0;
  for (Int m = n; m != 0; m >>= 1) ++b;
  return b;
}

// spec: bits.mrt_get_bit
// ceil(log2(y)) for a real y >= 1 is the least k >= 0 with 2^k >= y. With y = |x| + 1 and
// 2^k an integer, 2^k >= y  <=>  2^k >= ceil(y), so k = bitlen(ceil(y) - 1).
// This is the exact real-number definition. MRT evaluates it in double precision
// (math.log2(math.fabs(x) + 1)), where the rounding of |x| + 1 can make the float result one
// less than the exact one when |x| lies within about 2^(k-51) above 2^k - 1; mrt.requant_operator
// (spec/mrt_quantization.md) states where that float evaluation matters.
int mrt_get_bit(const Rat& x) {
  const Int c = round_ceil(abs(x) + 1);
  return bit_length(c - 1) + 1;
}

// spec: bits.mrt_get_bit_cnt
int mrt_get_bit_cnt(const Int& n) {
  QSPEC_ERROR_IF(n <= 0, "bits.mrt_get_bit_cnt: n must be a positive integer");
  return bit_length(n);
}

// spec: bits.cvm_number_precision
int cvm_number_precision(const Int& n) {
  QSPEC_REQUIRE(n >= 0, "bits.cvm_number_precision: n >= 0");
  return bit_length(n + 1) + 1;
}

// spec: bits.cvm_precision_op
int cvm_precision_op(const Int& x) {
  const int b = bit_length(abs(x));
  return b < 1 ? 1 : b;
}

}  // namespace qspec::ref
