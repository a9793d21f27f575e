// The scalar form of the average-pooling kernels (qspec/simd/qlinear_pool.h): one window at a time in
// each convention's integer and IEEE binary32 steps (built with -ffp-contract=off).
#include <algorithm>
#include <cmath>
#include <vector>

#include "elementwise_steps.h"
#include "qspec/simd/qlinear_pool.h"

namespace qspec::simd {
namespace {

// TFLite's rounded division: acc > 0 ? (acc + n/2) / n : (acc - n/2) / n (C's truncating division).
std::int64_t div_half_away(std::int64_t acc, std::int64_t n) { return acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n; }

// The divisor c: K where the padding counts, else the taps inside (at least 1: the conventions that
// divide by n_in reject an empty window, or cannot have one).
std::int64_t count(const PoolParams& p, std::int64_t n_in) {
  return p.include ? p.g.kh * p.g.kw : std::max<std::int64_t>(n_in, 1);
}

}  // namespace

std::int32_t pool_one(const PoolParams& p, const std::int32_t* taps, std::size_t n_in) {
  using K = PoolParams::Kind;
  const auto n = static_cast<std::int64_t>(n_in);
  std::int64_t codes = 0;
  for (std::size_t i = 0; i < n_in; ++i) codes += taps[i];
  const std::int64_t acc = codes - n * p.zx;  // the window sum; padded taps contribute 0
  if (acc < INT32_MIN || acc > INT32_MAX) throw Unsupported("qlinear pool: window sum beyond int32 (a REQUIRE)");
  std::int64_t y = 0;
  switch (p.kind) {
    case K::kXnnpack: {  // |acc| mult + 2^(shift-1) >> shift with acc's sign
      const auto abs = static_cast<std::uint64_t>(acc < 0 ? -acc : acc);
      const auto scaled = static_cast<std::int64_t>((abs * p.mult + (std::uint64_t{1} << (p.shift - 1))) >> p.shift);
      y = (acc < 0 ? -scaled : scaled) + p.zy;
      break;
    }
    case K::kFp32: {
      const float f =
          static_cast<float>(acc) * (p.per_count ? 1.0f / static_cast<float>(count(p, n))
                                                 : p.scale);  // |f| < 2^31 2^8: finite, and an int64 once rounded
      y = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(f))) + p.zy;
      break;
    }
    case K::kOrt: {
      float a = 0.0f;
      for (std::size_t i = 0; i < n_in; ++i) a = a + p.xs * static_cast<float>(taps[i] - p.zx);
      const float m = a / static_cast<float>(count(p, n));
      y = elementwise::rne_int32(m / p.ys + p.fzy, "onnxruntime pool");
      break;
    }
    case K::kTflite:
      if (n == 0) throw Unsupported("tflite: a window without an input element");  // rejected by the handler
      y = div_half_away(codes, n);
      break;
    case K::kOnednn: {
      const float fs = static_cast<float>(codes), fc = static_cast<float>(count(p, n));
      y = static_cast<std::int64_t>(std::nearbyint(p.jit ? fs * (1.0f / fc) : fs / fc));  // |s| < 2^24: exact
      break;
    }
    case K::kTfliteMean: y = div_half_away(elementwise::mbqm(acc, {p.qm, p.left - p.right}, false), n) + p.zy; break;
  }
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(y, p.lo, p.hi));
}

void pool_scalar(const PoolParams& p, const void* xv, void* yv) {
  const PoolGeom& g = p.g;
  const auto* x = static_cast<const std::uint8_t*>(xv);
  auto* y = static_cast<std::uint8_t*>(yv);
  const auto code = [&](std::uint8_t c) { return p.u8 ? std::int32_t{c} : std::int32_t{static_cast<std::int8_t>(c)}; };
  std::vector<std::int32_t> taps(static_cast<std::size_t>(g.kh * g.kw));
  for (std::int64_t b = 0; b < g.n; ++b)
    for (std::int64_t oy = 0; oy < g.oh; ++oy)
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const PoolWindow w = pool_window(g, oy, ox);
        for (std::int64_t ch = 0; ch < g.c; ++ch) {
          std::size_t t = 0;
          for (std::int64_t h = w.h0; h < w.h1; ++h)
            for (std::int64_t v = w.w0; v < w.w1; ++v) taps[t++] = code(x[((b * g.h + h) * g.w + v) * g.c + ch]);
          *y++ = static_cast<std::uint8_t>(pool_one(p, taps.data(), t));
        }
      }
}

}  // namespace qspec::simd
