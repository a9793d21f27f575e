// TOSA's convention of the quantized concatenation (spec/operators_qlinear_tosa_elementwise.md,
// qlinear.concat.tosa): a TFLite int8 CONCATENATION as the TFLite -> TOSA legalization lowers it
// (tensorflow 1f35abe convertConcatV2Op): a SINGLE_ROUND RESCALE per input whose scale differs from
// the output's, a copy otherwise (the zero points are not compared), then CONCAT.
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {

// spec: qlinear.concat.tosa
std::function<Int(const Int&)> qlinear_concat_tosa_map(const QConcatParams& p, std::size_t i) {
  const std::string c = "tosa concat";
  auto fits_int8 = [](const Int& v) { return v >= -128 && v <= 127; };
  QSPEC_ERROR_IF(p.type != DType::I8,
                 c + ": a TFLite int8 model (uint8 models are converted first, not modelled), not " +
                     std::string(dtype_name(p.type)));
  const Int zx = p.x_zero_points[i], zy = p.y_zero_point;
  QSPEC_ERROR_IF(!fits_int8(zx), c + ": RESCALE's input_zp lies in int8 (an !quant.uniform<i8> zero point)");
  QSPEC_ERROR_IF(!fits_int8(zy), c + ": RESCALE's output_zp not representable in int8");
  const std::uint32_t sx = p.x_scales[i], sy = p.y_scale;
  for (std::uint32_t s : {sx, sy})
    QSPEC_REQUIRE(float_is_finite(s, kBinary32) && f32_value(s) > 0, c + ": scales finite and positive");
  // if (operand_scale != result_scale): the doubles of two float32 scales are equal iff the floats are.
  if (f32_value(sx) == f32_value(sy)) return [](const Int& x) { return x; };  // copied, zero point or not
  // buildRescale(..., operand_scale / result_scale, operand_zeropoint, result_zeropoint, "SINGLE_ROUND", true)
  const QuantizedMultiplier m = qlinear_tosa_multiplier_and_shift(f64_div(f64_from_f32(sx), f64_from_f32(sy)));
  QSPEC_ERROR_IF(m.shift < 2 || m.shift > 62,
                 c + ": the RESCALE's shift " + std::to_string(m.shift) +
                     " is outside [2, 62] (buildRescale: computeMultiplierAndShift fails)");
  return [m, zx, zy](const Int& x) {
    // RESCALE: value = in - input_zp (int48), apply_scale_32 SINGLE_ROUND, + output_zp, clip to int8.
    return tosa_rescale(x - zx, m.multiplier, m.shift, zy, DType::I8, TosaScale::Single32);
  };
}

}  // namespace qspec::ref::ops
