// Transliterations of the engines' quantized-operator epilogues (spec/operators_qlinear.md) on this
// machine's IEEE binary32 hardware, to check the exact reference's float modelling against.
//
// Every float intermediate goes through a volatile variable so that the compiler can neither
// contract a multiply and an add nor keep extra precision; lrintf rounds half to even in the
// default rounding mode, which the tests never change.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace qspec::qlinear_hw {

// S = fl32(fl32(x_scale * w_scale) / y_scale): `input_scale * kernel_scale / output_scale` in C.
inline float scale(float x_scale, float w_scale, float y_scale) {
  volatile float prod = x_scale * w_scale;
  volatile float s = prod / y_scale;
  return s;
}

// XNNPACK fp32 (x86 kernels): v = fl32(fl32(acc) * S), v = min(v, y_max - zp) in float,
// rne, + zp, max with y_min (saturations monotone: the clamp of rne(v) + zp).
inline std::int32_t xnnpack_fp32(std::int32_t acc, float s, std::int32_t zp, std::int32_t y_min, std::int32_t y_max) {
  volatile float v = static_cast<float>(acc) * s;
  volatile float vmax = static_cast<float>(y_max - zp);
  volatile float vmin = static_cast<float>(y_min - zp);
  float c = std::min(static_cast<float>(v), static_cast<float>(vmax));
  c = std::max(c, static_cast<float>(vmin));
  return static_cast<std::int32_t>(std::lrintf(c)) + zp;
}

// ONNX Runtime MlasRequantizeOutput: v = fl32(fl32(acc) * S) (may be +-inf), clamped in float to
// [qmin - zp, qmax - zp] (max first, then min, as _mm_max_ps / _mm_min_ps), rne, + zp.
inline std::int32_t onnxruntime(std::int32_t acc, float s, std::int32_t zp, std::int32_t qmin, std::int32_t qmax) {
  volatile float v = static_cast<float>(acc) * s;
  float c = std::max(static_cast<float>(v), static_cast<float>(qmin - zp));
  c = std::min(c, static_cast<float>(qmax - zp));
  return static_cast<std::int32_t>(std::lrintf(c)) + zp;
}

}  // namespace qspec::qlinear_hw
