// The engines' conventions of quantized pooling (spec/operators_qlinear_pool.md): XNNPACK's,
// ONNX Runtime's and TFLite's parameter derivations, ERROR_IFs and per-window arithmetic.
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

std::string name(DType t) { return std::string(dtype_name(t)); }
bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
// isnormal(f) && f > 0 (XNNPACK's "scale must be finite, normalized, and positive").
bool positive_normal(std::uint32_t b) {
  const std::uint32_t e = (b >> 23) & 0xffu;
  return !f32_sign(b) && e != 0 && e != 0xffu;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }
Range clamp_range(const QPoolParams& p) {
  const Range r = int_range(p.type);
  return Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)};
}

// XNNPACK's create-time checks shared by its pooling operators: zero points and clamp in the
// API's 8-bit type, positive normal scales, y_min < y_max, fl32(x_s / y_s) in [2^-8, 2^8).
void xnnpack_pool_params(const QPoolParams& p, const std::string& c) {
  QSPEC_ERROR_IF(!fits(p.x_zero_point, p.type) || !fits(p.y_zero_point, p.type),
                 c + ": the zero points must fit " + name(p.type));
  const Range r = clamp_range(p);
  QSPEC_ERROR_IF(!fits(r.lo, p.type) || !fits(r.hi, p.type), c + ": y_min and y_max must fit " + name(p.type));
  QSPEC_ERROR_IF(!positive_normal(p.x_scale), c + ": input scale must be finite, normalized, and positive");
  QSPEC_ERROR_IF(!positive_normal(p.y_scale), c + ": output scale must be finite, normalized, and positive");
  QSPEC_ERROR_IF(r.lo >= r.hi, c + ": range min must be below range max");
  const Rat ratio = f32_value(f32_div(p.x_scale, p.y_scale));
  QSPEC_ERROR_IF(ratio < pow2r(-8) || ratio >= pow2r(8),
                 c + ": input-to-output scale ratio must be in [2**-8, 2**8) range (xnn_status_unsupported_parameter)");
}

// S = fl32(x_s / fl32(y_s * fl32(n))), REQUIRE'd in [2^-32, 256) as the params init functions assert.
std::uint32_t xnnpack_pool_scale(const QPoolParams& p, std::int64_t n, const std::string& c) {
  const std::uint32_t s = f32_div(p.x_scale, f32_mul(p.y_scale, f32_from_int(Int(n))));
  QSPEC_REQUIRE(f32_value(s) >= pow2r(-32) && f32_value(s) < 256, c + ": 2^-32 <= S < 256 (XNNPACK asserts)");
  return s;
}

}  // namespace

// spec: qlinear.avg_pool2d.xnnpack_fp32
std::uint32_t qlinear_avg_pool2d_xnnpack_scale(const QPoolParams& p, const QPoolGeometry& g, bool count_include_pad) {
  const std::string c = "xnnpack.fp32 average pooling";
  QSPEC_ERROR_IF(p.type != DType::U8,
                 c + ": the snapshot has only a qu8 operator (xnn_create_average_pooling2d_nhwc_qu8)");
  const std::int64_t k = g.kernel[0] * g.kernel[1];
  QSPEC_ERROR_IF(k == 1, c + ": 1x1 pooling is meaningless");
  const bool padded = g.pads[0] != 0 || g.pads[1] != 0 || g.pads[2] != 0 || g.pads[3] != 0;
  QSPEC_ERROR_IF(padded && !count_include_pad,
                 c + ": the operator always divides by KH KW (count_include_pad = false has no operator)");
  xnnpack_pool_params(p, c);
  QSPEC_ERROR_IF(k >= (std::int64_t{1} << 24), c + ": the number of elements in the pooling area must be below 2**24");
  return xnnpack_pool_scale(p, k, c);
}

// spec: qlinear.avg_pool2d.xnnpack_fp32
Int qlinear_xnnpack_avgpool_output(const Int& acc, std::uint32_t scale, const QPoolParams& p) {
  // multiplier = mantissa | 2^23, shift = 150 - biased exponent: multiplier 2^-shift is S exactly,
  // and (|acc| multiplier + 2^(shift-1)) >> shift with acc's sign is round_half_away(acc S).
  return saturate(round_half_away(Rat(acc) * f32_value(scale)) + p.y_zero_point, clamp_range(p));
}

// spec: qlinear.avg_pool2d.onnxruntime
Int qlinear_onnxruntime_avgpool_output(const std::vector<Int>& codes, std::int64_t count, const QPoolParams& p) {
  const std::string c = "onnxruntime QLinearAveragePool";
  std::uint32_t sum = 0;  // +0.0f, PoolType::Initialize()
  for (const auto& x : codes) {
    const std::uint32_t v = f32_mul(p.x_scale, f32_from_int(x - p.x_zero_point));  // dequantize_value
    sum = f32_add(sum, v);                                                         // AveragePool::Process
  }
  QSPEC_REQUIRE(float_is_finite(sum, kBinary32), c + ": the window sum is finite");
  const std::uint32_t mean = f32_div(sum, f32_from_int(Int(count)));  // AveragePool::Finalize: y /= size
  const std::uint32_t q = f32_add(f32_div(mean, p.y_scale), f32_from_int(p.y_zero_point));  // y / y_scale + y_zp
  QSPEC_REQUIRE(float_is_finite(q, kBinary32), c + ": y / y_scale + y_zero_point is finite");
  const Int r = round_half_even(f32_value(q));  // std::nearbyintf, round to nearest even
  QSPEC_REQUIRE(r >= int_range(DType::I32).lo && r <= int_range(DType::I32).hi,
                c + ": the rounded value fits int32 (static_cast<int32_t>)");
  return saturate(r, p.type);
}

// spec: qlinear.avg_pool2d.tflite
Int qlinear_tflite_avgpool_output(const std::vector<Int>& codes, const QPoolParams& p) {
  QSPEC_ERROR_IF(codes.empty(),
                 "tflite AveragePool: a window without an input element (filter_count == 0: the kernel fails)");
  Int sum(0);
  for (const auto& x : codes) sum += x;
  // acc > 0 ? (acc + n/2) / n : (acc - n/2) / n in C's truncating division: ties away from zero.
  return saturate(round_half_away(Rat(sum, Int(static_cast<std::int64_t>(codes.size())))), clamp_range(p));
}

// spec: qlinear.global_avg_pool.xnnpack_fp32
std::uint32_t qlinear_global_avg_pool_xnnpack_scale(const QPoolParams& p, std::int64_t image_size) {
  const std::string c = "xnnpack.fp32 global average pooling";
  xnnpack_pool_params(p, c);
  return xnnpack_pool_scale(p, image_size, c);
}

// spec: qlinear.global_avg_pool.onnxruntime
std::uint32_t qlinear_global_avg_pool_onnxruntime_scale(const QPoolParams& p, std::int64_t image_size) {
  const std::string c = "onnxruntime QLinearGlobalAveragePool";
  QSPEC_ERROR_IF(!fits(p.x_zero_point, p.type) || !fits(p.y_zero_point, p.type),
                 c + ": the zero points must have x's type " + name(p.type));
  QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.y_scale),
                c + ": x_scale and y_scale finite and positive");
  const std::uint32_t prod = f32_mul(p.y_scale, f32_from_int(Int(image_size)));
  QSPEC_REQUIRE(float_is_finite(prod, kBinary32), c + ": y_scale * image size is finite");
  const std::uint32_t s = f32_div(p.x_scale, prod);
  QSPEC_ERROR_IF(image_size >= (std::int64_t{1} << 24) || f32_value(s) < pow2r(-32) || f32_value(s) >= 256,
                 c + ": parameter out of computation range (image size >= 2^24 or S outside [2^-32, 256))");
  return s;
}

// spec: qlinear.global_avg_pool.tflite
Int qlinear_tflite_mean_output(const Int& acc, std::int64_t image_size, const QPoolParams& p) {
  const std::string c = "tflite Mean";
  QSPEC_REQUIRE(p.type == DType::I8, c + ": int8 (reference_integer_ops::Mean; uint8 runs a float kernel)");
  QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.y_scale), c + ": scales finite and positive");
  const std::uint64_t real = f64_div(f64_from_f32(p.x_scale), f64_from_f32(p.y_scale));
  const QuantizedMultiplier m = tflite_quantize_multiplier(real);
  const Int scaled = tflite_multiply_by_quantized_multiplier_double_round(acc, m.multiplier, m.shift);
  const Int mean = round_half_away(Rat(scaled, Int(image_size)));
  return saturate(mean + p.y_zero_point, DType::I8);
}

}  // namespace qspec::ref::ops
