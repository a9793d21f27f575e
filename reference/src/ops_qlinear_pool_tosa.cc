// TOSA's convention of the quantized average pooling (spec/operators_qlinear_pool.md,
// qlinear.avg_pool2d.tosa): TFLite's int8 AVERAGE_POOL_2D as the TFLite -> TOSA legalization lowers
// it, one AVG_POOL2D with both zero points forced to 0, reciprocal_scale and apply_scale_32; and
// the max pooling (qlinear.max_pool2d.tosa): one MAX_POOL2D, no RESCALE.
#include <string>

#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

const std::string kClause = "qlinear.avg_pool2d.tosa";

bool fits_int8(const Int& v) { return v >= -128 && v <= 127; }

}  // namespace

// spec: qlinear.avg_pool2d.tosa
QuantizedMultiplier qlinear_tosa_reciprocal_scale(std::int64_t count) {
  QSPEC_REQUIRE(count > 0 && count < (std::int64_t{1} << 32), kClause + ": reciprocal_scale of a uint32 value > 0");
  // k = 32 - count_leading_zeros(count - 1): the least k with count <= 2^k.
  unsigned k = 0;
  while ((std::int64_t{1} << k) < count) ++k;
  const Int numerator = (pow2(30) + 1) * pow2(k);
  // The multiplier in [2^30, 2^31) and TOSA's right shift 30 + k (not TFLite's sign convention).
  return {floor_div(numerator, Int(count)), static_cast<int>(30 + k)};
}

// spec: qlinear.avg_pool2d.tosa
void qlinear_tosa_avgpool_check(const QPoolParams& p, const QPoolGeometry& g, bool count_include_pad) {
  QSPEC_ERROR_IF(p.type != DType::I8,
                 kClause + ": AVG_POOL2D's integer in_out_t is i8_t or i16_t (no uint8 AVG_POOL2D), not " +
                     std::string(dtype_name(p.type)));
  for (std::size_t a = 0; a < 2; ++a)
    QSPEC_ERROR_IF(g.pads[a] >= g.kernel[a] || g.pads[a + 2] >= g.kernel[a],
                   kClause + ": ERROR_IF(pad >= kernel): padding must be less than kernel size (AVG_POOL2D.tosac)");
  const bool padded = g.pads[0] != 0 || g.pads[1] != 0 || g.pads[2] != 0 || g.pads[3] != 0;
  QSPEC_ERROR_IF(count_include_pad && padded, kClause + ": AVG_POOL2D never counts the padding");
  QSPEC_ERROR_IF(!fits_int8(p.x_zero_point) || !fits_int8(p.y_zero_point),
                 kClause + ": an int8 quantized type's zero point lies in [-128, 127]");
  QSPEC_ERROR_IF(p.y_min.has_value() || p.y_max.has_value(), kClause + ": no fused clamp is modelled");
  QSPEC_REQUIRE(p.x_scale == p.y_scale && p.x_zero_point == p.y_zero_point,
                kClause +
                    ": equal input and output parameters (the AVG_POOL2D result has the input's type; "
                    "a tosa.cast between two int8 types is undefined)");
}

// spec: qlinear.avg_pool2d.tosa
Int qlinear_tosa_avgpool_output(const std::vector<Int>& codes) {
  Int acc(0);
  for (const auto& v : codes) acc += v - 0;  // apply_sub_s(value, input_zp = 0), apply_add_s
  QSPEC_REQUIRE(acc >= int_range(DType::I32).lo && acc <= int_range(DType::I32).hi,
                kClause + ": the window sum fits acc_t = int32 (apply_add_s)");
  const QuantizedMultiplier s = qlinear_tosa_reciprocal_scale(static_cast<std::int64_t>(codes.size()));
  const Int v = tosa_apply_scale_32(acc, s.multiplier, s.shift, false) + 0;  // + output_zp = 0
  return saturate(v, DType::I8);                                             // apply_clip_s
}

// spec: qlinear.max_pool2d.tosa
void qlinear_tosa_maxpool_check(const Shape& x, const QPoolGeometry& g, const QPoolParams& p) {
  const std::string c = "qlinear.max_pool2d.tosa";
  QSPEC_ERROR_IF(p.type != DType::I8, c + ": MAX_POOL2D's integer in_out_t is i8_t or i16_t (no uint8), not " +
                                          std::string(dtype_name(p.type)));
  QSPEC_ERROR_IF(g.dilations[0] != 1 || g.dilations[1] != 1, c + ": MAX_POOL2D has no dilation");
  for (std::size_t a = 0; a < 2; ++a)
    QSPEC_ERROR_IF(g.pads[a] >= g.kernel[a] || g.pads[a + 2] >= g.kernel[a],
                   c + ": ERROR_IF(pad >= kernel): padding must be less than kernel size (MAX_POOL2D.tosac)");
  QSPEC_ERROR_IF(p.y_min.has_value() || p.y_max.has_value(),
                 c + ": no fused clamp (the legalization drops TFLite's fused activation)");
  for (std::size_t a = 0; a < 2; ++a)
    QSPEC_REQUIRE((x[1 + a] + g.pads[a] + g.pads[a + 2] - g.kernel[a]) % g.strides[a] == 0,
                  c + ": idiv_check: (I + pads - kernel) divisible by the stride (MAX_POOL2D.tosac)");
}

}  // namespace qspec::ref::ops
