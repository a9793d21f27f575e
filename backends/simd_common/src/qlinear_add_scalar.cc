// The scalar form of the qlinear.add kernels (qspec/simd/qlinear_add.h): one element at a time in the
// IEEE binary32 steps and integer steps of each convention (built with -ffp-contract=off; ONNX
// Runtime's fused multiply-adds are fmaf).
#include <algorithm>
#include <cmath>

#include "elementwise_steps.h"
#include "qspec/simd/qlinear_add.h"

namespace qspec::simd {

std::int32_t add_one(const AddParams& p, std::int32_t a, std::int32_t b) {
  using K = AddParams::Kind;
  std::int64_t y = 0;
  switch (p.kind) {
    case K::kXnnpack:
      y = ((std::int64_t{p.bias} + std::int64_t{a} * p.ma + std::int64_t{b} * p.mb) >> p.shift) + p.zy;  // floor
      break;
    case K::kOrt: {
      const float fa = static_cast<float>(a), fb = static_cast<float>(b);
      const float v = p.swap ? std::fma(fb, p.fb, std::fma(fa, p.fa, p.fk)) : std::fma(fa, p.fa, std::fma(fb, p.fb, p.fk));
      y = elementwise::rne_int32(v, "onnxruntime add");
      break;
    }
    case K::kTfliteDouble:
    case K::kTfliteSingle: {
      const bool single = p.kind == K::kTfliteSingle;
      const std::int64_t raw = elementwise::mbqm((std::int64_t{a} - p.za) * (1 << 20), {p.m[0], p.e[0]}, single) +
                               elementwise::mbqm((std::int64_t{b} - p.zb) * (1 << 20), {p.m[1], p.e[1]}, single);
      y = elementwise::mbqm(raw, {p.m[2], p.e[2]}, single) + p.zy;
      break;
    }
    case K::kPytorch: {
      const float da = static_cast<float>(static_cast<double>(a - p.za) * static_cast<double>(p.fa));  // exact product
      const float db = static_cast<float>(static_cast<double>(b - p.zb) * static_cast<double>(p.fb));
      const float v = (da + db) * p.fk;
      if (!std::isfinite(v)) throw Unsupported("pytorch.onednn add: a non-finite float result (REQUIRE)");
      const float r = std::min(std::max(std::nearbyint(v), -1024.0f), 1024.0f);  // beyond: saturates either way
      y = static_cast<std::int64_t>(r) + p.zy;
      break;
    }
    case K::kOnednn: {
      const auto finite = [](float v) {
        if (!std::isfinite(v)) throw Unsupported("onednn: a float step overflows (REQUIRE)");
        return v;
      };
      const float x = finite(static_cast<float>(a) * p.fa), z = finite(static_cast<float>(b) * p.fb);
      const float w = finite(finite(x + z) + p.fk);
      const float c = std::min(std::max(w, static_cast<float>(p.lo)), static_cast<float>(p.hi));
      return static_cast<std::int32_t>(std::nearbyint(c));  // the clamp is in float, before rounding
    }
  }
  return static_cast<std::int32_t>(std::min<std::int64_t>(std::max<std::int64_t>(y, p.lo), p.hi));
}

void add_scalar(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  elementwise::code_loop(p.u8, n, a, b, y, [&p](std::int32_t x, std::int32_t z) { return add_one(p, x, z); });
}

}  // namespace qspec::simd
