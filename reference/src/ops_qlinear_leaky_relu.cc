// The engines' quantized leaky ReLU (spec/operators_qlinear_pool.md, qlinear.leaky_relu.*): the
// 256-entry tables XNNPACK and ONNX Runtime build in binary32, modelled step by step (ieee.h).
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_lut.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool positive_normal(std::uint32_t b) {
  const std::uint32_t e = (b >> 23) & 0xffu;
  return !f32_sign(b) && e != 0 && e != 0xffu;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }
bool negative(std::uint32_t b) { return f32_sign(b) && f32_value(b) != 0; }

}  // namespace

// spec: qlinear.leaky_relu.xnnpack_fp32
// spec: qlinear.leaky_relu.onnxruntime
std::array<Int, 256> qlinear_leaky_relu_table(std::uint32_t alpha, const QPoolParams& p, QLutConvention c) {
  const Range r = int_range(p.type);
  QSPEC_ERROR_IF(p.type != DType::I8 && p.type != DType::U8, "qlinear.leaky_relu: x must be int8 or uint8");
  if (c == QLutConvention::PytorchOnednn) return qlinear_leaky_relu_pytorch_table(alpha, p);
  std::array<Int, 256> table;
  if (c == QLutConvention::XnnpackFp32) {
    const std::string n = "xnnpack.fp32 leaky ReLU";
    QSPEC_ERROR_IF(p.type != DType::U8, n + ": the snapshot has only a qu8 operator (xnn_create_leaky_relu_nc_qu8)");
    QSPEC_ERROR_IF(!positive_normal(alpha), n + ": slope must be finite, normalized, and positive");
    QSPEC_ERROR_IF(f32_value(alpha) > 1, n + ": slope must not exceed 1.0");
    const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
    QSPEC_ERROR_IF(
        !fits(p.x_zero_point, p.type) || !fits(p.y_zero_point, p.type) || !fits(lo, p.type) || !fits(hi, p.type),
        n + ": zero points, y_min and y_max must fit uint8");
    QSPEC_ERROR_IF(!positive_normal(p.x_scale) || !positive_normal(p.y_scale),
                   n + ": scale must be finite, normalized, and positive");
    QSPEC_ERROR_IF(lo >= hi, n + ": range min must be below range max");
    const Rat ratio = f32_value(f32_div(p.x_scale, p.y_scale));
    QSPEC_ERROR_IF(
        ratio < pow2r(-8) || ratio >= pow2r(8),
        n + ": input-to-output scale ratio must be in [2**-8, 2**8) range (xnn_status_unsupported_parameter)");
    const std::uint32_t inv = f32_div(0x3f800000u, p.y_scale);  // 1.0f / output_scale
    for (int i = 0; i < 256; ++i) {
      const Int code = r.lo + i;
      const std::uint32_t d = f32_mul(f32_from_int(code - p.x_zero_point), p.x_scale);  // (i - zp) * input_scale
      const std::uint32_t f = f32_sign(d) ? f32_mul(d, alpha) : d;                      // signbit(x) ? x * slope : x
      const Int q = round_half_even(f32_value(f32_mul(f, inv))) + p.y_zero_point;       // lrintf(...) + zp
      table[static_cast<std::size_t>(i)] = saturate(q, Range{lo, hi});
    }
    return table;
  }
  const std::string n = "onnxruntime QLinearLeakyRelu";
  QSPEC_ERROR_IF(!fits(p.x_zero_point, p.type) || !fits(p.y_zero_point, p.type),
                 n + ": the zero points must have x's type");
  QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.y_scale), n + ": scales finite and positive");
  QSPEC_REQUIRE(float_is_finite(alpha, kBinary32), n + ": alpha finite");
  const std::uint32_t qlo = f32_from_int(r.lo - p.y_zero_point), qhi = f32_from_int(r.hi - p.y_zero_point);
  for (int i = 0; i < 256; ++i) {
    const Int code = r.lo + i;
    const std::uint32_t d = f32_mul(p.x_scale, f32_from_int(code - p.x_zero_point));  // X_scale * (x - zp)
    const std::uint32_t f = negative(d) ? f32_mul(alpha, d) : d;                      // v >= 0 ? v : alpha * v
    std::uint32_t v = f32_div(f, p.y_scale);                                          // MlasQuantizeLinear: x / scale
    QSPEC_REQUIRE(float_is_finite(v, kBinary32), n + ": f / y_scale is finite");
    if (f32_compare(v, qlo) < 0) v = qlo;  // _mm_max_ps, then _mm_min_ps
    if (f32_compare(v, qhi) > 0) v = qhi;
    table[static_cast<std::size_t>(i)] = round_half_even(f32_value(v)) + p.y_zero_point;
  }
  return table;
}

// spec: qlinear.leaky_relu.xnnpack_fp32
// spec: qlinear.leaky_relu.onnxruntime
// spec: qlinear.leaky_relu.pytorch_onednn
IntArray qlinear_leaky_relu(const IntArray& x, std::uint32_t alpha, const QPoolParams& p, QLutConvention c) {
  const auto table = qlinear_leaky_relu_table(alpha, p, c);
  const Range r = int_range(p.type);
  IntArray y = x;
  for (auto& v : y.data) {
    QSPEC_REQUIRE(v >= r.lo && v <= r.hi, "qlinear.leaky_relu: x codes lie in the dtype");
    v = table[static_cast<std::size_t>(static_cast<long long>(v - r.lo))];
  }
  return y;
}

}  // namespace qspec::ref::ops
