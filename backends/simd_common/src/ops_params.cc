// Handlers of the scalar parameter computations: TFLite / gemmlowp QuantizeMultiplier, gemmlowp's
// ChooseQuantizationParams and ONNX DynamicQuantizeLinear (its parameters, and the operator), on the hardware's IEEE
// binary32/binary64 arithmetic (every step the spec names is one correctly rounded operation, or
// exact: frexp, doubling, products by 2^31).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/backend_common/q31.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/backend_core.h"

namespace qspec::simd {
namespace {

using q31::Q31;
using QM = cat::quantize_multiplier;
using Choose = cat::choose_quant_params;
using Dql = cat::onnx_dynamic_quantize_linear;

enum class Build { kDefault, kSingleRounding, kEmulateFloat };

// requant.tflite.quantize_multiplier for a finite d >= 0.
Q31 tflite_quantize_multiplier(double d, Build build) {
  if (build == Build::kEmulateFloat) {
    if (d == 0.0) return {};
    // IntegerFrExp: the top 30 fraction bits, the 22 discarded ones rounded half DOWN.
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    const std::uint64_t e = (bits >> 52) & 0x7ffu, top = (bits & 0x000fffffffc00000ull) >> 22,
                        low = bits & 0x003fffffull;
    return q31::flush_tiny(q31::carry(0x40000000 + static_cast<std::int64_t>(top) + (low > 0x00200000u ? 1 : 0),
                                      static_cast<int>(e) - 1023 + 1));
  }
  const Q31 r = q31::tflite_quantize_multiplier(d);  // frexp, std::round (ties away), carry, flush
  if (build == Build::kSingleRounding && r.shift > 30) return {INT32_MAX, 30};
  return r;
}

// QuantizeMultiplierSmallerThanOne on a float32 in (0, 1): its doubling loop normalizes exactly as
// frexp does, then rounds to Q31 with std::round and carries.
Q31 gemmlowp_quantize_multiplier(float real) { return q31::frexp_q31(real); }

template <Build kBuild, bool kGemmlowp>
void quantize_multiplier(OpCall& c) {
  const qspec_tensor& r = c.input(QM::in::real_multiplier, 0);
  expect_dtype(r, kGemmlowp ? QSPEC_DTYPE_FLOAT32 : QSPEC_DTYPE_FLOAT64, "input 'real_multiplier'");
  const auto n = static_cast<std::size_t>(numel(r));
  std::vector<Q31> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (kGemmlowp) {
      const float v = static_cast<const float*>(r.data)[i];
      if (!(v > 0.0f && v < 1.0f))
        throw Unsupported("gemmlowp QuantizeMultiplierSmallerThanOne needs 0 < m < 1 (REQUIRE)");
      out[i] = gemmlowp_quantize_multiplier(v);
    } else {
      const double v = static_cast<const double*>(r.data)[i];
      if (!std::isfinite(v)) throw Unsupported("finite double_multiplier (REQUIRE)");
      if (v < 0) throw Rejected("requant.tflite.quantize_multiplier: negative real multiplier (ERROR_IF)");
      out[i] = tflite_quantize_multiplier(v, kBuild);
    }
  }
  qspec_tensor& m = c.output(QM::out::multiplier, 0);
  qspec_tensor& s = c.output(QM::out::shift, 1);
  expect_dtype(m, QSPEC_DTYPE_INT32, "output 'multiplier'");
  expect_dtype(s, QSPEC_DTYPE_INT32, "output 'shift'");
  expect_same_shape(r, m, "output 'multiplier'");
  expect_same_shape(r, s, "output 'shift'");
  for (std::size_t i = 0; i < n; ++i) {
    static_cast<std::int32_t*>(m.data)[i] = out[i].multiplier;
    static_cast<std::int32_t*>(s.data)[i] = out[i].shift;
  }
}

// gemmlowp.choose_params: extend [min, max] to 0, scale = fl32((max - min) / 255), zero point
// std::round(-fl64(min / scale)) clamped to [0, 255].
void gemmlowp_choose_params(OpCall& c) {
  const qspec_tensor& range = c.input(Choose::in::range, 0);
  expect_dtype(range, QSPEC_DTYPE_FLOAT32, "input 'range'");
  if (numel(range) != 2) throw std::invalid_argument("input 'range' must hold (min, max)");
  float mn = static_cast<const float*>(range.data)[0], mx = static_cast<const float*>(range.data)[1];
  if (!std::isfinite(mn) || !std::isfinite(mx)) throw Unsupported("finite min and max (REQUIRE)");
  mn = std::min(mn, 0.0f);  // (b < a) ? b : a: a zero of either sign is kept as given
  mx = std::max(mx, 0.0f);
  const float width = mx - mn;
  if (std::isinf(width)) throw Rejected("gemmlowp.choose_params: max - min overflows float32 (ERROR_IF)");
  const float scale = width / 255.0f;
  if (scale == 0.0f) throw Rejected("gemmlowp.choose_params: the scale is 0 (ERROR_IF)");
  const double initial = 0.0 - static_cast<double>(mn) / static_cast<double>(scale);
  const std::uint8_t zp = initial < 0 ? 0 : initial > 255 ? 255 : static_cast<std::uint8_t>(std::round(initial));
  qspec_tensor& s = c.output(Choose::out::scale, 0);
  qspec_tensor& z = c.output(Choose::out::zero_point, 1);
  expect_dtype(s, QSPEC_DTYPE_FLOAT32, "output 'scale'");
  expect_dtype(z, QSPEC_DTYPE_UINT8, "output 'zero_point'");
  if (numel(s) != 1 || numel(z) != 1) throw std::invalid_argument("scalar outputs");
  std::memcpy(s.data, &scale, 4);
  std::memcpy(z.data, &zp, 1);
}

// float.onnx_dynamic_quantize_linear_params: ONNX Runtime's GetQuantizationParameter<uint8_t> line
// by line for finite min and max; IEEE special values need no special case (an infinite scale gives
// zero point 0, a zero scale 255 through std::min(255.f, inf or NaN)).
struct DqlParams {
  float scale;
  std::uint8_t zero_point;
};
DqlParams onnx_dql_params(float mn, float mx) {
  mn = std::min(mn, 0.0f);
  mx = std::max(mx, 0.0f);
  const float scale = mx == mn ? 1.0f : (mx - mn) / 255.0f;
  const float initial = 0.0f - mn / scale;
  const float clamped = std::max(0.0f, std::min(255.0f, initial));
  // RoundHalfToEven, written out so that it does not depend on the floating-point environment.
  const float below = std::floor(clamped), frac = clamped - below;  // exact: clamped is in [0, 255]
  const float rounded = frac > 0.5f || (frac == 0.5f && std::fmod(below, 2.0f) != 0.0f) ? below + 1.0f : below;
  return {scale, static_cast<std::uint8_t>(rounded)};
}

void write_scalar_params(OpCall& c, std::string_view scale_name, std::string_view zp_name, std::size_t first,
                         const DqlParams& p) {
  qspec_tensor& s = c.output(scale_name, first);
  qspec_tensor& z = c.output(zp_name, first + 1);
  expect_dtype(s, QSPEC_DTYPE_FLOAT32, "output scale");
  expect_dtype(z, QSPEC_DTYPE_UINT8, "output zero point");
  if (numel(s) != 1 || numel(z) != 1) throw std::invalid_argument("scalar outputs");
  std::memcpy(s.data, &p.scale, 4);
  std::memcpy(z.data, &p.zero_point, 1);
}

// choose_quant_params / onnx.dynamic_quantize_linear.
void onnx_dynamic_quantize_linear_params(OpCall& c) {
  const qspec_tensor& range = c.input(Choose::in::range, 0);
  expect_dtype(range, QSPEC_DTYPE_FLOAT32, "input 'range'");
  if (numel(range) != 2) throw std::invalid_argument("input 'range' must hold (min, max)");
  const float mn = static_cast<const float*>(range.data)[0], mx = static_cast<const float*>(range.data)[1];
  if (!std::isfinite(mn) || !std::isfinite(mx)) throw Unsupported("finite min and max (REQUIRE)");
  write_scalar_params(c, Choose::out::scale, Choose::out::zero_point, 0, onnx_dql_params(mn, mx));
}

// onnx.dynamic_quantize_linear / onnx: the parameters from the data's minimum and maximum, then
// QuantizeLinear to uint8 (sat(half_even(fl32(x / scale)) + zero_point)) by the ISA's kernel.
void onnx_dynamic_quantize_linear(OpCall& c) {
  const qspec_tensor& x = c.input(Dql::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_FLOAT32, "input 'x'");
  const auto n = static_cast<std::size_t>(numel(x));
  if (n == 0) throw std::invalid_argument("input 'x' must hold at least one element");
  const auto* xs = static_cast<const float*>(x.data);
  float mn = xs[0], mx = xs[0];
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i])) throw Unsupported("finite input (REQUIRE)");
    mn = std::min(mn, xs[i]);
    mx = std::max(mx, xs[i]);
  }
  const DqlParams dp = onnx_dql_params(mn, mx);
  if (!std::isfinite(dp.scale) || dp.scale == 0.0f)
    throw Unsupported("QuantizeLinear needs a finite nonzero scale (REQUIRE)");
  QuantizeParams p;
  p.divide = true, p.s = dp.scale, p.post = QuantizeParams::Post::kInt, p.post_zp = dp.zero_point;
  p.out = OutType::U8, p.qmin = 0, p.qmax = 255;
  finalize(p);
  qspec_tensor& y = c.output(Dql::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_UINT8, "output 'y'");
  expect_same_shape(x, y, "output 'y'");
  c.k.quantize(p, n, xs, y.data);
  write_scalar_params(c, Dql::out::y_scale, Dql::out::y_zero_point, 1, dp);
}

}  // namespace

void add_param_ops(std::vector<OpEntry>& t) {
  const char* sc = "scalar IEEE";
  t.push_back(entry<QM>(QM::conv::tflite_quantize_multiplier, sc, quantize_multiplier<Build::kDefault, false>));
  t.push_back(entry<QM>(QM::conv::tflite_quantize_multiplier_single_round, sc,
                        quantize_multiplier<Build::kSingleRounding, false>));
  t.push_back(entry<QM>(QM::conv::tflite_quantize_multiplier_emulate_float, sc,
                        quantize_multiplier<Build::kEmulateFloat, false>));
  t.push_back(entry<QM>(QM::conv::gemmlowp_quantize_multiplier_smaller_than_one, sc,
                        quantize_multiplier<Build::kDefault, true>));
  t.push_back(entry<Choose>(Choose::conv::gemmlowp_choose_params, sc, gemmlowp_choose_params));
  t.push_back(entry<Choose>(Choose::conv::onnx_dynamic_quantize_linear, sc, onnx_dynamic_quantize_linear_params));
  t.push_back(entry<Dql>(Dql::conv::onnx, "scalar IEEE parameters, ISA quantize kernel", onnx_dynamic_quantize_linear));
}

}  // namespace qspec::simd
