// The engines' conventions of the quantized operators (spec/operators_qlinear.md): XNNPACK's and
// ONNX Runtime's parameter derivation, ERROR_IFs, output size and epilogue, float steps via ieee.h.
#include <stdexcept>
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

std::string name(DType t) { return std::string(dtype_name(t)); }
bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}

// isnormal(f) && f > 0: exponent field neither 0 nor all ones, sign clear.
bool positive_normal(std::uint32_t b) {
  const std::uint32_t e = (b >> 23) & 0xffu;
  return !f32_sign(b) && e != 0 && e != 0xffu;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

// The per-channel scale count: 1 (per tensor) or one per output channel.
void check_scale_count(const QLinearParams& p, std::int64_t channels, const std::string& c) {
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  QSPEC_ERROR_IF(n != 1 && n != channels, c + ": the weight scales must have 1 or " + std::to_string(channels) +
                                              " entries (one per output channel), not " + std::to_string(n));
}

// x * w / y with x * w possibly overflowing to +inf (then the quotient is +inf too).
std::uint32_t scale_ext(std::uint32_t x_scale, std::uint32_t w_scale, std::uint32_t y_scale) {
  const std::uint32_t prod = f32_mul(x_scale, w_scale);
  if (f32_is_inf(prod)) return kF32PosInf;
  return f32_div(prod, y_scale);
}

// A clamp of a binary32 (possibly infinite) to [lo, hi], as _mm_max_ps / _mm_min_ps do for non-NaN v.
std::uint32_t clamp_f32(std::uint32_t v, std::uint32_t lo, std::uint32_t hi) {
  if (f32_compare(v, lo) < 0) v = lo;
  if (f32_compare(v, hi) > 0) v = hi;
  return v;
}

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;

}  // namespace

// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
std::uint32_t qlinear_fp32_scale(std::uint32_t x_scale, std::uint32_t w_scale, std::uint32_t y_scale) {
  QSPEC_REQUIRE(float_is_finite(y_scale, kBinary32) && f32_value(y_scale) != 0, "qlinear: y_scale finite and nonzero");
  return f32_div(f32_mul(x_scale, w_scale), y_scale);
}

// spec: qlinear.xnnpack_fp32
std::vector<std::uint32_t> qlinear_xnnpack_fp32_scales(const QLinearParams& p, std::int64_t channels) {
  const std::string c = "xnnpack.fp32";
  const bool qs8 = p.x_type == DType::I8 && p.w_type == DType::I8;
  const bool qu8 = p.x_type == DType::U8 && p.w_type == DType::U8;
  QSPEC_ERROR_IF(!qs8 && !qu8, c + ": no operator for " + name(p.x_type) + " activations with " + name(p.w_type) +
                                   " weights (qs8/qc8: int8 x int8, qu8: uint8 x uint8)");
  check_scale_count(p, channels, c);
  QSPEC_ERROR_IF(qu8 && p.w_scales.size() > 1,
                 c + ": per-channel weight scales need int8 tensors (qc8); qu8 has one scale");
  QSPEC_ERROR_IF(qs8 && p.w_zero_point != 0, c + ": qs8/qc8 weights have no zero point (w_zero_point must be 0)");
  const DType t = p.x_type;
  QSPEC_ERROR_IF(!fits(p.x_zero_point, t), c + ": x_zero_point must fit " + name(t));
  QSPEC_ERROR_IF(!fits(p.w_zero_point, p.w_type), c + ": w_zero_point must fit " + name(p.w_type));
  QSPEC_ERROR_IF(!fits(p.y_zero_point, t), c + ": y_zero_point must fit " + name(t));
  const Range r = int_range(t);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(!fits(lo, t) || !fits(hi, t), c + ": y_min and y_max must fit " + name(t));
  QSPEC_ERROR_IF(!positive_normal(p.x_scale), c + ": x_scale must be finite, normalized, and positive");
  for (auto s : p.w_scales)
    QSPEC_ERROR_IF(!positive_normal(s), c + ": every weight scale must be finite, normalized, and positive");
  QSPEC_ERROR_IF(!positive_normal(p.y_scale), c + ": y_scale must be finite, normalized, and positive");
  QSPEC_ERROR_IF(lo >= hi, c + ": y_min must be below y_max");
  std::vector<std::uint32_t> scales;
  for (std::int64_t o = 0; o < channels; ++o) {
    const std::uint32_t s =
        scale_ext(p.x_scale, p.w_scales[p.w_scales.size() == 1 ? 0 : static_cast<std::size_t>(o)], p.y_scale);
    QSPEC_ERROR_IF(f32_is_inf(s) || f32_value(s) >= 256,
                   c + ": requantization scale is greater or equal to 256.0 (xnn_status_unsupported_parameter)");
    QSPEC_REQUIRE(f32_value(s) >= pow2r(-32), c + ": requantization scale >= 2^-32 (XNNPACK asserts)");
    scales.push_back(s);
  }
  return scales;
}

// spec: qlinear.xnnpack_fp32
Int qlinear_xnnpack_fp32_output(const Int& acc, std::uint32_t scale, const QLinearParams& p) {
  const Range r = int_range(p.x_type);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  return saturate(xnnpack_fp32_requantize(acc, scale, p.y_zero_point, p.x_type), Range{lo, hi});
}

// spec: qlinear.xnnpack_fp32
std::int64_t qlinear_xnnpack_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                          std::int64_t kernel, std::int64_t dilation, std::int64_t stride) {
  const std::int64_t effective = dilation * (kernel - 1) + 1, padded = in + pad_begin + pad_end;
  // compute_output_dimension's doz would give one position, but xnn_run_operator then reads out of
  // bounds (it crashes: crosscheck_xnnpack_qlinear, spec/errata.md): outside the clause.
  QSPEC_REQUIRE(padded >= effective, "xnnpack.fp32: the dilated kernel fits the padded input (XNNPACK crashes)");
  return (padded - effective) / stride + 1;
}

// spec: qlinear.onnxruntime
std::vector<std::uint32_t> qlinear_onnxruntime_scales(const QLinearParams& p, std::int64_t channels) {
  const std::string c = "onnxruntime";
  const bool ok = (p.x_type == DType::U8 && (p.w_type == DType::U8 || p.w_type == DType::I8)) ||
                  (p.x_type == DType::I8 && p.w_type == DType::I8);
  QSPEC_ERROR_IF(!ok, c + ": no kernel for " + name(p.x_type) + " activations with " + name(p.w_type) +
                          " weights (uint8 x uint8, uint8 x int8, int8 x int8)");
  check_scale_count(p, channels, c);
  QSPEC_ERROR_IF(!fits(p.x_zero_point, p.x_type), c + ": x_zero_point must have x's type " + name(p.x_type));
  QSPEC_ERROR_IF(!fits(p.w_zero_point, p.w_type), c + ": w_zero_point must have w's type " + name(p.w_type));
  QSPEC_ERROR_IF(!fits(p.y_zero_point, p.x_type), c + ": y_zero_point must have y's type " + name(p.x_type));
  QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.y_scale),
                c + ": x_scale and y_scale finite and positive");
  std::vector<std::uint32_t> scales;
  for (std::int64_t o = 0; o < channels; ++o) {
    const std::uint32_t ws = p.w_scales[p.w_scales.size() == 1 ? 0 : static_cast<std::size_t>(o)];
    QSPEC_REQUIRE(finite_positive(ws), c + ": weight scales finite and positive");
    const std::uint32_t s = scale_ext(p.x_scale, ws, p.y_scale);
    QSPEC_REQUIRE(!f32_is_inf(s), c + ": the requantization scale is finite");
    scales.push_back(s);
  }
  return scales;
}

// spec: qlinear.onnxruntime
Int qlinear_onnxruntime_output(const Int& acc, std::uint32_t scale, const QLinearParams& p) {
  QSPEC_REQUIRE(acc >= kInt32Min && acc <= kInt32Max, "onnxruntime: the accumulator is int32");
  const Range r = int_range(p.x_type);
  const std::uint32_t lo = f32_from_int(r.lo - p.y_zero_point), hi = f32_from_int(r.hi - p.y_zero_point);  // exact
  const std::uint32_t v = clamp_f32(f32_mul(f32_from_int(acc), scale), lo, hi);  // the product may be +-inf
  return round_half_even(f32_value(v)) + p.y_zero_point;
}

// spec: qlinear.onnxruntime
std::int64_t qlinear_onnxruntime_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                              std::int64_t kernel, std::int64_t dilation, std::int64_t stride) {
  const std::int64_t numerator = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  QSPEC_ERROR_IF(numerator < 0,
                 "onnxruntime: the dilated kernel is larger than the padded input (Invalid input shape)");
  return numerator / stride + 1;
}

std::vector<std::uint32_t> qlinear_scales(const QLinearParams& p, std::int64_t channels, QLinearConvention c) {
  if (c == QLinearConvention::PytorchQnnpack)
    throw std::logic_error("qlinear_scales: pytorch.qnnpack derives its scales per operator");
  if (qlinear_is_tflite(c) || c == QLinearConvention::Tosa)
    throw std::logic_error("qlinear_scales: TFLite's and TOSA's conventions have Q31 multipliers");
  // oneDNN's output scales (the convolution's weights zero point check is the operator's).
  if (c == QLinearConvention::Onednn) return qlinear_onednn_scales(p, channels, QLinearOp::Matmul);
  if (c == QLinearConvention::PytorchOnednn) return qlinear_pytorch_onednn_scales(p, channels);
  return c == QLinearConvention::XnnpackFp32 ? qlinear_xnnpack_fp32_scales(p, channels)
                                             : qlinear_onnxruntime_scales(p, channels);
}

Int qlinear_output(const Int& acc, std::uint32_t scale, const QLinearParams& p, QLinearConvention c) {
  if (c == QLinearConvention::PytorchQnnpack) return qlinear_pytorch_qnnpack_output(acc, scale, p);
  if (qlinear_is_tflite(c) || c == QLinearConvention::Tosa)
    throw std::logic_error("qlinear_output: TFLite's and TOSA's conventions have Q31 multipliers");
  if (c == QLinearConvention::Onednn || c == QLinearConvention::PytorchOnednn)
    throw std::logic_error("qlinear_output: oneDNN adds the bias in float (qlinear_onednn_output)");
  return c == QLinearConvention::XnnpackFp32 ? qlinear_xnnpack_fp32_output(acc, scale, p)
                                             : qlinear_onnxruntime_output(acc, scale, p);
}

}  // namespace qspec::ref::ops
