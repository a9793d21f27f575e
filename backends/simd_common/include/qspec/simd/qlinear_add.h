// The element arithmetic of qlinear.add (spec/operators_qlinear_elementwise.md) under the conventions
// with a vector kernel, as plain parameters the handler derives once per call: the kernel type, its
// scalar form (the scalar level, the NEON backend, the handler's broadcast path and the SIMD tails)
// and the one-element definition every implementation is judged against.
//
//   kXnnpack      y = clamp(((bias + a*ma + b*mb) >> shift) + zy, lo, hi)        (int32, floor shift)
//   kOrt          y = clamp(rne(fma(a, fa, fma(b, fb, fk))), lo, hi)             (swap: a and b's terms swapped)
//   kTfliteDouble y = clamp(MBQM(MBQM((a-za) 2^20, m0) + MBQM((b-zb) 2^20, m1), m2) + zy, lo, hi)
//   kTfliteSingle the same with TFLite's single-rounding MBQM
//   kOnednn       y = rne(clamp(fl32(fl32(fl32(a*fa) + fl32(b*fb)) + fk), lo, hi))
//   kPytorch      y = clamp(clamp(rne(fl32(fl32(fl32((a-za) fa) + fl32((b-zb) fb)) * fk)), +-1024) + zy, lo, hi)
//                 (ATen's qadd_kernel: fa, fb the scales, fk = fl32(1 / s_y))
#pragma once

#include <cstddef>
#include <cstdint>

namespace qspec::simd {

struct AddParams {
  enum class Kind : std::uint8_t { kXnnpack, kOrt, kTfliteDouble, kTfliteSingle, kOnednn, kPytorch };
  Kind kind = Kind::kXnnpack;
  bool u8 = false;                  // uint8 tensors (else int8)
  std::int32_t za = 0, zb = 0, zy = 0;
  std::int32_t lo = -128, hi = 127;  // the clamp of y (the dtype's range and the fused clamp)
  // kXnnpack
  std::int32_t ma = 0, mb = 0, bias = 0;
  int shift = 0;
  // kTflite*: the Q31 multipliers of a, b and the output, and their exponents (<= 0)
  std::int32_t m[3] = {0, 0, 0};
  int e[3] = {0, 0, 0};
  // kOrt, kOnednn, kPytorch
  float fa = 0, fb = 0, fk = 0;
  bool swap = false;  // kOrt: ONNX Runtime reads a as the scalar operand (it then folds b's term first)
  // Derived by the handler: no element of any input can reach a REQUIRE of the convention (a
  // non-finite float step, a result beyond int32, a shift outside TFLite's range), so the kernels
  // need no checks. When false only add_one (which throws Unsupported there) may run.
  bool fast = false;
};

// y[i] = add_one(p, a[i], b[i]) for i < n; a, b, y are int8 (uint8 if p.u8). Requires p.fast.
using AddFn = void (*)(const AddParams& p, std::size_t n, const void* a, const void* b, void* y);
void add_scalar(const AddParams& p, std::size_t n, const void* a, const void* b, void* y);

// One element; throws Unsupported where the convention's REQUIREs fail (only when !p.fast).
std::int32_t add_one(const AddParams& p, std::int32_t a, std::int32_t b);

}  // namespace qspec::simd
