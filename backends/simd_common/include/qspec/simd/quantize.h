// Float -> integer quantization and integer -> float dequantization kernels, parameterized by the
// order of their IEEE binary32 steps (which is what distinguishes ONNX, XNNPACK, oneDNN, PyTorch,
// TVM, Glow and gemmlowp; spec/float_conventions.md, tvm_qnn.md, glow.md, gemmlowp.md):
//
//   v = fl32(x / s)  or  fl32(x * s)        (divide, or multiply by a precomputed reciprocal)
//   v = fl32(v + pre_zp)                    (if pre_add: zero point added before rounding)
//   r = round(v)                            (half to even, or half away from zero)
//   r = fl32(r + post_zpf)                  (post = kFloat: zero point added in float after)
//   y = sat(r + post_zp)                    (post = kInt: exact integer addition)
//
// Every step is one IEEE operation with round-to-nearest-even, as the hardware does it when
// the compiler neither fuses nor reorders (the files are built with -ffp-contract=off).
#pragma once

#include <cstddef>
#include <cstdint>

#include "qspec/simd/requant.h"

namespace qspec::simd {

struct QuantizeParams {
  enum class Round : std::uint8_t { kHalfEven, kHalfAway };
  enum class Post : std::uint8_t { kNone, kInt, kFloat };
  bool divide = true;
  float s = 1.0f;
  bool pre_add = false;
  float pre_zp = 0.0f;
  Round round = Round::kHalfEven;
  Post post = Post::kNone;
  std::int64_t post_zp = 0;
  float post_zpf = 0.0f;
  OutType out = OutType::I8;
  std::int32_t qmin = -128, qmax = 127;
  // Derived by finalize(): the clamp bounds of the fast path (binary32 integers of magnitude
  // <= 2^24) and whether it applies.
  bool narrow = false;
  float flo = 0.0f, fhi = 0.0f;
};

void finalize(QuantizeParams& p);

// y[i] = quantize(x[i]) with x float32, y of type p.out.
using QuantizeFn = void (*)(const QuantizeParams& p, std::size_t n, const float* x, void* y);
void quantize_scalar(const QuantizeParams& p, std::size_t n, const float* x, void* y);
std::int32_t quantize_one(const QuantizeParams& p, float x);

// y[i] = fl32(fl32(x[i] - zp) * s) for int32 x, with x - zp the exact (int64) difference.
using DequantizeFn = void (*)(std::size_t n, const std::int32_t* x, std::int32_t zp, float s, float* y);
void dequantize_scalar(std::size_t n, const std::int32_t* x, std::int32_t zp, float s, float* y);

}  // namespace qspec::simd
