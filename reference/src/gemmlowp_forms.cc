// gemmlowp's affine forms, kernel typing and legacy overflow, over Z and Q.
#include "qspec/ref/gemmlowp_forms.h"

namespace qspec::ref {
namespace {
const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;
bool fits_int32(const Int& v) { return v >= kInt32Min && v <= kInt32Max; }
}  // namespace

// spec: gemmlowp.affine_forms
AffineForm2 form2_of_form3(const Rat& scale, const Int& zero_point) {
  QSPEC_REQUIRE(scale > 0, "gemmlowp.affine_forms: scale > 0");
  return {scale, Rat(-zero_point)};  // (3) is (2) with C = scale, D = -zero_point
}

AffineForm1 form1_of_form2(const AffineForm2& f) {
  QSPEC_REQUIRE(f.c > 0, "gemmlowp.affine_forms: C > 0");
  return {f.c, f.c * f.d};  // C (q + D) = C q + C D
}

// spec: gemmlowp.affine_forms
std::optional<Int> exact_zero_of(const AffineForm1& f, const Range& quantized) {
  QSPEC_REQUIRE(f.a > 0, "gemmlowp.affine_forms: A > 0");
  const Rat q = -f.b / f.a;  // A q + B = 0
  if (denominator(q) != 1 || numerator(q) < quantized.lo || numerator(q) > quantized.hi) return std::nullopt;
  return numerator(q);
}

std::optional<Int> exact_zero_of(const AffineForm2& f, const Range& quantized) {
  QSPEC_REQUIRE(f.c > 0, "gemmlowp.affine_forms: C > 0");
  const Rat q = -f.d;  // C (q + D) = 0 iff q = -D: C plays no role
  if (denominator(q) != 1 || numerator(q) < quantized.lo || numerator(q) > quantized.hi) return std::nullopt;
  return numerator(q);
}

// spec: gemmlowp.kernel_types
bool gemmlowp_kernel_depth_fits_int32(const Int& depth) {
  QSPEC_REQUIRE(depth >= 0, "gemmlowp.kernel_types: depth >= 0");
  // Each product (q1 - z1)(q2 - z2) of uint8 values is in [-65025, 65025] (255 * 255), both ends
  // reached; the sum of `depth` of them spans [-65025 depth, 65025 depth].
  const Int extreme = depth * 65025;
  return extreme <= kInt32Max && -extreme >= kInt32Min;
}

// spec: requant.gemmlowp.legacy_uint8_scale
bool gemmlowp_legacy_defined(const Int& x, const Int& result_offset, const Int& result_mult_int) {
  if (!fits_int32(x) || !fits_int32(result_offset) || !fits_int32(result_mult_int)) return false;
  const Int sum = x + result_offset;
  return fits_int32(sum) && fits_int32(sum * result_mult_int);
}

Int gemmlowp_legacy_max_safe_multiplier(const Int& accumulator_bound) {
  QSPEC_REQUIRE(accumulator_bound >= 1, "requant.gemmlowp.legacy_uint8_scale: a positive accumulator bound");
  // (x + a) b in [-bound b, bound b] must lie in [-2^31, 2^31 - 1]: the upper end decides.
  return kInt32Max / accumulator_bound;
}

}  // namespace qspec::ref
