// TOSA's convention of the quantized global average pooling (spec/operators_qlinear_pool.md,
// qlinear.global_avg_pool.tosa): TFLite's int8 MEAN over H and W as the TFLite -> TOSA legalization
// lowers it (tensorflow 1f35abe convertReduceMeanOp): RESCALE to int32 by 1.0, REDUCE_SUM over H then
// W, one RESCALE by computeMultiplierAndShift(s_x / s_y) with 1 / (H W) folded into the multiplier.
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

const std::string kClause = "qlinear.global_avg_pool.tosa";

bool fits_int8(const Int& v) { return v >= -128 && v <= 127; }
bool in_int32(const Int& v) { return v >= int_range(DType::I32).lo && v <= int_range(DType::I32).hi; }

}  // namespace

// spec: qlinear.global_avg_pool.tosa
QuantizedMultiplier qlinear_tosa_mean_scale(const QPoolParams& p, std::int64_t image_size) {
  QSPEC_ERROR_IF(p.type != DType::I8, kClause + ": a TFLite int8 MEAN (uint8 is converted first, not modelled), not " +
                                          std::string(dtype_name(p.type)));
  QSPEC_ERROR_IF(!fits_int8(p.x_zero_point) || !fits_int8(p.y_zero_point),
                 kClause + ": an int8 quantized type's zero point lies in [-128, 127]");
  QSPEC_ERROR_IF(p.y_min.has_value() || p.y_max.has_value(), kClause + ": TFLite's MEAN has no fused activation");
  for (std::uint32_t s : {p.x_scale, p.y_scale})
    QSPEC_REQUIRE(float_is_finite(s, kBinary32) && f32_value(s) > 0, kClause + ": scales finite and positive");
  QSPEC_REQUIRE(image_size >= 1, kClause + ": num_elems_on_reduced_axis >= 1");
  // computeMultiplierAndShift(input_qtype.getScale() / output_qtype.getScale(), ...): its failure is ignored.
  const QuantizedMultiplier o =
      qlinear_tosa_multiplier_and_shift(f64_div(f64_from_f32(p.x_scale), f64_from_f32(p.y_scale)));
  // shift = 63 - countLeadingZeros(n) = floor(log2 n); min(shift, 32); min(shift, 62 - output_scale_shift).
  int k = 0;
  while ((std::int64_t{2} << k) <= image_size) ++k;
  k = std::min(k, 32);
  k = std::min(k, 62 - o.shift);
  QSPEC_REQUIRE(k >= 0, kClause + ": a left shift of the int64 multiplier by a non-negative amount");
  // (static_cast<int64_t>(output_scale_multiplier) << shift) / n: C++ division, both operands >= 0.
  const Int m = floor_div(o.multiplier * pow2(static_cast<unsigned>(k)), Int(image_size));
  return {m, o.shift + k};
}

// spec: qlinear.global_avg_pool.tosa
// The pseudocode's loop nest for one (n, c): RESCALE by (2^30, 30) (exact: x - z_x), REDUCE_SUM over
// axis 1 (the rows, for each column w), then over axis 2; every partial sum REQUIRE'd in int32.
Int qlinear_tosa_mean_sum(const std::vector<Int>& codes, std::int64_t width, const Int& x_zero_point) {
  const QuantizedMultiplier unit = qlinear_tosa_multiplier_and_shift(0x3ff0000000000000ull);  // CMS(1.0) = (2^30, 30)
  const auto height = static_cast<std::int64_t>(codes.size()) / width;
  Int total(0);
  for (std::int64_t w = 0; w < width; ++w) {
    Int column(0);  // REDUCE_SUM axis 1: acc = 0, acc = apply_add_s(acc, value)
    for (std::int64_t h = 0; h < height; ++h) {
      const Int v = tosa_rescale(codes[static_cast<std::size_t>(h * width + w)] - x_zero_point, unit.multiplier,
                                 unit.shift, Int(0), DType::I32, TosaScale::Double32);
      column += v;
      QSPEC_REQUIRE(in_int32(column), kClause + ": REDUCE_SUM's partial sums fit int32 (apply_add_s)");
    }
    total += column;  // REDUCE_SUM axis 2
    QSPEC_REQUIRE(in_int32(total), kClause + ": REDUCE_SUM's partial sums fit int32 (apply_add_s)");
  }
  return total;
}

// spec: qlinear.global_avg_pool.tosa
Int qlinear_tosa_mean_output(const Int& acc, const QuantizedMultiplier& m, const QPoolParams& p) {
  // buildRescale(..., multiplier, shift, input_zp = 0, output_zp, DOUBLE_ROUND, scale32): apply_scale_32
  // REQUIREs 2 <= shift <= 62 and the value range (the legalization checks neither).
  return tosa_rescale(acc, m.multiplier, m.shift, p.y_zero_point, DType::I8, TosaScale::Double32);
}

}  // namespace qspec::ref::ops
