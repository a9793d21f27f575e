// Exact reference for TFLite's and TOSA's fixed-point requantization (spec/tflite_tosa.md).
//
// TFLite: QuantizeMultiplier (a float64 real multiplier -> Q31 multiplier and exponent) and
// MultiplyByQuantizedMultiplier in its two builds (default double rounding, and
// TFLITE_SINGLE_ROUNDING). TOSA: apply_scale_32 (SINGLE_ROUND / DOUBLE_ROUND), apply_scale_16
// and the RESCALE operator around them. Plus the exact rational requantization that all of
// them approximate, under each named rounding (the diagnostic yardstick).
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/types.h"

namespace qspec::ref {

// The TFLite build variants that change QuantizeMultiplier.
enum class TfliteBuild {
  Default,         // std::frexp + std::round (half away), double rounding downstream
  SingleRounding,  // TFLITE_SINGLE_ROUNDING: additionally saturates shift > 30 to (2^31 - 1, 30)
  EmulateFloat,    // TFLITE_EMULATE_FLOAT: IntegerFrExp, 31-bit fraction rounded with ties DOWN
};

// spec: requant.tflite.quantize_multiplier
// QuantizeMultiplier(double_multiplier) for a float64 bit pattern. ERROR_IF the value is
// negative; REQUIRE finite. Returns (0, 0) for zero and for multipliers flushed to zero.
QuantizedMultiplier tflite_quantize_multiplier(std::uint64_t double_bits, TfliteBuild build = TfliteBuild::Default);

// spec: requant.tflite.double_round
// MultiplyByQuantizedMultiplier(int32 x, M, shift), default build:
// RDBPOT(SRDHM(x * 2^max(shift,0), M), max(-shift,0)).
// REQUIRE x, M in int32, M >= 0, -31 <= shift <= 30, x * 2^max(shift,0) in int32.
Int tflite_multiply_by_quantized_multiplier_double_round(const Int& x, const Int& multiplier, int shift);

// spec: requant.tflite.single_round
// MultiplyByQuantizedMultiplier(int32 x, M, shift) under TFLITE_SINGLE_ROUNDING:
// floor((x * M + 2^(30 - shift)) / 2^(31 - shift)) = round_half_up(x * M * 2^(shift - 31)).
// REQUIRE x, M in int32, M >= 0, -31 <= shift <= 30, result in int32.
Int tflite_multiply_by_quantized_multiplier_single_round(const Int& x, const Int& multiplier, int shift);

// The requantization epilogue of TFLite's integer kernels: acc = MBQM(x, M, shift);
// acc += output_offset (int32, REQUIRE no overflow); clamp to the output type; cast.
// spec: requant.tflite.double_round
Int tflite_requantize_double_round(const Int& x, const Int& multiplier, int shift, const Int& output_zero_point,
                                   DType out);
// spec: requant.tflite.single_round
Int tflite_requantize_single_round(const Int& x, const Int& multiplier, int shift, const Int& output_zero_point,
                                   DType out);

// spec: requant.tflite.per_channel
// TFLite's per-channel conv / depthwise-conv / fully-connected epilogue for an accumulator of
// output channel `channel`: the per-tensor epilogue with multipliers[channel], shifts[channel]
// (double or single rounding by build). REQUIRE channel < multipliers.size() == shifts.size().
Int tflite_requantize_per_channel(const Int& x, std::size_t channel, const std::vector<Int>& multipliers,
                                  const std::vector<int>& shifts, const Int& output_zero_point, DType out,
                                  bool single_rounding);

// spec: requant.tosa.apply_scale_32
// apply_scale_32(value, multiplier, shift, double_round) with TOSA's right shift `shift`:
// round = 2^(shift-1), +/- 2^30 when double_round and shift > 31 (sign of value);
// floor((value * multiplier + round) / 2^shift).
// REQUIRE multiplier in [0, 2^31), 2 <= shift <= 62, -2^(shift-1) <= value < 2^(shift-1),
// value in int32.
Int tosa_apply_scale_32(const Int& value, const Int& multiplier, int shift, bool double_round);

// spec: requant.tosa.apply_scale_16
// apply_scale_16(value, multiplier, shift): floor((value * multiplier + 2^(shift-1)) / 2^shift).
// REQUIRE value in int48, multiplier in [0, 2^15), 2 <= shift <= 62, result in int32.
Int tosa_apply_scale_16(const Int& value, const Int& multiplier, int shift);

enum class TosaScale { Single32, Double32, Scale16 };

// spec: requant.tosa.rescale
// RESCALE of an int32 input (input_zp = 0, signed input) to out_t with output_zp, per element:
// apply_scale_32/16 with TOSA's (multiplier, shift), then apply_add_s<int32>(result, output_zp)
// (REQUIRE no overflow), then clip to out_t. ERROR_IF (TOSA's own checks): output_zp != 0 for
// an int16 or int32 output; an unsigned output (uint8) from an int32 input; output_zp not
// representable in out_t.
Int tosa_rescale(const Int& x, const Int& multiplier, int tosa_shift, const Int& output_zero_point, DType out,
                 TosaScale mode);

// spec: requant.double_round_vs_single
// D - S in {-1, 0, 1}, where D is requant.tflite.double_round's MBQM and S the single-rounding
// one, predicted from the characterization in the spec (from x, M, shift alone, without
// evaluating either rounding chain). REQUIRE the preconditions of both MBQMs.
int double_round_minus_single_round(const Int& x, const Int& multiplier, int shift);

// spec: requant.q31_exact
// The exact requantization that every Q31 convention approximates:
// sat_out(round_mode(x * multiplier * 2^(shift - 31)) + output_zero_point), over Q, no
// intermediate width. Total (no preconditions beyond an integer out dtype).
Int q31_exact_requantize(const Int& x, const Int& multiplier, int shift, const Int& output_zero_point, DType out,
                         Rounding mode);

}  // namespace qspec::ref
