// oneDNN 2.6's convention of the quantized operators (spec/operators_qlinear.md, qlinear.onednn):
// convolution_forward and matmul on s8/u8 sources and s8 weights with an s32 accumulator, the
// bias added in float, the output scale, the eltwise_clip post-op, the destination zero point
// added in float before rounding, saturation and rne (ref_convolution_int8.cpp,
// ref_matmul_int8.cpp, simple_q10n.hpp); float steps via ieee.h.
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

const std::string kClause = "onednn";

bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }
bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
std::uint32_t clamp_f32(std::uint32_t v, std::uint32_t lo, std::uint32_t hi) {
  if (f32_compare(v, lo) < 0) v = lo;
  if (f32_compare(v, hi) > 0) v = hi;
  return v;
}

}  // namespace

// spec: qlinear.onednn
std::vector<std::uint32_t> qlinear_onednn_scales(const QLinearParams& p, std::int64_t channels, QLinearOp op) {
  QSPEC_ERROR_IF(p.x_type != DType::I8 && p.x_type != DType::U8,
                 kClause + ": the int8 primitives take s8 or u8 sources, not " + std::string(dtype_name(p.x_type)));
  QSPEC_ERROR_IF(p.w_type != DType::I8, kClause + ": the int8 primitives take s8 weights only (wei_type == s8), not " +
                                            std::string(dtype_name(p.w_type)));
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  QSPEC_ERROR_IF(n != 1 && n != channels, kClause +
                                              ": output scales have 1 entry (mask 0) or one per output channel (" +
                                              std::to_string(channels) + "), not " + std::to_string(n));
  QSPEC_ERROR_IF(op == QLinearOp::Conv2d && p.w_zero_point != 0,
                 kClause + ": convolution rejects a weights zero point (zero_points_ok: unimplemented)");
  for (const Int* z : {&p.x_zero_point, &p.w_zero_point, &p.y_zero_point})
    QSPEC_ERROR_IF(!fits(*z, DType::I32), kClause + ": zero points are s32");
  const Range r = int_range(p.x_type);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(
      (p.y_min || p.y_max) && f32_compare(f32_from_int(hi - p.y_zero_point), f32_from_int(lo - p.y_zero_point)) < 0,
      kClause + ": eltwise_clip needs beta >= alpha (post_ops::append_eltwise: invalid_arguments)");
  QSPEC_REQUIRE(fits(lo, p.x_type) && fits(hi, p.x_type), kClause + ": the clamp [y_min, y_max] lies in the dtype");
  QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.y_scale), kClause + ": finite positive scales");
  std::vector<std::uint32_t> scales;
  for (std::int64_t o = 0; o < channels; ++o) {
    const std::uint32_t ws = p.w_scales[p.w_scales.size() == 1 ? 0 : static_cast<std::size_t>(o)];
    QSPEC_REQUIRE(finite_positive(ws), kClause + ": finite positive weight scales");
    const std::uint32_t prod = f32_mul(p.x_scale, ws);
    QSPEC_REQUIRE(!f32_is_inf(prod), kClause + ": x_scale * w_scale is finite");
    const std::uint32_t s = f32_div(prod, p.y_scale);
    QSPEC_REQUIRE(!f32_is_inf(s), kClause + ": the output scale is finite");
    scales.push_back(s);
  }
  return scales;
}

// spec: qlinear.onednn
Int qlinear_onednn_output(const Int& acc, const std::optional<Int>& bias, std::uint32_t scale, const QLinearParams& p) {
  std::uint32_t d = f32_from_int(acc);            // float d = static_cast<float>(acc)
  if (bias) d = f32_add(d, f32_from_int(*bias));  // d += load_float_value(s32 bias)
  d = f32_mul(d, scale);                          // d *= scales[oc] (may overflow to +-inf)
  const Range r = int_range(p.x_type);
  if (p.y_min || p.y_max) {  // eltwise_clip(alpha, beta)
    const std::uint32_t alpha = f32_from_int(p.y_min.value_or(r.lo) - p.y_zero_point);
    const std::uint32_t beta = f32_from_int(p.y_max.value_or(r.hi) - p.y_zero_point);
    d = clamp_f32(d, alpha, beta);
  }
  d = f32_add_ext(d, f32_from_int(p.y_zero_point));          // d += dst_zp (before rounding)
  d = clamp_f32(d, f32_from_int(r.lo), f32_from_int(r.hi));  // saturate<out_t>
  return round_half_even(f32_value(d));                      // out_round: nearbyintf (MXCSR)
}

// spec: qlinear.onednn
std::int64_t qlinear_onednn_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                         std::int64_t kernel, std::int64_t dilation, std::int64_t stride) {
  const std::int64_t effective = dilation * (kernel - 1) + 1, padded = in + pad_begin + pad_end;
  QSPEC_REQUIRE(padded >= effective, kClause + ": the dilated kernel fits the padded input (an output position)");
  return (padded - effective) / stride + 1;
}

}  // namespace qspec::ref::ops
