// The engines' quantized concatenation (spec/operators_qlinear_elementwise.md): ONNX Runtime's
// QLinearConcat lookup tables and TFLite's ConcatenationWithScaling, float steps modelled exactly.
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/nn.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

}  // namespace

// spec: qlinear.concat.onnxruntime
// spec: qlinear.concat.tflite_reference
std::function<Int(const Int&)> qlinear_concat_map(const QConcatParams& p, std::size_t i, QConcatConvention c) {
  if (c == QConcatConvention::ArmnnCpuref) return qlinear_concat_armnn_map(p, i);
  if (c == QConcatConvention::Tosa) return qlinear_concat_tosa_map(p, i);
  if (c == QConcatConvention::PytorchOnednn) return qlinear_concat_pytorch_map(p, i);
  const std::string name = c == QConcatConvention::OnnxRuntime ? "onnxruntime concat" : "tflite.reference concat";
  const DType t = p.type;
  QSPEC_ERROR_IF(!fits(p.x_zero_points[i], t) || !fits(p.y_zero_point, t),
                 name + ": zero points must fit " + std::string(dtype_name(t)));
  QSPEC_REQUIRE(finite_positive(p.x_scales[i]) && finite_positive(p.y_scale), name + ": scales finite and positive");
  const std::uint32_t sx = p.x_scales[i], sy = p.y_scale;
  const Int zx = p.x_zero_points[i], zy = p.y_zero_point;
  // Both engines copy an input whose parameters equal the output's (float equality of the scales).
  const bool copy = f32_value(sx) == f32_value(sy) && zx == zy;
  if (c == QConcatConvention::TfliteReference) {
    // concatenation.cc Prepare: int8 inputs must have the output's parameters (no rescaling).
    QSPEC_ERROR_IF(t == DType::I8 && !copy,
                   name + ": int8 inputs must have the output's scale and zero point (TF_LITE_ENSURE_EQ)");
  }
  if (copy) return [](const Int& x) { return x; };
  if (c == QConcatConvention::OnnxRuntime) {
    // QlinearBuildLookupTable: X_scale * (x - X_zero_point) in float, then MlasQuantizeLinear.
    return [sx, sy, zx, zy, t](const Int& x) {
      const std::uint32_t v = f32_mul(sx, f32_from_int(x - zx));
      return onnx_quantize_linear(v, sy, zy, t);
    };
  }
  // ConcatenationWithScaling (uint8): scale = s_x * (1.f / s_y), bias = -z_x * scale, both float;
  // value = TfLiteRound(x * scale + bias) + z_y (no FMA contraction: the x86 build), clamp [0, 255].
  const std::uint32_t scale = f32_mul(sx, f32_div(0x3f800000u, sy));
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32), name + ": s_x / s_y is finite");
  const std::uint32_t bias = f32_mul(f32_from_int(-zx), scale);
  return [scale, bias, zy, t](const Int& x) {
    const std::uint32_t v = f32_add(f32_mul(f32_from_int(x), scale), bias);
    QSPEC_REQUIRE(float_is_finite(v, kBinary32), "tflite.reference concat: the float value is finite");
    const Int r = round_half_away(f32_value(v));
    QSPEC_REQUIRE(r >= -pow2(31) && r < pow2(31), "tflite.reference concat: the rounded value fits int32");
    return saturate(r + zy, t);
  };
}

// spec: qlinear.concat.onnxruntime
// spec: qlinear.concat.tflite_reference
// spec: qlinear.concat.armnn_cpuref
// spec: qlinear.concat.tosa
// spec: qlinear.concat.pytorch_onednn
IntArray qlinear_concat(const std::vector<IntArray>& xs, std::int64_t axis, const QConcatParams& p,
                        QConcatConvention c) {
  QSPEC_ERROR_IF(xs.empty(), "qlinear.concat: needs at least one input");
  QSPEC_ERROR_IF(c == QConcatConvention::ArmnnCpuref && xs.size() < 2,
                 "armnn.cpuref concat: Concatenation requires at least 2 inputs (CreateDescriptorForConcatenation)");
  QSPEC_ERROR_IF(
      p.x_scales.size() != xs.size() || p.x_zero_points.size() != xs.size(),
      "qlinear.concat: x_scales and x_zero_points need one entry per input (" + std::to_string(xs.size()) + ")");
  for (const auto t : p.input_types)
    QSPEC_ERROR_IF(t != p.type, "qlinear.concat: every input must have the output's dtype");
  std::vector<Shape> shapes;
  for (const auto& x : xs) shapes.push_back(x.shape);
  int ax = 0;
  concat_output_shape(shapes, axis, &ax);  // ERROR_IF the ranks, the axis or a non-axis extent disagree
  QSPEC_ERROR_IF(c == QConcatConvention::Tosa && shapes.front().size() > 6,
                 "tosa concat: rank above TOSA 1.0's MAX_RANK = 6 (level 8K)");
  std::vector<IntArray> mapped;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const auto f = qlinear_concat_map(p, i, c);
    IntArray m = xs[i];
    for (auto& v : m.data) {
      QSPEC_REQUIRE(fits(v, p.type), "qlinear.concat: codes lie in their dtype");
      v = f(v);
    }
    mapped.push_back(std::move(m));
  }
  return concat(mapped, axis);
}

}  // namespace qspec::ref::ops
