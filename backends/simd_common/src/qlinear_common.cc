// The engine conventions of the quantized operators (spec/operators_qlinear.md) on the optimized
// backends: parameters and their ERROR_IFs, then the epilogue on the requantization kernels: binary32
// scales on kFloatThenZp (y = sat(rne(fl32(fl32(acc) * S)) + zp) to the clamp range), TFLite's Q31
// multipliers on kQ31Double (default build) or kShiftRound (TFLITE_SINGLE_ROUNDING).
#include "qlinear_common.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "q31_params.h"
#include "qspec/simd/requant.h"

namespace qspec::simd::qlinear {

const qspec_tensor* optional_input(const OpCall& c, std::string_view name) {
  for (std::size_t i = 0; i < c.n_inputs; ++i)
    if (c.inputs[i].name && name == c.inputs[i].name) return &c.inputs[i];
  return nullptr;
}
const qspec_tensor& named(const OpCall& c, std::string_view name) {
  if (const auto* t = optional_input(c, name)) return *t;
  throw std::invalid_argument("missing input tensor '" + std::string(name) + "'");
}

Params read_params(const OpCall& c, const Keys& k, const qspec_tensor& x, const qspec_tensor& w, Convention conv) {
  Params p;
  const auto eight_bit = [](qspec_dtype t) { return t == QSPEC_DTYPE_INT8 || t == QSPEC_DTYPE_UINT8; };
  if (!eight_bit(x.dtype) || !eight_bit(w.dtype)) throw Unsupported("qlinear: 8-bit tensors only");
  p.x_type = x.dtype, p.w_type = w.dtype;
  p.x_scale = f32_of(attr::get(c.attrs, k.x_scale));
  p.x_zero_point = attr::get(c.attrs, k.x_zero_point);
  for (auto b : attr::get(c.attrs, k.w_scales)) p.w_scales.push_back(f32_of(b));
  p.w_zero_point = attr::get_or(c.attrs, k.w_zero_point, std::int64_t{0});
  p.y_scale = f32_of(attr::get(c.attrs, k.y_scale));
  p.y_zero_point = attr::get(c.attrs, k.y_zero_point);
  p.y_min = lo_of(p.x_type), p.y_max = hi_of(p.x_type);
  if (has_clamp(conv)) {
    p.y_min = attr::get_or(c.attrs, k.y_min, p.y_min);
    p.y_max = attr::get_or(c.attrs, k.y_max, p.y_max);
  }
  return p;
}

namespace {

// The binary32 scales S_o of XNNPACK and ONNX Runtime after their ERROR_IFs.
std::vector<float> fp32_scales(const Params& p, std::int64_t channels, Convention conv) {
  using nn::reject_if;
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  const bool s8 = p.x_type == QSPEC_DTYPE_INT8 && p.w_type == QSPEC_DTYPE_INT8;
  const bool u8 = p.x_type == QSPEC_DTYPE_UINT8 && p.w_type == QSPEC_DTYPE_UINT8;
  const bool u8s8 = p.x_type == QSPEC_DTYPE_UINT8 && p.w_type == QSPEC_DTYPE_INT8;
  std::vector<float> s;
  if (conv == Convention::kXnnpackFp32) {
    reject_if(!s8 && !u8, "xnnpack.fp32: no operator for these activation and weight types");
    reject_if(n != 1 && n != channels, "xnnpack.fp32: the weight scales must have 1 or one-per-channel entries");
    reject_if(u8 && n > 1, "xnnpack.fp32: per-channel weight scales need int8 tensors (qc8)");
    reject_if(s8 && p.w_zero_point != 0, "xnnpack.fp32: qs8/qc8 weights have no zero point");
    reject_if(!fits(p.x_zero_point, p.x_type) || !fits(p.w_zero_point, p.w_type) || !fits(p.y_zero_point, p.x_type),
              "xnnpack.fp32: a zero point does not fit its dtype");
    reject_if(!fits(p.y_min, p.x_type) || !fits(p.y_max, p.x_type), "xnnpack.fp32: y_min and y_max must fit the dtype");
    reject_if(!positive_normal(p.x_scale) || !positive_normal(p.y_scale),
              "xnnpack.fp32: scales must be finite, normalized, and positive");
    for (float w : p.w_scales)
      reject_if(!positive_normal(w), "xnnpack.fp32: scales must be finite, normalized, and positive");
    reject_if(p.y_min >= p.y_max, "xnnpack.fp32: y_min must be below y_max");
    for (std::int64_t o = 0; o < channels; ++o) {
      const float so = p.x_scale * p.w_scales[static_cast<std::size_t>(n == 1 ? 0 : o)] / p.y_scale;
      reject_if(!(so < 256.0f), "xnnpack.fp32: requantization scale is greater or equal to 256.0");
      if (so < 0x1.0p-32f) throw Unsupported("xnnpack.fp32: requantization scale below 2^-32 (REQUIRE)");
      s.push_back(so);
    }
    return s;
  }
  reject_if(!s8 && !u8 && !u8s8, "onnxruntime: no kernel for these activation and weight types");
  reject_if(n != 1 && n != channels, "onnxruntime: the weight scales must have 1 or one-per-channel entries");
  reject_if(!fits(p.x_zero_point, p.x_type) || !fits(p.w_zero_point, p.w_type) || !fits(p.y_zero_point, p.x_type),
            "onnxruntime: a zero point does not fit its tensor's dtype");
  if (!finite_positive(p.x_scale) || !finite_positive(p.y_scale))
    throw Unsupported("onnxruntime: scales finite and positive (REQUIRE)");
  for (std::int64_t o = 0; o < channels; ++o) {
    const float w = p.w_scales[static_cast<std::size_t>(n == 1 ? 0 : o)];
    if (!finite_positive(w)) throw Unsupported("onnxruntime: scales finite and positive (REQUIRE)");
    const float so = p.x_scale * w / p.y_scale;
    if (!std::isfinite(so)) throw Unsupported("onnxruntime: a finite requantization scale (REQUIRE)");
    s.push_back(so);
  }
  return s;
}

// PyTorch 1.13's qnnpack engine (qlinear.pytorch_qnnpack): qint8 weights; quint8 activations through
// QNNPACK, S_o = fl32(fl32(w_s[o] x_s) fl32(1 / y_s)); qint8 through XNNPACK (xnnpack.fp32's checks).
std::vector<float> pytorch_qnnpack_scales(const Params& p, std::int64_t channels, OpKind op) {
  using nn::reject_if;
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  reject_if(p.w_type != QSPEC_DTYPE_INT8, "pytorch.qnnpack: PyTorch's quantized weights are qint8");
  reject_if(n != 1 && n != channels, "pytorch.qnnpack: the weight scales must have 1 or one-per-channel entries");
  if (p.x_type == QSPEC_DTYPE_INT8) {
    reject_if(op == OpKind::kFullyConnected && n > 1, "pytorch.qnnpack: no per-channel qint8 linear");
    return fp32_scales(p, channels, Convention::kXnnpackFp32);
  }
  reject_if(!fits(p.x_zero_point, QSPEC_DTYPE_UINT8) || !fits(p.w_zero_point, QSPEC_DTYPE_INT8) ||
                !fits(p.y_zero_point, QSPEC_DTYPE_UINT8),
            "pytorch.qnnpack: a zero point does not fit its dtype");
  if (!positive_normal(p.x_scale) || !positive_normal(p.y_scale))
    throw Unsupported("pytorch.qnnpack: positive normal scales (REQUIRE)");
  const float inv_y = 1.0f / p.y_scale;
  std::vector<float> s;
  for (std::int64_t o = 0; o < channels; ++o) {
    const float w = p.w_scales[static_cast<std::size_t>(n == 1 ? 0 : o)];
    if (!positive_normal(w)) throw Unsupported("pytorch.qnnpack: positive normal scales (REQUIRE)");
    const float so = (w * p.x_scale) * inv_y;
    reject_if(!positive_normal(so), "pytorch.qnnpack: requantization scale must be finite and positive");
    s.push_back(so);
  }
  return s;
}

// TFLite's Prepare ERROR_IFs (spec/operators_qlinear.md, qlinear.tflite) and every channel's
// (M_o, shift_o) = QuantizeMultiplier(d_o), d_o derived in binary64 on the per-channel path
// (double(x_s) * double(w_s[o]) / double(y_s)) or the per-tensor path (double(x_s * w_s) / double(y_s)).
std::vector<RequantParams> tflite_plan(const Params& p, std::int64_t channels, Convention conv, OpKind op) {
  using nn::reject_if;
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  const bool s8 = p.x_type == QSPEC_DTYPE_INT8 && p.w_type == QSPEC_DTYPE_INT8;
  const bool u8 = p.x_type == QSPEC_DTYPE_UINT8 && p.w_type == QSPEC_DTYPE_UINT8;
  const bool matmul = op == OpKind::kMatmul;
  reject_if(matmul && !s8, "tflite: BATCH_MATMUL takes int8 operands");
  reject_if(!s8 && !u8, "tflite: no kernel for these activation and weight types");
  reject_if(matmul && n != 1, "tflite: BATCH_MATMUL has one weight scale");
  reject_if(n != 1 && n != channels, "tflite: the weight scales must have 1 or one-per-channel entries");
  reject_if(n > 1 && !s8, "tflite: per-channel quantization needs int8 tensors");
  const bool per_channel_path =
      op == OpKind::kConv ? p.x_type == QSPEC_DTYPE_INT8 : op == OpKind::kFullyConnected && n > 1;
  reject_if(per_channel_path && p.w_zero_point != 0, "tflite: the per-channel kernels' int8 weights have zero point 0");
  reject_if(!fits(p.x_zero_point, p.x_type) || !fits(p.w_zero_point, p.w_type) || !fits(p.y_zero_point, p.x_type),
            "tflite: a zero point does not fit its dtype");
  reject_if(!fits(p.y_min, p.x_type) || !fits(p.y_max, p.x_type), "tflite: y_min and y_max must fit the dtype");
  reject_if(p.y_min > p.y_max, "tflite: y_min must not exceed y_max");
  const bool single = conv == Convention::kTfliteSingle;
  std::vector<RequantParams> out;
  for (std::int64_t o = 0; o < channels; ++o) {
    const float ws = p.w_scales[static_cast<std::size_t>(n == 1 ? 0 : o)];
    if (!std::isfinite(p.x_scale) || !std::isfinite(ws) || !std::isfinite(p.y_scale) || p.y_scale == 0.0f)
      throw Unsupported("tflite: finite scales and y_scale != 0 (REQUIRE)");
    double d;
    if (per_channel_path) {
      d = static_cast<double>(p.x_scale) * static_cast<double>(ws) / static_cast<double>(p.y_scale);
    } else {
      const float product = p.x_scale * ws;  // GetQuantizedConvolutionMultipler rounds it in float
      if (!std::isfinite(product)) throw Unsupported("tflite: x_scale * w_scale finite in float32 (REQUIRE)");
      reject_if(product < 0.0f, "tflite: input_product_scale >= 0");
      d = static_cast<double>(product) / static_cast<double>(p.y_scale);
    }
    if (!std::isfinite(d)) throw Unsupported("tflite: a finite real multiplier (REQUIRE)");
    reject_if(d < 0.0, "tflite: negative real multiplier (QuantizeMultiplier)");
    // QuantizeMultiplier (quantization_util.cc), either build.
    int shift = 0;
    std::int64_t m = 0;
    if (d != 0.0) {
      const double q = std::frexp(d, &shift);
      m = static_cast<std::int64_t>(std::round(q * static_cast<double>(std::int64_t{1} << 31)));
      if (m == (std::int64_t{1} << 31)) m /= 2, ++shift;
      if (shift < -31) shift = 0, m = 0;
      if (single && shift > 30) shift = 30, m = (std::int64_t{1} << 31) - 1;
    }
    out.push_back(q31_requant_params(single ? Q31Rounding::kTfliteSingle : Q31Rounding::kTfliteDouble, m, shift));
  }
  return out;
}

// TOSA's ERROR_IFs (spec/operators_qlinear.md, qlinear.tosa) and every channel's RESCALE (scale32,
// double_round) with the legalization's computeMultiplierAndShift of double(x_s) * double(w_s[o]) / double(y_s).
std::vector<RequantParams> tosa_plan(const Params& p, std::int64_t channels) {
  using nn::reject_if;
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  reject_if(p.x_type != QSPEC_DTYPE_INT8 || p.w_type != QSPEC_DTYPE_INT8, "tosa: the operators take int8 x int8");
  reject_if(n != 1 && n != channels, "tosa: RESCALE has 1 multiplier or one per channel");
  reject_if(!fits(p.x_zero_point, QSPEC_DTYPE_INT8) || !fits(p.w_zero_point, QSPEC_DTYPE_INT8) ||
                !fits(p.y_zero_point, QSPEC_DTYPE_INT8),
            "tosa: zero points are int8");
  reject_if(!fits(p.y_min, QSPEC_DTYPE_INT8) || !fits(p.y_max, QSPEC_DTYPE_INT8) || p.y_max < p.y_min,
            "tosa: CLAMP's min_val <= max_val in int8");
  std::vector<RequantParams> out;
  for (std::int64_t o = 0; o < channels; ++o) {
    const float ws = p.w_scales[static_cast<std::size_t>(n == 1 ? 0 : o)];
    if (!std::isfinite(p.x_scale) || !std::isfinite(ws) || !std::isfinite(p.y_scale) || p.y_scale == 0.0f)
      throw Unsupported("tosa: finite scales and y_scale != 0 (REQUIRE)");
    const double d = static_cast<double>(p.x_scale) * static_cast<double>(ws) / static_cast<double>(p.y_scale);
    if (!std::isfinite(d) || !(d > 0.0)) throw Unsupported("tosa: a finite positive scale (REQUIRE)");
    const TosaScale t = tosa_multiplier_and_shift(d);
    out.push_back(q31_requant_params(Q31Rounding::kTosaDouble, t.multiplier, 31 - t.shift));  // shift_tflite = 31 - s
  }
  return out;
}

// oneDNN's ERROR_IFs (spec/operators_qlinear.md, qlinear.onednn) and every channel's output scale
// S_o = x_s * w_s[o] / y_s on kFloatInclZp: sat(rne(fl32(fl32(v * S_o) + fl32(zp)))) clamped to
// [y_min, y_max], which equals the eltwise_clip post-op before the zero point where |zp| <= 2^23
// (the clip bounds y - zp and their sums with zp are exact binary32 integers).
std::vector<RequantParams> onednn_plan(const Params& p, std::int64_t channels, OpKind op) {
  using nn::reject_if;
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  reject_if(p.w_type != QSPEC_DTYPE_INT8, "onednn: the int8 primitives take s8 weights only");
  reject_if(n != 1 && n != channels, "onednn: output scales have 1 entry or one per output channel");
  reject_if(op == OpKind::kConv && p.w_zero_point != 0, "onednn: convolution rejects a weights zero point");
  for (std::int64_t z : {p.x_zero_point, p.w_zero_point, p.y_zero_point})
    reject_if(z < INT32_MIN || z > INT32_MAX, "onednn: zero points are s32");
  reject_if(static_cast<float>(p.y_max - p.y_zero_point) < static_cast<float>(p.y_min - p.y_zero_point),
            "onednn: eltwise_clip needs beta >= alpha");
  if (!fits(p.y_min, p.x_type) || !fits(p.y_max, p.x_type))
    throw Unsupported("onednn: the clamp in the dtype (REQUIRE)");
  const bool clamped = p.y_min != lo_of(p.x_type) || p.y_max != hi_of(p.x_type);
  if (clamped && (p.y_zero_point < -(std::int64_t{1} << 23) || p.y_zero_point > (std::int64_t{1} << 23)))
    throw Unsupported("onednn: a clamp with |y_zero_point| > 2^23 is not the kernels' clamp");
  if (!finite_positive(p.x_scale) || !finite_positive(p.y_scale))
    throw Unsupported("onednn: scales finite and positive (REQUIRE)");
  std::vector<RequantParams> out;
  for (std::int64_t o = 0; o < channels; ++o) {
    const float w = p.w_scales[static_cast<std::size_t>(n == 1 ? 0 : o)];
    if (!finite_positive(w)) throw Unsupported("onednn: scales finite and positive (REQUIRE)");
    const float so = p.x_scale * w / p.y_scale;
    if (!std::isfinite(so)) throw Unsupported("onednn: a finite output scale (REQUIRE)");
    RequantParams rp;
    rp.kind = RequantKind::kFloatInclZp;
    rp.scale = so;
    out.push_back(rp);
  }
  return out;
}

// PyTorch 1.13's onednn engine (qlinear.pytorch_onednn): quint8 activations, qint8 weights of zero
// point 0; ideep's reciprocal scales r(s) = fl32(fl64(1 / fl64(s))), M_o = fl32(r(y_s) / fl32(r(x_s)
// r(w_s[o]))) on oneDNN's kFloatInclZp epilogue without a clamp.
std::vector<RequantParams> pytorch_onednn_plan(const Params& p, std::int64_t channels) {
  using nn::reject_if;
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  reject_if(p.x_type != QSPEC_DTYPE_UINT8, "pytorch.onednn: data type of input should be QUint8");
  reject_if(p.w_type != QSPEC_DTYPE_INT8, "pytorch.onednn: PyTorch's quantized weights are qint8");
  reject_if(n != 1 && n != channels, "pytorch.onednn: the weight scales must have 1 or one-per-channel entries");
  reject_if(p.w_zero_point != 0, "pytorch.onednn: ONEDNN only supports symmetric quantization of weight");
  reject_if(!fits(p.x_zero_point, QSPEC_DTYPE_UINT8), "pytorch.onednn: x_zero_point does not fit quint8");
  if (!fits(p.y_zero_point, QSPEC_DTYPE_UINT8)) throw Unsupported("pytorch.onednn: y_zero_point in quint8 (REQUIRE)");
  if (!positive_normal(p.x_scale) || !positive_normal(p.y_scale))
    throw Unsupported("pytorch.onednn: positive normal scales (REQUIRE)");
  const auto reciprocal = [](float s) { return static_cast<float>(1.0 / static_cast<double>(s)); };
  const float dst = reciprocal(p.y_scale);
  std::vector<RequantParams> out;
  for (std::int64_t o = 0; o < channels; ++o) {
    const float w = p.w_scales[static_cast<std::size_t>(n == 1 ? 0 : o)];
    if (!positive_normal(w)) throw Unsupported("pytorch.onednn: positive normal scales (REQUIRE)");
    const float c = reciprocal(p.x_scale) * reciprocal(w);
    const float m = positive_normal(c) ? dst / c : 0.0f;
    if (!positive_normal(c) || !positive_normal(m))
      throw Unsupported("pytorch.onednn: positive normal oneDNN scales (REQUIRE)");
    RequantParams rp;
    rp.kind = RequantKind::kFloatInclZp;
    rp.scale = m;
    out.push_back(rp);
  }
  return out;
}

}  // namespace

TosaScale tosa_multiplier_and_shift(double d) {
  int e = 0;
  const double q = std::frexp(d, &e);
  auto m = static_cast<std::int64_t>(std::round(q * static_cast<double>(std::int64_t{1} << 31)));
  if (m == (std::int64_t{1} << 31)) m /= 2, ++e;
  int s = 31 - e;
  if (s > 62) m >>= std::min(31, s - 62), s = 62;
  return {m, s};
}

std::int64_t add_bias(Convention conv, std::int64_t acc, std::int64_t b) {
  if (!has_onednn_epilogue(conv)) return acc + b;
  if (acc < INT32_MIN || acc > INT32_MAX || acc + b < INT32_MIN || acc + b > INT32_MAX)
    throw Unsupported("onednn: the accumulator with and without the bias in int32 (REQUIRE)");
  volatile float v = static_cast<float>(acc);  // d = static_cast<float>(acc); d += (float)bias
  v = v + static_cast<float>(b);
  return static_cast<std::int64_t>(v);  // an integer of magnitude <= 2^31
}

std::vector<RequantParams> plan(const Params& p, std::int64_t channels, Convention conv, OpKind op) {
  std::vector<RequantParams> out;
  if (is_tflite(conv)) {
    out = tflite_plan(p, channels, conv, op);
  } else if (conv == Convention::kTosa) {
    out = tosa_plan(p, channels);
  } else if (conv == Convention::kOnednn) {
    out = onednn_plan(p, channels, op);
  } else if (conv == Convention::kPytorchOnednn) {
    out = pytorch_onednn_plan(p, channels);
  } else {
    const std::vector<float> scales =
        conv == Convention::kPytorchQnnpack ? pytorch_qnnpack_scales(p, channels, op) : fp32_scales(p, channels, conv);
    for (float s : scales) {
      RequantParams rp;
      rp.kind = RequantKind::kFloatThenZp;
      rp.scale = s;
      out.push_back(rp);
    }
  }
  for (auto& rp : out) {
    rp.out = OutType::I32;  // computed in int32 lanes, narrowed by write_int
    rp.qmin = static_cast<std::int32_t>(p.y_min);
    rp.qmax = static_cast<std::int32_t>(p.y_max);
    rp.zp = static_cast<std::int32_t>(p.y_zero_point);
    if (!finalize(rp)) throw Unsupported("qlinear: requantization parameters outside the kernels");
  }
  return out;
}

void requantize(const KernelSet& k, const std::vector<std::int64_t>& acc, const std::vector<RequantParams>& plan,
                qspec_tensor& out, const std::vector<std::int64_t>& shape) {
  const std::size_t channels = plan.size();
  std::vector<std::int32_t> a32(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    if (acc[i] < INT32_MIN || acc[i] > INT32_MAX) throw Unsupported("qlinear: accumulator beyond int32 (REQUIRE)");
    a32[i] = static_cast<std::int32_t>(acc[i]);
  }
  std::vector<std::int32_t> y(acc.size());
  if (channels == 1 && !acc.empty()) {
    k.requant(plan[0], a32.size(), a32.data(), y.data());
  } else if (!acc.empty()) {
    // Per channel (the last axis): gather each channel, requantize it with its parameters, scatter back.
    const std::size_t rows = acc.size() / channels;
    std::vector<std::int32_t> col(rows), res(rows);
    for (std::size_t ch = 0; ch < channels; ++ch) {
      for (std::size_t r = 0; r < rows; ++r) col[r] = a32[r * channels + ch];
      k.requant(plan[ch], rows, col.data(), res.data());
      for (std::size_t r = 0; r < rows; ++r) y[r * channels + ch] = res[r];
    }
  }
  write_int(out, shape, std::vector<std::int64_t>(y.begin(), y.end()));
}

std::unique_ptr<FusedRequant> fused_epilogue(const GemmEngine& e, Convention conv, const Params& p,
                                             const std::vector<RequantParams>& plan, std::int64_t k_terms,
                                             std::int64_t channels, const IntArray* bias) {
  if (!e.fuses_requant() || k_terms < 1 || k_terms > kMaxExactK || channels < 1) return nullptr;
  const auto span = [](std::int64_t z, qspec_dtype t) {
    return std::max(std::abs(lo_of(t) - z), std::abs(hi_of(t) - z));
  };
  // |acc| <= k max|x - zx| max|w - zw|: zero points within int32, so the product stays in int64 for k <= 2^16.
  for (std::int64_t z : {p.x_zero_point, p.w_zero_point})
    if (z < -(std::int64_t{1} << 24) || z > (std::int64_t{1} << 24)) return nullptr;
  const std::int64_t limit = has_onednn_epilogue(conv) ? std::int64_t{1} << 30 : INT32_MAX;
  const std::int64_t per_term = span(p.x_zero_point, p.x_type) * span(p.w_zero_point, p.w_type);
  if (per_term > limit / k_terms) return nullptr;
  std::int64_t b_max = 0;
  if (bias)
    for (std::int64_t b : bias->data) b_max = std::max(b_max, b < 0 ? -b : b);  // |b| < 2^63 from read_int
  if (b_max > limit - per_term * k_terms) return nullptr;
  auto f =
      std::make_unique<FusedRequant>(plan, channels, bias ? bias->data.data() : nullptr, has_onednn_epilogue(conv));
  return f->ok() ? std::move(f) : nullptr;
}

std::uint8_t* byte_output(qspec_tensor& t, const std::vector<std::int64_t>& shape) {
  if (t.dtype != QSPEC_DTYPE_INT8 && t.dtype != QSPEC_DTYPE_UINT8) return nullptr;
  if (static_cast<std::size_t>(t.rank) != shape.size()) return nullptr;
  std::size_t n = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (t.shape[i] != shape[i]) return nullptr;
    n *= static_cast<std::size_t>(shape[i]);
  }
  if (t.size_bytes < n || t.data == nullptr) return nullptr;
  return static_cast<std::uint8_t*>(t.data);
}

void set_pool_fast(PoolParams& p, double xs_over_ys) {
  using K = PoolParams::Kind;
  const double K_ = static_cast<double>(p.g.kh * p.g.kw);
  const double dmax =
      std::max(static_cast<double>(p.u8 ? 255 : 127) - p.zx, p.zx - static_cast<double>(p.u8 ? 0 : -128));
  const double acc = K_ * dmax, margin = 1.0 + 0x1.0p-16;
  bool ok = K_ < 0x1.0p16 && acc < 0x1.0p30;  // the divisions' operands below 2^24 need the first
  switch (p.kind) {
    case K::kXnnpack: ok = ok && acc * std::ldexp(static_cast<double>(p.mult), -p.shift) < 0x1.0p30; break;
    case K::kFp32: ok = ok && acc * (p.per_count ? 1.0 : static_cast<double>(p.scale)) * margin < 0x1.0p30; break;
    case K::kOrt:  // |a| <= K dmax xs (1 + u)^K, / c >= 1, / ys, + |zy|
      ok = ok &&
           acc * static_cast<double>(p.xs) * 1.01 / static_cast<double>(p.ys) * margin + std::abs(p.fzy) < 0x1.0p30;
      break;
    case K::kTflite:  // |sum T| + n/2 <= 255.5 K < 2^24
    case K::kOnednn: break;
    case K::kTfliteMean:  // acc 2^left in int32, |MBQM| + n/2 below 2^24
      ok = ok && std::ldexp(acc, p.left) < 0x1.0p31 && acc * xs_over_ys * margin + 2 + K_ < 0x1.0p24;
      break;
  }
  p.fast = ok;
}

void run_pool(OpCall& c, const PoolParams& p, const qspec_tensor& xt, std::string_view out) {
  const std::vector<std::int64_t> shape{p.g.n, p.g.oh, p.g.ow, p.g.c};
  qspec_tensor& yt = c.output(out, 0);
  const auto n_x = static_cast<std::size_t>(p.g.n * p.g.h * p.g.w * p.g.c);
  if (p.fast && yt.dtype == xt.dtype && xt.data != nullptr && xt.size_bytes >= n_x)
    if (std::uint8_t* y = byte_output(yt, shape)) {
      c.k.avg_pool(p, xt.data, y);
      return;
    }
  [[maybe_unused]] const IntArray x = read_int(xt);  // checks x's bytes
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(p.g.n * p.g.oh * p.g.ow * p.g.c));
  pool_scalar(p, xt.data, bytes.data());
  std::vector<std::int64_t> y(bytes.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = p.u8 ? bytes[i] : static_cast<std::int8_t>(bytes[i]);
  write_int(yt, shape, y);
}

}  // namespace qspec::simd::qlinear
