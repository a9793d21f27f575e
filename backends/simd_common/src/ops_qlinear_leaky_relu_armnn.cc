// Handler of qlinear.leaky_relu (spec/operators_qlinear_leaky_relu.md) under armnn.cpuref: Arm NN
// CpuRef's Activation(LeakyReLu) as a 256-entry table of its binary32 steps (armnn::Dequantize,
// in > 0 ? in : in * a, armnn::Quantize: std::round of the quotient, + offset, clamp in float;
// -ffp-contract=off keeps every step a separate rounding), then one lookup per element.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd {
namespace {

using nn::reject_if;
using qlinear::f32_of;
using qlinear::finite_positive;
using Op = cat::qlinear_leaky_relu;

void leaky_relu_armnn(OpCall& c) {
  const qspec_tensor& xt = qlinear::named(c, Op::in::x);
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "qlinear.leaky_relu: int8 or uint8");
  const IntArray x = read_int(xt);
  const std::int64_t lo = qlinear::lo_of(xt.dtype), hi = qlinear::hi_of(xt.dtype);
  const float alpha = f32_of(attr::get(c.attrs, Op::attr::alpha));
  const float xs = f32_of(attr::get(c.attrs, Op::attr::x_scale)), ys = f32_of(attr::get(c.attrs, Op::attr::y_scale));
  const std::int64_t zx = attr::get(c.attrs, Op::attr::x_zero_point), zy = attr::get(c.attrs, Op::attr::y_zero_point);
  if (!finite_positive(xs) || !finite_positive(ys) || !std::isfinite(alpha))
    throw Unsupported("armnn.cpuref: finite positive scales and a finite alpha (a REQUIRE)");
  if (zx < INT32_MIN || zx > INT32_MAX || zy < INT32_MIN || zy > INT32_MAX)
    throw Unsupported("armnn: offsets are int32 (REQUIRE)");
  std::array<std::int64_t, 256> table{};
  for (std::int64_t i = 0; i < 256; ++i) {
    const float in = static_cast<float>(lo + i - zx) * xs;  // armnn::Dequantize
    const float out = in > 0.0f ? in : in * alpha;          // Activation.cpp, LeakyReLu
    const float q = out / ys;
    if (std::isnan(q)) throw Unsupported("armnn.cpuref: a NaN activation (armnn::Quantize asserts; a REQUIRE)");
    const float w = std::round(q) + static_cast<float>(zy);  // armnn::Quantize: round(value / scale) + offset
    table[static_cast<std::size_t>(i)] =
        static_cast<std::int64_t>(std::fmin(std::fmax(w, static_cast<float>(lo)), static_cast<float>(hi)));
  }
  std::vector<std::int64_t> y(x.data.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    reject_if(!qlinear::fits(x.data[i], xt.dtype), "qlinear.leaky_relu: a code outside the dtype");
    y[i] = table[static_cast<std::size_t>(x.data[i] - lo)];
  }
  write_int(c.output(Op::out::y, 0), x.shape, y);
}

}  // namespace

void add_qlinear_leaky_relu_armnn_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Op>(Op::conv::armnn_cpuref, "Arm NN CpuRef float steps as a 256-entry table", leaky_relu_armnn));
}

}  // namespace qspec::simd
