// TFLite's quantized leaky ReLU (spec/operators_qlinear_leaky_relu.md, qlinear.leaky_relu.tflite_*):
// LeakyReluPrepare's binary32 multipliers through requant.tflite.quantize_multiplier, then each
// element through the requant.tflite.{double,single}_round epilogue of its sign's multiplier.
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_code_table.h"
#include "qspec/ref/ops/qlinear_leaky_relu_tflite.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

std::string name(bool single_round) {
  return single_round ? "tflite.single_round LEAKY_RELU" : "tflite.double_round LEAKY_RELU";
}

}  // namespace

// spec: qlinear.leaky_relu.tflite_double_round
// spec: qlinear.leaky_relu.tflite_single_round
QLeakyReluTfliteMultipliers qlinear_leaky_relu_tflite_multipliers(std::uint32_t alpha, const QPoolParams& p,
                                                                  bool single_round) {
  const std::string n = name(single_round);
  QSPEC_ERROR_IF(p.type != DType::I8 && p.type != DType::U8, n + ": x must be int8 or uint8");
  QSPEC_ERROR_IF(p.y_min.has_value() || p.y_max.has_value(), n + ": LEAKY_RELU has no fused activation");
  QSPEC_ERROR_IF(!fits(p.x_zero_point, p.type) || !fits(p.y_zero_point, p.type),
                 n + ": the zero points must fit " + std::string(dtype_name(p.type)));
  QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.y_scale), n + ": scales finite and positive");
  QSPEC_REQUIRE(float_is_finite(alpha, kBinary32), n + ": alpha finite");
  // double alpha_multiplier = input->params.scale * params->alpha / output->params.scale: float operands,
  // so a binary32 product and quotient, widened afterwards.
  const std::uint32_t da = f32_div(f32_mul(p.x_scale, alpha), p.y_scale);
  const std::uint32_t d1 = f32_div(p.x_scale, p.y_scale);
  QSPEC_REQUIRE(float_is_finite(da, kBinary32) && float_is_finite(d1, kBinary32),
                n + ": the real multipliers are finite in binary32");
  QSPEC_ERROR_IF(f32_value(da) < 0, n + ": a negative alpha gives a negative real multiplier (QuantizeMultiplier)");
  const auto build = single_round ? TfliteBuild::SingleRounding : TfliteBuild::Default;
  return {tflite_quantize_multiplier(f64_from_f32(d1), build), tflite_quantize_multiplier(f64_from_f32(da), build)};
}

// spec: qlinear.leaky_relu.tflite_double_round
// spec: qlinear.leaky_relu.tflite_single_round
std::array<Int, 256> qlinear_leaky_relu_tflite_table(std::uint32_t alpha, const QPoolParams& p, bool single_round) {
  const QLeakyReluTfliteMultipliers m = qlinear_leaky_relu_tflite_multipliers(alpha, p, single_round);
  const Range r = int_range(p.type);
  std::array<Int, 256> table;
  for (int i = 0; i < 256; ++i) {
    const Int v = r.lo + i - p.x_zero_point;                       // input_data[i] - params.input_offset
    const QuantizedMultiplier& q = v >= 0 ? m.identity : m.alpha;  // input_value >= 0: identity
    table[static_cast<std::size_t>(i)] =
        single_round ? tflite_requantize_single_round(v, q.multiplier, q.shift, p.y_zero_point, p.type)
                     : tflite_requantize_double_round(v, q.multiplier, q.shift, p.y_zero_point, p.type);
  }
  return table;
}

// spec: qlinear.leaky_relu.tflite_double_round
// spec: qlinear.leaky_relu.tflite_single_round
IntArray qlinear_leaky_relu_tflite(const IntArray& x, std::uint32_t alpha, const QPoolParams& p, bool single_round) {
  return apply_code_table(x, qlinear_leaky_relu_tflite_table(alpha, p, single_round), p.type);
}

}  // namespace qspec::ref::ops
