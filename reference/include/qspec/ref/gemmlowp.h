// Exact reference for gemmlowp's quantization paradigm and fixed-point output stages (spec/gemmlowp.md).
//
// Every function mirrors the gemmlowp code it formalizes, step by step, on exact integers
// (cpp_int) or on exactly modelled IEEE floats (ieee.h). Where the code's steps amount to a
// simpler exact rule (SRDHM is round-half-up of a*b/2^31, RDBPOT is round-half-away of x/2^e),
// the spec states the rule and conformance/gemmlowp_properties.cc proves the equivalence.
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/ref/exact.h"

namespace qspec::ref {

// A Q31 fixed-point multiplier with a power-of-two exponent in TFLite's sign convention: it
// denotes the real number multiplier * 2^(shift - 31); shift > 0 is a left shift.
struct QuantizedMultiplier {
  Int multiplier;
  int shift = 0;
};

// ---- The quantization paradigm (seed 001, doc/quantization_example.cc) ----

// spec: gemmlowp.affine_map
// real_value = scale * (q - zero_point), exactly (equation (3) of seed 001).
Rat gemmlowp_real_value(const Rat& scale, const Int& q, const Int& zero_point);

// Result of gemmlowp's ChooseQuantizationParams: a float32 scale (bit pattern) and a uint8
// zero point.
struct GemmlowpQuantParams {
  std::uint32_t scale_bits = 0;
  Int zero_point;
};

// spec: gemmlowp.choose_params
// ChooseQuantizationParams(min, max) of doc/quantization_example.cc, with its float32 and
// float64 steps modelled exactly. REQUIRE finite operands; ERROR_IF the computed scale is 0 or
// infinite.
GemmlowpQuantParams gemmlowp_choose_params(std::uint32_t min_bits, std::uint32_t max_bits);

// spec: gemmlowp.quantize
// Quantize() of doc/quantization_example.cc: round_half_away(clamp(fl32(zp + fl32(x / scale)),
// 0, 255)). REQUIRE finite x, finite scale > 0, zero_point in [0, 255].
Int gemmlowp_quantize(std::uint32_t real_bits, std::uint32_t scale_bits, const Int& zero_point);

// spec: gemmlowp.dequantize
// Dequantize() of doc/quantization_example.cc: fl32(scale * (q - zero_point)).
// REQUIRE finite scale, q and zero_point in [0, 255].
std::uint32_t gemmlowp_dequantize(const Int& q, std::uint32_t scale_bits, const Int& zero_point);

// spec: gemmlowp.offset_identity
// The exact offset-corrected dot product sum_i (a_i + lhs_offset) * (b_i + rhs_offset).
// REQUIRE a.size() == b.size().
Int gemmlowp_offset_dot(const std::vector<Int>& a, const std::vector<Int>& b, const Int& lhs_offset,
                        const Int& rhs_offset);

// spec: gemmlowp.offset_identity
// The same quantity computed the way gemmlowp's packing trick does it, in int32 arithmetic
// that wraps modulo 2^32: sum a_i*b_i + rhs_offset*sum a_i + lhs_offset*sum b_i
// + K*lhs_offset*rhs_offset. REQUIRE every operand fits int32 and a.size() == b.size().
Int gemmlowp_offset_dot_int32(const std::vector<Int>& a, const std::vector<Int>& b, const Int& lhs_offset,
                              const Int& rhs_offset);

// Two's complement wraparound of an integer to int32 (the value of the low 32 bits, signed).
Int wrap_int32(const Int& v);

// ---- Fixed-point primitives (fixedpoint/fixedpoint.h) ----

// spec: requant.gemmlowp.srdhm
// SaturatingRoundingDoublingHighMul(a, b) for int32 a, b: INT32_MAX if a == b == INT32_MIN,
// else round_half_up(a * b / 2^31). REQUIRE a, b in int32.
Int gemmlowp_srdhm(const Int& a, const Int& b);

// spec: requant.gemmlowp.rdbpot
// RoundingDivideByPOT(x, exponent) = round_half_away(x / 2^exponent).
// REQUIRE x in int32, 0 <= exponent <= 31.
Int gemmlowp_rdbpot(const Int& x, int exponent);

// spec: requant.gemmlowp.quantize_multiplier
// QuantizeMultiplierSmallerThanOne of doc/quantization_example.cc on a float32 real multiplier
// in (0, 1): an exact Q31 multiplier in [2^30, 2^31) and shift = -right_shift <= 0.
// REQUIRE 0 < real < 1 (finite).
QuantizedMultiplier gemmlowp_quantize_multiplier_smaller_than_one(std::uint32_t real_bits);

// ---- Output stages (public/output_stages.h, evaluated by internal/output.h) ----

// spec: requant.gemmlowp.fixedpoint_output_stage
// OutputStageQuantizeDownInt32ByFixedPoint: RDBPOT(SRDHM(x, multiplier), result_shift)
// + result_offset_after_shift, as an int32 (before any saturating cast).
// REQUIRE int32 operands, 0 <= result_shift <= 31, and the final int32 addition not overflowing.
Int gemmlowp_quantize_down_by_fixedpoint(const Int& x, const Int& multiplier, int result_shift,
                                         const Int& result_offset_after_shift);

// spec: requant.gemmlowp.scale_by_fixedpoint_and_exponent
// OutputStageScaleInt32ByFixedPointAndExponent: left shift by max(exponent, 0), then SRDHM,
// then RDBPOT by max(-exponent, 0), then + result_offset_after_shift.
// REQUIRE int32 operands, -31 <= exponent <= 30, x * 2^max(exponent,0) in int32 (the scalar
// code saturates there, the SIMD code wraps: errata E-GEMMLOWP-2), and no overflow of the final
// int32 addition.
Int gemmlowp_scale_by_fixedpoint_and_exponent(const Int& x, const Int& multiplier, int exponent,
                                              const Int& result_offset_after_shift);

// spec: requant.gemmlowp.scale_by_fixedpoint_and_exponent_pc
// OutputStageScaleInt32ByFixedPointAndExponentPC for the element in channel `channel` (a row or
// column of the result): the per-tensor stage with multipliers[channel], exponents[channel].
// REQUIRE channel < multipliers.size() == exponents.size(), plus the per-tensor preconditions.
Int gemmlowp_scale_by_fixedpoint_and_exponent_pc(const Int& x, std::size_t channel, const std::vector<Int>& multipliers,
                                                 const std::vector<int>& exponents,
                                                 const Int& result_offset_after_shift);

// spec: requant.gemmlowp.legacy_uint8_scale
// OutputStageQuantizeDownInt32ToUint8Scale as internal/output.h evaluates it:
// RDBPOT((x + result_offset) * result_mult_int, result_shift) (round half AWAY; the header
// comment says "+ 2^(shift-1) >> shift", half up: errata E-GEMMLOWP-1).
// REQUIRE int32 operands, 0 <= result_shift <= 31, x + result_offset and
// (x + result_offset) * result_mult_int both in int32 (plain int32 arithmetic).
Int gemmlowp_quantize_down_uint8_scale(const Int& x, const Int& result_offset, const Int& result_mult_int,
                                       int result_shift);

// spec: requant.gemmlowp.legacy_uint8_scale_pc
// OutputStageQuantizeDownInt32ToUint8ScalePC for the element in channel `channel`: the
// per-tensor legacy stage with result_offsets[channel] and result_mult_ints[channel].
// REQUIRE channel < result_offsets.size() == result_mult_ints.size(), plus the per-tensor ones.
Int gemmlowp_quantize_down_uint8_scale_pc(const Int& x, std::size_t channel, const std::vector<Int>& result_offsets,
                                          const std::vector<Int>& result_mult_ints, int result_shift);

}  // namespace qspec::ref
