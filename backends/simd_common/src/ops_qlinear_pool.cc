// Handlers of qlinear.avg_pool2d, qlinear.global_avg_pool and qlinear.max_pool2d
// (spec/operators_qlinear_pool.md) under xnnpack.fp32, onnxruntime, tflite.double_round and
// armnn.cpuref (spec/operators_qlinear_armnn.md: Arm NN's float pipeline): the
// window sums in int32, the fp32 epilogues on the requantization kernels (qlinear::requantize),
// XNNPACK's multiplier/shift rounding, ONNX Runtime's float pipeline and TFLite's rounded
// divisions and TOSA's reciprocal_scale in scalar code (correctness first; -ffp-contract=off keeps every
// float step separate).
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

using qlinear::bits_of;
using qlinear::f32_of;
using qlinear::finite_positive;
using qlinear::fits;
using qlinear::hi_of;
using qlinear::lo_of;
using qlinear::positive_normal;

using nn::reject_if;
using qlinear::named;
using Avg = cat::qlinear_avg_pool2d;
using Gap = cat::qlinear_global_avg_pool;
using Max = cat::qlinear_max_pool2d;

enum class Conv { kXnnpack, kOnnxRuntime, kTflite, kArmnn, kTosa };

template <std::size_t n>
std::array<std::int64_t, n> geometry(const OpCall& c, const attr::IntArray& key, std::array<std::int64_t, n> d) {
  const auto v = attr::get_or(c.attrs, key, std::vector<std::int64_t>(d.begin(), d.end()));
  reject_if(v.size() != n, "attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  std::array<std::int64_t, n> out{};
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

struct Window {
  std::array<std::int64_t, 2> k{1, 1}, s{1, 1}, d{1, 1};
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  bool any_pad() const { return pads[0] || pads[1] || pads[2] || pads[3]; }
};

// qlinear.pool.window: ERROR_IFs, the output size (REQUIRE an output position: Unsupported).
std::array<std::int64_t, 2> out_size(const IntArray& x, const Window& w) {
  reject_if(x.shape.size() != 4, "qlinear pool: x must be (N, H, W, C)");
  for (auto v : x.shape) reject_if(v < 1, "qlinear pool: x has an empty dimension");
  for (int i = 0; i < 2; ++i)
    reject_if(w.k[i] < 1 || w.s[i] < 1 || w.d[i] < 1, "qlinear pool: kernel, strides, dilations >= 1");
  for (auto p : w.pads) reject_if(p < 0, "qlinear pool: pads >= 0");
  std::array<std::int64_t, 2> o{};
  for (std::size_t a = 0; a < 2; ++a) {
    const std::int64_t span = x.dim(static_cast<int>(a) + 1) + w.pads[a] + w.pads[a + 2] - (w.d[a] * (w.k[a] - 1) + 1);
    if (span < 0) throw Unsupported("qlinear pool: the dilated kernel must fit the padded input (a REQUIRE)");
    o[a] = span / w.s[a] + 1;
  }
  return o;
}

// Calls f(out_index, taps) for every output in NHWC order with the codes of its taps inside.
template <class F>
void each_window(const IntArray& x, const Window& w, std::int64_t oh, std::int64_t ow, F f) {
  const std::int64_t H = x.dim(1), W = x.dim(2), C = x.dim(3);
  std::vector<std::int32_t> taps;
  std::size_t i = 0;
  for (std::int64_t n = 0; n < x.dim(0); ++n)
    for (std::int64_t p = 0; p < oh; ++p)
      for (std::int64_t q = 0; q < ow; ++q)
        for (std::int64_t c = 0; c < C; ++c) {
          taps.clear();
          for (std::int64_t a = 0; a < w.k[0]; ++a) {
            const std::int64_t h = p * w.s[0] - w.pads[0] + a * w.d[0];
            if (h < 0 || h >= H) continue;
            for (std::int64_t b = 0; b < w.k[1]; ++b) {
              const std::int64_t v = q * w.s[1] - w.pads[1] + b * w.d[1];
              if (v >= 0 && v < W)
                taps.push_back(
                    static_cast<std::int32_t>(x.data[static_cast<std::size_t>(((n * H + h) * W + v) * C + c)]));
            }
          }
          f(i++, taps);
        }
}

struct Scales {
  qspec_dtype t = QSPEC_DTYPE_INT8;
  float xs = 1.0f, ys = 1.0f;
  std::int64_t zx = 0, zy = 0, ymin = 0, ymax = 0;
  bool has_clamp = false;
};

template <class A>
Scales read_scales(const OpCall& c, const qspec_tensor& x, bool clamp) {
  Scales s;
  reject_if(x.dtype != QSPEC_DTYPE_INT8 && x.dtype != QSPEC_DTYPE_UINT8, "qlinear pool: x must be int8 or uint8");
  s.t = x.dtype;
  s.xs = f32_of(attr::get(c.attrs, A::x_scale));
  s.ys = f32_of(attr::get(c.attrs, A::y_scale));
  s.zx = attr::get(c.attrs, A::x_zero_point);
  s.zy = attr::get(c.attrs, A::y_zero_point);
  s.ymin = lo_of(s.t), s.ymax = hi_of(s.t);
  if (clamp) {
    s.has_clamp = attr::has(c.attrs, A::y_min) || attr::has(c.attrs, A::y_max);
    s.ymin = attr::get_or(c.attrs, A::y_min, s.ymin);
    s.ymax = attr::get_or(c.attrs, A::y_max, s.ymax);
  }
  return s;
}

// XNNPACK's create-time checks of its pooling operators; S = x_s / (y_s * (float) n), asserted
// in [2^-32, 256) (Unsupported outside).
float xnnpack_scale(const Scales& s, std::int64_t n) {
  reject_if(!fits(s.zx, s.t) || !fits(s.zy, s.t), "xnnpack.fp32: the zero points must fit the dtype");
  reject_if(!fits(s.ymin, s.t) || !fits(s.ymax, s.t), "xnnpack.fp32: y_min and y_max must fit the dtype");
  reject_if(!positive_normal(s.xs) || !positive_normal(s.ys),
            "xnnpack.fp32: scale must be finite, normalized, and positive");
  reject_if(s.ymin >= s.ymax, "xnnpack.fp32: range min must be below range max");
  const float ratio = s.xs / s.ys;
  reject_if(ratio < 0x1.0p-8f || ratio >= 0x1.0p+8f, "xnnpack.fp32: input-to-output scale ratio outside [2**-8, 2**8)");
  const float d = s.ys * static_cast<float>(n);
  const float S = s.xs / d;
  if (!(S >= 0x1.0p-32f && S < 256.0f)) throw Unsupported("xnnpack.fp32: S outside [2^-32, 256) (a REQUIRE)");
  return S;
}

// MLAS's QLinearGlobalAveragePool scale: ERROR_IF n >= 2^24 or S outside [2^-32, 256).
float onnxruntime_global_scale(const Scales& s, std::int64_t n) {
  reject_if(!fits(s.zx, s.t) || !fits(s.zy, s.t), "onnxruntime: the zero points must have x's type");
  if (!finite_positive(s.xs) || !finite_positive(s.ys)) throw Unsupported("onnxruntime: scales finite and positive");
  const float d = s.ys * static_cast<float>(n);
  if (!std::isfinite(d)) throw Unsupported("onnxruntime: y_scale * image size finite (a REQUIRE)");
  const float S = s.xs / d;
  reject_if(n >= (std::int64_t{1} << 24) || !(S >= 0x1.0p-32f && S < 256.0f),
            "onnxruntime: QLinearGlobalAveragePool parameter out of computation range");
  return S;
}

// The fp32 epilogue (XNNPACK's, and ONNX Runtime's within [2^-32, 256)) on the requant kernels.
void fp32_epilogue(const KernelSet& k, const std::vector<std::int64_t>& acc, float S, const Scales& s,
                   qspec_tensor& out, const std::vector<std::int64_t>& shape) {
  RequantParams rp;
  rp.kind = RequantKind::kFloatThenZp;
  rp.scale = S;
  rp.out = OutType::I32;  // computed in int32 lanes, narrowed by write_int
  rp.qmin = static_cast<std::int32_t>(s.ymin);
  rp.qmax = static_cast<std::int32_t>(s.ymax);
  rp.zp = static_cast<std::int32_t>(s.zy);
  if (!finalize(rp)) throw Unsupported("qlinear pool: requantization parameters outside the kernels");
  qlinear::requantize(k, acc, {rp}, out, shape);
}

std::int64_t sum_less(const std::vector<std::int32_t>& taps, std::int64_t zp) {
  std::int64_t a = 0;
  for (auto v : taps) a += v - zp;
  if (a < INT32_MIN || a > INT32_MAX) throw Unsupported("qlinear pool: window sum beyond int32 (a REQUIRE)");
  return a;
}

// XNNPACK qu8 avgpool: |acc| multiplier + 2^(shift-1) >> shift with acc's sign, + zp, clamp.
std::int64_t xnnpack_windowed(std::int64_t acc, float S, const Scales& s) {
  const std::uint32_t b = bits_of(S);
  const std::uint64_t multiplier = (b & 0x007fffffu) | 0x00800000u;
  const std::uint32_t shift = 150 - (b >> 23);
  const std::uint64_t abs = static_cast<std::uint64_t>(acc < 0 ? -acc : acc);
  const auto scaled = static_cast<std::int64_t>((abs * multiplier + (std::uint64_t{1} << (shift - 1))) >> shift);
  return std::clamp((acc < 0 ? -scaled : scaled) + s.zy, s.ymin, s.ymax);
}

// ONNX Runtime QLinearAveragePool's float pipeline for one window.
std::int64_t onnxruntime_windowed(const std::vector<std::int32_t>& taps, std::int64_t count, const Scales& s) {
  float sum = 0.0f;
  for (auto v : taps) {
    const float dq = s.xs * static_cast<float>(v - s.zx);
    sum = sum + dq;
  }
  const float mean = sum / static_cast<float>(count);
  const float q = mean / s.ys;
  const float t = q + static_cast<float>(s.zy);
  if (!std::isfinite(t) || std::fabs(t) >= 2147483648.0f)
    throw Unsupported("onnxruntime: value beyond int32 (a REQUIRE)");
  return std::clamp(static_cast<std::int64_t>(std::nearbyint(t)), lo_of(s.t), hi_of(s.t));
}

// TFLite's rounded division: acc > 0 ? (acc + n/2) / n : (acc - n/2) / n.
std::int64_t tflite_div(std::int64_t acc, std::int64_t n) { return acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n; }

// Arm NN CpuRef (qlinear.*.armnn_cpuref): Pooling2dLayer's shape rule (the last window starts inside
// the input or its leading padding), then the workload's float average and armnn::Quantize.
void armnn_shape_rule(const IntArray& x, const Window& w, std::int64_t oh, std::int64_t ow) {
  reject_if(w.d[0] != 1 || w.d[1] != 1, "armnn.cpuref: Pooling2d has no dilation");
  reject_if((oh - 1) * w.s[0] >= x.dim(1) + w.pads[0] || (ow - 1) * w.s[1] >= x.dim(2) + w.pads[1],
            "armnn.cpuref: the last window starts in the padding (Arm NN infers a smaller output)");
}
void armnn_params(const Scales& s) {
  if (!fits(s.zx, s.t) || !fits(s.zy, s.t)) throw Unsupported("armnn.cpuref: zero points outside the dtype (REQUIRE)");
  if (!finite_positive(s.xs) || !finite_positive(s.ys)) throw Unsupported("armnn.cpuref: finite positive scales");
}
// sum of armnn::Dequantize in window order from +0, / (float) divisor, armnn::Quantize; an empty
// window (in the padding) encodes 0.0f.
std::int64_t armnn_average(const std::vector<std::int32_t>& taps, std::int64_t divisor, const Scales& s) {
  float v = 0.0f;
  if (!taps.empty()) {
    for (auto t : taps) v += static_cast<float>(t - s.zx) * s.xs;
    v /= static_cast<float>(divisor);
  }
  if (!std::isfinite(v)) throw Unsupported("armnn.cpuref: a float step overflows (REQUIRE)");
  const float q = std::round(v / s.ys) + static_cast<float>(s.zy);
  return static_cast<std::int64_t>(
      std::min(std::max(q, static_cast<float>(lo_of(s.t))), static_cast<float>(hi_of(s.t))));
}

// TOSA AVG_POOL2D with input_zp = output_zp = 0 (the TFLite legalization's): reciprocal_scale(count)
// and apply_scale_32(acc, multiplier, 30 + k, false), clipped to int8 (qlinear.avg_pool2d.tosa).
std::int64_t tosa_avg(std::int64_t acc, std::int64_t count) {
  int k = 0;
  while ((std::int64_t{1} << k) < count) ++k;
  const std::int64_t multiplier = (((std::int64_t{1} << 30) + 1) << k) / count;
  const int shift = 30 + k;
  const std::int64_t v = (acc * multiplier + (std::int64_t{1} << (shift - 1))) >> shift;  // arithmetic shift
  return std::clamp<std::int64_t>(v, -128, 127);
}

// TOSA's lowering of TFLite's int8 MEAN over H and W (qlinear.global_avg_pool.tosa): RESCALE by 1.0
// (x - z_x exactly), REDUCE_SUM, one RESCALE by M = floor(M_o 2^k / n), s = s_o + k, DOUBLE_ROUND.
struct TosaMean {
  std::int64_t multiplier;
  int shift;
};
TosaMean tosa_mean_scale(const Scales& s, std::int64_t n) {
  reject_if(s.t != QSPEC_DTYPE_INT8, "tosa: a TFLite int8 MEAN (int8 tensors only)");
  reject_if(!fits(s.zx, s.t) || !fits(s.zy, s.t), "tosa: the zero points must fit int8");
  if (!finite_positive(s.xs) || !finite_positive(s.ys)) throw Unsupported("tosa: scales finite and positive");
  const auto o = qlinear::tosa_multiplier_and_shift(static_cast<double>(s.xs) / static_cast<double>(s.ys));
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(n));  // 63 - countLeadingZeros(n)
  k = std::min(k, 32);
  k = std::min(k, 62 - o.shift);
  if (k < 0) throw Unsupported("tosa: a negative shift of the multiplier (REQUIRE)");
  const TosaMean m{(o.multiplier << k) / n, o.shift + k};
  if (m.shift < 2 || m.shift > 62) throw Unsupported("tosa: apply_scale_32 needs 2 <= shift <= 62 (REQUIRE)");
  return m;
}
std::int64_t tosa_mean(std::int64_t acc, const TosaMean& m, std::int64_t zy) {
  const std::int64_t half = std::int64_t{1} << (m.shift - 1);
  if (acc < -half || acc >= half) throw Unsupported("tosa: apply_scale_32's value range (REQUIRE)");
  __int128 round = half;
  if (m.shift > 31) round += acc >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);  // DOUBLE_ROUND
  const auto v = static_cast<std::int64_t>((static_cast<__int128>(acc) * m.multiplier + round) >> m.shift);
  return std::clamp<std::int64_t>(v + zy, -128, 127);
}

template <Conv conv>
void avg_pool2d(OpCall& c) {
  const qspec_tensor& xt = named(c, Avg::in::x);
  const IntArray x = read_int(xt);
  Window w;
  w.k = geometry<2>(c, Avg::attr::kernel, {0, 0});
  reject_if(!attr::has(c.attrs, Avg::attr::kernel), "qlinear.avg_pool2d: kernel is required");
  w.s = geometry<2>(c, Avg::attr::strides, {1, 1});
  w.pads = geometry<4>(c, Avg::attr::pads, {0, 0, 0, 0});
  const bool include = attr::get_or(c.attrs, Avg::attr::count_include_pad, false);
  const Scales s =
      read_scales<Avg::attr>(c, xt, conv != Conv::kOnnxRuntime && conv != Conv::kArmnn && conv != Conv::kTosa);
  const auto [oh, ow] = out_size(x, w);
  const std::int64_t H = x.dim(1), W = x.dim(2), K = w.k[0] * w.k[1];
  float S = 0.0f;
  bool global = false;
  if (conv == Conv::kXnnpack) {
    reject_if(s.t != QSPEC_DTYPE_UINT8, "xnnpack.fp32: average pooling is qu8 only");
    reject_if(K == 1, "xnnpack.fp32: 1x1 pooling is meaningless");
    reject_if(w.any_pad() && !include, "xnnpack.fp32: the operator always divides by KH KW");
    S = xnnpack_scale(s, K);  // includes the ratio check; K < 2^24 in any vector this size
    global = H + w.pads[0] + w.pads[2] == w.k[0] && W + w.pads[1] + w.pads[3] == w.k[1];
  } else if (conv == Conv::kOnnxRuntime) {
    for (std::size_t a = 0; a < 2; ++a)
      reject_if(w.pads[a] >= w.k[a] || w.pads[a + 2] >= w.k[a], "onnxruntime: Pad should be smaller than kernel");
    global = H == w.k[0] && W == w.k[1] && !w.any_pad();
    if (global) {
      S = onnxruntime_global_scale(s, K);
    } else {
      reject_if(!fits(s.zx, s.t) || !fits(s.zy, s.t), "onnxruntime: the zero points must have x's type");
      if (!finite_positive(s.xs) || !finite_positive(s.ys))
        throw Unsupported("onnxruntime: scales finite and positive");
    }
  } else if (conv == Conv::kArmnn) {
    armnn_shape_rule(x, w, oh, ow);
    armnn_params(s);
  } else if (conv == Conv::kTosa) {
    reject_if(s.t != QSPEC_DTYPE_INT8, "tosa: AVG_POOL2D has no uint8 form");
    for (std::size_t a = 0; a < 2; ++a)
      reject_if(w.pads[a] >= w.k[a] || w.pads[a + 2] >= w.k[a], "tosa: padding must be less than kernel size");
    reject_if(include && w.any_pad(), "tosa: AVG_POOL2D never counts the padding");
    reject_if(!fits(s.zx, s.t) || !fits(s.zy, s.t), "tosa: the zero points must fit int8");
    if (bits_of(s.xs) != bits_of(s.ys) || s.zx != s.zy)
      throw Unsupported("tosa: equal input and output parameters (a REQUIRE)");
  } else {
    reject_if(include && w.any_pad(), "tflite: AveragePool never counts the padding");
    reject_if(!fits(s.ymin, s.t) || !fits(s.ymax, s.t), "tflite: y_min and y_max must fit the dtype");
    if (s.ymin > s.ymax) throw Unsupported("tflite: y_min <= y_max (a REQUIRE)");
    const double diff = std::fabs(static_cast<double>(s.xs - s.ys));
    if (!(diff <= 1.0e-6) || s.zx != s.zy) throw Unsupported("tflite: equal input and output parameters (a REQUIRE)");
  }
  for (auto v : x.data) reject_if(!fits(v, s.t), "qlinear.avg_pool2d: a code outside the dtype");
  std::vector<std::int64_t> y(static_cast<std::size_t>(x.dim(0) * oh * ow * x.dim(3)));
  const std::vector<std::int64_t> shape{x.dim(0), oh, ow, x.dim(3)};
  if (global) {
    std::vector<std::int64_t> acc(y.size());
    each_window(x, w, oh, ow, [&](std::size_t i, const std::vector<std::int32_t>& t) { acc[i] = sum_less(t, s.zx); });
    fp32_epilogue(c.k, acc, S, s, c.output(Avg::out::y, 0), shape);
    return;
  }
  each_window(x, w, oh, ow, [&](std::size_t i, const std::vector<std::int32_t>& t) {
    if (conv == Conv::kXnnpack) {
      y[i] = xnnpack_windowed(sum_less(t, s.zx), S, s);
    } else if (conv == Conv::kOnnxRuntime) {
      y[i] = onnxruntime_windowed(t, include ? K : static_cast<std::int64_t>(t.size()), s);
    } else if (conv == Conv::kArmnn) {
      y[i] = armnn_average(t, include ? K : static_cast<std::int64_t>(t.size()), s);
    } else if (conv == Conv::kTosa) {
      std::int64_t raw = 0;
      for (auto v : t) raw += v;
      y[i] = tosa_avg(raw, static_cast<std::int64_t>(t.size()));
    } else {
      reject_if(t.empty(), "tflite: a window without an input element (filter_count == 0)");
      std::int64_t raw = 0;
      for (auto v : t) raw += v;
      y[i] = std::clamp(tflite_div(raw, static_cast<std::int64_t>(t.size())), s.ymin, s.ymax);
    }
  });
  write_int(c.output(Avg::out::y, 0), shape, y);
}

// gemmlowp/TFLite fixed point for the int8 Mean: QuantizeMultiplier, SRDHM, RDBPOT.
std::int32_t srdhm(std::int32_t a, std::int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const std::int64_t ab = std::int64_t{a} * b;
  const std::int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}
std::int32_t rdbpot(std::int32_t x, int e) {
  const auto mask = static_cast<std::int32_t>((std::int64_t{1} << e) - 1);
  const std::int32_t rem = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > threshold ? 1 : 0);
}

template <Conv conv>
void global_avg_pool(OpCall& c) {
  const qspec_tensor& xt = named(c, Gap::in::x);
  const IntArray x = read_int(xt);
  const Scales s = read_scales<Gap::attr>(c, xt, conv == Conv::kXnnpack);
  Window w;
  out_size(x, w);  // the shape checks
  w.k = {x.dim(1), x.dim(2)};
  const std::int64_t n = x.dim(1) * x.dim(2);
  float S = 0.0f;
  if (conv == Conv::kXnnpack) S = xnnpack_scale(s, n);
  if (conv == Conv::kOnnxRuntime) S = onnxruntime_global_scale(s, n);
  if (conv == Conv::kArmnn) {
    armnn_params(s);
    for (auto v : x.data) reject_if(!fits(v, s.t), "qlinear.global_avg_pool: a code outside the dtype");
    std::vector<std::int64_t> y(static_cast<std::size_t>(x.dim(0) * x.dim(3)));
    each_window(x, w, 1, 1, [&](std::size_t i, const std::vector<std::int32_t>& t) { y[i] = armnn_average(t, n, s); });
    write_int(c.output(Gap::out::y, 0), {x.dim(0), 1, 1, x.dim(3)}, y);
    return;
  }
  if (conv == Conv::kTosa) {
    const TosaMean m = tosa_mean_scale(s, n);
    for (auto v : x.data) reject_if(!fits(v, s.t), "qlinear.global_avg_pool: a code outside the dtype");
    std::vector<std::int64_t> y(static_cast<std::size_t>(x.dim(0) * x.dim(3)));
    each_window(x, w, 1, 1, [&](std::size_t i, const std::vector<std::int32_t>& t) {
      y[i] = tosa_mean(sum_less(t, s.zx), m, s.zy);
    });
    write_int(c.output(Gap::out::y, 0), {x.dim(0), 1, 1, x.dim(3)}, y);
    return;
  }
  std::int32_t qm = 0;
  int shift = 0;
  if (conv == Conv::kTflite) {
    if (s.t != QSPEC_DTYPE_INT8) throw Unsupported("tflite: the int8 Mean kernel (a REQUIRE)");
    if (!finite_positive(s.xs) || !finite_positive(s.ys)) throw Unsupported("tflite: scales finite and positive");
    const double m = static_cast<double>(s.xs) / static_cast<double>(s.ys);
    const double q = std::frexp(m, &shift);
    auto q_fixed = static_cast<std::int64_t>(std::round(q * static_cast<double>(std::int64_t{1} << 31)));
    if (q_fixed == (std::int64_t{1} << 31)) q_fixed /= 2, ++shift;
    if (shift < -31) shift = 0, q_fixed = 0;
    if (shift > 30) throw Unsupported("tflite: MultiplyByQuantizedMultiplier needs shift <= 30 (a REQUIRE)");
    qm = static_cast<std::int32_t>(q_fixed);
  }
  for (auto v : x.data) reject_if(!fits(v, s.t), "qlinear.global_avg_pool: a code outside the dtype");
  const std::vector<std::int64_t> shape{x.dim(0), 1, 1, x.dim(3)};
  std::vector<std::int64_t> acc(static_cast<std::size_t>(x.dim(0) * x.dim(3)));
  each_window(x, w, 1, 1, [&](std::size_t i, const std::vector<std::int32_t>& t) { acc[i] = sum_less(t, s.zx); });
  if (conv != Conv::kTflite) {
    fp32_epilogue(c.k, acc, S, s, c.output(Gap::out::y, 0), shape);
    return;
  }
  std::vector<std::int64_t> y(acc.size());
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const std::int64_t shifted = acc[i] * (std::int64_t{1} << left);
    if (shifted < INT32_MIN || shifted > INT32_MAX) throw Unsupported("tflite: x * 2^shift beyond int32 (a REQUIRE)");
    const std::int32_t v = rdbpot(srdhm(static_cast<std::int32_t>(shifted), qm), right);
    y[i] = std::clamp(tflite_div(v, n) + s.zy, std::int64_t{-128}, std::int64_t{127});
  }
  write_int(c.output(Gap::out::y, 0), shape, y);
}

template <Conv conv>
void max_pool2d(OpCall& c) {
  const qspec_tensor& xt = named(c, Max::in::x);
  const IntArray x = read_int(xt);
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "qlinear pool: x must be int8 or uint8");
  reject_if(!attr::has(c.attrs, Max::attr::kernel), "qlinear.max_pool2d: kernel is required");
  Window w;
  w.k = geometry<2>(c, Max::attr::kernel, {0, 0});
  w.s = geometry<2>(c, Max::attr::strides, {1, 1});
  w.d = geometry<2>(c, Max::attr::dilations, {1, 1});
  w.pads = geometry<4>(c, Max::attr::pads, {0, 0, 0, 0});
  const auto [oh, ow] = out_size(x, w);
  const std::int64_t lo = lo_of(xt.dtype), hi = hi_of(xt.dtype);
  std::int64_t ymin = lo, ymax = hi;
  if (conv != Conv::kOnnxRuntime && conv != Conv::kArmnn && conv != Conv::kTosa) {
    ymin = attr::get_or(c.attrs, Max::attr::y_min, lo);
    ymax = attr::get_or(c.attrs, Max::attr::y_max, hi);
    reject_if(ymin < lo || ymin > hi || ymax < lo || ymax > hi,
              "qlinear.max_pool2d: y_min and y_max must fit the dtype");
  }
  if (conv == Conv::kXnnpack) {
    reject_if(w.k[0] * w.k[1] == 1, "xnnpack.fp32: 1x1 pooling is meaningless");
    reject_if(ymin >= ymax, "xnnpack.fp32: range min must be below range max");
  } else if (conv == Conv::kOnnxRuntime) {
    for (std::size_t a = 0; a < 2; ++a)
      reject_if(w.pads[a] >= w.k[a] || w.pads[a + 2] >= w.k[a], "onnxruntime: Pad should be smaller than kernel");
  } else if (conv == Conv::kArmnn) {
    armnn_shape_rule(x, w, oh, ow);
  } else if (conv == Conv::kTosa) {  // qlinear.max_pool2d.tosa: MAX_POOL2D.tosac
    reject_if(xt.dtype != QSPEC_DTYPE_INT8, "tosa: MAX_POOL2D has no uint8 form");
    reject_if(w.d[0] != 1 || w.d[1] != 1, "tosa: MAX_POOL2D has no dilation");
    for (std::size_t a = 0; a < 2; ++a) {
      reject_if(w.pads[a] >= w.k[a] || w.pads[a + 2] >= w.k[a], "tosa: padding must be less than kernel size");
      if ((x.dim(static_cast<int>(a) + 1) + w.pads[a] + w.pads[a + 2] - w.k[a]) % w.s[a] != 0)
        throw Unsupported("tosa: idiv_check: the stride must divide the padded span (a REQUIRE)");
    }
  } else {
    reject_if(w.d[0] != 1 || w.d[1] != 1, "tflite: MaxPool has no dilation");
    if (ymin > ymax) throw Unsupported("tflite: y_min <= y_max (a REQUIRE)");
  }
  for (auto v : x.data) reject_if(v < lo || v > hi, "qlinear.max_pool2d: a code outside the dtype");
  std::vector<std::int64_t> y(static_cast<std::size_t>(x.dim(0) * oh * ow * x.dim(3)));
  each_window(x, w, oh, ow, [&](std::size_t i, const std::vector<std::int32_t>& t) {
    if (conv == Conv::kXnnpack && t.empty())
      throw Unsupported("xnnpack.fp32: a window without an input element (a REQUIRE)");
    if (conv == Conv::kArmnn && t.empty())
      throw Unsupported("armnn.cpuref: a window without an input element (a REQUIRE)");
    std::int64_t m = lo;
    for (auto v : t) m = std::max<std::int64_t>(m, v);
    y[i] = std::clamp(m, ymin, ymax);
  });
  write_int(c.output(Max::out::y, 0), {x.dim(0), oh, ow, x.dim(3)}, y);
}

}  // namespace

void add_qlinear_pool_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Avg>(Avg::conv::xnnpack_fp32, "window sums, XNNPACK qu8 avgpool rounding / fp32 global epilogue",
                         avg_pool2d<Conv::kXnnpack>));
  t.push_back(entry<Avg>(Avg::conv::onnxruntime, "window sums, ONNX Runtime float pipeline / MLAS global epilogue",
                         avg_pool2d<Conv::kOnnxRuntime>));
  t.push_back(entry<Avg>(Avg::conv::tflite_double_round, "TFLite rounded division of the code sums",
                         avg_pool2d<Conv::kTflite>));
  t.push_back(
      entry<Gap>(Gap::conv::xnnpack_fp32, "window sums, XNNPACK fp32 epilogue", global_avg_pool<Conv::kXnnpack>));
  t.push_back(entry<Gap>(Gap::conv::onnxruntime, "window sums, MLAS epilogue", global_avg_pool<Conv::kOnnxRuntime>));
  t.push_back(entry<Gap>(Gap::conv::tflite_double_round, "window sums, TFLite int8 Mean fixed point",
                         global_avg_pool<Conv::kTflite>));
  t.push_back(entry<Max>(Max::conv::xnnpack_fp32, "clamped window maximum", max_pool2d<Conv::kXnnpack>));
  t.push_back(
      entry<Max>(Max::conv::onnxruntime, "window maximum, lowest code when empty", max_pool2d<Conv::kOnnxRuntime>));
  t.push_back(entry<Max>(Max::conv::tflite_double_round, "clamped window maximum, lowest code when empty",
                         max_pool2d<Conv::kTflite>));
  const std::string armnn = "Arm NN CpuRef Pooling2d: ";
  t.push_back(entry<Avg>(Avg::conv::armnn_cpuref, armnn + "float sum of the dequantized taps, / count, round half away",
                         avg_pool2d<Conv::kArmnn>));
  t.push_back(entry<Gap>(Gap::conv::armnn_cpuref, armnn + "float sum of the image, / H W, round half away",
                         global_avg_pool<Conv::kArmnn>));
  t.push_back(entry<Max>(Max::conv::armnn_cpuref, armnn + "window maximum", max_pool2d<Conv::kArmnn>));
  t.push_back(
      entry<Avg>(Avg::conv::tosa, "code sums, TOSA reciprocal_scale and apply_scale_32", avg_pool2d<Conv::kTosa>));
  t.push_back(
      entry<Max>(Max::conv::tosa, "MAX_POOL2D: window maximum, padding never selected", max_pool2d<Conv::kTosa>));
  t.push_back(entry<Gap>(Gap::conv::tosa, "RESCALE, REDUCE_SUM, RESCALE by floor(M_o 2^k / n) (DOUBLE_ROUND)",
                         global_avg_pool<Conv::kTosa>));
}

}  // namespace qspec::simd
