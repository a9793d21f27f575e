// The window arithmetic of qlinear.avg_pool2d and qlinear.global_avg_pool (spec/operators_qlinear_pool.md)
// under the conventions with a vector kernel, as plain parameters the handler derives once per call:
// the kernel type (NHWC, channels innermost: one lane per channel), its scalar form (the scalar level,
// the NEON backend) and the one-window definition the handler's loop and every kernel are judged against.
// With T the codes of a window's n_in taps inside the input (qlinear.pool.window) and
// acc = sum over T of (X - zx):
//
//   kXnnpack  y = clamp(round_half_away(acc S) + zy, lo, hi)   (acc S exact: |acc| mult 2^-shift, 64-bit)
//   kFp32     y = clamp(rne(fl32(fl32(acc) S)) + zy, lo, hi)  (XNNPACK's global kernels, MLAS's epilogue,
//             QNNPACK's S; with per_count S = fl32(1 / fl32(c)) per window: ATen's quantized average)
//   kOrt      a = +0, a = fl32(a + fl32(xs fl32(X - zx))) over T in window order;
//             y = sat(rne(fl32(fl32(fl32(a / fl32(c)) / ys) + fl32(zy))))   (c = K or n_in)
//   kTflite   y = clamp(round_half_away(sum T / n_in), lo, hi)   (the codes, not less zx; also TOSA's
//             AVG_POOL2D, equal to it below 2^22 taps: spec qlinear.avg_pool2d.tosa's theorem)
//   kOnednn   y = clamp(rne(jit ? fl32(fl32(sum T) fl32(1 / fl32(c))) : fl32(fl32(sum T) / fl32(c))), lo, hi)
//   kTfliteMean y = clamp(round_half_away(MBQM_dr(acc 2^left, qm, right) / n_in) + zy, lo, hi)
//             (TFLite's int8 Mean: gemmlowp's SRDHM then RDBPOT, then the rounded division)
// where c is the divisor: K = KH KW if `include` (the padding counts), else n_in.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qspec::simd {

// The windows of an NHWC average pooling (qlinear.pool.window with dilation 1).
struct PoolGeom {
  std::int64_t n = 1, h = 1, w = 1, c = 1;  // x's shape
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  std::int64_t pt = 0, pl = 0;  // top and left pads (the bottom and right ones only bound oh, ow)
  std::int64_t oh = 1, ow = 1;
};

struct PoolParams {
  enum class Kind : std::uint8_t { kXnnpack, kFp32, kOrt, kTflite, kTfliteMean, kOnednn };
  Kind kind = Kind::kFp32;
  bool u8 = false;  // uint8 tensors (else int8)
  PoolGeom g;
  std::int32_t zx = 0, zy = 0;
  std::int32_t lo = -128, hi = 127;  // the clamp of y (the dtype's range and the fused clamp)
  // kXnnpack: S's significand (< 2^24) and shift (S = mult 2^-shift); kFp32: S, or fl32(1 / fl32(c))
  // per window (per_count)
  std::uint32_t mult = 0;
  int shift = 0;
  float scale = 0;
  bool per_count = false;
  // kOrt: the scales and fl32(zy)
  float xs = 0, ys = 0, fzy = 0;
  bool include = false;  // kOrt, kFp32 per_count, kOnednn: the divisor counts the padding (c = K, else n_in)
  bool jit = false;      // kOnednn: oneDNN's jit kernels' reciprocal product (else ref_pooling's division)
  // kTfliteMean: MultiplyByQuantizedMultiplier's Q31 multiplier and shifts
  std::int32_t qm = 0;
  int left = 0, right = 0;
  // Derived by the handler: no window of any input can reach a REQUIRE of the convention (a sum
  // beyond int32, a non-finite float step, a result beyond int32), and the integer divisions'
  // operands stay below 2^24 (the kernels divide in binary32, exact there), so the kernels need
  // no checks. When false only pool_one (which throws Unsupported there) may run.
  bool fast = false;
};

// y (N, OH, OW, C) from x (N, H, W, C), both int8 (uint8 if p.u8): every output is pool_one of its
// window. A PoolFn requires p.fast; pool_scalar throws pool_one's Unsupported without it.
using PoolFn = void (*)(const PoolParams& p, const void* x, void* y);
void pool_scalar(const PoolParams& p, const void* x, void* y);

// One output from the codes of its window's taps inside the input, in window order; throws
// Unsupported where the convention's REQUIREs fail (only when !p.fast).
std::int32_t pool_one(const PoolParams& p, const std::int32_t* taps, std::size_t n_in);

// The taps of output (b, oy, ox): rows [h0, h1), columns [w0, w1) of image b (empty ranges when the
// window lies in the padding), n_in of them. Static (internal linkage in each file that includes it):
// the kernels of every ISA level call it, and a shared inline copy could be linked from an AVX-512
// object for a lower level (backends/avx2/README.md).
struct PoolWindow {
  std::int64_t h0, h1, w0, w1;
  std::size_t n_in;
};
static inline PoolWindow pool_window(const PoolGeom& g, std::int64_t oy, std::int64_t ox) {
  const auto clip = [](std::int64_t v, std::int64_t hi) { return v < 0 ? 0 : (v > hi ? hi : v); };
  const std::int64_t y0 = oy * g.sh - g.pt, x0 = ox * g.sw - g.pl;
  PoolWindow r{clip(y0, g.h), clip(y0 + g.kh, g.h), clip(x0, g.w), clip(x0 + g.kw, g.w), 0};
  if (r.h1 < r.h0) r.h1 = r.h0;
  if (r.w1 < r.w0) r.w1 = r.w0;
  r.n_in = static_cast<std::size_t>((r.h1 - r.h0) * (r.w1 - r.w0));
  return r;
}

}  // namespace qspec::simd
