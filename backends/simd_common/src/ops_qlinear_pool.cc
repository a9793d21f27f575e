// Handlers of qlinear.avg_pool2d, qlinear.global_avg_pool and qlinear.max_pool2d
// (spec/operators_qlinear_pool.md) under xnnpack.fp32, onnxruntime, tflite.double_round and
// armnn.cpuref (spec/operators_qlinear_armnn.md: Arm NN's float pipeline): the average pools of
// xnnpack.fp32, onnxruntime and tflite derive PoolParams once (qspec/simd/qlinear_pool.h) and run the
// kernel set's pooling kernel (or its scalar form, pool_one per window, where a REQUIRE may fail);
// Arm NN's and TOSA's averages and every max pooling are scalar loops here (correctness first;
// -ffp-contract=off keeps every float step separate).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"
#include "qspec/simd/qlinear_pool.h"

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
std::array<std::int64_t, 2> out_size(const std::vector<std::int64_t>& shape, const Window& w) {
  reject_if(shape.size() != 4, "qlinear pool: x must be (N, H, W, C)");
  for (auto v : shape) reject_if(v < 1, "qlinear pool: x has an empty dimension");
  for (int i = 0; i < 2; ++i)
    reject_if(w.k[i] < 1 || w.s[i] < 1 || w.d[i] < 1, "qlinear pool: kernel, strides, dilations >= 1");
  for (auto p : w.pads) reject_if(p < 0, "qlinear pool: pads >= 0");
  std::array<std::int64_t, 2> o{};
  for (std::size_t a = 0; a < 2; ++a) {
    const std::int64_t span = shape[a + 1] + w.pads[a] + w.pads[a + 2] - (w.d[a] * (w.k[a] - 1) + 1);
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

std::int64_t sum_less(const std::vector<std::int32_t>& taps, std::int64_t zp) {
  std::int64_t a = 0;
  for (auto v : taps) a += v - zp;
  if (a < INT32_MIN || a > INT32_MAX) throw Unsupported("qlinear pool: window sum beyond int32 (a REQUIRE)");
  return a;
}

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

// The geometry of a qlinear.avg_pool2d call (kernel, strides, pads; dilation 1) and count_include_pad.
Window avg_window(const OpCall& c, bool& include) {
  Window w;
  w.k = geometry<2>(c, Avg::attr::kernel, {0, 0});
  reject_if(!attr::has(c.attrs, Avg::attr::kernel), "qlinear.avg_pool2d: kernel is required");
  w.s = geometry<2>(c, Avg::attr::strides, {1, 1});
  w.pads = geometry<4>(c, Avg::attr::pads, {0, 0, 0, 0});
  include = attr::get_or(c.attrs, Avg::attr::count_include_pad, false);
  return w;
}

PoolParams pool_base(PoolParams::Kind kind, const Scales& s, const std::vector<std::int64_t>& shape, const Window& w,
                     std::int64_t oh, std::int64_t ow) {
  PoolParams p;
  p.kind = kind;
  p.u8 = s.t == QSPEC_DTYPE_UINT8;
  p.g = {shape[0], shape[1], shape[2], shape[3], w.k[0], w.k[1], w.s[0], w.s[1], w.pads[0], w.pads[1], oh, ow};
  // Zero points the checks let through beyond the dtype (TFLite's) are int32 there; wider is Unsupported.
  if (s.zx < INT32_MIN || s.zx > INT32_MAX || s.zy < INT32_MIN || s.zy > INT32_MAX)
    throw Unsupported("qlinear pool: zero points beyond int32");
  p.zx = static_cast<std::int32_t>(s.zx), p.zy = static_cast<std::int32_t>(s.zy);
  p.lo = static_cast<std::int32_t>(std::max(s.ymin, lo_of(s.t)));
  p.hi = static_cast<std::int32_t>(std::min(s.ymax, hi_of(s.t)));
  return p;
}

// The kernel's parameters of qlinear.avg_pool2d under xnnpack.fp32, onnxruntime and tflite after
// every check of the convention (Rejected / Unsupported as the handler throws them).
template <Conv conv>
PoolParams avg_pool_params(const OpCall& c, const qspec_tensor& xt) {
  bool include = false;
  const Window w = avg_window(c, include);
  const Scales s = read_scales<Avg::attr>(c, xt, conv != Conv::kOnnxRuntime);
  const std::vector<std::int64_t> shape(xt.shape, xt.shape + xt.rank);
  const auto [oh, ow] = out_size(shape, w);
  const std::int64_t H = shape[1], W = shape[2], K = w.k[0] * w.k[1];
  using PK = PoolParams::Kind;
  if constexpr (conv == Conv::kXnnpack) {
    reject_if(s.t != QSPEC_DTYPE_UINT8, "xnnpack.fp32: average pooling is qu8 only");
    reject_if(K == 1, "xnnpack.fp32: 1x1 pooling is meaningless");
    reject_if(w.any_pad() && !include, "xnnpack.fp32: the operator always divides by KH KW");
    const float S = xnnpack_scale(s, K);  // includes the ratio check; K < 2^24 in any vector this size
    const bool global = H + w.pads[0] + w.pads[2] == w.k[0] && W + w.pads[1] + w.pads[3] == w.k[1];
    PoolParams p = pool_base(global ? PK::kFp32 : PK::kXnnpack, s, shape, w, oh, ow);
    p.scale = S;
    p.mult = (bits_of(S) & 0x007fffffu) | 0x00800000u;
    p.shift = static_cast<int>(150 - (bits_of(S) >> 23));
    qlinear::set_pool_fast(p, 0);
    return p;
  } else if constexpr (conv == Conv::kOnnxRuntime) {
    for (std::size_t a = 0; a < 2; ++a)
      reject_if(w.pads[a] >= w.k[a] || w.pads[a + 2] >= w.k[a], "onnxruntime: Pad should be smaller than kernel");
    const bool global = H == w.k[0] && W == w.k[1] && !w.any_pad();
    if (global) {
      const float S = onnxruntime_global_scale(s, K);  // its rejections first
      PoolParams p = pool_base(PK::kFp32, s, shape, w, oh, ow);
      p.scale = S;
      qlinear::set_pool_fast(p, 0);
      return p;
    }
    reject_if(!fits(s.zx, s.t) || !fits(s.zy, s.t), "onnxruntime: the zero points must have x's type");
    if (!finite_positive(s.xs) || !finite_positive(s.ys)) throw Unsupported("onnxruntime: scales finite and positive");
    PoolParams p = pool_base(PK::kOrt, s, shape, w, oh, ow);
    p.xs = s.xs, p.ys = s.ys, p.fzy = static_cast<float>(s.zy), p.include = include;
    qlinear::set_pool_fast(p, 0);
    return p;
  } else {
    reject_if(include && w.any_pad(), "tflite: AveragePool never counts the padding");
    reject_if(!fits(s.ymin, s.t) || !fits(s.ymax, s.t), "tflite: y_min and y_max must fit the dtype");
    if (s.ymin > s.ymax) throw Unsupported("tflite: y_min <= y_max (a REQUIRE)");
    const double diff = std::fabs(static_cast<double>(s.xs - s.ys));
    if (!(diff <= 1.0e-6) || s.zx != s.zy) throw Unsupported("tflite: equal input and output parameters (a REQUIRE)");
    Scales codes = s;
    codes.zx = codes.zy = 0;  // the codes are summed and divided: the zero points play no part
    PoolParams p = pool_base(PK::kTflite, codes, shape, w, oh, ow);
    for (std::int64_t oy = 0; oy < oh; ++oy)
      for (std::int64_t ox = 0; ox < ow; ++ox)
        reject_if(pool_window(p.g, oy, ox).n_in == 0, "tflite: a window without an input element (filter_count == 0)");
    qlinear::set_pool_fast(p, 0);
    return p;
  }
}

// The kernel's parameters of qlinear.global_avg_pool under xnnpack.fp32, onnxruntime and tflite.
template <Conv conv>
PoolParams global_pool_params(const OpCall& c, const qspec_tensor& xt) {
  const Scales s = read_scales<Gap::attr>(c, xt, conv == Conv::kXnnpack);
  const std::vector<std::int64_t> shape(xt.shape, xt.shape + xt.rank);
  Window w;
  out_size(shape, w);  // the shape checks
  w.k = {shape[1], shape[2]};
  const std::int64_t n = shape[1] * shape[2];
  using PK = PoolParams::Kind;
  if constexpr (conv == Conv::kTflite) {
    if (s.t != QSPEC_DTYPE_INT8) throw Unsupported("tflite: the int8 Mean kernel (a REQUIRE)");
    if (!finite_positive(s.xs) || !finite_positive(s.ys)) throw Unsupported("tflite: scales finite and positive");
    const double ratio = static_cast<double>(s.xs) / static_cast<double>(s.ys);
    int shift = 0;
    const double q = std::frexp(ratio, &shift);
    auto q_fixed = static_cast<std::int64_t>(std::round(q * static_cast<double>(std::int64_t{1} << 31)));
    if (q_fixed == (std::int64_t{1} << 31)) q_fixed /= 2, ++shift;
    if (shift < -31) shift = 0, q_fixed = 0;
    if (shift > 30) throw Unsupported("tflite: MultiplyByQuantizedMultiplier needs shift <= 30 (a REQUIRE)");
    Scales sat = s;
    sat.ymin = -128, sat.ymax = 127;  // sat_int8: no fused clamp
    PoolParams p = pool_base(PK::kTfliteMean, sat, shape, w, 1, 1);
    p.qm = static_cast<std::int32_t>(q_fixed);
    p.left = shift > 0 ? shift : 0, p.right = shift > 0 ? 0 : -shift;
    qlinear::set_pool_fast(p, ratio);
    return p;
  } else {
    const float S = conv == Conv::kXnnpack ? xnnpack_scale(s, n) : onnxruntime_global_scale(s, n);  // rejections first
    PoolParams p = pool_base(PK::kFp32, s, shape, w, 1, 1);
    p.scale = S;
    qlinear::set_pool_fast(p, 0);
    return p;
  }
}

template <Conv conv>
void avg_pool2d(OpCall& c) {
  const qspec_tensor& xt = named(c, Avg::in::x);
  if constexpr (conv == Conv::kXnnpack || conv == Conv::kOnnxRuntime || conv == Conv::kTflite) {
    qlinear::run_pool(c, avg_pool_params<conv>(c, xt), xt, Avg::out::y);
  } else {
    const IntArray x = read_int(xt);
    bool include = false;
    const Window w = avg_window(c, include);
    const Scales s = read_scales<Avg::attr>(c, xt, false);
    const auto [oh, ow] = out_size(x.shape, w);
    if constexpr (conv == Conv::kArmnn) {
      armnn_shape_rule(x, w, oh, ow);
      armnn_params(s);
    } else {
      reject_if(s.t != QSPEC_DTYPE_INT8, "tosa: AVG_POOL2D has no uint8 form");
      for (std::size_t a = 0; a < 2; ++a)
        reject_if(w.pads[a] >= w.k[a] || w.pads[a + 2] >= w.k[a], "tosa: padding must be less than kernel size");
      reject_if(include && w.any_pad(), "tosa: AVG_POOL2D never counts the padding");
      reject_if(!fits(s.zx, s.t) || !fits(s.zy, s.t), "tosa: the zero points must fit int8");
      if (bits_of(s.xs) != bits_of(s.ys) || s.zx != s.zy)
        throw Unsupported("tosa: equal input and output parameters (a REQUIRE)");
      // Below 2^22 taps AVG_POOL2D's reciprocal_scale and apply_scale_32 round exactly as TFLite's
      // division of the code sum (qlinear.avg_pool2d.tosa's theorem): the kernel's kTflite where fast.
      Scales codes = s;
      codes.zx = codes.zy = 0;
      PoolParams p = pool_base(PoolParams::Kind::kTflite, codes, x.shape, w, oh, ow);
      qlinear::set_pool_fast(p, 0);
      if (p.fast) return qlinear::run_pool(c, p, xt, Avg::out::y);
    }
    for (auto v : x.data) reject_if(!fits(v, s.t), "qlinear.avg_pool2d: a code outside the dtype");
    const std::int64_t K = w.k[0] * w.k[1];
    std::vector<std::int64_t> y(static_cast<std::size_t>(x.dim(0) * oh * ow * x.dim(3)));
    each_window(x, w, oh, ow, [&](std::size_t i, const std::vector<std::int32_t>& t) {
      if constexpr (conv == Conv::kArmnn) {
        y[i] = armnn_average(t, include ? K : static_cast<std::int64_t>(t.size()), s);
      } else {
        std::int64_t raw = 0;
        for (auto v : t) raw += v;
        y[i] = tosa_avg(raw, static_cast<std::int64_t>(t.size()));
      }
    });
    write_int(c.output(Avg::out::y, 0), {x.dim(0), oh, ow, x.dim(3)}, y);
  }
}

template <Conv conv>
void global_avg_pool(OpCall& c) {
  const qspec_tensor& xt = named(c, Gap::in::x);
  if constexpr (conv == Conv::kXnnpack || conv == Conv::kOnnxRuntime || conv == Conv::kTflite) {
    qlinear::run_pool(c, global_pool_params<conv>(c, xt), xt, Gap::out::y);
  } else {
    const IntArray x = read_int(xt);
    const Scales s = read_scales<Gap::attr>(c, xt, false);
    Window w;
    out_size(x.shape, w);  // the shape checks
    w.k = {x.dim(1), x.dim(2)};
    const std::int64_t n = x.dim(1) * x.dim(2);
    std::vector<std::int64_t> y(static_cast<std::size_t>(x.dim(0) * x.dim(3)));
    if constexpr (conv == Conv::kArmnn) {
      armnn_params(s);
      for (auto v : x.data) reject_if(!fits(v, s.t), "qlinear.global_avg_pool: a code outside the dtype");
      each_window(x, w, 1, 1,
                  [&](std::size_t i, const std::vector<std::int32_t>& t) { y[i] = armnn_average(t, n, s); });
    } else {
      const TosaMean m = tosa_mean_scale(s, n);
      for (auto v : x.data) reject_if(!fits(v, s.t), "qlinear.global_avg_pool: a code outside the dtype");
      each_window(x, w, 1, 1, [&](std::size_t i, const std::vector<std::int32_t>& t) {
        y[i] = tosa_mean(sum_less(t, s.zx), m, s.zy);
      });
    }
    write_int(c.output(Gap::out::y, 0), {x.dim(0), 1, 1, x.dim(3)}, y);
  }
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
  const auto [oh, ow] = out_size(x.shape, w);
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
