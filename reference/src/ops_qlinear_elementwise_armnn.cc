// Arm NN 20.08 CpuRef's Addition and Multiplication layers on quantized tensors
// (spec/operators_qlinear_armnn.md, qlinear.add.armnn_cpuref / qlinear.mul.armnn_cpuref): both
// operands decoded to binary32, std::plus / std::multiplies in binary32, armnn::Quantize.
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/ops/qlinear_elementwise.h"

namespace qspec::ref::ops {
namespace {

const std::string kConv = "armnn.cpuref";

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

}  // namespace

// spec: qlinear.add.armnn_cpuref
// spec: qlinear.mul.armnn_cpuref
void qlinear_ew_armnn_check(const QEwParams& p) {
  // Arm NN stores a zero point as an int32 quantization offset and checks no range: codes outside
  // the dtype are left undefined here, as in the convolution's clause.
  QSPEC_REQUIRE(fits(p.a_zero_point, p.type) && fits(p.b_zero_point, p.type) && fits(p.y_zero_point, p.type),
                kConv + ": zero points in the tensors' dtype");
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                kConv + ": finite positive scales");
  QSPEC_REQUIRE(!p.y_min && !p.y_max, kConv + ": no fused clamp (Arm NN's layers have none)");
}

// spec: qlinear.add.armnn_cpuref
// spec: qlinear.mul.armnn_cpuref
std::uint32_t qlinear_ew_armnn_value(QEwOp op, const Int& a, const Int& b, const QEwParams& p) {
  const std::uint32_t da = armnn_dequantize(a, p.a_zero_point, p.a_scale);
  const std::uint32_t db = armnn_dequantize(b, p.b_zero_point, p.b_scale);
  // ElementwiseBinaryFunction<std::plus<float>> / <std::multiplies<float>>: Functor()(in0, in1).
  const std::uint32_t v = op == QEwOp::Add ? f32_add(da, db) : f32_mul(da, db);
  QSPEC_REQUIRE(float_is_finite(v, kBinary32), kConv + ": the float sum or product is finite");
  return v;
}

}  // namespace qspec::ref::ops
