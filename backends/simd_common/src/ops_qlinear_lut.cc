// Handlers of qlinear.leaky_relu (spec/operators_qlinear_pool.md) under xnnpack.fp32 and
// onnxruntime: the engine's 256-entry table built in binary32 (-ffp-contract=off keeps every step
// a separate rounding), then one lookup per element.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd {
namespace {

using qlinear::f32_of;
using qlinear::positive_normal;

using nn::reject_if;
using Op = cat::qlinear_leaky_relu;

enum class Lut { kXnnpack, kOrt, kPytorch };

// ATen's leaky_qrelu_out_kernel (scalar path): dequantize_val, the slope for d <= 0, quantize_val.
std::int64_t pytorch_leaky_entry(std::int64_t code, float xs, std::int64_t zx, float alpha, float ys, std::int64_t zy,
                                 std::int64_t lo, std::int64_t hi) {
  const auto d = static_cast<float>(static_cast<double>(code - zx) * static_cast<double>(xs));
  const float e = d > 0.0f ? d : d * alpha;
  const float v = e * (1.0f / ys);
  if (!std::isfinite(v)) throw Unsupported("pytorch: a finite value (a REQUIRE)");
  if (std::fabs(v) >= 0x1p62f) return v > 0 ? hi : lo;  // saturates (the int64 conversion holds below 2^63)
  const float r = static_cast<float>(zy) + std::nearbyint(v);
  return std::clamp(static_cast<std::int64_t>(r), lo, hi);
}

template <Lut kind>
void leaky_relu(OpCall& c) {
  constexpr bool xnn = kind == Lut::kXnnpack;
  const qspec_tensor& xt = qlinear::named(c, Op::in::x);
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "qlinear.leaky_relu: int8 or uint8");
  const IntArray x = read_int(xt);
  const std::int64_t lo = xt.dtype == QSPEC_DTYPE_INT8 ? -128 : 0, hi = lo + 255;
  const float alpha = f32_of(attr::get(c.attrs, Op::attr::alpha));
  const float xs = f32_of(attr::get(c.attrs, Op::attr::x_scale)), ys = f32_of(attr::get(c.attrs, Op::attr::y_scale));
  const std::int64_t zx = attr::get(c.attrs, Op::attr::x_zero_point), zy = attr::get(c.attrs, Op::attr::y_zero_point);
  const auto fits = [&](std::int64_t v) { return v >= lo && v <= hi; };
  std::array<std::int64_t, 256> table{};
  if (xnn) {
    const std::int64_t ymin = attr::get_or(c.attrs, Op::attr::y_min, lo),
                       ymax = attr::get_or(c.attrs, Op::attr::y_max, hi);
    reject_if(xt.dtype != QSPEC_DTYPE_UINT8, "xnnpack.fp32: leaky ReLU is qu8 only");
    reject_if(!positive_normal(alpha) || alpha > 1.0f, "xnnpack.fp32: slope must be a positive normal <= 1");
    reject_if(!fits(zx) || !fits(zy) || !fits(ymin) || !fits(ymax),
              "xnnpack.fp32: zero points and clamp must fit uint8");
    reject_if(!positive_normal(xs) || !positive_normal(ys),
              "xnnpack.fp32: scale must be finite, normalized, and positive");
    reject_if(ymin >= ymax, "xnnpack.fp32: range min must be below range max");
    const float ratio = xs / ys;
    reject_if(ratio < 0x1.0p-8f || ratio >= 0x1.0p+8f, "xnnpack.fp32: scale ratio outside [2**-8, 2**8)");
    const float inv = 1.0f / ys;
    for (std::int64_t i = 0; i < 256; ++i) {
      const float d = static_cast<float>(lo + i - zx) * xs;
      const float f = std::signbit(d) ? d * alpha : d;
      const float p = f * inv;
      table[static_cast<std::size_t>(i)] = std::clamp(static_cast<std::int64_t>(std::lrintf(p)) + zy, ymin, ymax);
    }
  } else if (kind == Lut::kPytorch) {
    reject_if(!fits(zx) || !fits(zy), "pytorch: zero_point is out of range");
    if (!(std::isfinite(xs) && xs > 0 && std::isfinite(ys) && ys > 0 && std::isfinite(alpha)))
      throw Unsupported("pytorch: finite positive scales and a finite alpha (a REQUIRE)");
    for (std::int64_t i = 0; i < 256; ++i)
      table[static_cast<std::size_t>(i)] = pytorch_leaky_entry(lo + i, xs, zx, alpha, ys, zy, lo, hi);
  } else {
    reject_if(!fits(zx) || !fits(zy), "onnxruntime: the zero points must have x's type");
    if (!(std::isfinite(xs) && xs > 0 && std::isfinite(ys) && ys > 0 && std::isfinite(alpha)))
      throw Unsupported("onnxruntime: finite positive scales and a finite alpha (a REQUIRE)");
    const float qlo = static_cast<float>(lo - zy), qhi = static_cast<float>(hi - zy);
    for (std::int64_t i = 0; i < 256; ++i) {
      const float d = xs * static_cast<float>(lo + i - zx);
      const float f = d >= 0.0f ? d : alpha * d;
      const float v = f / ys;
      if (!std::isfinite(v)) throw Unsupported("onnxruntime: f / y_scale finite (a REQUIRE)");
      const float cl = std::min(std::max(v, qlo), qhi);
      table[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(std::nearbyint(cl)) + zy;
    }
  }
  std::vector<std::int64_t> y(x.data.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    reject_if(!fits(x.data[i]), "qlinear.leaky_relu: a code outside the dtype");
    y[i] = table[static_cast<std::size_t>(x.data[i] - lo)];
  }
  write_int(c.output(Op::out::y, 0), x.shape, y);
}

}  // namespace

void add_qlinear_lut_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Op>(Op::conv::xnnpack_fp32, "XNNPACK qu8 256-entry table (reciprocal multiply)",
                        leaky_relu<Lut::kXnnpack>));
  t.push_back(entry<Op>(Op::conv::onnxruntime, "ONNX Runtime 256-entry table (MlasQuantizeLinear division)",
                        leaky_relu<Lut::kOrt>));
  t.push_back(entry<Op>(Op::conv::pytorch_onednn, "ATen leaky_qrelu_out_kernel as a 256-entry table",
                        leaky_relu<Lut::kPytorch>));
}

}  // namespace qspec::simd
