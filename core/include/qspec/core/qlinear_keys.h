// The quantization-parameter attributes of the engines' quantized operators (qlinear.*) as one
// bundle of typed keys per op: qlinear_keys<cat::qlinear_conv2d::attr> (x_* / w_* / y_*) and
// qlinear_matmul_keys (a_* / b_* / y_*). The reference, the vector generators and the optimized
// backends read the parameters through one bundle, whatever the op calls them.
#pragma once

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"

namespace qspec {

// Activation scale and zero point, weight scales (1 or one per output channel) and zero point,
// output scale and zero point, the optional fused clamp.
struct QLinearKeys {
  attr::F32 x_scale;
  attr::Int x_zero_point;
  attr::F32Array w_scales;
  attr::Int w_zero_point;
  attr::F32 y_scale;
  attr::Int y_zero_point;
  attr::Int y_min, y_max;
};
// qlinear.conv2d and qlinear.fully_connected: x_*, w_*, y_*.
template <class A>
inline constexpr QLinearKeys qlinear_keys{A::x_scale, A::x_zero_point, A::w_scales, A::w_zero_point,
                                          A::y_scale, A::y_zero_point, A::y_min,    A::y_max};
// qlinear.matmul: a is the activation, b the weights (per-column scales).
inline constexpr QLinearKeys qlinear_matmul_keys{
    cat::qlinear_matmul::attr::a_scale,  cat::qlinear_matmul::attr::a_zero_point,
    cat::qlinear_matmul::attr::b_scales, cat::qlinear_matmul::attr::b_zero_point,
    cat::qlinear_matmul::attr::y_scale,  cat::qlinear_matmul::attr::y_zero_point,
    cat::qlinear_matmul::attr::y_min,    cat::qlinear_matmul::attr::y_max};

}  // namespace qspec
