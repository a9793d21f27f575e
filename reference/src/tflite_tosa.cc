// Exact TFLite / TOSA fixed-point requantization: QuantizeMultiplier, MBQM, apply_scale, RESCALE.
#include "qspec/ref/tflite_tosa.h"

#include <string>

#include "qspec/ref/ieee.h"

namespace qspec::ref {
namespace {

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;

bool fits_int32(const Int& v) { return v >= kInt32Min && v <= kInt32Max; }

void require_int32(const Int& v, const std::string& clause, const char* what) {
  QSPEC_REQUIRE(fits_int32(v), clause + ": " + what + " must fit int32");
}

// frexp of a positive finite double: d = q * 2^e with q in [1/2, 1), exactly.
void exact_frexp(const Rat& d, Rat& q, int& e) {
  e = 0;
  q = d;
  while (q >= 1) {
    q /= 2;
    ++e;
  }
  while (q < Rat(1, 2)) {
    q *= 2;
    --e;
  }
}

// TFLITE_EMULATE_FLOAT's IntegerFrExp for a positive finite, nonzero double: the exponent field
// and the top 30 stored fraction bits give fraction = 2^30 + (F >> 22), incremented when the
// 22 discarded bits exceed 0x200000 (strictly: an exact half is rounded DOWN); shift =
// E - 1023 + 1. Subnormals (E == 0) are read as if normal, giving shift = -1022 (then flushed).
void integer_frexp(std::uint64_t bits, Int& fraction, int& shift) {
  const std::uint64_t exponent_part = (bits >> 52) & 0x7ffu;
  const std::uint64_t fraction_top = (bits & 0x000fffffffc00000ull) >> 22;
  const std::uint64_t discarded = bits & 0x003fffffull;
  shift = static_cast<int>(exponent_part) - 1023 + 1;
  fraction = Int(0x40000000u) + Int(fraction_top);
  if (discarded > 0x00200000u) fraction += 1;
}

}  // namespace

// spec: requant.tflite.quantize_multiplier
// QuantizeMultiplier (tensorflow/lite/kernels/internal/quantization_util.cc):
//   if (d == 0.) return (0, 0);
//   q = std::frexp(d, &shift); q_fixed = std::round(q * 2^31);    // q * 2^31 is exact in double
//   if (q_fixed == 2^31) { q_fixed /= 2; ++shift; }                // the carry
//   if (shift < -31) { shift = 0; q_fixed = 0; }                   // flush tiny multipliers
//   #if TFLITE_SINGLE_ROUNDING: if (shift > 30) { shift = 30; q_fixed = 2^31 - 1; }
QuantizedMultiplier tflite_quantize_multiplier(std::uint64_t double_bits, TfliteBuild build) {
  const char* clause = "requant.tflite.quantize_multiplier";
  QSPEC_REQUIRE(float_is_finite(double_bits, kBinary64), std::string(clause) + ": finite double_multiplier");
  const Rat d = f64_value(double_bits);
  QSPEC_ERROR_IF(d < 0, std::string(clause) + ": negative real multiplier");
  if (d == 0) return {Int(0), 0};  // +0.0 and -0.0 compare equal to 0.
  Int q_fixed;
  int shift = 0;
  if (build == TfliteBuild::EmulateFloat) {
    integer_frexp(double_bits, q_fixed, shift);
  } else {
    Rat q;
    exact_frexp(d, q, shift);
    q_fixed = round_half_away(q * Rat(pow2(31)));  // TfLiteRound == std::round: ties away from zero
  }
  if (q_fixed == pow2(31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  if (build == TfliteBuild::SingleRounding && shift > 30) {
    shift = 30;
    q_fixed = pow2(31) - 1;
  }
  return {q_fixed, shift};
}

// spec: requant.tflite.double_round
// common.cc (default build): left_shift = shift > 0 ? shift : 0; right_shift = shift > 0 ? 0 : -shift;
// RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x * (1 << left_shift), M), right_shift).
Int tflite_multiply_by_quantized_multiplier_double_round(const Int& x, const Int& multiplier, int shift) {
  const std::string clause = "requant.tflite.double_round";
  require_int32(x, clause, "x");
  require_int32(multiplier, clause, "quantized_multiplier");
  QSPEC_REQUIRE(multiplier >= 0, clause + ": quantized_multiplier >= 0");
  QSPEC_REQUIRE(shift >= -31 && shift <= 30, clause + ": -31 <= shift <= 30");
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  const Int shifted = x * pow2(static_cast<unsigned>(left_shift));
  require_int32(shifted, clause, "x * (1 << left_shift) (int32 multiplication)");
  return gemmlowp_rdbpot(gemmlowp_srdhm(shifted, multiplier), right_shift);
}

// spec: requant.tflite.single_round
// common.cc (TFLITE_SINGLE_ROUNDING): total_shift = 31 - shift; round = 1 << (total_shift - 1);
// result = (x * (int64)M + round) >> total_shift; DCHECK result fits int32.
Int tflite_multiply_by_quantized_multiplier_single_round(const Int& x, const Int& multiplier, int shift) {
  const std::string clause = "requant.tflite.single_round";
  require_int32(x, clause, "x");
  require_int32(multiplier, clause, "quantized_multiplier");
  QSPEC_REQUIRE(multiplier >= 0, clause + ": quantized_multiplier >= 0");
  QSPEC_REQUIRE(shift >= -31 && shift <= 30, clause + ": -31 <= shift <= 30");
  const unsigned total_shift = static_cast<unsigned>(31 - shift);  // in [1, 62]
  const Int round = pow2(total_shift - 1);
  const Int result = floor_div(x * multiplier + round, pow2(total_shift));  // int64 >> is a floor shift
  require_int32(result, clause, "the result (TFLITE_DCHECK)");
  return result;
}

namespace {
// acc += output_offset (int32); acc = max(acc, type min); acc = min(acc, type max).
Int tflite_epilogue(const Int& acc, const Int& output_zero_point, DType out, const std::string& clause) {
  require_int32(output_zero_point, clause, "output_offset");
  const Int with_offset = acc + output_zero_point;
  require_int32(with_offset, clause, "acc + output_offset (int32 addition)");
  return saturate(with_offset, out);
}
}  // namespace

// spec: requant.tflite.double_round
Int tflite_requantize_double_round(const Int& x, const Int& multiplier, int shift, const Int& output_zero_point,
                                   DType out) {
  return tflite_epilogue(tflite_multiply_by_quantized_multiplier_double_round(x, multiplier, shift),
                         output_zero_point, out, "requant.tflite.double_round");
}

// spec: requant.tflite.single_round
Int tflite_requantize_single_round(const Int& x, const Int& multiplier, int shift, const Int& output_zero_point,
                                   DType out) {
  return tflite_epilogue(tflite_multiply_by_quantized_multiplier_single_round(x, multiplier, shift),
                         output_zero_point, out, "requant.tflite.single_round");
}

// spec: requant.tflite.per_channel
Int tflite_requantize_per_channel(const Int& x, std::size_t channel, const std::vector<Int>& multipliers,
                                  const std::vector<int>& shifts, const Int& output_zero_point, DType out,
                                  bool single_rounding) {
  QSPEC_REQUIRE(multipliers.size() == shifts.size() && channel < multipliers.size(),
          "requant.tflite.per_channel: one multiplier and shift per output channel");
  return single_rounding
             ? tflite_requantize_single_round(x, multipliers[channel], shifts[channel], output_zero_point, out)
             : tflite_requantize_double_round(x, multipliers[channel], shifts[channel], output_zero_point, out);
}

// spec: requant.tosa.apply_scale_32
Int tosa_apply_scale_32(const Int& value, const Int& multiplier, int shift, bool double_round) {
  const std::string clause = "requant.tosa.apply_scale_32";
  QSPEC_REQUIRE(multiplier >= 0 && multiplier <= kInt32Max, clause + ": 0 <= multiplier < 2^31");
  QSPEC_REQUIRE(shift >= 2 && shift <= 62, clause + ": 2 <= shift <= 62");
  require_int32(value, clause, "value");
  const Int half = pow2(static_cast<unsigned>(shift - 1));
  QSPEC_REQUIRE(value >= -half && value < half, clause + ": -2^(shift-1) <= value < 2^(shift-1)");
  Int round = half;
  if (double_round && shift > 31) round += value >= 0 ? pow2(30) : Int(-pow2(30));
  return floor_div(value * multiplier + round, pow2(static_cast<unsigned>(shift)));  // >>= is arithmetic
}

// spec: requant.tosa.apply_scale_16
Int tosa_apply_scale_16(const Int& value, const Int& multiplier, int shift) {
  const std::string clause = "requant.tosa.apply_scale_16";
  QSPEC_REQUIRE(multiplier >= 0 && multiplier < pow2(15), clause + ": 0 <= multiplier < 2^15 (int16, REQUIRE >= 0)");
  QSPEC_REQUIRE(shift >= 2 && shift <= 62, clause + ": 2 <= shift <= 62");
  QSPEC_REQUIRE(value >= -pow2(47) && value < pow2(47), clause + ": value in int48");
  const Int result = floor_div(value * multiplier + pow2(static_cast<unsigned>(shift - 1)),
                               pow2(static_cast<unsigned>(shift)));
  require_int32(result, clause, "the result");
  return result;
}

// spec: requant.tosa.rescale
Int tosa_rescale(const Int& x, const Int& multiplier, int tosa_shift, const Int& output_zero_point, DType out,
                 TosaScale mode) {
  const std::string clause = "requant.tosa.rescale";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8 || out == DType::I16 || out == DType::I32,
          clause + ": output type int8, uint8, int16 or int32");
  // TOSA's ERROR_IFs for an int32 (signed) input.
  QSPEC_ERROR_IF(out == DType::U8, clause + ": unsigned output from an int32 input (ERROR_IF in_t == i32 && output_unsigned)");
  QSPEC_ERROR_IF((out == DType::I16 || out == DType::I32) && output_zero_point != 0,
           clause + ": output_zp must be 0 for an int16 or int32 output");
  const Range r = int_range(out);
  QSPEC_ERROR_IF(output_zero_point < r.lo || output_zero_point > r.hi, clause + ": output_zp not representable in out_t");
  require_int32(x, clause, "input value");
  const Int value = x;  // input_zp must be 0 for an int32 input, so value = x - 0
  Int result;
  switch (mode) {
    case TosaScale::Single32: result = tosa_apply_scale_32(value, multiplier, tosa_shift, false); break;
    case TosaScale::Double32: result = tosa_apply_scale_32(value, multiplier, tosa_shift, true); break;
    case TosaScale::Scale16: result = tosa_apply_scale_16(value, multiplier, tosa_shift); break;
  }
  const Int with_zp = result + output_zero_point;  // apply_add_s<int32_t>
  require_int32(with_zp, clause, "result + output_zp (apply_add_s REQUIRE)");
  return saturate(with_zp, r);  // apply_clip_s to [minimum_s<out_t>, maximum_s<out_t>]
}

// spec: requant.double_round_vs_single
// For shift = -r < 0 with v = x*M*2^(shift-31), f = v - floor(v), w = 2^-(r+1):
// +1 iff x*M > 0 and 1/2 - w <= f < 1/2; -1 iff x*M < 0 and 1/2 <= f < 1/2 + w; else 0.
int double_round_minus_single_round(const Int& x, const Int& multiplier, int shift) {
  // Both conventions' preconditions (the values themselves are not needed).
  (void)tflite_multiply_by_quantized_multiplier_double_round(x, multiplier, shift);
  (void)tflite_multiply_by_quantized_multiplier_single_round(x, multiplier, shift);
  if (shift >= 0) return 0;
  const Rat v = Rat(x * multiplier) * pow2r(shift - 31);
  const Rat f = v - Rat(round_floor(v));
  const Rat w = pow2r(shift - 1);  // 2^-(r+1) with r = -shift
  const Rat half(1, 2);
  const Int p = x * multiplier;
  if (p > 0 && f >= half - w && f < half) return 1;
  if (p < 0 && f >= half && f < half + w) return -1;
  return 0;
}

// spec: requant.q31_exact
Int q31_exact_requantize(const Int& x, const Int& multiplier, int shift, const Int& output_zero_point, DType out,
                         Rounding mode) {
  const Rat real = Rat(x * multiplier) * pow2r(shift - 31);
  return saturate(round(real, mode) + output_zero_point, out);
}

}  // namespace qspec::ref
