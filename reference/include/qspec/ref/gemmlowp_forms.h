// gemmlowp's paradigm, the parts between the equations: the affine forms (1), (2), (3) and when 0 is
// exact, the int16/int32 kernel typing, and where the legacy stage's int32 arithmetic overflows.
#pragma once

#include <optional>

#include "qspec/ref/exact.h"
#include "qspec/ref/types.h"

namespace qspec::ref {

// Form (1): real = A q + B. Form (2): real = C (q + D). Form (3): real = scale (q - zero_point).
struct AffineForm1 {
  Rat a, b;
};
struct AffineForm2 {
  Rat c, d;
};

// spec: gemmlowp.affine_forms
// The same map in each form: (3) -> (2) is C = scale, D = -zero_point; (2) -> (1) is A = C, B = C D.
// REQUIRE scale > 0 (C > 0).
AffineForm2 form2_of_form3(const Rat& scale, const Int& zero_point);
AffineForm1 form1_of_form2(const AffineForm2& f);
// spec: gemmlowp.affine_forms
// The quantized value that represents the real 0 exactly, if any: form (1) needs -B / A to be an
// integer in the quantized range, form (2) needs -D to be. REQUIRE A > 0 (C > 0).
std::optional<Int> exact_zero_of(const AffineForm1& f, const Range& quantized);
std::optional<Int> exact_zero_of(const AffineForm2& f, const Range& quantized);

// spec: gemmlowp.kernel_types
// The kernel's types: a difference q - zero_point of uint8 values is in [-255, 255] (int16), a
// product of two in [-65025, 65025] (int32), and a sum of `depth` of them fits int32 for every
// input iff depth <= 33025.
bool gemmlowp_kernel_depth_fits_int32(const Int& depth);

// spec: requant.gemmlowp.legacy_uint8_scale
// The legacy stage's int32 arithmetic is defined (no overflow of x + a or (x + a) * b) exactly
// when this returns true; the largest multiplier safe for every |x + a| <= bound is
// floor((2^31 - 1) / bound).
bool gemmlowp_legacy_defined(const Int& x, const Int& result_offset, const Int& result_mult_int);
Int gemmlowp_legacy_max_safe_multiplier(const Int& accumulator_bound);

}  // namespace qspec::ref
