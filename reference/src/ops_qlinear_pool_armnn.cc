// Arm NN 20.08 CpuRef's Pooling2d on quantized tensors (spec/operators_qlinear_armnn.md,
// qlinear.{avg_pool2d,global_avg_pool,max_pool2d}.armnn_cpuref): the layer's shape rule and the
// workload's float average of the dequantized taps.
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace qspec::ref::ops {
namespace {

const std::string kConv = "armnn.cpuref";

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

}  // namespace

// spec: qlinear.avg_pool2d.armnn_cpuref
// spec: qlinear.max_pool2d.armnn_cpuref
void qlinear_armnn_pool_check(const Shape& x, const QPoolGeometry& g, const QPoolParams& p, bool with_scales) {
  QSPEC_ERROR_IF(g.dilations[0] != 1 || g.dilations[1] != 1, kConv + ": Pooling2d has no dilation");
  const auto [oh, ow] = qlinear_pool_out_size(x, g);  // the window clause's ERROR_IFs first
  // Pooling2dLayer::InferOutputShapes: "--size" where (size - 1) stride >= in + low pad, then
  // ValidateAndCopyShape refuses the output shape of the window clause.
  QSPEC_ERROR_IF((oh - 1) * g.strides[0] >= x[1] + g.pads[0] || (ow - 1) * g.strides[1] >= x[2] + g.pads[1],
                 kConv +
                     ": the last window starts in the bottom or right padding; Arm NN's Pooling2d infers one "
                     "output row or column fewer (Pooling2dLayer::InferOutputShapes)");
  if (with_scales) {
    QSPEC_REQUIRE(fits(p.x_zero_point, p.type) && fits(p.y_zero_point, p.type),
                  kConv + ": zero points in the tensors' dtype");
    QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.y_scale), kConv + ": finite positive scales");
  }
  QSPEC_REQUIRE(!p.y_min && !p.y_max, kConv + ": no fused clamp (Arm NN's layers have none)");
}

// spec: qlinear.avg_pool2d.armnn_cpuref
// spec: qlinear.global_avg_pool.armnn_cpuref
std::uint32_t qlinear_armnn_avgpool_value(const std::vector<Int>& codes, std::int64_t divisor, const QPoolParams& p) {
  std::uint32_t sum = 0;  // +0.0f
  for (const auto& v : codes) {
    sum = f32_add(sum, armnn_dequantize(v, p.x_zero_point, p.x_scale));
    QSPEC_REQUIRE(float_is_finite(sum, kBinary32), kConv + ": the window's float sum is finite");
  }
  // boost::numeric_cast<float>(count): exact below 2^24.
  return f32_div(sum, f32_from_int(Int(divisor)));
}

}  // namespace qspec::ref::ops
