// PyTorch 1.13's quantized concatenation and leaky ReLU (spec/operators_qlinear_pytorch_concat.md):
// ATen's dequantize_val / quantize_val composed code by code, the same kernels under every quantized
// engine Debian builds (onednn, qnnpack), float steps modelled exactly (ieee.h).
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/ops/qlinear_lut.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

// The parameters a user's quantized tensors carry: zero points in T (quantize_per_tensor's
// checkZeroPoint). The output's zero point is a REQUIRE: at::quantize_per_tensor rejects it outside T
// (cat's generic path), but qcat_nhwc_kernel and leaky_qrelu_out_kernel compute clamped codes with it
// (measured). Scales finite and positive (REQUIRE: any double is taken).
void pytorch_checks(const Int& zx, std::uint32_t sx, const Int& zy, std::uint32_t sy, DType t, const std::string& c) {
  QSPEC_ERROR_IF(t != DType::I8 && t != DType::U8, c + ": quint8 or qint8 tensors");
  QSPEC_ERROR_IF(!fits(zx, t),
                 c + ": an input zero point must fit " + std::string(dtype_name(t)) + " (zero_point is out of range)");
  QSPEC_REQUIRE(fits(zy, t), c + ": the output zero point fits " + std::string(dtype_name(t)));
  QSPEC_REQUIRE(finite_positive(sx) && finite_positive(sy), c + ": scales finite and positive");
}

}  // namespace

// spec: qlinear.concat.pytorch_onednn
std::function<Int(const Int&)> qlinear_concat_pytorch_map(const QConcatParams& p, std::size_t i) {
  const std::uint32_t sx = p.x_scales[i], sy = p.y_scale;
  const Int zx = p.x_zero_points[i], zy = p.y_zero_point;
  const DType t = p.type;
  pytorch_checks(zx, sx, zy, sy, t, "pytorch.onednn concat");
  // qx.dequantize() (or qcat_nhwc_kernel's dequantize_val): fl32((x - z) s); then at::quantize_per_tensor
  // (quantize_val): sat(nearbyint(fl32(d fl32(1 / s_y))) + z_y). qcat_nhwc_kernel's memcpy of an input
  // with the output's parameters gives the same codes (fl32(fl32(k s) fl32(1 / s)) is within 2^-15 of k).
  return
      [sx, sy, zx, zy, t](const Int& x) { return pytorch_quantize_per_tensor(float_dequantize(x, zx, sx), sy, zy, t); };
}

// spec: qlinear.leaky_relu.pytorch_onednn
std::array<Int, 256> qlinear_leaky_relu_pytorch_table(std::uint32_t alpha, const QPoolParams& p) {
  const std::string c = "pytorch.onednn leaky ReLU";
  pytorch_checks(p.x_zero_point, p.x_scale, p.y_zero_point, p.y_scale, p.type, c);
  // negval_.to<float>(): any finite slope (negative and above 1 included).
  QSPEC_REQUIRE(float_is_finite(alpha, kBinary32), c + ": alpha finite");
  const Range r = int_range(p.type);
  std::array<Int, 256> table;
  for (int i = 0; i < 256; ++i) {
    const Int code = r.lo + i;
    // leaky_qrelu_out_kernel: value_dx = dequantize_val(i_scale, i_zp, q);
    // value_dy = value_dx > 0 ? value_dx : value_dx * negval; quantize_val(o_scale, o_zp, value_dy).
    const std::uint32_t d = float_dequantize(code, p.x_zero_point, p.x_scale);
    const bool positive = !f32_sign(d) && f32_value(d) > 0;
    const std::uint32_t e = positive ? d : f32_mul(d, alpha);
    QSPEC_REQUIRE(float_is_finite(e, kBinary32), c + ": fl32(d alpha) is finite");
    table[static_cast<std::size_t>(i)] = pytorch_quantize_per_tensor(e, p.y_scale, p.y_zero_point, p.type);
  }
  return table;
}

}  // namespace qspec::ref::ops
