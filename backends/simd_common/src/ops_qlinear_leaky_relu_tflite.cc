// Handlers of qlinear.leaky_relu (spec/operators_qlinear_leaky_relu.md) under tflite.double_round and
// tflite.single_round: LeakyReluPrepare's two binary32 multipliers through QuantizeMultiplier, then
// the 256 values v = code - x_zero_point requantized by the ISA's Q31 kernel (kQ31Double, or
// kShiftRound for the single rounding), the non-negative ones with the identity multiplier and the
// negative ones with alpha's, as reference_ops::QuantizeLeakyRelu does per element; then a lookup.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "q31_params.h"
#include "qlinear_common.h"
#include "qspec/backend_common/q31.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd {
namespace {

using nn::reject_if;
using qlinear::f32_of;
using qlinear::finite_positive;
using Op = cat::qlinear_leaky_relu;

// QuantizeMultiplier of either build as the kernel parameters of MBQM + z_y, saturated to the dtype.
RequantParams multiplier_plan(double d, bool single, std::int64_t zy, std::int64_t lo, std::int64_t hi) {
  q31::Q31 m = q31::tflite_quantize_multiplier(d);
  if (single && m.shift > 30) m = q31::Q31{INT32_MAX, 30};
  RequantParams rp =
      q31_requant_params(single ? Q31Rounding::kTfliteSingle : Q31Rounding::kTfliteDouble, m.multiplier, m.shift);
  rp.out = OutType::I32;  // int32 lanes, narrowed by write_int
  rp.qmin = static_cast<std::int32_t>(lo), rp.qmax = static_cast<std::int32_t>(hi);
  rp.zp = static_cast<std::int32_t>(zy);
  if (!finalize(rp)) throw Unsupported("tflite LEAKY_RELU: requantization parameters outside the kernels");
  return rp;
}

template <bool single>
void leaky_relu_tflite(OpCall& c) {
  const qspec_tensor& xt = qlinear::named(c, Op::in::x);
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "qlinear.leaky_relu: int8 or uint8");
  const IntArray x = read_int(xt);
  const std::int64_t lo = qlinear::lo_of(xt.dtype), hi = qlinear::hi_of(xt.dtype);
  const float alpha = f32_of(attr::get(c.attrs, Op::attr::alpha));
  const float xs = f32_of(attr::get(c.attrs, Op::attr::x_scale)), ys = f32_of(attr::get(c.attrs, Op::attr::y_scale));
  const std::int64_t zx = attr::get(c.attrs, Op::attr::x_zero_point), zy = attr::get(c.attrs, Op::attr::y_zero_point);
  reject_if(!qlinear::fits(zx, xt.dtype) || !qlinear::fits(zy, xt.dtype), "tflite: the zero points must fit the dtype");
  if (!finite_positive(xs) || !finite_positive(ys) || !std::isfinite(alpha))
    throw Unsupported("tflite LEAKY_RELU: finite positive scales and a finite alpha (a REQUIRE)");
  const float prod = xs * alpha;
  const float da = prod / ys;  // double alpha_multiplier = input_scale * alpha / output_scale: binary32 steps
  const float d1 = xs / ys;
  if (!std::isfinite(da) || !std::isfinite(d1)) throw Unsupported("tflite LEAKY_RELU: finite multipliers (a REQUIRE)");
  reject_if(da < 0.0f, "tflite LEAKY_RELU: a negative alpha gives a negative real multiplier (QuantizeMultiplier)");
  const RequantParams identity = multiplier_plan(static_cast<double>(d1), single, zy, lo, hi);
  const RequantParams negative = multiplier_plan(static_cast<double>(da), single, zy, lo, hi);
  // v = code - z_x for the 256 codes: [lo - zx, -1] take alpha's multiplier, [0, hi - zx] the identity.
  std::vector<std::int32_t> v(256);
  for (std::int64_t i = 0; i < 256; ++i) v[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(lo + i - zx);
  const std::size_t n_neg = static_cast<std::size_t>(std::max<std::int64_t>(0, std::min<std::int64_t>(256, zx - lo)));
  std::array<std::int32_t, 256> table{};
  if (n_neg > 0) c.k.requant(negative, n_neg, v.data(), table.data());
  if (n_neg < 256) c.k.requant(identity, 256 - n_neg, v.data() + n_neg, table.data() + n_neg);
  std::vector<std::int64_t> y(x.data.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    reject_if(!qlinear::fits(x.data[i], xt.dtype), "qlinear.leaky_relu: a code outside the dtype");
    y[i] = table[static_cast<std::size_t>(x.data[i] - lo)];
  }
  write_int(c.output(Op::out::y, 0), x.shape, y);
}

}  // namespace

void add_qlinear_leaky_relu_tflite_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Op>(Op::conv::tflite_double_round, "TFLite Q31 per element (the ISA's kQ31Double kernel)",
                        leaky_relu_tflite<false>));
  t.push_back(entry<Op>(Op::conv::tflite_single_round, "TFLite Q31 per element (the ISA's kShiftRound kernel)",
                        leaky_relu_tflite<true>));
}

}  // namespace qspec::simd
