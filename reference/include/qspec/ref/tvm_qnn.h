// Exact reference for TVM's QNN dialect lowering (spec/tvm_qnn.md): qnn.quantize,
// qnn.dequantize, qnn.requantize (int64 compute path, UPWARD / TONEAREST, per-tensor and
// per-axis) and the fixed_point_multiply (tir.q_multiply_shift) operator it lowers to.
//
// Each function follows TVM's canonicalization (src/relay/qnn/op/*.cc) and the TIR legalization
// of q_multiply_shift (src/target/intrin_rule.cc) step by step, with every machine integer and
// float32 operation made exact; where TVM's int32/int64 arithmetic would wrap or its shifts be
// undefined, the function REQUIREs the operands away (see spec/errata.md E-TVM-*).
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/types.h"

namespace qspec::ref {

// spec: tvm.quantize
// Per element with scale s (float32 bits) and zero point zp (int32):
// v = fl32(x / s); r = half_away(v) (llvm.round); w = fl32(r + fl32(zp));
// w = clip(w, fl32(qmin), fl32(qmax)) in float32; y = (out) w.
// ERROR_IF out not in {int8, uint8, int16, uint16, int32}; REQUIRE s finite and > 0, zp in
// int32, and the clipped value representable in out (fails only for int32: fl32(2^31 - 1) = 2^31).
Int tvm_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out);

// spec: tvm.dequantize
// y = fl32( fl32(int32(q - zp)) * s ). ERROR_IF the input type is not int8/uint8/int16/uint16/
// int32; REQUIRE q - zp in int32 and s finite.
std::uint32_t tvm_dequantize(const Int& q, DType in, const Int& zero_point, std::uint32_t scale);

// spec: tvm.requantize_multiplier
// The double multiplier double(input_scale) / double(output_scale) (one binary64 division) and
// GetFixedPointMultiplierShift: d = f * 2^e (frexp, f in [1/2, 1)), M = half_away(f * 2^31),
// with M == 2^31 renormalized to (2^30, e + 1); d == 0 gives (0, 0).
// REQUIRE both scales finite, input_scale >= 0, output_scale != 0.
struct TvmFixedPoint {
  Int multiplier;  // M in [2^30, 2^31), or 0
  int shift;       // e: the real multiplier is M * 2^(shift - 31)
};
std::uint64_t tvm_double_multiplier(std::uint32_t input_scale, std::uint32_t output_scale);
TvmFixedPoint tvm_fixed_point_multiplier_shift(std::uint64_t double_multiplier_bits);

// spec: tvm.fixed_point_multiply
// tir.q_multiply_shift(x, M, 31, s), the default legalization:
//  - M == 2^30 (a power-of-two multiplier 2^(s-1)), e = s - 1:
//      e > 0:  x << e                      (int32)
//      e <= 0: (x + 2^(k-1)) >> k, k = -e  (int32, arithmetic shift)
//  - otherwise, in int64: l = max(s, 0), r = max(-s, 0):
//      ((x << l) * M + 2^(r+30)) >> (r + 31), truncated to int32.
// Every branch equals half_up(x * M * 2^(s - 31)) when no machine integer overflows.
// `power_of_two_path` = false gives TIR's QMultiplyShift without the special case (the per-axis
// operator). REQUIRE x in int32, M in [0, 2^31), and each intermediate inside its int32/int64
// type; REQUIRE 1 <= k <= 31 on the int32 rounding branch and r <= 32 on the int64 one.
Int tvm_fixed_point_multiply(const Int& x, const Int& multiplier, int shift, bool power_of_two_path = true);

// TONEAREST variant of the int64 formula (FixedPointMultiplyToNearest and the per-channel
// TONEAREST lowering): the rounding constant is 2^(r+30) for a non-negative product and
// 2^(r+30) - 1 for a negative one, i.e. half_away(x * M * 2^(s - 31)). Same REQUIREs.
// spec: tvm.requantize
Int tvm_fixed_point_multiply_to_nearest(const Int& x, const Int& multiplier, int shift);

enum class TvmRounding { Upward, ToNearest };

// spec: tvm.requantize
// One element of qnn.requantize (compute_dtype "int64", the default), per-tensor when
// `per_axis` is false, or one channel of the per-axis form:
//   x = int32(q) - input_zp                                   (int32)
//   per-tensor with input_scale == output_scale (bitwise): scaled = x
//   otherwise (M, s) = GetFixedPointMultiplierShift(double(in)/double(out)) and
//     UPWARD:    scaled = fixed_point_multiply(x, M, s)  (per-tensor: with the power-of-two
//                path; per-axis: without it)   = half_up(x * M * 2^(s-31))
//     TONEAREST: scaled = half_away(x * M * 2^(s-31))
//   y = scaled + output_zp (int32); y = clip(y, out) unless out is int32.
// ERROR_IF output_scale == 0, out not in {int8, uint8, int16, int32}; REQUIRE q in int32,
// scales finite with input_scale >= 0 and output_scale > 0, and no int32/int64 overflow.
Int tvm_requantize(const Int& q, std::uint32_t input_scale, const Int& input_zero_point, std::uint32_t output_scale,
                   const Int& output_zero_point, TvmRounding rounding, DType out, bool per_axis = false);

}  // namespace qspec::ref
