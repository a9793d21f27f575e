// Bit-count functions of MRT (get_bit, get_bit_cnt) and CVM (GetNumberPrecision), which differ.
#pragma once

#include "qspec/ref/exact.h"

namespace qspec::ref {

// spec: bits.bit_length
// bitlen(n) for n >= 0: the number of binary digits of n (bitlen(0) = 0). REQUIRE n >= 0.
int bit_length(const Int& n);

// spec: bits.mrt_get_bit
// MRT get_bit(x) = ceil(log2(|x| + 1)) + 1 for a real x (magnitude bits plus a sign bit).
int mrt_get_bit(const Rat& x);

// spec: bits.mrt_get_bit_cnt
// MRT get_bit_cnt(n) = bitlen(n) for an integer n > 0. ERROR_IF n <= 0 (MRT asserts).
int mrt_get_bit_cnt(const Int& n);

// spec: bits.cvm_number_precision
// CVM GetNumberPrecision(n) = bitlen(n + 1) + 1 for n >= 0. REQUIRE n >= 0.
int cvm_number_precision(const Int& n);

// spec: bits.cvm_precision_op
// CVM cvm_precision kernel: bit length of |x| with a minimum of 1 (no sign bit).
int cvm_precision_op(const Int& x);

}  // namespace qspec::ref
