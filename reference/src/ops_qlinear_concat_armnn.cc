// Arm NN 20.08 CpuRef's Concat on quantized tensors (spec/operators_qlinear_armnn.md,
// qlinear.concat.armnn_cpuref): each code decoded and encoded again with the output's parameters.
#include <string>

#include "qspec/ref/armnn_quantize.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_concat.h"

namespace qspec::ref::ops {

// spec: qlinear.concat.armnn_cpuref
// Concatenate.cpp: encoder.Set(decoder.Get()) for every output element, the decoder of the input
// that holds it (armnn::Dequantize) and the output's encoder (armnn::Quantize<T>).
std::function<Int(const Int&)> qlinear_concat_armnn_map(const QConcatParams& p, std::size_t i) {
  const std::string name = "armnn.cpuref concat";
  const std::uint32_t sx = p.x_scales[i], sy = p.y_scale;
  const Int zx = p.x_zero_points[i], zy = p.y_zero_point;
  for (std::uint32_t s : {sx, sy})
    QSPEC_REQUIRE(float_is_finite(s, kBinary32) && f32_value(s) > 0, name + ": scales finite and positive");
  for (const Int& z : {zx, zy})
    QSPEC_REQUIRE(z >= -pow2(31) && z < pow2(31), name + ": zero points (offsets) are int32");
  const DType t = p.type;
  return [sx, sy, zx, zy, t](const Int& x) {
    QSPEC_REQUIRE(x - zx >= -pow2(31) && x - zx < pow2(31), "armnn.cpuref concat: value - offset is an int");
    return armnn_quantize_layer(float_dequantize(x, zx, sx), sy, zy, t);
  };
}

}  // namespace qspec::ref::ops
