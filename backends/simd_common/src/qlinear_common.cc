// The engine conventions of the quantized operators (spec/operators_qlinear.md) on the optimized
// backends: parameters and their ERROR_IFs, binary32 requantization scales, and the epilogue on the
// kFloatThenZp requantization kernel (y = sat(rne(fl32(fl32(acc) * S)) + zp) to the clamp range).
#include "qlinear_common.h"

#include <cmath>
#include <cstring>
#include <string>

#include "qspec/simd/requant.h"

namespace qspec::simd::qlinear {
namespace {

float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
std::int64_t lo_of(qspec_dtype t) { return t == QSPEC_DTYPE_INT8 ? -128 : 0; }
std::int64_t hi_of(qspec_dtype t) { return t == QSPEC_DTYPE_INT8 ? 127 : 255; }
bool fits(std::int64_t v, qspec_dtype t) { return v >= lo_of(t) && v <= hi_of(t); }
bool positive_normal(float f) { return std::isnormal(f) && f > 0.0f; }
bool finite_positive(float f) { return std::isfinite(f) && f > 0.0f; }

}  // namespace

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
  if (conv == Convention::kXnnpackFp32) {
    p.y_min = attr::get_or(c.attrs, k.y_min, p.y_min);
    p.y_max = attr::get_or(c.attrs, k.y_max, p.y_max);
  }
  return p;
}

std::vector<float> scales(const Params& p, std::int64_t channels, Convention conv) {
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

void requantize(const KernelSet& k, const std::vector<std::int64_t>& acc, const std::vector<float>& s, const Params& p,
                qspec_tensor& out, const std::vector<std::int64_t>& shape) {
  const std::size_t channels = s.size();
  std::vector<std::int32_t> a32(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    if (acc[i] < INT32_MIN || acc[i] > INT32_MAX) throw Unsupported("qlinear: accumulator beyond int32 (REQUIRE)");
    a32[i] = static_cast<std::int32_t>(acc[i]);
  }
  RequantParams rp;
  rp.kind = RequantKind::kFloatThenZp;
  rp.out = OutType::I32;  // computed in int32 lanes, narrowed by write_int
  rp.qmin = static_cast<std::int32_t>(p.y_min);
  rp.qmax = static_cast<std::int32_t>(p.y_max);
  rp.zp = static_cast<std::int32_t>(p.y_zero_point);
  std::vector<std::int32_t> y(acc.size());
  if (channels == 1 || acc.empty()) {
    rp.scale = s.empty() ? 1.0f : s[0];
    if (!finalize(rp)) throw Unsupported("qlinear: requantization parameters outside the kernels");
    k.requant(rp, a32.size(), a32.data(), y.data());
  } else {
    // Per channel (the last axis): gather each channel, requantize it with its scale, scatter back.
    const std::size_t rows = acc.size() / channels;
    std::vector<std::int32_t> col(rows), res(rows);
    for (std::size_t ch = 0; ch < channels; ++ch) {
      rp.scale = s[ch];
      if (!finalize(rp)) throw Unsupported("qlinear: requantization parameters outside the kernels");
      for (std::size_t r = 0; r < rows; ++r) col[r] = a32[r * channels + ch];
      k.requant(rp, rows, col.data(), res.data());
      for (std::size_t r = 0; r < rows; ++r) y[r * channels + ch] = res[r];
    }
  }
  write_int(out, shape, std::vector<std::int64_t>(y.begin(), y.end()));
}

}  // namespace qspec::simd::qlinear
