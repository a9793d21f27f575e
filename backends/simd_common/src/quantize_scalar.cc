// Portable float -> integer quantization and integer -> float dequantization (quantize.h).
#include <cmath>
#include <cstring>

#include "qspec/simd/quantize.h"

namespace qspec::simd {

void finalize(QuantizeParams& p) {
  constexpr std::int64_t kExact = std::int64_t{1} << 24;
  std::int64_t lo = p.qmin, hi = p.qmax;
  if (p.post == QuantizeParams::Post::kInt) {
    lo -= p.post_zp;
    hi -= p.post_zp;
  }
  p.narrow = lo >= -kExact && hi <= kExact;
  p.flo = static_cast<float>(lo);
  p.fhi = static_cast<float>(hi);
}

std::int32_t quantize_one(const QuantizeParams& p, float x) {
  float v = p.divide ? x / p.s : x * p.s;
  if (p.pre_add) v = v + p.pre_zp;
  // std::nearbyint in the default mode rounds half to even; std::round rounds half away.
  float r = p.round == QuantizeParams::Round::kHalfEven ? std::nearbyint(v) : std::round(v);
  if (p.post == QuantizeParams::Post::kFloat) r = r + p.post_zpf;
  double d = r;  // exact; infinities stay infinite and saturate below
  if (p.post == QuantizeParams::Post::kInt) d += static_cast<double>(p.post_zp);  // exact unless far out of range
  if (!(d >= p.qmin)) return p.qmin;  // NaN: only outside the conventions' REQUIREs
  if (d > p.qmax) return p.qmax;
  return static_cast<std::int32_t>(d);
}

void quantize_scalar(const QuantizeParams& p, std::size_t n, const float* x, void* y) {
  auto* out = static_cast<unsigned char*>(y);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t v = quantize_one(p, x[i]);
    switch (p.out) {
      case OutType::I8: {
        const auto t = static_cast<std::int8_t>(v);
        std::memcpy(out + i, &t, 1);
        break;
      }
      case OutType::U8: {
        const auto t = static_cast<std::uint8_t>(v);
        std::memcpy(out + i, &t, 1);
        break;
      }
      case OutType::I16: {
        const auto t = static_cast<std::int16_t>(v);
        std::memcpy(out + 2 * i, &t, 2);
        break;
      }
      case OutType::U16: {
        const auto t = static_cast<std::uint16_t>(v);
        std::memcpy(out + 2 * i, &t, 2);
        break;
      }
      case OutType::I32: std::memcpy(out + 4 * i, &v, 4); break;
    }
  }
}

void dequantize_scalar(std::size_t n, const std::int32_t* x, std::int32_t zp, float s, float* y) {
  for (std::size_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(std::int64_t{x[i]} - zp) * s;  // int -> float: nearest even
}

}  // namespace qspec::simd
