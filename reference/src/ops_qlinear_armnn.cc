// Arm NN 20.08 CpuRef's convolution and fully connected layers (spec/operators_qlinear_armnn.md):
// the float pipeline of its RefWorkloads modelled one binary32 operation at a time (ieee.h).
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

const std::string kConv = "armnn.cpuref";

std::string name(DType t) { return std::string(dtype_name(t)); }
bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

std::uint32_t require_finite(std::uint32_t v, const char* what) {
  QSPEC_REQUIRE(float_is_finite(v, kBinary32), kConv + ": " + what + " is finite (no overflow to infinity)");
  return v;
}

// The ERROR_IFs and REQUIREs shared by both layers. FullyConnected needs the weights' type to be
// the input's (RefLayerSupport: "input and weight types mismatched").
void check_params(const QLinearParams& p, bool same_types) {
  QSPEC_ERROR_IF(same_types && p.x_type != p.w_type,
                 kConv + ": FullyConnected needs the weights' type to be the input's (" + name(p.x_type) + ", got " +
                     name(p.w_type) + ")");
  QSPEC_ERROR_IF(p.w_scales.size() != 1,
                 kConv +
                     ": per-axis weight scales need QSymmS8 weights, which Arm NN 20.08's CpuRef FullyConnected "
                     "rejects and its Convolution2d crashes on (SIGFPE, errata E-ARMNN-1): one weight scale only");
  QSPEC_REQUIRE(fits(p.x_zero_point, p.x_type) && fits(p.w_zero_point, p.w_type) && fits(p.y_zero_point, p.x_type),
                kConv + ": zero points in their tensors' dtypes");
  QSPEC_REQUIRE(finite_positive(p.x_scale) && finite_positive(p.w_scales[0]) && finite_positive(p.y_scale),
                kConv + ": finite positive scales");
  QSPEC_REQUIRE(!p.y_min && !p.y_max, kConv + ": no fused clamp (Arm NN's layers have none)");
}

void require_codes(const IntArray& a, DType t, const std::string& what) {
  const Range r = int_range(t);
  for (const auto& v : a.data) QSPEC_REQUIRE(v >= r.lo && v <= r.hi, what + " codes lie in " + name(t));
}

// The dequantized operands: x~ and w~ (armnn::Dequantize), b~ = fl32(float(b) * fl32(s_x * s_w))
// (ScaledInt32Decoder with the bias scale a user gives: s_x s_w in binary32).
struct Dequantized {
  std::vector<std::uint32_t> x, w, b;
};
Dequantized dequantize_all(const IntArray& x, const IntArray& w, const IntArray* bias, const QLinearParams& p) {
  Dequantized d;
  for (const auto& v : x.data) d.x.push_back(armnn_dequantize(v, p.x_zero_point, p.x_scale));
  for (const auto& v : w.data) d.w.push_back(armnn_dequantize(v, p.w_zero_point, p.w_scales[0]));
  if (bias) {
    const std::uint32_t bias_scale = require_finite(f32_mul(p.x_scale, p.w_scales[0]), "the bias scale s_x s_w");
    for (const auto& v : bias->data) d.b.push_back(require_finite(f32_mul(f32_from_int(v), bias_scale), "b~"));
  }
  return d;
}

// sum + fl32(a * b), each step REQUIRE'd finite (an infinity or NaN trips Arm NN's assertions or
// leaves the clause).
std::uint32_t accumulate(std::uint32_t sum, std::uint32_t a, std::uint32_t b) {
  return require_finite(f32_add(sum, require_finite(f32_mul(a, b), "a product")), "a partial sum");
}

}  // namespace

// spec: qlinear.armnn_cpuref
std::uint32_t armnn_dequantize(const Int& q, const Int& zero_point, std::uint32_t scale) {
  return require_finite(f32_mul(f32_from_int(q - zero_point), scale), "a dequantized value");
}

// spec: qlinear.armnn_cpuref
Int armnn_quantize(std::uint32_t value, std::uint32_t scale, const Int& zero_point, DType t) {
  QSPEC_REQUIRE(float_is_finite(value, kBinary32), kConv + ": the value to quantize is finite");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) != 0, kConv + ": a finite nonzero scale");
  const std::uint32_t v = f32_div(value, scale);
  const Range r = int_range(t);
  if (f32_is_inf(v)) return f32_sign(v) ? r.lo : r.hi;
  return saturate(round_half_away(f32_value(v)) + zero_point, r);
}

// spec: qlinear.armnn_cpuref
ArmnnSums armnn_conv2d_sums(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                            const QLinearParams& p) {
  qlinear_conv2d_check(x.shape, w.shape, bias ? &bias->shape : nullptr, g);
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3);
  const std::int64_t O = w.dim(0), KH = w.dim(1), KW = w.dim(2), Cg = w.dim(3);
  QSPEC_ERROR_IF(g.groups != 1 && g.groups != C,
                 kConv +
                     ": Arm NN has Convolution2d (groups 1) and DepthwiseConvolution2d (groups = C) only, not "
                     "groups " +
                     std::to_string(g.groups));
  check_params(p, false);
  require_codes(x, p.x_type, "qlinear.conv2d: x");
  require_codes(w, p.w_type, "qlinear.conv2d: w");
  if (bias) require_codes(*bias, DType::I32, "qlinear.conv2d: b");
  std::array<std::int64_t, 2> out{};
  for (std::size_t a = 0; a < 2; ++a) {
    const std::int64_t in = a == 0 ? H : W, k = a == 0 ? KH : KW;
    const std::int64_t padded = in + g.pads[a] + g.pads[a + 2], effective = g.dilations[a] * (k - 1) + 1;
    // Arm NN's output shape is unsigned arithmetic: it wraps where the kernel does not fit.
    QSPEC_REQUIRE(padded >= effective, kConv + ": the dilated kernel fits the padded input");
    out[a] = (padded - effective) / g.strides[a] + 1;
  }
  const Dequantized d = dequantize_all(x, w, bias, p);
  const std::int64_t opg = O / g.groups;  // depthwise: the channel multiplier M, input channel o / M
  ArmnnSums s{{N, out[0], out[1], O}, {}};
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t r = 0; r < out[0]; ++r)
      for (std::int64_t q = 0; q < out[1]; ++q)
        for (std::int64_t o = 0; o < O; ++o) {
          std::uint32_t sum = 0;  // +0.0f
          for (std::int64_t c = 0; c < Cg; ++c)
            for (std::int64_t i = 0; i < KH; ++i)
              for (std::int64_t j = 0; j < KW; ++j) {
                const std::int64_t h = r * g.strides[0] - g.pads[0] + i * g.dilations[0];
                const std::int64_t v = q * g.strides[1] - g.pads[1] + j * g.dilations[1];
                // Arm NN adds fl32(w~ * 0.0f) = +-0 here: it leaves a sum that starts at +0 unchanged.
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                const std::int64_t ci = (o / opg) * Cg + c;
                const auto xi = static_cast<std::size_t>(((n * H + h) * W + v) * C + ci);
                const auto wi = static_cast<std::size_t>(((o * KH + i) * KW + j) * Cg + c);
                sum = accumulate(sum, d.w[wi], d.x[xi]);
              }
          if (bias) sum = require_finite(f32_add(sum, d.b[static_cast<std::size_t>(o)]), "the sum with the bias");
          s.sums.push_back(sum);
        }
  return s;
}

// spec: qlinear.armnn_cpuref
ArmnnSums armnn_fully_connected_sums(const IntArray& x, const IntArray& w, const IntArray* bias,
                                     const QLinearParams& p) {
  qlinear_fully_connected_check(x.shape, w.shape, bias ? &bias->shape : nullptr);
  check_params(p, true);
  require_codes(x, p.x_type, "qlinear.fully_connected: x");
  require_codes(w, p.w_type, "qlinear.fully_connected: w");
  if (bias) require_codes(*bias, DType::I32, "qlinear.fully_connected: b");
  const Dequantized d = dequantize_all(x, w, bias, p);
  const std::int64_t N = x.dim(0), K = x.dim(1), O = w.dim(0);
  ArmnnSums s{{N, O}, {}};
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o) {
      std::uint32_t sum = 0;
      for (std::int64_t k = 0; k < K; ++k)
        sum = accumulate(sum, d.w[static_cast<std::size_t>(o * K + k)], d.x[static_cast<std::size_t>(n * K + k)]);
      if (bias) sum = require_finite(f32_add(sum, d.b[static_cast<std::size_t>(o)]), "the sum with the bias");
      s.sums.push_back(sum);
    }
  return s;
}

namespace {
IntArray quantize_sums(const ArmnnSums& s, const QLinearParams& p) {
  IntArray y(s.shape);
  for (std::size_t i = 0; i < s.sums.size(); ++i)
    y.data[i] = armnn_quantize(s.sums[i], p.y_scale, p.y_zero_point, p.x_type);
  return y;
}
}  // namespace

// spec: qlinear.armnn_cpuref
IntArray qlinear_armnn_conv2d(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                              const QLinearParams& p) {
  return quantize_sums(armnn_conv2d_sums(x, w, bias, g, p), p);
}

// spec: qlinear.armnn_cpuref
IntArray qlinear_armnn_fully_connected(const IntArray& x, const IntArray& w, const IntArray* bias,
                                       const QLinearParams& p) {
  return quantize_sums(armnn_fully_connected_sums(x, w, bias, p), p);
}

}  // namespace qspec::ref::ops
