// CVM's integer clip and shift operators over Z: formal kernel, CPU kernel, and exact-rounding variants.
#include <string>

#include "qspec/ref/mrt.h"
#include "qspec/ref/types.h"

namespace qspec::ref {
namespace {

void check_attr(int v, const char* clause, const char* what) {
  // CVM: VerifyAttrRange(v, name, 1, 33) plus the graph's precision check (0, 32]; qspec
  // rejects everything outside [1, 32] (errata E-MRT-6).
  QSPEC_ERROR_IF(v < 1 || v > 32, std::string(clause) + ": " + what + " must be in [1, 32], got " + std::to_string(v));
}

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;

}  // namespace

// spec: cvm.clip
Int cvm_clip(const Int& x, int precision) {
  check_attr(precision, "cvm.clip", "precision");
  return saturate(x, mrt_sym_range(precision));
}

// spec: cvm.right_shift
// The kernel computes ((x >> (b-1)) + 1) >> 1 with arithmetic shifts, i.e.
// floor((floor(x / 2^(b-1)) + 1) / 2) = floor((x / 2^(b-1) + 1) / 2) (nested floors of a division
// by a positive integer collapse) = floor((x + 2^(b-1)) / 2^b): round half up of x / 2^b.
Int cvm_right_shift(const Int& x, int shift_bit, int precision) {
  check_attr(precision, "cvm.right_shift", "precision");
  check_attr(shift_bit, "cvm.right_shift", "shift_bit");
  const Int t = floor_div(x + pow2(static_cast<unsigned>(shift_bit - 1)), pow2(static_cast<unsigned>(shift_bit)));
  return saturate(t, mrt_sym_range(precision));
}

// spec: cvm.right_shift_cpu
// The four branches of src/runtime/cpu/ops/ops.cc cvm_right_shift, in its order.
Int cvm_right_shift_cpu(const Int& x, int shift_bit, int precision) {
  check_attr(precision, "cvm.right_shift_cpu", "precision");
  check_attr(shift_bit, "cvm.right_shift_cpu", "shift_bit");
  QSPEC_REQUIRE(x >= kInt32Min && x <= kInt32Max, "cvm.right_shift_cpu: int32 input");
  if (precision == 1) return 0;                      // max == 0: memset to zero
  if (shift_bit >= 31) return floor_div(x, pow2(31));  // a >> 31: no rounding
  const Int t = floor_div(x + pow2(static_cast<unsigned>(shift_bit - 1)), pow2(static_cast<unsigned>(shift_bit)));
  if (precision + shift_bit >= 32) {
    QSPEC_REQUIRE(!(shift_bit == 1 && x == kInt32Max), "cvm.right_shift_cpu: (x >> 0) + 1 overflows int32");
    return t;  // no clip
  }
  return saturate(t, mrt_sym_range(precision));
}

// spec: cvm.left_shift
Int cvm_left_shift(const Int& x, int shift_bit, int precision, int input_precision) {
  check_attr(precision, "cvm.left_shift", "precision");
  check_attr(shift_bit, "cvm.left_shift", "shift_bit");
  check_attr(input_precision, "cvm.left_shift", "input_precision");
  QSPEC_ERROR_IF(input_precision + shift_bit > 32,
           "cvm.left_shift: input precision + shift_bit = " + std::to_string(input_precision + shift_bit) +
               " > 32 (CVM precision inference refuses the graph)");
  QSPEC_REQUIRE(abs(x) <= mrt_alpha(input_precision), "cvm.left_shift: |x| <= 2^(input_precision-1) - 1");
  return saturate(x * pow2(static_cast<unsigned>(shift_bit)), mrt_sym_range(precision));
}

Int cvm_right_shift_exact(const Int& x, int shift_bit, int precision, Rounding mode) {
  check_attr(precision, "cvm.right_shift", "precision");
  check_attr(shift_bit, "cvm.right_shift", "shift_bit");
  return saturate(round(Rat(x, pow2(static_cast<unsigned>(shift_bit))), mode), mrt_sym_range(precision));
}

}  // namespace qspec::ref
