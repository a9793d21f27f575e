// TOSA's convention of the quantized operators (spec/operators_qlinear.md, qlinear.tosa): CONV2D,
// DEPTHWISE_CONV2D, FULLY_CONNECTED (a 1x1 CONV2D) and MATMUL accumulating in int32, then the
// RESCALE (scale32, double_round) the TFLite -> TOSA legalization emits, with its
// computeMultiplierAndShift of the binary64 scale, then CLAMP.
#include <algorithm>
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

const std::string kClause = "tosa";

bool fits_int8(const Int& v) { return v >= -128 && v <= 127; }

}  // namespace

// spec: qlinear.tosa
QuantizedMultiplier qlinear_tosa_multiplier_and_shift(std::uint64_t double_bits) {
  QSPEC_REQUIRE(float_is_finite(double_bits, kBinary64), kClause + ": a finite scale");
  const Rat d = f64_value(double_bits);
  QSPEC_REQUIRE(d > 0, kClause + ": a positive scale (computeMultiplierAndShift)");
  // std::frexp: d = q 2^e, q in [1/2, 1); q 2^31 is exact in binary64; std::round is half away.
  int e = 0;
  Rat q = d;
  while (q >= 1) q /= 2, ++e;
  while (q < Rat(1, 2)) q *= 2, --e;
  Int m = round_half_away(q * Rat(pow2(31)));
  if (m == pow2(31)) m /= 2, ++e;
  int shift = 31 - e;
  if (shift > 62) {  // "Shifting the multiplier by more than 31-bits is unnecessary."
    m = floor_div(m, pow2(static_cast<unsigned>(std::min(31, shift - 62))));
    shift = 62;
  }
  return {m, shift};
}

// spec: qlinear.tosa
std::vector<QuantizedMultiplier> qlinear_tosa_multipliers(const QLinearParams& p, std::int64_t channels) {
  QSPEC_ERROR_IF(p.x_type != DType::I8 || p.w_type != DType::I8,
                 kClause + ": CONV2D / MATMUL take int8 x int8 (no uint8 operator), not " +
                     std::string(dtype_name(p.x_type)) + " x " + std::string(dtype_name(p.w_type)));
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  QSPEC_ERROR_IF(n != 1 && n != channels, kClause + ": RESCALE has 1 multiplier or one per channel (" +
                                              std::to_string(channels) + "), not " + std::to_string(n));
  QSPEC_ERROR_IF(!fits_int8(p.x_zero_point) || !fits_int8(p.w_zero_point),
                 kClause + ": input_zp and weight_zp are int8 tensors");
  QSPEC_ERROR_IF(!fits_int8(p.y_zero_point), kClause + ": RESCALE's output_zp not representable in int8");
  const Int lo = p.y_min.value_or(Int(-128)), hi = p.y_max.value_or(Int(127));
  QSPEC_ERROR_IF(!fits_int8(lo) || !fits_int8(hi), kClause + ": CLAMP's min_val and max_val are int8");
  QSPEC_ERROR_IF(hi < lo, kClause + ": CLAMP's max_val < min_val");
  for (auto s : {p.x_scale, p.y_scale}) QSPEC_REQUIRE(float_is_finite(s, kBinary32), kClause + ": finite scales");
  QSPEC_REQUIRE(f32_value(p.y_scale) != 0, kClause + ": y_scale != 0");
  std::vector<QuantizedMultiplier> out;
  for (std::int64_t o = 0; o < channels; ++o) {
    const std::uint32_t ws = p.w_scales[n == 1 ? 0 : static_cast<std::size_t>(o)];
    QSPEC_REQUIRE(float_is_finite(ws, kBinary32), kClause + ": finite scales");
    // (input_scale * weight_scale) / output_scale on the quant types' doubles (widened float32):
    // the product is exact, the quotient rounds once.
    const std::uint64_t d = f64_div(f64_mul(f64_from_f32(p.x_scale), f64_from_f32(ws)), f64_from_f32(p.y_scale));
    out.push_back(qlinear_tosa_multiplier_and_shift(d));
  }
  return out;
}

// spec: qlinear.tosa
Int qlinear_tosa_output(const Int& acc, const QuantizedMultiplier& m, const QLinearParams& p) {
  const Int v = tosa_rescale(acc, m.multiplier, m.shift, p.y_zero_point, DType::I8, TosaScale::Double32);
  return saturate(v, Range{p.y_min.value_or(Int(-128)), p.y_max.value_or(Int(127))});  // CLAMP
}

// spec: qlinear.tosa
std::int64_t qlinear_tosa_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                       std::int64_t kernel, std::int64_t dilation, std::int64_t stride) {
  const std::int64_t numerator = in - 1 + pad_begin + pad_end - (kernel - 1) * dilation;
  QSPEC_ERROR_IF(numerator < 0, kClause + ": the dilated kernel is larger than the padded input (no output)");
  QSPEC_REQUIRE(numerator % stride == 0,
                kClause + ": idiv_check: (in - 1 + pads - (kernel - 1) dilation) divisible by the stride");
  return numerator / stride + 1;
}

// spec: qlinear.tosa
void qlinear_tosa_conv_groups_check(const Shape& x, const QConvGeometry& g) {
  QSPEC_ERROR_IF(g.groups != 1 && g.groups != x[3],
                 kClause + ": CONV2D has groups 1 and DEPTHWISE_CONV2D groups = C; groups " + std::to_string(g.groups) +
                     " with C = " + std::to_string(x[3]) + " has no operator");
}

// spec: qlinear.tosa
void qlinear_tosa_matmul_check(const Shape& a, const Shape& b) {
  const Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  QSPEC_ERROR_IF(ba != bb, kClause + ": MATMUL takes [N, H, C] x [N, C, W]: the batch dimensions " + shape_str(a) +
                               " and " + shape_str(b) + " must be equal (no broadcast)");
}

}  // namespace qspec::ref::ops
