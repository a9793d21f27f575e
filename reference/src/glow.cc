// Exact Glow quantization: affine map, quantize/dequantize, parameter choice, row-wise, rescale.
#include "qspec/ref/glow.h"

#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref {
namespace {

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;

bool fits_int32(const Int& v) { return v >= kInt32Min && v <= kInt32Max; }

std::string dtype_str(DType t) { return std::string(dtype_name(t)); }

// One IEEE operation's rounding, for the float64 arithmetic of chooseQuantizationParams.
Rat r64(const Rat& v) {
  const std::uint64_t b = f64_round(v);
  QSPEC_REQUIRE(float_is_finite(b, kBinary64), "glow: a float64 intermediate overflowed");
  return f64_value(b);
}
// The same for float32 results that cannot overflow.
Rat r32(const Rat& v) {
  const std::uint32_t b = f32_round(v);
  QSPEC_REQUIRE(float_is_finite(b, kBinary32), "glow: a float32 intermediate overflowed");
  return f32_value(b);
}

// float32 subtraction a - b (IEEE: a + (-b)).
std::uint32_t f32_sub(std::uint32_t a, std::uint32_t b) { return f32_add(a, b ^ 0x80000000u); }

// getQuantizedRange (Base.cpp): int32 is narrowed to int30, see the comment there.
Range glow_quantized_range(DType t) {
  switch (t) {
    case DType::I8:
    case DType::U8:
    case DType::I16:
      return int_range(t);
    case DType::I32:
      return {-pow2(29), pow2(29) - 1};  // INT32_MIN >> 2, INT32_MAX >> 2
    default:
      QSPEC_REQUIRE(false, "glow: precision must be int8, uint8, int16 or int32, not " + dtype_str(t));
      return {};
  }
}

// The float32 nearest to 10^-10: the literal 1e-10f of kEqualityThreshold.
std::uint32_t f32_1e_minus_10() { return f32_round(Rat(Int(1), Int(10000000000LL))); }

// 0.1 as a C++ double literal: the binary64 nearest to 1/10.
Rat f64_one_tenth() { return f64_value(f64_round(Rat(1, 10))); }

}  // namespace

// spec: glow.affine_map
Rat glow_real_value(const Int& q, const GlowQParams& p) {
  QSPEC_REQUIRE(float_is_finite(p.scale, kBinary32), "glow.affine_map: finite scale");
  return Rat(q - p.offset) * f32_value(p.scale);
}

// spec: glow.quantize
//   float result = input / TQP.scale + TQP.offset;       // float32 division, then float32 add
//   return clip<int64_t, DestTy>((int64_t)nearbyintf(result));
Int glow_quantize(std::uint32_t x, const GlowQParams& p, DType out) {
  const std::string c = "glow.quantize: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8 || out == DType::I16 || out == DType::I32,
          c + "DestTy is int8, uint8, int16 or int32, not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(x, kBinary32), c + "finite input");
  QSPEC_REQUIRE(float_is_finite(p.scale, kBinary32) && f32_value(p.scale) != 0, c + "finite nonzero scale");
  QSPEC_REQUIRE(fits_int32(p.offset), c + "offset is int32");
  const std::uint32_t result = f32_add_ext(f32_div(x, p.scale), f32_from_int(p.offset));
  QSPEC_REQUIRE(!f32_is_inf(result), c + "x / scale + offset is finite ((int64_t) of inf is undefined)");
  const Int n = round_half_even(f32_value(result));  // nearbyintf in the default rounding mode
  QSPEC_REQUIRE(n >= -pow2(63) && n < pow2(63), c + "nearbyintf(result) converts to int64");
  return saturate(n, out);
}

// spec: glow.dequantize
//   return TQP.scale * ((int64_t)input - TQP.offset);    // int64 difference -> float, float32 product
std::uint32_t glow_dequantize(const Int& q, const GlowQParams& p) {
  QSPEC_REQUIRE(float_is_finite(p.scale, kBinary32), "glow.dequantize: finite scale");
  return f32_mul(p.scale, f32_from_int(q - p.offset));
}

// spec: glow.choose_params.asymmetric
// spec: glow.choose_params.symmetric
// spec: glow.choose_params.symmetric_with_uint8
// chooseQuantizationParams (lib/Quantization/Base/Base.cpp), Calibration::None. Comments quote
// the C++ each step models; `float` variables hold float32 values, `double` ones float64.
GlowQParams glow_choose_params(std::uint32_t min_bits, std::uint32_t max_bits, GlowSchema schema, DType precision) {
  const std::string c = "glow.choose_params: ";
  QSPEC_REQUIRE(float_is_finite(min_bits, kBinary32) && float_is_finite(max_bits, kBinary32), c + "finite range");
  Rat min = f32_value(min_bits), max = f32_value(max_bits);
  QSPEC_REQUIRE(min <= max, c + "min <= max (Glow asserts)");
  const Range qr = glow_quantized_range(precision);
  const Rat qmin(qr.lo), qmax(qr.hi);

  // min = std::min(min, 0.f); max = std::max(max, 0.f);
  if (min > 0) min = 0;
  if (max < 0) max = 0;

  if (schema == GlowSchema::SymmetricWithUint8 && !(min >= 0)) schema = GlowSchema::Symmetric;
  // (With min >= 0 the schema keeps the asymmetric computation below: zero maps to qmin.)

  if (schema == GlowSchema::Symmetric) {
    QSPEC_REQUIRE(qr.lo < 0, c + "symmetric schemas need a signed precision (Glow asserts qmin < 0)");
    const Rat rmin = r64(min / qmin);  // double rmin = min / (double)qmin;
    const Rat rmax = r64(max / qmax);  // double rmax = max / (double)qmax;
    if (rmin > rmax) {
      // max = rmin * qmax;  (double product, then narrowed to float on assignment)
      const std::uint32_t b = f32_round(r64(rmin * qmax));
      QSPEC_REQUIRE(!f32_is_inf(b), c + "rmin * qmax fits float32");  // |rmin * qmax| < |min|: cannot fail
      max = f32_value(b);
    } else {
      // min = rmax * qmin;  may exceed the float range: becomes -inf, clamped just below
      const std::uint32_t b = f32_round(r64(rmax * qmin));
      min = f32_is_inf(b) ? Rat(f32_value(0xff7fffffu)) : f32_value(b);
    }
  }
  // min = std::max(min, std::numeric_limits<float>::lowest()); max = std::min(max, FLT_MAX);
  // (both are no-ops for the finite values kept above)

  // double scale = ((double)max - min) / ((double)qmax - qmin);
  Rat scale = r64(r64(max - min) / (qmax - qmin));
  // if (scale == 0) scale = 0.1;
  if (scale == 0) scale = f64_one_tenth();

  // double zeroPointFromMin = qmin - min / scale;  and the same from max; their error estimates
  // std::abs(qmin) + std::abs(min / scale) pick the one computed from smaller terms.
  const Rat min_over = r64(min / scale), max_over = r64(max / scale);
  const Rat zp_from_min = r64(qmin - min_over);
  const Rat zp_from_max = r64(qmax - max_over);
  const Rat err_min = r64(abs(qmin) + abs(min_over));
  const Rat err_max = r64(abs(qmax) + abs(max_over));
  Rat initial = err_min < err_max ? zp_from_min : zp_from_max;

  // float difference = std::abs(max + min); if (difference <= FLT_EPSILON) initialZeroPoint = 0;
  const Rat difference = abs(r32(max + min));
  if (difference <= pow2r(-23)) initial = 0;

  // Nudge to an integer in [qmin, qmax]: round() of a double, ties away from zero.
  Int nudged;
  if (initial < qmin)
    nudged = qr.lo;
  else if (initial > qmax)
    nudged = qr.hi;
  else
    nudged = round_half_away(initial);

  // TensorQuantizationParams result{static_cast<float>(scale), nudgedZeroPoint};
  return {f32_round(scale), nudged};
}

// spec: glow.bias_int32
//   int32_t biasOffset = biasTQP.offset; if (biasQTy == ElemKind::Int32QTy) biasOffset = 0;
//   float biasScale = biasTQP.scale;
//   if (scaleInput * scaleWeights > biasScale) biasScale = scaleInput * scaleWeights;
GlowQParams glow_bias_params(const GlowQParams& bias, std::uint32_t input_scale, std::uint32_t weights_scale,
                             DType precision) {
  const std::string c = "glow.bias_int32: ";
  QSPEC_REQUIRE(precision == DType::I8 || precision == DType::I16 || precision == DType::I32,
          c + "bias precision is int8, int16 or int32, not " + dtype_str(precision));
  QSPEC_REQUIRE(float_is_finite(bias.scale, kBinary32) && float_is_finite(input_scale, kBinary32) &&
              float_is_finite(weights_scale, kBinary32),
          c + "finite scales");
  const std::uint32_t product = f32_mul(input_scale, weights_scale);  // float * float -> float
  QSPEC_REQUIRE(!f32_is_inf(product), c + "input_scale * weights_scale is finite");
  const Int offset = precision == DType::I32 ? Int(0) : bias.offset;
  const std::uint32_t scale = f32_value(product) > f32_value(bias.scale) ? product : bias.scale;
  return {scale, offset};
}

// spec: glow.uint8_to_int8
Int glow_uint8_to_int8(const Int& v) {
  QSPEC_REQUIRE(v >= 0 && v <= 255, "glow.uint8_to_int8: a uint8 value or offset");
  return v - 128;
}

// spec: glow.rowwise
GlowQParams glow_rowwise_quantize_row(const std::vector<std::uint32_t>& row, GlowSchema schema, std::vector<Int>& q) {
  QSPEC_REQUIRE(!row.empty(), "glow.rowwise: non-empty row");
  // Tensor::minMaxArg: the first index holding the minimum / maximum.
  std::size_t imin = 0, imax = 0;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (f32_compare(row[i], row[imax]) > 0) imax = i;
    if (f32_compare(row[i], row[imin]) < 0) imin = i;
  }
  const GlowQParams p = glow_choose_params(row[imin], row[imax], schema, DType::I8);
  q.clear();
  for (std::uint32_t x : row) q.push_back(glow_quantize(x, p, DType::I8));
  return p;
}

// spec: glow.fused_rowwise
GlowFusedRow glow_fused_rowwise_quantize_row(const std::vector<std::uint32_t>& row) {
  const std::string c = "glow.fused_rowwise: ";
  QSPEC_REQUIRE(!row.empty(), c + "non-empty row");
  std::size_t imin = 0, imax = 0;
  for (std::size_t i = 1; i < row.size(); ++i) {
    QSPEC_REQUIRE(float_is_finite(row[i], kBinary32), c + "finite values");
    if (f32_compare(row[i], row[imax]) > 0) imax = i;
    if (f32_compare(row[i], row[imin]) < 0) imin = i;
  }
  const std::uint32_t min = row[imin], max = row[imax];
  // const float scale = ((max - min) < kEqualityThreshold) ? 1.0
  //                     : ((double)max - (double)min) / range;     // range = 255.0f
  const std::uint32_t diff = f32_sub(max, min);
  QSPEC_REQUIRE(!f32_is_inf(diff), c + "max - min is finite in float32");
  std::uint32_t scale;
  if (f32_value(diff) < f32_value(f32_1e_minus_10())) {
    scale = kF32One;
  } else {
    const Rat wide = r64(f32_value(max) - f32_value(min));
    scale = f32_round(r64(wide / 255));
  }
  GlowFusedRow out{{}, scale, min};
  // quantizeWithFloatOffset<uint8_t>: (uint16_t) std::round((input - offset) / scale), then the
  // uint16 is stored into a uint8 byte. x >= min makes the quotient >= 0, and it exceeds 255 by
  // at most a few float32 ulps, so std::round (ties away) lands in [0, 255].
  for (std::uint32_t x : row) {
    const std::uint32_t quotient = f32_div(f32_sub(x, min), scale);
    const Int v = round_half_away(f32_value(quotient));
    QSPEC_REQUIRE(v >= 0 && v <= 255, c + "the rounded quotient is a byte");
    out.q.push_back(v);
  }
  return out;
}

// spec: glow.fused_rowwise
//   uint16_t d = static_cast<uint16_t>(input); return (d * scale) + offset;
std::uint32_t glow_fused_rowwise_dequantize(const Int& q, std::uint32_t scale, std::uint32_t offset) {
  const std::string c = "glow.fused_rowwise: ";
  QSPEC_REQUIRE(q >= 0 && q <= 255, c + "q is a byte");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && float_is_finite(offset, kBinary32), c + "finite scale and offset");
  const std::uint32_t product = f32_mul(f32_from_int(q), scale);
  QSPEC_REQUIRE(!f32_is_inf(product), c + "q * scale is finite");
  const std::uint32_t sum = f32_add(product, offset);
  QSPEC_REQUIRE(!f32_is_inf(sum), c + "q * scale + offset is finite");
  return sum;
}

// spec: glow.rescale_params
// quantizeScaleOffset32To8 (lib/Quantization/Base/Base.cpp). `scale` is a float: every doubling
// is exact, so the loops only count; the integer scale is roundf of scale * 2^(pre + post).
GlowRescaleParams glow_rescale_params(std::uint32_t scale_bits) {
  const std::string c = "glow.rescale_params: ";
  QSPEC_REQUIRE(float_is_finite(scale_bits, kBinary32), c + "finite scale");
  Rat scale = f32_value(scale_bits);
  QSPEC_REQUIRE(scale > 0, c + "positive scale");
  // isFloatPowerOf2: |frexp(scale)| == 0.5, i.e. scale == 2^e; getFloat2Exp = ilogb = e.
  int e = 0;
  Rat f = scale;
  while (f >= 1) {
    f /= 2;
    ++e;
  }
  while (f < 1) {
    f *= 2;
    --e;
  }
  if (f == 1) {
    if (e > 0) {
      QSPEC_REQUIRE(e <= 30, c + "(int)scale fits int");
      return {0, 0, pow2(static_cast<unsigned>(e))};
    }
    return {0, -e, Int(1)};
  }
  int pre = 0, post = 0;
  while (scale < Rat(1, 2) || (scale < 256 && post < 15)) {
    scale *= 2;
    ++post;
  }
  while (scale < 255 && pre < post / 2) {
    scale *= 2;
    ++pre;
  }
  const Int s = round_half_away(scale);  // std::round(float), then converted to int
  QSPEC_REQUIRE(s < pow2(31), c + "the integer scale fits int");
  return {pre, post, s};
}

// spec: glow.rescale_integer
//   scale params = quantizeScaleOffset32To8(srcScale / destScale, srcOffset);   // float32 division
//   libjit_rescale_i8: s = libjit_scale_i32i8(in - inOffset, pre, post, scale, outOffset); clip
//   libjit_scale_i32i8: rtn = post > 0 ? 1 << (post - 1) : 0;
//                       return ((((input >> pre) * scale) + rtn) >> post) + offset;
Int glow_rescale_integer(const Int& x, const GlowQParams& in, const GlowQParams& out) {
  const std::string c = "glow.rescale_integer: ";
  QSPEC_REQUIRE(float_is_finite(in.scale, kBinary32) && float_is_finite(out.scale, kBinary32), c + "finite scales");
  QSPEC_REQUIRE(f32_value(in.scale) > 0 && f32_value(out.scale) > 0, c + "positive scales");
  const std::uint32_t ratio = f32_div(in.scale, out.scale);
  QSPEC_REQUIRE(!f32_is_inf(ratio) && f32_value(ratio) > 0, c + "in_scale / out_scale is a positive finite float");
  const GlowRescaleParams p = glow_rescale_params(ratio);
  QSPEC_REQUIRE(p.pre <= 31 && p.post <= 31, c + "shift amounts < 32");
  QSPEC_REQUIRE(fits_int32(x) && fits_int32(in.offset) && fits_int32(out.offset), c + "int32 operands");
  const Int xi = x - in.offset;
  QSPEC_REQUIRE(fits_int32(xi), c + "x - in_offset fits int32");
  const Int shifted = floor_div(xi, pow2(static_cast<unsigned>(p.pre)));  // input >> pre
  const Int product = shifted * p.scale;
  QSPEC_REQUIRE(fits_int32(product), c + "(x >> pre) * scale fits int32");
  const Int rtn = p.post > 0 ? pow2(static_cast<unsigned>(p.post - 1)) : Int(0);
  QSPEC_REQUIRE(fits_int32(product + rtn), c + "adding the rounding constant fits int32");
  const Int scaled = floor_div(product + rtn, pow2(static_cast<unsigned>(p.post)));
  const Int with_offset = scaled + out.offset;
  QSPEC_REQUIRE(fits_int32(with_offset), c + "adding the output offset fits int32");
  return saturate(with_offset, DType::I8);  // libjit_clip: [-128, 127]
}

// spec: glow.rescale_float
Int glow_rescale_float(const Int& x, const GlowQParams& in, const GlowQParams& out) {
  return glow_quantize(glow_dequantize(x, in), out, DType::I8);
}

}  // namespace qspec::ref
