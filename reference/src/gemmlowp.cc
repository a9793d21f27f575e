// Exact gemmlowp reference: quantization parameters, fixed-point primitives and output stages.
#include "qspec/ref/gemmlowp.h"

#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/types.h"

namespace qspec::ref {
namespace {

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;

bool fits_int32(const Int& v) { return v >= kInt32Min && v <= kInt32Max; }

void require_int32(const Int& v, const char* clause, const char* what) {
  QSPEC_REQUIRE(fits_int32(v), std::string(clause) + ": " + what + " must fit int32");
}

// float32 bit patterns used by the example code's constants.
constexpr std::uint32_t kF32Zero = 0x00000000u;    // 0.f
constexpr std::uint32_t kF32_255 = 0x437f0000u;    // 255.f
constexpr std::uint32_t kF32SignBit = 0x80000000u;

bool f32_is_inf(std::uint32_t b) { return (b & 0x7fffffffu) == 0x7f800000u; }

}  // namespace

Int wrap_int32(const Int& v) {
  // The low 32 bits as an unsigned value (floor modulo), then reinterpreted as signed.
  Int low = v - floor_div(v, pow2(32)) * pow2(32);
  return low > kInt32Max ? Int(low - pow2(32)) : low;
}

// spec: gemmlowp.affine_map
Rat gemmlowp_real_value(const Rat& scale, const Int& q, const Int& zero_point) { return scale * Rat(q - zero_point); }

// spec: gemmlowp.choose_params
// The example's statements, one IEEE operation each:
//   min = std::min(min, 0.f); max = std::max(max, 0.f);
//   const double scale = (max - min) / (qmax - qmin);        // float subtract, float divide by 255.f
//   const double initial_zero_point = qmin - min / scale;    // double divide, exact 0 - v
//   nudged = initial < 0 ? 0 : initial > 255 ? 255 : (uint8)std::round(initial);
GemmlowpQuantParams gemmlowp_choose_params(std::uint32_t min_bits, std::uint32_t max_bits) {
  QSPEC_REQUIRE(float_is_finite(min_bits, kBinary32) && float_is_finite(max_bits, kBinary32),
          "gemmlowp.choose_params: finite min and max");
  // std::min(a, b) returns (b < a) ? b : a and std::max(a, b) returns (a < b) ? b : a; a zero of
  // either sign is kept as given. The sign of a zero never changes the results below.
  if (f32_value(kF32Zero) < f32_value(min_bits)) min_bits = kF32Zero;
  if (f32_value(max_bits) < f32_value(kF32Zero)) max_bits = kF32Zero;
  // (max - min) is max + (-min): negating a float is exact (flip the sign bit).
  const std::uint32_t range = f32_add(max_bits, min_bits ^ kF32SignBit);
  // An infinite range gives an infinite scale (inf / 255 = inf).
  QSPEC_ERROR_IF(f32_is_inf(range), "gemmlowp.choose_params: max - min overflows float32, the scale is infinite");
  const std::uint32_t scale = f32_div(range, kF32_255);  // (qmax - qmin) == 255.f exactly
  QSPEC_ERROR_IF(f32_value(scale) == 0, "gemmlowp.choose_params: the float32 scale (max - min) / 255 is 0");
  // min / scale in double: both operands widen exactly; one double rounding.
  const std::uint64_t min_over_scale = f64_div(f64_from_f32(min_bits), f64_from_f32(scale));
  const Rat initial_zero_point = -f64_value(min_over_scale);  // qmin - v with qmin == 0: exact
  Int zp;
  if (initial_zero_point < 0) zp = 0;
  else if (initial_zero_point > 255) zp = 255;
  else zp = round_half_away(initial_zero_point);  // std::round: ties away from zero
  return {scale, zp};
}

// spec: gemmlowp.quantize
//   transformed = zero_point + real / scale;      // float divide, int->float (exact), float add
//   clamped = std::max(0.f, std::min(255.f, transformed));
//   q = (uint8)std::round(clamped);               // ties away from zero
Int gemmlowp_quantize(std::uint32_t real_bits, std::uint32_t scale_bits, const Int& zero_point) {
  QSPEC_REQUIRE(float_is_finite(real_bits, kBinary32), "gemmlowp.quantize: finite real value");
  QSPEC_REQUIRE(float_is_finite(scale_bits, kBinary32) && f32_value(scale_bits) > 0, "gemmlowp.quantize: finite scale > 0");
  QSPEC_REQUIRE(zero_point >= 0 && zero_point <= 255, "gemmlowp.quantize: zero_point in [0, 255]");
  const std::uint32_t quotient = f32_div(real_bits, scale_bits);
  if (f32_is_inf(quotient)) {
    // inf + finite zero point stays inf; the clamp then yields 0 or 255.
    return (quotient & kF32SignBit) ? Int(0) : Int(255);
  }
  const Rat transformed = f32_value(f32_add(f32_from_int(zero_point), quotient));
  const Rat clamped = transformed > 255 ? Rat(255) : (transformed < 0 ? Rat(0) : transformed);
  return round_half_away(clamped);
}

// spec: gemmlowp.dequantize
//   scale * (quantized_val - zero_point)   // uint8 - uint8 is an exact int; int->float exact; one float multiply
std::uint32_t gemmlowp_dequantize(const Int& q, std::uint32_t scale_bits, const Int& zero_point) {
  QSPEC_REQUIRE(float_is_finite(scale_bits, kBinary32), "gemmlowp.dequantize: finite scale");
  QSPEC_REQUIRE(q >= 0 && q <= 255 && zero_point >= 0 && zero_point <= 255, "gemmlowp.dequantize: uint8 q and zero_point");
  return f32_mul(scale_bits, f32_from_int(q - zero_point));
}

// spec: gemmlowp.offset_identity
Int gemmlowp_offset_dot(const std::vector<Int>& a, const std::vector<Int>& b, const Int& lhs_offset,
                        const Int& rhs_offset) {
  QSPEC_REQUIRE(a.size() == b.size(), "gemmlowp.offset_identity: operands of equal depth");
  Int acc = 0;
  for (std::size_t i = 0; i < a.size(); ++i) acc += (a[i] + lhs_offset) * (b[i] + rhs_offset);
  return acc;
}

// spec: gemmlowp.offset_identity
// Every addition and multiplication wraps to int32, as the SIMD kernels and unpacking do.
Int gemmlowp_offset_dot_int32(const std::vector<Int>& a, const std::vector<Int>& b, const Int& lhs_offset,
                              const Int& rhs_offset) {
  QSPEC_REQUIRE(a.size() == b.size(), "gemmlowp.offset_identity: operands of equal depth");
  require_int32(lhs_offset, "gemmlowp.offset_identity", "lhs_offset");
  require_int32(rhs_offset, "gemmlowp.offset_identity", "rhs_offset");
  Int sum_ab = 0, sum_a = 0, sum_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    require_int32(a[i], "gemmlowp.offset_identity", "lhs entry");
    require_int32(b[i], "gemmlowp.offset_identity", "rhs entry");
    sum_ab = wrap_int32(sum_ab + wrap_int32(a[i] * b[i]));
    sum_a = wrap_int32(sum_a + a[i]);
    sum_b = wrap_int32(sum_b + b[i]);
  }
  const Int depth = wrap_int32(Int(a.size()));
  Int acc = sum_ab;
  acc = wrap_int32(acc + wrap_int32(rhs_offset * sum_a));
  acc = wrap_int32(acc + wrap_int32(lhs_offset * sum_b));
  acc = wrap_int32(acc + wrap_int32(wrap_int32(depth * lhs_offset) * rhs_offset));
  return acc;
}

// spec: requant.gemmlowp.srdhm
// The code: overflow = (a == b == INT32_MIN); ab = a*b in int64;
// nudge = ab >= 0 ? 2^30 : 1 - 2^30; result = (ab + nudge) / 2^31 with C++ division, which
// truncates toward zero. For ab >= 0 that is floor((ab + 2^30) / 2^31). For ab < 0 the dividend
// is negative, so truncation is ceil((ab + 1 - 2^30) / 2^31) = floor((ab + 2^30) / 2^31) (for an
// integer n and d > 0, ceil((n - d/2 + 1) / d) = floor((n + d/2) / d) when d is even). Both
// branches are therefore round_half_up(ab / 2^31); the property
// requant_gemmlowp_srdhm.IsRoundHalfUpOfProduct checks that the code-shaped computation below
// equals that rule.
Int gemmlowp_srdhm(const Int& a, const Int& b) {
  require_int32(a, "requant.gemmlowp.srdhm", "a");
  require_int32(b, "requant.gemmlowp.srdhm", "b");
  if (a == b && a == kInt32Min) return kInt32Max;  // the one product whose doubled high half overflows
  const Int ab = a * b;
  const Int nudge = ab >= 0 ? pow2(30) : Int(1 - pow2(30));
  return Int(ab + nudge) / pow2(31);  // cpp_int division truncates toward zero, like C++'s
}

// spec: requant.gemmlowp.rdbpot
// The code: mask = 2^e - 1; remainder = x & mask; threshold = (mask >> 1) + (x < 0 ? 1 : 0);
// result = (x >> e) + (remainder > threshold ? 1 : 0). In two's complement x & mask is
// x mod 2^e in [0, 2^e) and x >> e is floor(x / 2^e). The increment happens when the discarded
// fraction r / 2^e exceeds 1/2 - 2^-e (x >= 0: r >= 2^(e-1), ties up) or exceeds 1/2 (x < 0:
// ties down): that is round_half_away(x / 2^e). For e = 0 the mask is 0 and x is returned.
Int gemmlowp_rdbpot(const Int& x, int exponent) {
  require_int32(x, "requant.gemmlowp.rdbpot", "x");
  QSPEC_REQUIRE(exponent >= 0 && exponent <= 31, "requant.gemmlowp.rdbpot: 0 <= exponent <= 31");
  const Int divisor = pow2(static_cast<unsigned>(exponent));
  const Int mask = divisor - 1;
  const Int shifted = floor_div(x, divisor);  // arithmetic shift right
  const Int remainder = x - shifted * divisor;  // x & mask
  const Int threshold = (mask / 2) + (x < 0 ? 1 : 0);
  return shifted + (remainder > threshold ? 1 : 0);
}

// spec: requant.gemmlowp.quantize_multiplier
// The code doubles the float real_multiplier (exact: scaling by 2 never rounds, for normal and
// subnormal floats alike) until it is >= 0.5, counting s; then q = std::round(m * 2^31) in
// float. m in [1/2, 1) has at most 24 significant bits, so m * 2^31 is already an integer in
// [2^30, 2^31): the rounding is exact and the q == 2^31 branch of the code is unreachable.
QuantizedMultiplier gemmlowp_quantize_multiplier_smaller_than_one(std::uint32_t real_bits) {
  QSPEC_REQUIRE(float_is_finite(real_bits, kBinary32), "requant.gemmlowp.quantize_multiplier: finite real multiplier");
  Rat m = f32_value(real_bits);
  QSPEC_REQUIRE(m > 0 && m < 1, "requant.gemmlowp.quantize_multiplier: 0 < real_multiplier < 1");
  int s = 0;
  while (m < Rat(1, 2)) {
    m *= 2;
    ++s;
  }
  Int q = round_half_away(m * Rat(pow2(31)));
  if (q == pow2(31)) {  // mirrors the code; unreachable for float inputs (see above)
    q /= 2;
    --s;
  }
  return {q, -s};
}

// spec: requant.gemmlowp.fixedpoint_output_stage
Int gemmlowp_quantize_down_by_fixedpoint(const Int& x, const Int& multiplier, int result_shift,
                                         const Int& result_offset_after_shift) {
  require_int32(result_offset_after_shift, "requant.gemmlowp.fixedpoint_output_stage", "result_offset_after_shift");
  const Int mulhigh = gemmlowp_srdhm(x, multiplier);
  const Int result = gemmlowp_rdbpot(mulhigh, result_shift) + result_offset_after_shift;
  require_int32(result, "requant.gemmlowp.fixedpoint_output_stage", "RDBPOT(...) + result_offset_after_shift");
  return result;
}

// spec: requant.gemmlowp.scale_by_fixedpoint_and_exponent
// left_shift = max(exponent, 0), right_shift = max(-exponent, 0); the left shift is
// ShiftLeft(x, left_shift), which REQUIRE keeps exact (no saturation, no wraparound).
Int gemmlowp_scale_by_fixedpoint_and_exponent(const Int& x, const Int& multiplier, int exponent,
                                              const Int& result_offset_after_shift) {
  const char* clause = "requant.gemmlowp.scale_by_fixedpoint_and_exponent";
  require_int32(x, clause, "x");
  QSPEC_REQUIRE(exponent >= -31 && exponent <= 30, std::string(clause) + ": -31 <= result_exponent <= 30");
  const int left_shift = exponent > 0 ? exponent : 0;
  const int right_shift = exponent > 0 ? 0 : -exponent;
  const Int shifted = x * pow2(static_cast<unsigned>(left_shift));
  require_int32(shifted, clause, "x * 2^left_shift (the scalar code saturates, SIMD wraps)");
  require_int32(result_offset_after_shift, clause, "result_offset_after_shift");
  const Int result = gemmlowp_rdbpot(gemmlowp_srdhm(shifted, multiplier), right_shift) + result_offset_after_shift;
  require_int32(result, clause, "RDBPOT(...) + result_offset_after_shift");
  return result;
}

// spec: requant.gemmlowp.scale_by_fixedpoint_and_exponent_pc
Int gemmlowp_scale_by_fixedpoint_and_exponent_pc(const Int& x, std::size_t channel, const std::vector<Int>& multipliers,
                                                 const std::vector<int>& exponents,
                                                 const Int& result_offset_after_shift) {
  QSPEC_REQUIRE(multipliers.size() == exponents.size() && channel < multipliers.size(),
          "requant.gemmlowp.scale_by_fixedpoint_and_exponent_pc: one multiplier and exponent per channel");
  return gemmlowp_scale_by_fixedpoint_and_exponent(x, multipliers[channel], exponents[channel],
                                                   result_offset_after_shift);
}

// spec: requant.gemmlowp.legacy_uint8_scale
Int gemmlowp_quantize_down_uint8_scale(const Int& x, const Int& result_offset, const Int& result_mult_int,
                                       int result_shift) {
  const char* clause = "requant.gemmlowp.legacy_uint8_scale";
  require_int32(x, clause, "x");
  require_int32(result_offset, clause, "result_offset");
  require_int32(result_mult_int, clause, "result_mult_int");
  const Int sum = x + result_offset;
  require_int32(sum, clause, "x + result_offset (plain int32 addition)");
  const Int product = sum * result_mult_int;
  require_int32(product, clause, "(x + result_offset) * result_mult_int (plain int32 multiplication)");
  return gemmlowp_rdbpot(product, result_shift);
}

// spec: requant.gemmlowp.legacy_uint8_scale_pc
Int gemmlowp_quantize_down_uint8_scale_pc(const Int& x, std::size_t channel, const std::vector<Int>& result_offsets,
                                          const std::vector<Int>& result_mult_ints, int result_shift) {
  QSPEC_REQUIRE(result_offsets.size() == result_mult_ints.size() && channel < result_offsets.size(),
          "requant.gemmlowp.legacy_uint8_scale_pc: one result_offset and result_mult_int per channel");
  return gemmlowp_quantize_down_uint8_scale(x, result_offsets[channel], result_mult_ints[channel], result_shift);
}

}  // namespace qspec::ref
