// Exact reference for Glow's quantization (spec/glow.md): the (scale, offset) affine map,
// quantize/dequantize, choosing parameters from a profiled range under the three schemas, int32
// bias parameters, the Caffe2 uint8 -> int8 conversion, row-wise and fused row-wise tensors, and
// the two rescale implementations (CPU integer pre/post-shift transform, Interpreter float).
//
// Glow computes with float32 and float64 (include/glow/Quantization/Base/Base.h,
// lib/Quantization/Base/Base.cpp); every such operation is modelled exactly with ieee.h.
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/types.h"

namespace qspec::ref {

// Glow's TensorQuantizationParams: value = (q - offset) * scale. `offset` is the zero point.
struct GlowQParams {
  std::uint32_t scale;  // float32 bits
  Int offset;           // int32
};

// spec: glow.affine_map
// The real number a quantized value stands for: (q - offset) * scale, exactly. The same map as
// TVM's scale * (q - zero_point) and gemmlowp's S * (q - Z) with zero_point = Z = offset.
Rat glow_real_value(const Int& q, const GlowQParams& p);

// spec: glow.quantize
// quantization::quantize<DestTy>: result = fl32(fl32(x / scale) + fl32(offset));
// y = clip_out((int64) nearbyintf(result)) -- the offset is added BEFORE the rounding, which is
// half to even. REQUIRE scale finite nonzero, result finite with |nearbyintf(result)| < 2^63,
// out in {int8, uint8, int16, int32}.
Int glow_quantize(std::uint32_t x, const GlowQParams& p, DType out);

// spec: glow.dequantize
// quantization::dequantize: fl32(scale * fl32((int64) q - offset)). REQUIRE scale finite.
std::uint32_t glow_dequantize(const Int& q, const GlowQParams& p);

enum class GlowSchema { Asymmetric, Symmetric, SymmetricWithUint8 };

// spec: glow.choose_params.asymmetric
// spec: glow.choose_params.symmetric
// spec: glow.choose_params.symmetric_with_uint8
// chooseQuantizationParams({min, max}, schema, precision) with Calibration::None; every float32
// and float64 step as Glow performs it (see spec/glow.md). precision in {int8, uint8, int16,
// int32}; int32 uses Glow's reduced range [-2^29, 2^29 - 1]. REQUIRE min <= max finite, and a
// signed precision for the symmetric schemas (Glow asserts qmin < 0).
GlowQParams glow_choose_params(std::uint32_t min, std::uint32_t max, GlowSchema schema, DType precision);

// spec: glow.bias_int32
// specializeBiasQuantizationParams: offset 0 for an int32 bias (else the bias offset is kept);
// scale = fl32(input_scale * weights_scale) if that product exceeds the profiled bias scale,
// else the profiled bias scale. REQUIRE finite scales, precision in {int8, int16, int32}.
GlowQParams glow_bias_params(const GlowQParams& bias, std::uint32_t input_scale, std::uint32_t weights_scale,
                             DType precision);

// spec: glow.uint8_to_int8
// Caffe2 uint8 -> Glow int8: q - 128 and offset - 128 (UINT8_TO_INT8_SHIFT). REQUIRE q and
// offset in [0, 255]. The real values (q - offset) * scale are unchanged.
Int glow_uint8_to_int8(const Int& q_or_offset);

// spec: glow.rowwise
// tensorRowwiseQuantization<float, int32_t, int8_t>: per row, (scale, offset) =
// chooseQuantizationParams({min(row), max(row)}, schema, int8) and q = quantize<int8>(x).
// REQUIRE a non-empty row of finite values. Returns the params; `q` receives the row's codes.
GlowQParams glow_rowwise_quantize_row(const std::vector<std::uint32_t>& row, GlowSchema schema, std::vector<Int>& q);

// spec: glow.fused_rowwise
// tensorFusedRowwiseQuantization<float> (UInt8FusedQTy), per row:
//   scale = (fl32(max - min) < fl32(1e-10)) ? 1.0f : fl32(fl64(double(max) - double(min)) / 255.0)
//   offset = min;  q = (uint8)(uint16) roundf(fl32(fl32(x - offset) / scale))   (ties away)
// The row is stored as cols bytes of q followed by the little-endian float32 scale and offset.
struct GlowFusedRow {
  std::vector<Int> q;
  std::uint32_t scale;   // float32 bits
  std::uint32_t offset;  // float32 bits
};
GlowFusedRow glow_fused_rowwise_quantize_row(const std::vector<std::uint32_t>& row);

// spec: glow.fused_rowwise
// dequantizeWithFloatOffset<uint8_t>: fl32(fl32(float(q) * scale) + offset). REQUIRE q in
// [0, 255], scale and offset finite.
std::uint32_t glow_fused_rowwise_dequantize(const Int& q, std::uint32_t scale, std::uint32_t offset);

// spec: glow.rescale_params
// quantizeScaleOffset32To8(scale, offset) -> (pre, post, integer scale S):
//  - scale = 2^e exactly: e > 0 -> (0, 0, 2^e); e <= 0 -> (0, -e, 1);
//  - else double scale while (scale < 0.5 || (scale < 256 && post < 15)), counting post; then
//    while (scale < 255 && pre < post / 2), counting pre; S = roundf(scale) (ties away).
// So S = half_away(scale * 2^(pre + post)). REQUIRE scale finite and > 0, S < 2^31.
struct GlowRescaleParams {
  int pre;
  int post;
  Int scale;
};
GlowRescaleParams glow_rescale_params(std::uint32_t scale);

// spec: glow.rescale_integer
// The CPU backend's RescaleQuantized: (pre, post, S) = rescale_params(fl32(in_scale / out_scale));
// y = clip_int8( ((((x - in_offset) >> pre) * S + rtn) >> post) + out_offset ),
// rtn = post > 0 ? 2^(post-1) : 0, all in int32 (libjit_scale_i32i8, libjit_clip).
// REQUIRE no int32 overflow (libjit_scale_i32i8 documents overflow as undefined).
Int glow_rescale_integer(const Int& x, const GlowQParams& in, const GlowQParams& out);

// spec: glow.rescale_float
// The Interpreter's RescaleQuantized: quantize<int8>(dequantize(x, in), out).
Int glow_rescale_float(const Int& x, const GlowQParams& in, const GlowQParams& out);

}  // namespace qspec::ref
