// Handlers of qlinear.concat (spec/operators_qlinear_elementwise.md, operators_qlinear_armnn.md)
// under onnxruntime, tflite.reference and armnn.cpuref: each input's 256-code map (a float requantization on the
// hardware's binary32 operations, or a copy), then the inputs laid along the axis. Built with -ffp-contract=off.
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

using nn::reject_if;
using K = cat::qlinear_concat;

enum class Conv { kOrt, kTflite, kArmnn, kTosa, kPytorch };

// Arm NN: armnn::Quantize(armnn::Dequantize(x)) on the hardware's binary32 (no copy shortcut).
std::int64_t armnn_code(std::int64_t x, float sx, std::int64_t zx, float sy, std::int64_t zy, std::int64_t lo,
                        std::int64_t hi) {
  const float v = static_cast<float>(x - zx) * sx;
  const float w = static_cast<float>(zy) + std::round(v / sy);
  return static_cast<std::int64_t>(std::fmin(std::fmax(w, static_cast<float>(lo)), static_cast<float>(hi)));
}

// TOSA (the TFLite -> TOSA legalization's convertConcatV2Op): a copy when the scales are equal
// (the zero points are not compared), else RESCALE int8 -> int8 by computeMultiplierAndShift of the
// binary64 quotient, SINGLE_ROUND: clip(((x - z_x) M + 2^(s-1)) >> s) + z_y).
std::array<std::int64_t, 256> tosa_code_map(qspec_dtype t, float sx, std::int64_t zx, float sy, std::int64_t zy) {
  reject_if(t != QSPEC_DTYPE_INT8, "tosa: a TFLite int8 model (int8 tensors only)");
  if (!(std::isfinite(sx) && sx > 0 && std::isfinite(sy) && sy > 0))
    throw Unsupported("qlinear.concat: scales finite and positive (REQUIRE)");
  std::array<std::int64_t, 256> m{};
  const bool copy = sx == sy;
  const auto k = qlinear::tosa_multiplier_and_shift(static_cast<double>(sx) / static_cast<double>(sy));
  reject_if(!copy && (k.shift < 2 || k.shift > 62), "tosa: the RESCALE's shift is outside [2, 62] (buildRescale)");
  for (std::int64_t x = -128; x <= 127; ++x) {
    std::int64_t y = x;
    if (!copy) {
      const std::int64_t v = x - zx, half = std::int64_t{1} << (k.shift - 1);
      if (v < -half || v >= half) throw Unsupported("tosa: apply_scale_32's value range (REQUIRE)");
      y = std::min<std::int64_t>(std::max<std::int64_t>(((v * k.multiplier + half) >> k.shift) + zy, -128), 127);
    }
    m[static_cast<std::size_t>(x + 128)] = y;
  }
  return m;
}

// PyTorch (ATen): quantize_val(dequantize_val(x)): fl32((x - z_x) s_x) (a double product rounded
// once), zero_point + nearbyint(fl32(v fl32(1 / s_y))) in float, clamped. Any input parameters
// (an input with the output's gives its codes back: no copy needed).
std::int64_t pytorch_code(std::int64_t x, float sx, std::int64_t zx, float sy, std::int64_t zy, std::int64_t lo,
                          std::int64_t hi) {
  const auto d = static_cast<float>(static_cast<double>(x - zx) * static_cast<double>(sx));
  const float v = d * (1.0f / sy);
  if (!std::isfinite(v)) throw Unsupported("pytorch: a finite value (REQUIRE)");
  if (std::fabs(v) >= 0x1p62f) return v > 0 ? hi : lo;  // saturates (the int64 conversion holds below 2^63)
  const float r = static_cast<float>(zy) + std::nearbyint(v);
  return std::min(std::max(static_cast<std::int64_t>(r), lo), hi);
}

// The code map of one input as a table over the dtype's codes (index: code - lo).
template <Conv kConv>
std::array<std::int64_t, 256> code_map(qspec_dtype t, float sx, std::int64_t zx, float sy, std::int64_t zy) {
  if constexpr (kConv == Conv::kTosa) return tosa_code_map(t, sx, zx, sy, zy);
  constexpr bool ort = kConv == Conv::kOrt;
  const std::int64_t lo = t == QSPEC_DTYPE_INT8 ? -128 : 0, hi = lo + 255;
  std::array<std::int64_t, 256> m{};
  const bool copy = kConv != Conv::kArmnn && kConv != Conv::kPytorch && sx == sy && zx == zy;
  if (kConv == Conv::kTflite)
    reject_if(t == QSPEC_DTYPE_INT8 && !copy, "tflite: int8 inputs must have the output's parameters");
  if (!(std::isfinite(sx) && sx > 0 && std::isfinite(sy) && sy > 0))
    throw Unsupported("qlinear.concat: scales finite and positive (REQUIRE)");
  const float scale = sx * (1.0f / sy), bias = static_cast<float>(-zx) * scale;
  for (std::int64_t x = lo; x <= hi; ++x) {
    std::int64_t y = x;
    if (kConv == Conv::kArmnn) {
      y = armnn_code(x, sx, zx, sy, zy, lo, hi);
    } else if (kConv == Conv::kPytorch) {
      y = pytorch_code(x, sx, zx, sy, zy, lo, hi);
    } else if (!copy && ort) {
      const float v = sx * static_cast<float>(x - zx);
      const float q = v / sy;
      y = std::isfinite(q) ? static_cast<std::int64_t>(std::nearbyint(std::fmax(std::fmin(q, 1e9f), -1e9f))) + zy
                           : (q > 0 ? hi : lo);
    } else if (!copy) {
      const float v = static_cast<float>(x) * scale + bias;
      if (!std::isfinite(v) || std::fabs(v) >= 2147483648.0f) throw Unsupported("tflite: value beyond int32 (REQUIRE)");
      y = static_cast<std::int64_t>(std::round(v)) + zy;
    }
    m[static_cast<std::size_t>(x - lo)] = std::min(std::max(y, lo), hi);
  }
  return m;
}

bool xs_rank_above_6(const OpCall& c) {
  for (std::size_t i = 0; i < c.n_inputs; ++i)
    if (c.inputs[i].rank > 6) return true;
  return false;
}

template <Conv kConv>
void qlinear_concat(OpCall& c) {
  reject_if(c.n_inputs == 0, "qlinear.concat: needs at least one input");
  if (kConv == Conv::kArmnn)
    reject_if(c.n_inputs < 2, "armnn: Concatenation requires at least 2 inputs (CreateDescriptorForConcatenation)");
  const qspec_dtype t = c.inputs[0].dtype;
  if (t != QSPEC_DTYPE_INT8 && t != QSPEC_DTYPE_UINT8) throw Unsupported("qlinear.concat: 8-bit tensors only");
  const auto scales = attr::get(c.attrs, K::attr::x_scales);
  const auto zps = attr::get(c.attrs, K::attr::x_zero_points);
  reject_if(scales.size() != c.n_inputs || zps.size() != c.n_inputs,
            "qlinear.concat: one scale and zero point per input");
  const std::int64_t lo = t == QSPEC_DTYPE_INT8 ? -128 : 0, hi = lo + 255;
  reject_if(kConv == Conv::kTosa && xs_rank_above_6(c), "tosa: rank above MAX_RANK = 6");
  const float sy = f32_of(attr::get(c.attrs, K::attr::y_scale));
  const std::int64_t zy = attr::get(c.attrs, K::attr::y_zero_point);
  std::vector<IntArray> xs;
  for (std::size_t i = 0; i < c.n_inputs; ++i) {
    reject_if(c.inputs[i].dtype != t, "qlinear.concat: every input must have one dtype");
    xs.push_back(read_int(c.inputs[i]));
  }
  // Shapes: one rank >= 1, the axis in [-rank, rank), equal extents off the axis.
  const std::size_t rank = xs[0].shape.size();
  reject_if(rank == 0, "qlinear.concat: inputs must have rank >= 1");
  std::int64_t axis = attr::get(c.attrs, K::attr::axis);
  reject_if(axis < -static_cast<std::int64_t>(rank) || axis >= static_cast<std::int64_t>(rank),
            "qlinear.concat: axis out of range");
  if (axis < 0) axis += static_cast<std::int64_t>(rank);
  const auto ax = static_cast<std::size_t>(axis);
  std::vector<std::int64_t> out = xs[0].shape;
  out[ax] = 0;
  for (const auto& x : xs) {
    reject_if(x.shape.size() != rank, "qlinear.concat: ranks differ");
    for (std::size_t d = 0; d < rank; ++d) reject_if(d != ax && x.shape[d] != out[d], "qlinear.concat: extents differ");
    out[ax] += x.shape[ax];
  }
  if (kConv == Conv::kArmnn) {  // any int32 offset (Arm NN checks no range)
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (zps[i] < INT32_MIN || zps[i] > INT32_MAX) throw Unsupported("armnn: offsets are int32 (REQUIRE)");
    if (zy < INT32_MIN || zy > INT32_MAX) throw Unsupported("armnn: offsets are int32 (REQUIRE)");
  } else {
    for (std::size_t i = 0; i < xs.size(); ++i)
      reject_if(zps[i] < lo || zps[i] > hi, "qlinear.concat: a zero point does not fit the dtype");
    reject_if(zy < lo || zy > hi, "qlinear.concat: y_zero_point does not fit the dtype");
  }
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < ax; ++d) outer *= out[d];
  for (std::size_t d = ax + 1; d < rank; ++d) inner *= out[d];
  std::vector<std::int64_t> y;
  std::vector<std::array<std::int64_t, 256>> maps;
  for (std::size_t i = 0; i < xs.size(); ++i) maps.push_back(code_map<kConv>(t, f32_of(scales[i]), zps[i], sy, zy));
  for (auto& x : xs)
    for (auto v : x.data) reject_if(v < lo || v > hi, "qlinear.concat: a code outside its dtype");
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const std::int64_t block = xs[i].shape[ax] * inner;
      for (std::int64_t j = 0; j < block; ++j)
        y.push_back(maps[i][static_cast<std::size_t>(xs[i].data[static_cast<std::size_t>(o * block + j)] - lo)]);
    }
  write_int(c.output(K::out::y, 0), out, y);
}

}  // namespace

void add_qlinear_concat_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<K>(K::conv::onnxruntime, "per-input QuantizeLinear table, layout", qlinear_concat<Conv::kOrt>));
  t.push_back(entry<K>(K::conv::tflite_reference, "per-input float scale + bias, round half away, layout",
                       qlinear_concat<Conv::kTflite>));
  t.push_back(entry<K>(K::conv::armnn_cpuref, "per-input armnn::Dequantize + armnn::Quantize table, layout",
                       qlinear_concat<Conv::kArmnn>));
  t.push_back(
      entry<K>(K::conv::tosa, "per-input RESCALE (SINGLE_ROUND) table or copy, layout", qlinear_concat<Conv::kTosa>));
  t.push_back(entry<K>(K::conv::pytorch_onednn, "per-input ATen dequantize_val + quantize_val table, layout",
                       qlinear_concat<Conv::kPytorch>));
}

}  // namespace qspec::simd
