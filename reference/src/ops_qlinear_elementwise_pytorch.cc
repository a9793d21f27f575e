// PyTorch's conventions of quantized add and mul (spec/operators_qlinear_elementwise.md,
// spec/operators_qlinear_pytorch_elementwise.md): ATen's native qmul_kernel and qadd_kernel (PyTorch
// 1.13) and PyTorch's QNNPACK q8add, float steps modelled exactly (ieee.h).
#include <string>
#include <utility>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

// The checks ATen's quantized add and mul share: zero points in T (checkZeroPoint), a clamp inside
// T, finite positive scales (REQUIRE: the quantizer takes any double).
void pytorch_common_checks(const QEwParams& p, const std::string& c) {
  const DType t = p.type;
  const std::string tn(dtype_name(t));
  QSPEC_ERROR_IF(!fits(p.a_zero_point, t) || !fits(p.b_zero_point, t) || !fits(p.y_zero_point, t),
                 c + ": zero points must fit " + tn);
  const Range r = int_range(t);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(!fits(lo, t) || !fits(hi, t) || lo > hi,
                 c + ": the clamp [y_min, y_max] must lie in " + tn + " with y_min <= y_max");
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                c + ": scales finite and positive");
}

}  // namespace

// spec: qlinear.mul.pytorch_onednn
std::uint32_t qlinear_mul_pytorch_onednn_multiplier(const QEwParams& p) {
  const std::string c = "pytorch.onednn mul";
  pytorch_common_checks(p, c);
  // float inv_scale = 1.0f / scale; float multiplier = self_scale * other_scale * inv_scale (left to right).
  const std::uint32_t inv = f32_div(0x3f800000u, p.y_scale);
  const std::uint32_t m = f32_mul(f32_mul(p.a_scale, p.b_scale), inv);
  QSPEC_REQUIRE(float_is_finite(m, kBinary32), c + ": the multiplier fl32(fl32(s_a s_b) fl32(1 / s_y)) is finite");
  return m;
}

// spec: qlinear.mul.pytorch_onednn
bool qlinear_mul_pytorch_runs_xnnpack(const QEwParams& p) {
  // #ifdef USE_XNNPACK: if (zero_point < q_max && qa.scalar_type() == kQInt8) _mul_out_xnnpack(...)
  return p.type == DType::I8 && p.y_zero_point < 127;
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

// spec: qlinear.add.pytorch_onednn
std::uint32_t qlinear_add_pytorch_onednn_inverse(const QEwParams& p) {
  const std::string c = "pytorch.onednn add";
  pytorch_common_checks(p, c);
  // quantize_val: float inv_scale = 1.0f / static_cast<float>(scale).
  return f32_div(0x3f800000u, p.y_scale);
}

// spec: qlinear.add.pytorch_onednn
std::uint32_t qlinear_add_pytorch_onednn_value(const Int& a, const Int& b, std::uint32_t inverse, const QEwParams& p) {
  // dequantize_val: (static_cast<float>(q) - zero_point) * scale: an exact float difference times
  // the double scale, returned as float: one rounding of the exact product.
  const std::uint32_t da = f32_round(Rat(a - p.a_zero_point) * f32_value(p.a_scale));
  const std::uint32_t db = f32_round(Rat(b - p.b_zero_point) * f32_value(p.b_scale));
  const std::uint32_t c = f32_add(da, db);
  const std::uint32_t v = f32_mul(c, inverse);  // quantize_val: value * inv_scale in float
  QSPEC_REQUIRE(float_is_finite(v, kBinary32), "pytorch.onednn add: fl32(fl32(d_a + d_b) fl32(1 / s_y)) is finite");
  return v;
}

// spec: qlinear.add.pytorch_onednn
Int qlinear_add_pytorch_onednn_element(const Int& a, const Int& b, std::uint32_t inverse, const QEwParams& p) {
  // zero_point + std::nearbyint(v) (round half to even), then std::max / std::min with T's range;
  // add_relu's std::max(c, 0) before quantizing is the clamp at z_y (quantizing is monotone, 0 -> z_y).
  const Int y = round_half_even(f32_value(qlinear_add_pytorch_onednn_value(a, b, inverse, p))) + p.y_zero_point;
  const Range r = int_range(p.type);
  return saturate(saturate(y, r), Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)});
}

// spec: qlinear.add.pytorch_qnnpack
QEwPytorchQnnpackAddPath qlinear_add_pytorch_qnnpack_path(DType t, const Shape& a, const Shape& b) {
  // qadd under the qnnpack engine: qint8 -> xnnp_add; quint8 with qa.sizes() == qb.sizes() ->
  // qnnpack_add ("qnnpack does not support broadcasting"); otherwise ATen's _add_out.
  if (t == DType::I8) return QEwPytorchQnnpackAddPath::Xnnpack;
  return a == b ? QEwPytorchQnnpackAddPath::Q8Add : QEwPytorchQnnpackAddPath::Aten;
}

// spec: qlinear.add.pytorch_qnnpack
QEwQnnpackAdd qlinear_add_pytorch_qnnpack_params(const QEwParams& p) {
  const std::string c = "pytorch.qnnpack add";
  pytorch_common_checks(p, c);
  QSPEC_ERROR_IF(p.type != DType::U8, c + ": PyTorch's QNNPACK add takes quint8 only");
  // pytorch_qnnp_create_add_nc_q8: isnormal scales, sum_min < sum_max, then the ratios.
  for (auto s : {p.a_scale, p.b_scale, p.y_scale})
    QSPEC_ERROR_IF(!(f32_value(s) >= pow2r(-126)), c + ": scale must be finite and positive (normal)");
  const Range r = int_range(p.type);
  QSPEC_ERROR_IF(p.y_min.value_or(r.lo) >= p.y_max.value_or(r.hi),
                 c + ": output range min must be below range max (failed to create QNNPACK Add operator)");
  QEwQnnpackAdd k;
  k.a_ratio = f32_div(p.a_scale, p.y_scale);
  k.b_ratio = f32_div(p.b_scale, p.y_scale);
  for (auto [ratio, which] : {std::pair{k.a_ratio, "A"}, std::pair{k.b_ratio, "B"}})
    QSPEC_ERROR_IF(f32_is_inf(ratio) || f32_value(ratio) < pow2r(-14) || f32_value(ratio) >= 256,
                   c + ": " + which + "-to-output scale ratio must be in [2**-14, 2**8) range");
  const std::uint32_t larger = f32_compare(k.a_ratio, k.b_ratio) > 0 ? k.a_ratio : k.b_ratio;
  const int exponent = static_cast<int>((larger >> 23) & 0xffu) - 127;
  k.shift = 21 - exponent;  // in [14, 35]: the assert(shift < 32) of the parameter function
  // assert(shift < 32): a larger ratio below 2^-10 leaves shift >= 32 (asr by >= 32 is undefined in C).
  QSPEC_REQUIRE(k.shift < 32, c + ": the larger scale ratio is at least 2^-10 (assert(shift < 32))");
  // lrintf(ratio * scale_multiplier) with scale_multiplier = 2^shift: an exact float product, rne.
  k.a_multiplier = round_half_even(f32_value(k.a_ratio) * pow2r(k.shift));
  k.b_multiplier = round_half_even(f32_value(k.b_ratio) * pow2r(k.shift));
  return k;
}

// spec: qlinear.add.pytorch_qnnpack
Int qlinear_add_pytorch_qnnpack_element(const Int& a, const Int& b, const QEwQnnpackAdd& k, const QEwParams& p) {
  // zero_point_product + a m_a + b m_b in uint32 wraps to the exact (a - z_a) m_a + (b - z_b) m_b
  // (|.| < 2 * 255 * 2^22 < 2^31).
  const Int acc = (a - p.a_zero_point) * k.a_multiplier + (b - p.b_zero_point) * k.b_multiplier;
  // rem = (acc & mask) - (acc < 0); acc >> shift + (rem > mask >> 1): round half away from zero.
  const Int q = round_half_away(Rat(acc, pow2(static_cast<unsigned>(k.shift))));
  const Range r = int_range(p.type);
  return saturate(q + p.y_zero_point, Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)});
}

}  // namespace qspec::ref::ops
