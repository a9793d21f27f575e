// Internal to simd_common: the element steps qlinear.add / qlinear.mul's scalar code shares with
// the add kernels' scalar form (qlinear_add_scalar.cc), each with the REQUIRE it can meet (thrown
// as Unsupported): rne to int32 of a binary32, and TFLite's MultiplyByQuantizedMultiplier on int64.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "qspec/backend_common/q31.h"
#include "qspec/simd/backend_core.h"

namespace qspec::simd::elementwise {

// rne of a finite float whose result must fit int32 (cvtps2dq), else Unsupported (a REQUIRE).
inline std::int64_t rne_int32(float v, const char* what) {
  if (!std::isfinite(v)) throw Unsupported(std::string(what) + ": a non-finite float result (REQUIRE)");
  const float r = std::nearbyint(v);  // default rounding mode: to nearest, ties to even
  if (!(r >= -2147483648.0f && r < 2147483648.0f)) throw Unsupported(std::string(what) + ": beyond int32 (REQUIRE)");
  return static_cast<std::int64_t>(r);
}

// y[i] = one(a[i], b[i]) for i < n over 8-bit codes (uint8 if u8, else int8): the loop of the
// add / mul kernels' scalar forms; one's result fits the dtype.
template <class One>
void code_loop(bool u8, std::size_t n, const void* a, const void* b, void* y, const One& one) {
  auto* out = static_cast<unsigned char*>(y);
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  const auto code = [u8](unsigned char c) { return u8 ? std::int32_t{c} : std::int32_t{static_cast<signed char>(c)}; };
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>(one(code(pa[i]), code(pb[i])));
}

// ---- TFLite's fixed point (requant.tflite.*) on int64 ----

inline std::int64_t srdhm64(std::int64_t a, std::int64_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const std::int64_t ab = a * b, nudge = ab >= 0 ? (1LL << 30) : 1 - (1LL << 30);
  return (ab + nudge) / (1LL << 31);  // C division: toward zero
}
inline std::int64_t rdbpot64(std::int64_t x, int e) {
  const std::int64_t mask = (1LL << e) - 1, rem = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > threshold ? 1 : 0);
}
inline std::int64_t mbqm(std::int64_t x, const q31::Q31& m, bool single) {
  if (m.shift > 30 || m.shift < -31) throw Unsupported("tflite: shift outside [-31, 30] (REQUIRE)");
  if (single) {
    const int t = 31 - m.shift;
    const std::int64_t r = (x * m.multiplier + (1LL << (t - 1))) >> t;
    if (r < INT32_MIN || r > INT32_MAX) throw Unsupported("tflite: MBQM beyond int32 (REQUIRE)");
    return r;
  }
  const int left = std::max(m.shift, 0), right = std::max(-m.shift, 0);
  const std::int64_t xs = x * (1LL << left);
  if (xs < INT32_MIN || xs > INT32_MAX) throw Unsupported("tflite: x * 2^left beyond int32 (REQUIRE)");
  return rdbpot64(srdhm64(xs, m.multiplier), right);
}

}  // namespace qspec::simd::elementwise
