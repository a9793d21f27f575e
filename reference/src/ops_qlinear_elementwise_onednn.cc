// oneDNN 2.6.3's binary_add / binary_mul on s8/u8 tensors as a user maps qlinear.add / qlinear.mul
// onto them (spec/operators_qlinear_onednn_binary.md): per-source float scales, no source zero
// points, the output zero point as an eltwise_linear post-op (a float addition before the
// rounding); float steps modelled exactly (ieee.h).
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"

namespace qspec::ref::ops {
namespace {

const std::string kConv = "onednn";

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }
std::uint32_t finite_or_require(std::uint32_t v, const std::string& what) {
  QSPEC_REQUIRE(float_is_finite(v, kBinary32), kConv + ": " + what);
  return v;
}

}  // namespace

// spec: qlinear.add.onednn
// spec: qlinear.mul.onednn
QEwOnednnScales qlinear_ew_onednn_scales(QEwOp op, const QEwParams& p) {
  const DType t = p.type;
  const std::string tn(dtype_name(t));
  // primitive_attr: scales and post-ops only; a source zero point makes every binary
  // implementation unimplemented (has_default_values(post_ops | scales_runtime)).
  QSPEC_ERROR_IF(p.a_zero_point != 0 || p.b_zero_point != 0,
                 kConv + ": the binary primitive has no source zero points (a_zero_point and b_zero_point must be 0)");
  QSPEC_ERROR_IF(!fits(p.y_zero_point, t), kConv + ": y_zero_point must fit " + tn);
  const Range r = int_range(t);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(!fits(lo, t) || !fits(hi, t) || lo > hi,
                 kConv + ": the clamp [y_min, y_max] must lie in " + tn + " with y_min <= y_max (eltwise_clip)");
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                kConv + ": scales finite and positive");
  QEwOnednnScales k;
  if (op == QEwOp::Add) {
    k.src0 = finite_or_require(f32_div(p.a_scale, p.y_scale), "s0 = fl32(s_a / s_y) is finite");
    k.src1 = finite_or_require(f32_div(p.b_scale, p.y_scale), "s1 = fl32(s_b / s_y) is finite");
  } else {
    const std::uint32_t ab = finite_or_require(f32_mul(p.a_scale, p.b_scale), "fl32(s_a s_b) is finite");
    k.src0 = finite_or_require(f32_div(ab, p.y_scale), "S = fl32(fl32(s_a s_b) / s_y) is finite");
  }
  return k;
}

// spec: qlinear.add.onednn
// spec: qlinear.mul.onednn
std::uint32_t qlinear_ew_onednn_value(QEwOp op, const Int& a, const Int& b, const QEwOnednnScales& k,
                                      const QEwParams& p) {
  // io::load_float_value / the jit load: 8-bit codes are exact in float. perform_op: vmulps by each
  // source's scale (src1's default 1 is exact), then vaddps / vmulps.
  const std::uint32_t x = finite_or_require(f32_mul(f32_from_int(a), k.src0), "fl32(A s0) is finite");
  const std::uint32_t y = finite_or_require(f32_mul(f32_from_int(b), k.src1), "fl32(B s1) is finite");
  const std::uint32_t v =
      finite_or_require(op == QEwOp::Add ? f32_add(x, y) : f32_mul(x, y), "the float sum or product is finite");
  // eltwise_linear(alpha = 1, beta = z_y): vfmadd213ps rounds 1 v + z_y once.
  return finite_or_require(f32_add(v, f32_from_int(p.y_zero_point)), "fl32(v + z_y) is finite");
}

}  // namespace qspec::ref::ops
