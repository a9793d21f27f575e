// Exact reference for the float-based quantization conventions of XNNPACK, oneDNN, ONNX and
// PyTorch (spec/float_conventions.md): every IEEE binary32 step is modelled with ieee.h.
//
// The point of these clauses is the ORDER of the float operations: which product or quotient is
// rounded to float32, whether the zero point is added before or after the rounding to an
// integer, and which rounding turns the float into an integer. Each function below performs
// exactly the sequence of IEEE operations its source performs, nothing more.
#pragma once

#include <cstdint>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/types.h"

namespace qspec::ref {

// ---- helpers shared with tvm_qnn.cc and glow.cc (binary32 values that may be infinite) ----

// binary32 bit patterns of +-infinity, and classification helpers.
inline constexpr std::uint32_t kF32PosInf = 0x7f800000u;
inline constexpr std::uint32_t kF32NegInf = 0xff800000u;
inline bool f32_is_inf(std::uint32_t b) { return (b & 0x7fffffffu) == 0x7f800000u; }
inline bool f32_is_nan(std::uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0; }
inline bool f32_sign(std::uint32_t b) { return (b >> 31) != 0; }
// The binary32 value 1.0f (the dividend of the reciprocals 1.0f / scale).
inline constexpr std::uint32_t kF32One = 0x3f800000u;

// Exact value of a binary32 that may be infinite: +-inf compare beyond every finite value.
// Returns -1/0/+1 like a three-way comparison of a and b (REQUIRE neither is NaN).
int f32_compare(std::uint32_t a, std::uint32_t b);
// f32_add / f32_mul extended to one infinite operand (inf + finite = inf, inf * nonzero = inf);
// REQUIRE the result is not NaN.
std::uint32_t f32_add_ext(std::uint32_t a, std::uint32_t b);
std::uint32_t f32_mul_ext(std::uint32_t a, std::uint32_t b);

// The integer that round(mode) makes of a float32 value, as a float32 bit pattern: for finite
// f the rounded value is an integer of magnitude <= 2^24 or f itself, exactly representable;
// infinities are returned unchanged (nearbyintf / roundf / rintf of +-inf is +-inf).
std::uint32_t f32_round_to_integral(std::uint32_t f, Rounding mode);

// sat_r(round(mode)(f)) for a finite f; +-inf saturate to r.hi / r.lo (the effect of a float
// clamp to [lo - zp, hi - zp] before the conversion, or of a saturating pack).
Int round_saturate_f32(std::uint32_t f, Rounding mode, const Range& r);

// ---- the conventions ----

// spec: float.dequantize
// fl32( fl32(q - zero_point) * scale ): the integer difference is exact, its conversion to
// binary32 rounds only when |q - zero_point| > 2^24. REQUIRE scale finite.
std::uint32_t float_dequantize(const Int& q, const Int& zero_point, std::uint32_t scale);

// spec: float.xnnpack_fp32
// XNNPACK's fp32 requantization (x86 kernels, qs8/qu8): v = fl32(fl32(x) * scale);
// y = sat_out(half_even(v) + zero_point). ERROR_IF NOT (0 < scale < 256) (operator creation
// fails); ERROR_IF zero_point outside out's range; REQUIRE scale >= 2^-32 (XNNPACK asserts),
// out in {int8, uint8}.
Int xnnpack_fp32_requantize(const Int& x, std::uint32_t scale, const Int& zero_point, DType out);

// spec: float.xnnpack_convert
// xnn_create_convert_nc_f32_qs8/_qu8: inv = fl32(1.0f / scale); v = fl32(x * inv);
// y = sat_out(half_even(v) + zero_point) (+-inf saturate). ERROR_IF scale is not a positive
// normal float; ERROR_IF zero_point outside out's range; REQUIRE out in {int8, uint8}.
Int xnnpack_convert_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out);

// spec: float.onednn_fp32
// oneDNN int8 epilogue (ref_matmul_int8, reorder s32->s8): d = fl32(fl32(x) * scale);
// d = fl32(d + fl32(zero_point)); y = sat_out(half_even(d)). The zero point is added BEFORE the
// rounding. REQUIRE scale finite, out in {int8, uint8}.
Int onednn_fp32_requantize(const Int& x, std::uint32_t scale, const Int& zero_point, DType out);

// spec: float.onednn_reorder
// oneDNN reorder f32 -> s8/u8 with output scale a = fl32(1.0f / scale) and a destination zero
// point: d = fl32(fl32(x * a) + fl32(zero_point)); y = sat_out(half_even(d)).
// REQUIRE scale finite and nonzero, out in {int8, uint8}.
Int onednn_reorder_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out);

// spec: float.onnx_quantize_linear
// ONNX QuantizeLinear: v = fl32(x / scale); y = sat_out(half_even(v) + zero_point).
// ERROR_IF zero_point outside out's range (y_zero_point has the output type); REQUIRE scale
// finite and > 0, out in {int8, uint8, int16, uint16, int32}.
Int onnx_quantize_linear(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out);

// spec: float.onnx_dynamic_quantize_linear_params
// ONNX DynamicQuantizeLinear (uint8): the scale and zero point ONNX Runtime derives from the
// data's minimum and maximum (float32 bit patterns). REQUIRE both finite.
struct OnnxDynamicQuantParams {
  std::uint32_t scale_bits = 0;
  Int zero_point;
};
OnnxDynamicQuantParams onnx_dynamic_quantize_linear_params(std::uint32_t min_bits, std::uint32_t max_bits);

// spec: float.pytorch_quantize_per_tensor
// at::native::quantize_val (builds without FBGEMM, x86): inv = fl32(1.0f / scale);
// r = nearbyint(fl32(x * inv)); v = fl32(fl32(zero_point) + r); y = clamp_out((int64)v).
// ERROR_IF zero_point outside out's range (checkZeroPoint); REQUIRE scale finite and > 0,
// |v| < 2^63 (the int64 conversion), out in {int8, uint8, int32}.
Int pytorch_quantize_per_tensor(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out);

// spec: float.pytorch_requantize_from_int
// at::native::requantize_from_int: zero_point + lrintf(fl32(fl32(x) * multiplier)), clamped.
// REQUIRE multiplier finite, |lrintf(...)| < 2^63, out in {int8, uint8, int32}.
Int pytorch_requantize_from_int(const Int& x, std::uint32_t multiplier, const Int& zero_point, DType out);

// spec: float.exact_quantize
// Diagnostic yardstick: sat_out(round(mode)(x / scale) + zero_point) on exact rationals.
// REQUIRE scale finite and nonzero.
Int exact_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out, Rounding mode);

// spec: float.exact_requantize
// Diagnostic yardstick: sat_out(round(mode)(x * scale) + zero_point) on exact rationals.
// REQUIRE scale finite.
Int exact_requantize(const Int& x, std::uint32_t scale, const Int& zero_point, DType out, Rounding mode);

}  // namespace qspec::ref
