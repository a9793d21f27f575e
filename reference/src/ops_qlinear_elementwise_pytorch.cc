// PyTorch's conventions of quantized add and mul (spec/operators_qlinear_elementwise.md): ATen's
// native qmul_kernel (PyTorch 1.13, the onednn engine's kernel), float steps modelled exactly (ieee.h).
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

}  // namespace

// spec: qlinear.mul.pytorch_onednn
std::uint32_t qlinear_mul_pytorch_onednn_multiplier(const QEwParams& p) {
  const std::string c = "pytorch.onednn mul";
  const DType t = p.type;
  const std::string tn(dtype_name(t));
  // The quantizer's checkZeroPoint: every quantized tensor's zero point lies in its dtype.
  QSPEC_ERROR_IF(!fits(p.a_zero_point, t) || !fits(p.b_zero_point, t) || !fits(p.y_zero_point, t),
                 c + ": zero points must fit " + tn);
  const Range r = int_range(t);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(!fits(lo, t) || !fits(hi, t) || lo > hi,
                 c + ": the clamp [y_min, y_max] must lie in " + tn + " with y_min <= y_max");
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                c + ": scales finite and positive");
  // float inv_scale = 1.0f / scale; float multiplier = self_scale * other_scale * inv_scale (left to right).
  const std::uint32_t inv = f32_div(0x3f800000u, p.y_scale);
  const std::uint32_t m = f32_mul(f32_mul(p.a_scale, p.b_scale), inv);
  QSPEC_REQUIRE(float_is_finite(m, kBinary32), c + ": the multiplier fl32(fl32(s_a s_b) fl32(1 / s_y)) is finite");
  return m;
}

// spec: qlinear.mul.pytorch_onednn
Int qlinear_mul_pytorch_onednn_element(const Int& a, const Int& b, std::uint32_t multiplier, const QEwParams& p) {
  const Int prod = (a - p.a_zero_point) * (b - p.b_zero_point);  // |prod| <= 255^2 < 2^24: exact in float
  const std::uint32_t v = f32_mul(f32_from_int(prod), multiplier);
  QSPEC_REQUIRE(float_is_finite(v, kBinary32), "pytorch.onednn mul: the float product is finite");
  // lrintf (scalar) / _mm256_cvtps_epi32 (AVX2): round half to even; the vector path adds z_y in int32.
  const Int y = round_half_even(f32_value(v));
  QSPEC_REQUIRE(y + p.y_zero_point >= -pow2(31) && y + p.y_zero_point < pow2(31),
                "pytorch.onednn mul: the rounded result plus z_y fits int32 (cvtps2dq, paddd)");
  const Range r = int_range(p.type);
  return saturate(saturate(y + p.y_zero_point, r), Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)});
}

}  // namespace qspec::ref::ops
