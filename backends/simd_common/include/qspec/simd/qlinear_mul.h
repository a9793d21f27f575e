// The element arithmetic of qlinear.mul (spec/operators_qlinear_elementwise.md,
// operators_qlinear_onednn_binary.md) under the conventions with a vector kernel, as plain
// parameters the handler derives once per call: the kernel type, its scalar form (the scalar level,
// the NEON backend, the handler's element loop and the SIMD tails) and the one-element definition
// every implementation is judged against. p = (a - za)(b - zb) is exact in int32 (|p| <= 255^2).
//
//   kXnnpack      y = clamp(rne(fl32(fl32(p) s)) + zy, lo, hi)      (XNNPACK's fp32 kernels and ATen's
//                                                                  qmul_kernel: only s differs)
//   kOrt          y = clamp(rne(fl32(fl32(fl32(p) s) + fl32(zy))), lo, hi)   (zero point before rounding)
//   kTfliteDouble y = clamp(MBQM(p, m, e) + zy, lo, hi)               (e may be positive: a left shift)
//   kTfliteSingle the same with TFLite's single-rounding MBQM
//   kOnednn       y = rne(clamp(fl32(fl32(fl32(a s) fl32(b)) + fl32(zy)), lo, hi))  (za = zb = 0)
#pragma once

#include <cstddef>
#include <cstdint>

namespace qspec::simd {

struct MulParams {
  enum class Kind : std::uint8_t { kXnnpack, kOrt, kTfliteDouble, kTfliteSingle, kOnednn };
  Kind kind = Kind::kXnnpack;
  bool u8 = false;                  // uint8 tensors (else int8)
  std::int32_t za = 0, zb = 0, zy = 0;
  std::int32_t lo = -128, hi = 127;  // the clamp of y (the dtype's range and the fused clamp)
  float s = 0;                       // kXnnpack, kOrt, kOnednn: the float multiplier
  std::int32_t m = 0;                // kTflite*: the Q31 multiplier and its exponent (-31..30)
  int e = 0;
  // Derived by the handler: no element of any input can reach a REQUIRE of the convention (a
  // non-finite float step, a result beyond int32, a TFLite shift out of range or a product
  // 2^e p beyond int32), so the kernels need no checks. When false only mul_one (which throws
  // Unsupported there) may run.
  bool fast = false;
};

// y[i] = mul_one(p, a[i], b[i]) for i < n; a, b, y are int8 (uint8 if p.u8). Requires p.fast.
using MulFn = void (*)(const MulParams& p, std::size_t n, const void* a, const void* b, void* y);
void mul_scalar(const MulParams& p, std::size_t n, const void* a, const void* b, void* y);

// One element; throws Unsupported where the convention's REQUIREs fail (only when !p.fast).
std::int32_t mul_one(const MulParams& p, std::int32_t a, std::int32_t b);

// The largest |code - z| of a dtype's codes (u8: 0..255, else -128..127): bounds |p| for `fast`.
inline std::int64_t max_code_distance(bool u8, std::int32_t z) {
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  return z - lo > hi - z ? z - lo : hi - z;
}

}  // namespace qspec::simd
