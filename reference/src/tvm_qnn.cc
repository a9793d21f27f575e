// Exact TVM QNN lowering: quantize, dequantize, requantize and tir.q_multiply_shift.
#include "qspec/ref/tvm_qnn.h"

#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref {
namespace {

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;
const Int kInt64Min = -pow2(63);
const Int kInt64Max = pow2(63) - 1;

bool fits_int32(const Int& v) { return v >= kInt32Min && v <= kInt32Max; }
bool fits_int64(const Int& v) { return v >= kInt64Min && v <= kInt64Max; }

std::string dtype_str(DType t) { return std::string(dtype_name(t)); }

// x >> k for an integer x and 0 <= k: the arithmetic right shift is floor(x / 2^k).
Int asr(const Int& x, int k) { return floor_div(x, pow2(static_cast<unsigned>(k))); }

// frexp of a positive rational: d = f * 2^e with f in [1/2, 1), exactly (std::frexp is exact).
void exact_frexp(const Rat& d, Rat& f, int& e) {
  e = 0;
  f = d;
  while (f >= 1) {
    f /= 2;
    ++e;
  }
  while (f < Rat(1, 2)) {
    f *= 2;
    --e;
  }
}

// The int64 core shared by UPWARD (QMultiplyShift) and TONEAREST (FixedPointMultiplyToNearest):
//   x64 = x << l;  p = x64 * M;  p += round_const;  p >>= r + 31;  cast to int32.
// TVM emits the int64 multiply and add with the nsw flag, so an overflow there has no defined
// result; the shifts need 0 <= amount < 64. We REQUIRE all of that away.
Int int64_multiply_shift(const Int& x, const Int& multiplier, int shift, bool to_nearest, const std::string& clause) {
  const int l = shift > 0 ? shift : 0;
  const int r = shift > 0 ? 0 : -shift;
  QSPEC_REQUIRE(l <= 62, clause + ": left shift amount < 64");
  QSPEC_REQUIRE(r <= 32, clause + ": total right shift r + 31 <= 63");
  const Int x64 = x * pow2(static_cast<unsigned>(l));
  QSPEC_REQUIRE(fits_int64(x64), clause + ": x << left_shift fits int64");
  Int p = x64 * multiplier;
  QSPEC_REQUIRE(fits_int64(p), clause + ": (x << left_shift) * M fits int64");
  const int total = r + 31;
  const Int half = pow2(static_cast<unsigned>(total - 1));
  p += (to_nearest && p < 0) ? Int(half - 1) : half;
  QSPEC_REQUIRE(fits_int64(p), clause + ": adding the rounding constant does not overflow int64");
  const Int y = asr(p, total);
  QSPEC_REQUIRE(fits_int32(y), clause + ": the result fits int32 (the cast to int32 would wrap)");
  return y;
}

}  // namespace

// spec: tvm.quantize
// QuantizeLower (src/relay/qnn/op/quantize.cc):
//   scale_data = Round(Divide(input, scale));            // float32 division, llvm.round
//   add_zero_point = Add(scale_data, Cast(zp, float32)); // float32 addition
//   clamped = Clip(add_zero_point, qmin, qmax);          // bounds cast to float32
//   return Cast(clamped, out_dtype);
Int tvm_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out) {
  const std::string c = "tvm.quantize";
  QSPEC_ERROR_IF(!(out == DType::I8 || out == DType::U8 || out == DType::I16 || out == DType::U16 || out == DType::I32),
           c + ": out_dtype must be one of int8, uint8, int16, uint16, int32 (QuantizeRel), not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(x, kBinary32), c + ": finite input");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) > 0, c + ": finite positive scale");
  QSPEC_REQUIRE(fits_int32(zero_point), c + ": zero_point is int32");
  const std::uint32_t v = f32_div(x, scale);                        // may overflow to +-inf
  const std::uint32_t rounded = f32_round_to_integral(v, Rounding::HalfAway);  // llvm.round: ties away
  const std::uint32_t w = f32_add_ext(rounded, f32_from_int(zero_point));
  const Range range = int_range(out);
  std::uint32_t clipped = w;  // topi clip: max(min(w, a_max), a_min), a_min/a_max cast to float32
  const std::uint32_t a_min = f32_from_int(range.lo), a_max = f32_from_int(range.hi);
  if (f32_compare(clipped, a_max) > 0) clipped = a_max;
  if (f32_compare(clipped, a_min) < 0) clipped = a_min;
  const Int y = round_trunc(f32_value(clipped));  // integral already: the cast is exact
  QSPEC_REQUIRE(y >= range.lo && y <= range.hi,
          c + ": the clipped float converts to " + dtype_str(out) + " (fl32(2^31 - 1) = 2^31 does not fit int32)");
  return y;
}

// spec: tvm.dequantize
// DequantizeLower: shift = Subtract(Cast(input, int32), zp); Multiply(Cast(shift, float32), scale).
std::uint32_t tvm_dequantize(const Int& q, DType in, const Int& zero_point, std::uint32_t scale) {
  const std::string c = "tvm.dequantize";
  QSPEC_ERROR_IF(!(in == DType::I8 || in == DType::U8 || in == DType::I16 || in == DType::U16 || in == DType::I32),
           c + ": input type must be one of int8, uint8, int16, uint16, int32 (DequantizeRel), not " + dtype_str(in));
  QSPEC_REQUIRE(fits_int32(zero_point), c + ": zero_point is int32");
  QSPEC_REQUIRE(fits_int32(q - zero_point), c + ": q - zero_point fits int32 (nsw subtraction)");
  return float_dequantize(q, zero_point, scale);
}

// spec: tvm.requantize_multiplier
std::uint64_t tvm_double_multiplier(std::uint32_t input_scale, std::uint32_t output_scale) {
  const std::string c = "tvm.requantize_multiplier";
  QSPEC_REQUIRE(float_is_finite(input_scale, kBinary32) && float_is_finite(output_scale, kBinary32), c + ": finite scales");
  QSPEC_REQUIRE(f32_value(input_scale) >= 0, c + ": input_scale >= 0");
  QSPEC_REQUIRE(f32_value(output_scale) != 0, c + ": output_scale != 0");
  // static_cast<double>(float) is exact; the quotient is one binary64 division.
  return f64_div(f64_from_f32(input_scale), f64_from_f32(output_scale));
}

// spec: tvm.requantize_multiplier
// GetFixedPointMultiplierShift (src/relay/qnn/utils.cc):
//   if (d == 0.) return (0, 0);
//   significand_d = std::frexp(d, &exponent);               // exact
//   significand_d = std::round(significand_d * (1ll << 31)); // exact product, ties away
//   if (significand == 1ll << 31) { significand /= 2; ++exponent; }
TvmFixedPoint tvm_fixed_point_multiplier_shift(std::uint64_t double_multiplier_bits) {
  const std::string c = "tvm.requantize_multiplier";
  QSPEC_REQUIRE(float_is_finite(double_multiplier_bits, kBinary64), c + ": finite multiplier");
  const Rat d = f64_value(double_multiplier_bits);
  QSPEC_REQUIRE(d >= 0, c + ": non-negative multiplier");
  if (d == 0) return {Int(0), 0};
  Rat f;
  int e = 0;
  exact_frexp(d, f, e);
  Int m = round_half_away(f * Rat(pow2(31)));
  if (m == pow2(31)) {
    m /= 2;
    ++e;
  }
  return {m, e};
}

// spec: tvm.fixed_point_multiply
// The default FLegalize of tir.q_multiply_shift (src/target/intrin_rule.cc), q = 31.
Int tvm_fixed_point_multiply(const Int& x, const Int& multiplier, int shift, bool power_of_two_path) {
  const std::string c = "tvm.fixed_point_multiply";
  QSPEC_REQUIRE(fits_int32(x), c + ": x is int32");
  QSPEC_REQUIRE(multiplier >= 0 && multiplier < pow2(31), c + ": M in [0, 2^31)");
  if (power_of_two_path && multiplier == pow2(30)) {
    // M = 2^30 stands for 0.5, so the real multiplier is 2^(shift - 1): a pure shift in int32.
    const int e = shift - 1;
    if (e > 0) {
      QSPEC_REQUIRE(e <= 31, c + ": left shift amount < 32");
      const Int y = x * pow2(static_cast<unsigned>(e));
      QSPEC_REQUIRE(fits_int32(y), c + ": x << e fits int32 (the int32 shift would wrap)");
      return y;
    }
    const int k = -e;
    QSPEC_REQUIRE(k >= 1, c + ": a multiplier of exactly 1 (1 << -1 is undefined)");
    QSPEC_REQUIRE(k <= 31, c + ": right shift amount < 32 in int32");
    const Int sum = x + pow2(static_cast<unsigned>(k - 1));
    QSPEC_REQUIRE(fits_int32(sum), c + ": x + 2^(k-1) fits int32 (nsw add)");
    return asr(sum, k);
  }
  return int64_multiply_shift(x, multiplier, shift, /*to_nearest=*/false, c);
}

// spec: tvm.requantize
Int tvm_fixed_point_multiply_to_nearest(const Int& x, const Int& multiplier, int shift) {
  const std::string c = "tvm.requantize (TONEAREST)";
  QSPEC_REQUIRE(fits_int32(x), c + ": x is int32");
  QSPEC_REQUIRE(multiplier >= 0 && multiplier < pow2(31), c + ": M in [0, 2^31)");
  return int64_multiply_shift(x, multiplier, shift, /*to_nearest=*/true, c);
}

// spec: tvm.requantize
// RequantizeLowerInt (src/relay/qnn/op/requantize.cc).
Int tvm_requantize(const Int& q, std::uint32_t input_scale, const Int& input_zero_point, std::uint32_t output_scale,
                   const Int& output_zero_point, TvmRounding rounding, DType out, bool per_axis) {
  const std::string c = "tvm.requantize";
  QSPEC_ERROR_IF(f32_is_nan(output_scale) || (float_is_finite(output_scale, kBinary32) && f32_value(output_scale) == 0),
           c + ": output scale can not be equal to 0.0");
  QSPEC_ERROR_IF(!(out == DType::I8 || out == DType::U8 || out == DType::I16 || out == DType::I32),
           c + ": out_dtype must be one of int8, uint8, int16, int32 (RequantizeRel), not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(input_scale, kBinary32) && float_is_finite(output_scale, kBinary32), c + ": finite scales");
  QSPEC_REQUIRE(f32_value(input_scale) >= 0 && f32_value(output_scale) > 0, c + ": input_scale >= 0, output_scale > 0");
  QSPEC_REQUIRE(fits_int32(q), c + ": the input fits int32 (it is cast to int32 first)");
  QSPEC_REQUIRE(fits_int32(input_zero_point) && fits_int32(output_zero_point), c + ": zero points are int32");
  const Int x = q - input_zero_point;
  QSPEC_REQUIRE(fits_int32(x), c + ": q - input_zero_point fits int32 (nsw subtraction)");

  Int scaled = x;
  if (per_axis || input_scale != output_scale) {  // IsEqualScalar: the per-tensor skip
    const TvmFixedPoint fp = tvm_fixed_point_multiplier_shift(tvm_double_multiplier(input_scale, output_scale));
    scaled = rounding == TvmRounding::Upward
                 ? tvm_fixed_point_multiply(x, fp.multiplier, fp.shift, /*power_of_two_path=*/!per_axis)
                 : tvm_fixed_point_multiply_to_nearest(x, fp.multiplier, fp.shift);
  }
  const Int shifted = scaled + output_zero_point;
  QSPEC_REQUIRE(fits_int32(shifted), c + ": scaled + output_zero_point fits int32 (nsw add)");
  if (out == DType::I32) return shifted;  // TVM skips the clip for int32
  return saturate(shifted, out);
}

}  // namespace qspec::ref
