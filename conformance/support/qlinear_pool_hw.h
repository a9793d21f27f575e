// Transliterations of the engines' pooling kernels (spec/operators_qlinear_pool.md) in native C++
// on this machine's binary32 hardware, written as the engines write them, to check the exact
// reference against: XNNPACK's qu8 avgpool multiplier/shift, ONNX Runtime's float pipeline,
// TFLite's rounded division and its int8 Mean (QuantizeMultiplier, MultiplyByQuantizedMultiplier).
//
// Float intermediates go through volatile variables (no contraction, no extra precision);
// std::nearbyint / lrintf round half to even in the default rounding mode, never changed here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace qspec::qlinear_pool_hw {

inline std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline std::int32_t sat(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  return static_cast<std::int32_t>(std::min(std::max(v, lo), hi));
}

// XNNPACK: S = input_scale / (output_scale * (float) n).
inline float xnnpack_scale(float x_scale, float y_scale, std::int64_t n) {
  volatile float d = y_scale * static_cast<float>(n);
  volatile float s = x_scale / d;
  return s;
}

// xnn_qu8_avgpool_minmax_ukernel_9x__sse2_c8 after xnn_init_qu8_avgpool_minmax_sse2_params:
// |acc| * multiplier + rounding >> shift with acc's sign, 16-bit saturating + zp, packus, clamp.
inline std::int32_t xnnpack_avgpool(std::int32_t acc, float s, std::int32_t zp, std::int32_t y_min,
                                    std::int32_t y_max) {
  const std::uint32_t b = bits_of(s);
  const std::uint64_t multiplier = (b & 0x007fffffu) | 0x00800000u;
  const std::uint32_t shift = 127 + 23 - (b >> 23);
  const std::uint64_t rounding = std::uint64_t{1} << (shift - 1);
  const std::uint64_t abs =
      acc < 0 ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(acc)) : static_cast<std::uint64_t>(acc);
  const std::int64_t scaled = static_cast<std::int64_t>((abs * multiplier + rounding) >> shift);
  const std::int64_t v = acc < 0 ? -scaled : scaled;
  const std::int32_t packed = sat(v, INT16_MIN, INT16_MAX);
  const std::int32_t with_zp = sat(std::int64_t{packed} + zp, INT16_MIN, INT16_MAX);
  return std::min(std::max(sat(with_zp, 0, 255), y_min), y_max);
}

// ONNX Runtime QLinearAveragePool, one window: dequantize_value, float sum in order, /= count,
// quantize_value = clamp(nearbyintf(y / y_scale + y_zero_point)).
inline std::int32_t onnxruntime_avgpool(const std::vector<std::int32_t>& codes, std::int64_t count, float x_scale,
                                        std::int32_t x_zp, float y_scale, std::int32_t y_zp, std::int32_t qmin,
                                        std::int32_t qmax) {
  volatile float sum = 0.0f;
  for (auto c : codes) {
    volatile float v = x_scale * static_cast<float>(c - x_zp);
    sum = sum + v;
  }
  volatile float mean = sum / static_cast<float>(count);
  volatile float q = mean / y_scale;
  volatile float t = q + static_cast<float>(y_zp);
  return sat(static_cast<std::int64_t>(std::nearbyint(static_cast<float>(t))), qmin, qmax);
}

// TFLite AveragePool's rounded division: acc > 0 ? (acc + n/2) / n : (acc - n/2) / n.
inline std::int32_t tflite_rounded_div(std::int32_t acc, std::int32_t n) {
  return acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
}

// TFLite QuantizeMultiplier (quantization_util.cc, default build: std::frexp, std::round).
inline void tflite_quantize_multiplier(double m, std::int32_t* qm, int* shift) {
  if (m == 0.0) {
    *qm = 0, *shift = 0;
    return;
  }
  const double q = std::frexp(m, shift);
  auto q_fixed = static_cast<std::int64_t>(std::round(q * (1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  *qm = static_cast<std::int32_t>(q_fixed);
}

// gemmlowp SaturatingRoundingDoublingHighMul and RoundingDivideByPOT.
inline std::int32_t srdhm(std::int32_t a, std::int32_t b) {
  if (a == b && a == std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::max();
  const std::int64_t ab = std::int64_t{a} * std::int64_t{b};
  const std::int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<std::int32_t>((ab + nudge) / (1LL << 31));
}
inline std::int32_t rdbpot(std::int32_t x, int exponent) {
  const std::int32_t mask = static_cast<std::int32_t>((1LL << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + ((x < 0) ? 1 : 0);
  return (x >> exponent) + ((remainder > threshold) ? 1 : 0);
}
// MultiplyByQuantizedMultiplier, double rounding.
inline std::int32_t tflite_mbqm(std::int32_t x, std::int32_t qm, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return rdbpot(srdhm(x * (1 << left), qm), right);
}

// reference_integer_ops::Mean of one channel: acc = sum (x - x_zp) already formed.
inline std::int32_t tflite_mean(std::int32_t acc, std::int32_t n, float x_scale, float y_scale, std::int32_t y_zp) {
  std::int32_t qm;
  int shift;
  tflite_quantize_multiplier(static_cast<double>(x_scale) / static_cast<double>(y_scale), &qm, &shift);
  std::int32_t v = tflite_mbqm(acc, qm, shift);
  v = tflite_rounded_div(v, n);
  return sat(std::int64_t{v} + y_zp, -128, 127);
}

}  // namespace qspec::qlinear_pool_hw
