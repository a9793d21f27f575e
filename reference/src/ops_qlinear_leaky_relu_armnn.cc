// Arm NN 20.08 CpuRef's quantized leaky ReLU (spec/operators_qlinear_leaky_relu.md,
// qlinear.leaky_relu.armnn_cpuref): RefActivationWorkload's decoder (float.dequantize), the float
// activation of Activation.cpp, and the encoder (armnn.quantize), for every code.
#include <string>

#include "qspec/ref/armnn_quantize.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_code_table.h"
#include "qspec/ref/ops/qlinear_leaky_relu_armnn.h"

namespace qspec::ref::ops {

// spec: qlinear.leaky_relu.armnn_cpuref
Int qlinear_leaky_relu_armnn_code(const Int& x, std::uint32_t alpha, const QPoolParams& p) {
  const std::string n = "armnn.cpuref Activation(LeakyReLu)";
  QSPEC_ERROR_IF(p.type != DType::I8 && p.type != DType::U8, n + ": x must be int8 or uint8");
  QSPEC_ERROR_IF(p.y_min.has_value() || p.y_max.has_value(), n + ": the layer has no fused clamp");
  for (std::uint32_t s : {p.x_scale, p.y_scale})
    QSPEC_REQUIRE(float_is_finite(s, kBinary32) && f32_value(s) > 0, n + ": scales finite and positive");
  for (const Int& z : {p.x_zero_point, p.y_zero_point})
    QSPEC_REQUIRE(z >= -pow2(31) && z < pow2(31), n + ": zero points (offsets) are int32");
  QSPEC_REQUIRE(float_is_finite(alpha, kBinary32), n + ": alpha (m_A) finite");
  QSPEC_REQUIRE(x - p.x_zero_point >= -pow2(31) && x - p.x_zero_point < pow2(31), n + ": value - offset is an int");
  const std::uint32_t d = float_dequantize(x, p.x_zero_point, p.x_scale);  // the decoder's Get()
  const std::uint32_t f = f32_value(d) > 0 ? d : f32_mul(d, alpha);        // in > 0.0f ? in : (in * a)
  return armnn_quantize_layer(f, p.y_scale, p.y_zero_point, p.type);       // the encoder's Set()
}

// spec: qlinear.leaky_relu.armnn_cpuref
std::array<Int, 256> qlinear_leaky_relu_armnn_table(std::uint32_t alpha, const QPoolParams& p) {
  const Range r = int_range(p.type);
  std::array<Int, 256> table;
  for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = qlinear_leaky_relu_armnn_code(r.lo + i, alpha, p);
  return table;
}

// spec: qlinear.leaky_relu.armnn_cpuref
IntArray qlinear_leaky_relu_armnn(const IntArray& x, std::uint32_t alpha, const QPoolParams& p) {
  return apply_code_table(x, qlinear_leaky_relu_armnn_table(alpha, p), p.type);
}

}  // namespace qspec::ref::ops
