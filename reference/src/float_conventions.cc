// Exact models of XNNPACK / oneDNN / ONNX / PyTorch float-based quantization, one IEEE step at a time.
#include "qspec/ref/float_conventions.h"

#include <string>

namespace qspec::ref {
namespace {

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;

std::string dtype_str(DType t) { return std::string(dtype_name(t)); }

bool in_range(const Int& v, const Range& r) { return v >= r.lo && v <= r.hi; }

// The largest magnitude an int64 conversion (cvttss2si / static_cast<int64_t>) accepts:
// -2^63 <= v < 2^63.
bool fits_int64(const Rat& v) { return v >= -Rat(pow2(63)) && v < Rat(pow2(63)); }

// XNNPACK's isnormal(scale) && scale > 0: exponent field neither 0 nor all ones, sign clear.
bool is_positive_normal(std::uint32_t b) {
  const std::uint32_t e = (b >> 23) & 0xffu;
  return !f32_sign(b) && e != 0 && e != 0xffu;
}

// Clamp a float32 (possibly infinite) to [lo, hi] given as float32 bit patterns, the way
// math_max_f32 / math_min_f32 (or _mm_max_ps / _mm_min_ps) do for non-NaN operands.
std::uint32_t f32_clamp(std::uint32_t v, std::uint32_t lo, std::uint32_t hi) {
  if (f32_compare(v, lo) < 0) v = lo;
  if (f32_compare(v, hi) > 0) v = hi;
  return v;
}

}  // namespace

int f32_compare(std::uint32_t a, std::uint32_t b) {
  QSPEC_REQUIRE(!f32_is_nan(a) && !f32_is_nan(b), "f32_compare: operands are not NaN");
  auto rank = [](std::uint32_t v) { return f32_is_inf(v) ? (f32_sign(v) ? -1 : 1) : 0; };
  const int ra = rank(a), rb = rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (ra != 0) return 0;  // the same infinity
  const Rat va = f32_value(a), vb = f32_value(b);
  return va < vb ? -1 : (va > vb ? 1 : 0);
}

std::uint32_t f32_add_ext(std::uint32_t a, std::uint32_t b) {
  if (f32_is_inf(a) && f32_is_inf(b)) {
    QSPEC_REQUIRE(f32_sign(a) == f32_sign(b), "f32_add_ext: inf + (-inf) is NaN");
    return a;
  }
  if (f32_is_inf(a)) return a;
  if (f32_is_inf(b)) return b;
  return f32_add(a, b);
}

std::uint32_t f32_mul_ext(std::uint32_t a, std::uint32_t b) {
  if (f32_is_inf(a) || f32_is_inf(b)) {
    const std::uint32_t other = f32_is_inf(a) ? b : a;
    QSPEC_REQUIRE(f32_is_inf(other) || f32_value(other) != 0, "f32_mul_ext: inf * 0 is NaN");
    return (f32_sign(a) != f32_sign(b)) ? kF32NegInf : kF32PosInf;
  }
  return f32_mul(a, b);
}

std::uint32_t f32_round_to_integral(std::uint32_t f, Rounding mode) {
  if (f32_is_inf(f)) return f;
  // round(value) is an integer n with |n| <= |value| + 1. If |value| < 2^23, |n| <= 2^23 is
  // exactly representable; otherwise value is already an integer (binary32 has no fraction
  // bits from 2^23 on) and n == value. Either way float_round(n) is exact. A zero result keeps
  // the sign of f, as nearbyintf(-0.25f) == -0.0f.
  const Int n = round(f32_value(f), mode);
  return static_cast<std::uint32_t>(float_round(Rat(n), kBinary32, f32_sign(f)));
}

Int round_saturate_f32(std::uint32_t f, Rounding mode, const Range& r) {
  QSPEC_REQUIRE(!f32_is_nan(f), "round_saturate_f32: not NaN");
  if (f32_is_inf(f)) return f32_sign(f) ? r.lo : r.hi;
  return saturate(round(f32_value(f), mode), r);
}

// spec: float.dequantize
// The subtraction is an integer operation (int32 in TVM/PyTorch/XNNPACK, int64 in Glow): for
// the operands the callers admit it is exact. Then one rounding for the int->float conversion
// (cvtsi2ss, exact when |q - zp| <= 2^24) and one for the product.
std::uint32_t float_dequantize(const Int& q, const Int& zero_point, std::uint32_t scale) {
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32), "float.dequantize: finite scale");
  return f32_mul(f32_from_int(q - zero_point), scale);
}

// spec: float.xnnpack_fp32
// xnn_qs8_requantize_fp32 (src/xnnpack/requantization.h) and the x86 fp32 GEMM epilogues:
//   scaled = (float) input * scale;
//   scaled = max(scaled, (float)(min - zp)); scaled = min(scaled, (float)(max - zp));
//   output = (int32) lrintf(scaled) + zp;
// lrintf / cvtps2dq round half to even in the default MXCSR mode. The clamp bounds are integers,
// so clamping before the rounding equals saturating after it; we follow the source literally.
Int xnnpack_fp32_requantize(const Int& x, std::uint32_t scale, const Int& zero_point, DType out) {
  const std::string c = "float.xnnpack_fp32: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8, c + "out is int8 or uint8, not " + dtype_str(out));
  QSPEC_REQUIRE(x >= kInt32Min && x <= kInt32Max, c + "x is an int32 accumulator");
  QSPEC_ERROR_IF(f32_is_nan(scale) || f32_is_inf(scale), c + "scale must be finite");
  const Rat s = f32_value(scale);
  QSPEC_ERROR_IF(!(s > 0), c + "scale must be positive (XNNPACK rejects non-positive scales)");
  QSPEC_ERROR_IF(s >= 256, c + "scale must be < 256 (xnn_status_unsupported_parameter)");
  QSPEC_REQUIRE(s >= pow2r(-32), c + "scale >= 2^-32 (XNNPACK asserts)");
  const Range r = int_range(out);
  QSPEC_ERROR_IF(!in_range(zero_point, r), c + "zero_point must fit " + dtype_str(out));
  const std::uint32_t lo = f32_from_int(r.lo - zero_point);  // |.| <= 255: exact
  const std::uint32_t hi = f32_from_int(r.hi - zero_point);
  std::uint32_t v = f32_mul(f32_from_int(x), scale);  // |x * s| < 2^39: finite
  v = f32_clamp(v, lo, hi);
  return round_half_even(f32_value(v)) + zero_point;
}

// spec: float.xnnpack_convert
// xnn_create_convert_nc_f32_qs8 passes 1.0f / output_scale to the params; the kernels
// (src/f32-qs8-vcvt, e.g. scalar-lrintf) compute vx *= vscale; clamp to
// [min - zp, max - zp]; lrintf(vx) + zp. A product that overflows to +-inf is clamped.
Int xnnpack_convert_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out) {
  const std::string c = "float.xnnpack_convert: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8, c + "out is int8 or uint8, not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(x, kBinary32), c + "finite input");
  QSPEC_ERROR_IF(!is_positive_normal(scale), c + "scale must be finite, normalized, and positive");
  const Range r = int_range(out);
  QSPEC_ERROR_IF(!in_range(zero_point, r), c + "zero_point must fit " + dtype_str(out));
  const std::uint32_t inv = f32_div(kF32One, scale);  // finite: scale >= 2^-126
  std::uint32_t v = f32_mul(x, inv);                   // may overflow to +-inf
  v = f32_clamp(v, f32_from_int(r.lo - zero_point), f32_from_int(r.hi - zero_point));
  return round_half_even(f32_value(v)) + zero_point;
}

// spec: float.onednn_fp32
// ref_matmul_int8.cpp: float d = (int)acc; d *= scales[..]; d += dst_zp;
// store_float_value -> saturate_and_round: clamp in float to the type's bounds, then
// out_round (nearbyintf, half to even).
Int onednn_fp32_requantize(const Int& x, std::uint32_t scale, const Int& zero_point, DType out) {
  const std::string c = "float.onednn_fp32: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8, c + "out is int8 or uint8, not " + dtype_str(out));
  QSPEC_REQUIRE(x >= kInt32Min && x <= kInt32Max, c + "x is an int32 accumulator");
  QSPEC_REQUIRE(zero_point >= kInt32Min && zero_point <= kInt32Max, c + "zero_point is int32");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32), c + "finite scale");
  std::uint32_t d = f32_mul(f32_from_int(x), scale);  // may overflow to +-inf
  d = f32_add_ext(d, f32_from_int(zero_point));
  const Range r = int_range(out);
  d = f32_clamp(d, f32_from_int(r.lo), f32_from_int(r.hi));
  return round_half_even(f32_value(d));
}

// spec: float.onednn_reorder
// reorder f32 -> s8/u8 with output scale a (the adapter passes a = 1.0f / scale) and a
// destination zero point: d = x * a; d += zp; saturate_and_round(d).
Int onednn_reorder_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out) {
  const std::string c = "float.onednn_reorder: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8, c + "out is int8 or uint8, not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(x, kBinary32), c + "finite input");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) != 0, c + "finite nonzero scale");
  QSPEC_REQUIRE(zero_point >= kInt32Min && zero_point <= kInt32Max, c + "zero_point is int32");
  const std::uint32_t a = f32_div(kF32One, scale);  // may be +-inf for a subnormal scale
  QSPEC_REQUIRE(!f32_is_inf(a) || f32_value(x) != 0, c + "x * (1/scale) is not inf * 0");
  std::uint32_t d = f32_mul_ext(x, a);
  d = f32_add_ext(d, f32_from_int(zero_point));
  const Range r = int_range(out);
  d = f32_clamp(d, f32_from_int(r.lo), f32_from_int(r.hi));
  return round_half_even(f32_value(d));
}

// spec: float.onnx_quantize_linear
// ONNX QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point), with x and
// y_scale float32 tensors, so x / y_scale is a float32 division (the ONNX reference
// implementation computes it with numpy in float32). The integer add is exact.
Int onnx_quantize_linear(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out) {
  const std::string c = "float.onnx_quantize_linear: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8 || out == DType::I16 || out == DType::U16 || out == DType::I32,
          c + "out is an integer type ONNX quantizes to, not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(x, kBinary32), c + "finite input");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) > 0, c + "finite positive scale");
  const Range r = int_range(out);
  QSPEC_ERROR_IF(!in_range(zero_point, r), c + "y_zero_point must have the output type " + dtype_str(out));
  const std::uint32_t v = f32_div(x, scale);  // may overflow to +-inf
  if (f32_is_inf(v)) return f32_sign(v) ? r.lo : r.hi;
  return saturate(round_half_even(f32_value(v)) + zero_point, r);
}

// spec: float.onnx_dynamic_quantize_linear_params
// ONNX Runtime core/util/qmath.h GetQuantizationParameter<uint8_t>, line by line:
//   min = std::min(min, 0.0f); max = std::max(max, 0.0f);
//   scale = max == min ? 1.0f : (max - min) / float(qmax - qmin);      // qmax - qmin = 255
//   float initial_zero_point = qmin - min / scale;                      // qmin = 0
//   zp = RoundHalfToEven(std::max(float(qmin), std::min(float(qmax), initial_zero_point)));
// The IEEE special values it can meet with finite data are handled where they arise.
OnnxDynamicQuantParams onnx_dynamic_quantize_linear_params(std::uint32_t min_bits, std::uint32_t max_bits) {
  const std::string c = "float.onnx_dynamic_quantize_linear_params: ";
  QSPEC_REQUIRE(float_is_finite(min_bits, kBinary32) && float_is_finite(max_bits, kBinary32), c + "finite min and max");
  constexpr std::uint32_t kZero = 0x00000000u, k255 = 0x437f0000u, kSign = 0x80000000u;
  // std::min(a, b) is (b < a) ? b : a and std::max(a, b) is (a < b) ? b : a: a zero of either
  // sign is kept as given, and the sign of a zero changes nothing below.
  if (f32_value(kZero) < f32_value(min_bits)) min_bits = kZero;
  if (f32_value(max_bits) < f32_value(kZero)) max_bits = kZero;
  if (f32_value(max_bits) == f32_value(min_bits)) return {kF32One, Int(0)};  // all zeros: scale 1, z0 = 0
  // max - min = max + (-min): the negation of a float is exact. It may overflow to +inf.
  const std::uint32_t range = f32_add(max_bits, min_bits ^ kSign);
  if (f32_is_inf(range)) return {kF32PosInf, Int(0)};  // min / +inf = -0 (min finite): z0 = +0
  const std::uint32_t scale = f32_div(range, k255);
  // A subnormal range can round to a zero scale: min / 0 is -inf (min < 0) or NaN (min = 0),
  // z0 = 0 - that is +inf or NaN, and std::min(255.f, v) returns 255.f for both.
  if (f32_value(scale) == 0) return {scale, Int(255)};
  const Rat z0 = -f32_value(f32_div(min_bits, scale));  // 0 - v: exact
  if (z0 >= 255) return {scale, Int(255)};
  if (z0 <= 0) return {scale, Int(0)};
  return {scale, round_half_even(z0)};
}

// spec: float.pytorch_quantize_per_tensor
// AffineQuantizerBase.cpp quantize_val (no FBGEMM):
//   float inv_scale = 1.0f / static_cast<float>(scale);
//   qvalue = static_cast<int64_t>(zero_point + Round(value * inv_scale));   // Round = nearbyint
//   qvalue = clamp(qvalue, qmin, qmax);
// `zero_point + Round(...)` is int64 + float: the zero point is converted to float and the sum
// is a float32 addition.
Int pytorch_quantize_per_tensor(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out) {
  const std::string c = "float.pytorch_quantize_per_tensor: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8 || out == DType::I32,
          c + "out is qint8 / quint8 / qint32, not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(x, kBinary32), c + "finite input");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) > 0, c + "finite positive scale");
  const Range r = int_range(out);
  QSPEC_ERROR_IF(!in_range(zero_point, r), c + "zero_point is out of range for " + dtype_str(out) + " (checkZeroPoint)");
  const std::uint32_t inv = f32_div(kF32One, scale);  // +inf for a tiny subnormal scale
  QSPEC_REQUIRE(!f32_is_inf(inv) || f32_value(x) != 0, c + "value * inv_scale is not 0 * inf");
  const std::uint32_t p = f32_mul_ext(x, inv);
  const std::uint32_t rounded = f32_round_to_integral(p, Rounding::HalfEven);
  const std::uint32_t v = f32_add_ext(f32_from_int(zero_point), rounded);
  QSPEC_REQUIRE(!f32_is_inf(v) && fits_int64(f32_value(v)), c + "the sum converts to int64 (|v| < 2^63)");
  return saturate(round_trunc(f32_value(v)), r);  // v is integral: the truncating cast is exact
}

// spec: float.pytorch_requantize_from_int
// AffineQuantizerBase.cpp requantize_from_int:
//   int64_t quantize_down = zero_point + lrintf(src * static_cast<float>(multiplier));
//   return clamp(quantize_down, min, max);
// `src * float` converts the int64 src to float first.
Int pytorch_requantize_from_int(const Int& x, std::uint32_t multiplier, const Int& zero_point, DType out) {
  const std::string c = "float.pytorch_requantize_from_int: ";
  QSPEC_REQUIRE(out == DType::I8 || out == DType::U8 || out == DType::I32,
          c + "out is qint8 / quint8 / qint32, not " + dtype_str(out));
  QSPEC_REQUIRE(float_is_finite(multiplier, kBinary32), c + "finite multiplier");
  QSPEC_REQUIRE(x >= -pow2(63) && x < pow2(63), c + "x is an int64");
  QSPEC_REQUIRE(zero_point >= -pow2(63) && zero_point < pow2(63), c + "zero_point is an int64");
  const std::uint32_t v = f32_mul(f32_from_int(x), multiplier);
  QSPEC_REQUIRE(!f32_is_inf(v), c + "the product is finite (lrintf of inf is undefined)");
  const Int n = round_half_even(f32_value(v));
  QSPEC_REQUIRE(fits_int64(Rat(n)), c + "lrintf's result fits long");
  return saturate(zero_point + n, int_range(out));
}

// spec: float.exact_quantize
Int exact_quantize(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out, Rounding mode) {
  QSPEC_REQUIRE(float_is_finite(x, kBinary32), "float.exact_quantize: finite input");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) != 0, "float.exact_quantize: finite nonzero scale");
  return saturate(round(f32_value(x) / f32_value(scale), mode) + zero_point, out);
}

// spec: float.exact_requantize
Int exact_requantize(const Int& x, std::uint32_t scale, const Int& zero_point, DType out, Rounding mode) {
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32), "float.exact_requantize: finite scale");
  return saturate(round(Rat(x) * f32_value(scale), mode) + zero_point, out);
}

}  // namespace qspec::ref
