// Exact ties after an fp32 requantization, constructed on purpose: the helpers every convention
// that multiplies a float32 accumulator by a float32 scale and rounds (XNNPACK fp32, ONNX Runtime,
// PyTorch's requantize_from_int, TFLite through XNNPACK) can reuse.
//
// The construction: a scale S = m 2^-(u+1) with m odd makes every accumulator acc = 2^u A with A
// odd an exact tie, acc S = A m / 2 = k + 1/2, and the product is exact in binary32 while |A m|
// < 2^24. Giving an output channel weights that are multiples of 2^u (and a bias that is one)
// makes every accumulator of that channel a multiple of 2^u, so about half of them are ties. The
// scale is then split into an engine's three scales (x_s, w_s, y_s) so that the engine's own
// derivation fl32(fl32(x_s w_s) / y_s) gives S exactly.
#pragma once

#include <cstdint>

#include "qspec/ref/exact.h"

namespace qspec::vecgen::ties {

// The binary32 bit pattern of m 2^e, exactly (REQUIRE |m| < 2^24 and a normal result).
std::uint32_t f32_dyadic(std::int64_t m, int e);

// The scale m 2^-(u+1) (m odd): acc = 2^u A with A odd gives acc S = A m / 2, an exact tie.
std::uint32_t tie_scale(std::int64_t odd_m, int u);

// Whether the binary32 value v is an exact half-integer k + 1/2.
bool is_half_integer(std::uint32_t v);

// Whether fl32(fl32(acc) * scale) is an exact tie k + 1/2 (the value XNNPACK's and ONNX Runtime's
// epilogues round half to even).
bool fp32_product_is_tie(const ref::Int& acc, std::uint32_t scale);

// Whether acc M 2^(shift - 31) is an exact tie k + 1/2: the value TFLite's MultiplyByQuantizedMultiplier
// rounds (half up once, or half up then half away from zero) and TOSA's apply_scale_32 likewise.
bool q31_product_is_tie(const ref::Int& acc, const ref::Int& multiplier, int shift);

// Three scales whose fl32(fl32(x_scale * w_scale) / y_scale) is `s` exactly: x_scale = 2^ex,
// y_scale = c 2^ey (c odd, c * mantissa(s) < 2^24), w_scale = s c 2^(ey - ex).
struct ScaleSplit {
  std::uint32_t x_scale, w_scale, y_scale;
};
ScaleSplit split_scale(std::uint32_t s, int ex, int ey, std::int64_t c = 1);
// The weight scale of the same split for another channel's target scale (x_scale, y_scale shared).
std::uint32_t channel_w_scale(std::uint32_t s, int ex, int ey, std::int64_t c = 1);

}  // namespace qspec::vecgen::ties
