// The scalar form of the qlinear.mul kernels (qspec/simd/qlinear_mul.h): one element at a time in the
// IEEE binary32 steps and integer steps of each convention (built with -ffp-contract=off: no step
// of a multiplication convention is fused).
#include <algorithm>
#include <cmath>

#include "elementwise_steps.h"
#include "qspec/simd/qlinear_mul.h"

namespace qspec::simd {

std::int32_t mul_one(const MulParams& p, std::int32_t a, std::int32_t b) {
  using K = MulParams::Kind;
  const std::int64_t prod = (std::int64_t{a} - p.za) * (std::int64_t{b} - p.zb);  // |prod| <= 255^2
  std::int64_t y = 0;
  switch (p.kind) {
    case K::kXnnpack:
      y = elementwise::rne_int32(static_cast<float>(prod) * p.s, "qlinear mul") + p.zy;  // exact conversion
      break;
    case K::kOrt:
      y = elementwise::rne_int32(static_cast<float>(prod) * p.s + static_cast<float>(p.zy), "onnxruntime mul");
      break;
    case K::kTfliteDouble:
    case K::kTfliteSingle:
      y = elementwise::mbqm(prod, {p.m, p.e}, p.kind == K::kTfliteSingle) + p.zy;
      break;
    case K::kOnednn: {
      const auto finite = [](float v) {
        if (!std::isfinite(v)) throw Unsupported("onednn: a float step overflows (REQUIRE)");
        return v;
      };
      const float x = finite(static_cast<float>(a) * p.s);  // src1's scale is 1: not multiplied
      const float w = finite(finite(x * static_cast<float>(b)) + static_cast<float>(p.zy));
      const float c = std::min(std::max(w, static_cast<float>(p.lo)), static_cast<float>(p.hi));
      return static_cast<std::int32_t>(std::nearbyint(c));  // the clamp is in float, before rounding
    }
  }
  return static_cast<std::int32_t>(std::min<std::int64_t>(std::max<std::int64_t>(y, p.lo), p.hi));
}

void mul_scalar(const MulParams& p, std::size_t n, const void* a, const void* b, void* y) {
  elementwise::code_loop(p.u8, n, a, b, y, [&p](std::int32_t x, std::int32_t z) { return mul_one(p, x, z); });
}

}  // namespace qspec::simd
