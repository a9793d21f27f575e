// Internal to the average-pooling kernels: each convention's window arithmetic (qspec/simd/qlinear_pool.h)
// written once over a vector width V (simd_lanes.h: Ymm in qlinear_pool_avx2.cc, Zmm in
// qlinear_pool_avx512.cc), one lane per channel, and the NHWC driver that feeds it the windows.
// A kind K has an accumulator (K::Acc), zero(), tap(acc, codes) for each tap inside in window order,
// pixel(n_in) for the constants of a window's tap count, and finish(acc, pixel) -> the clamped lanes.
// In an unnamed namespace: each including file (compiled with its own ISA flags) keeps its own copy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qspec/simd/qlinear_pool.h"
#include "simd_lanes.h"

namespace qspec::simd::avx2 {
namespace {

// The window sum in int32 lanes: the codes, less n_in zx at the end (a padded tap adds 0).
template <class V>
struct CodeSum {
  using I = typename V::I;
  using Acc = I;
  I zx;
  explicit CodeSum(const PoolParams& p) : zx(V::set1(p.zx)) {}
  static Acc zero() { return V::set1(std::int32_t{0}); }
  static Acc tap(Acc a, I codes) { return V::add(a, codes); }
  I less_zx(Acc a, std::size_t n_in) const { return V::sub(a, V::mullo(zx, V::set1(static_cast<std::int32_t>(n_in)))); }
};

// XNNPACK's windowed kernel: round_half_away(acc S) = acc's sign times (|acc| mult + 2^(shift-1)) >> shift.
template <class V>
struct XnnpackPool : CodeSum<V> {
  using I = typename V::I;
  using Pixel = std::size_t;
  I mult, round, zy, lo, hi;
  __m128i shift;
  explicit XnnpackPool(const PoolParams& p)
      : CodeSum<V>(p),
        mult(V::set1(static_cast<std::int32_t>(p.mult))),
        round(V::set1_64(std::int64_t{1} << (p.shift - 1))),
        zy(V::set1(p.zy)),
        lo(V::set1(p.lo)),
        hi(V::set1(p.hi)),
        shift(_mm_cvtsi32_si128(p.shift)) {}
  static Pixel pixel(std::size_t n_in) { return n_in; }
  I finish(I a, Pixel n_in) const {
    const I acc = this->less_zx(a, n_in);
    const I scaled = V::mul_shift_u(V::abs(acc), mult, round, shift);
    return V::clamp(V::add(V::with_sign_of(scaled, acc), zy), lo, hi);
  }
};

// The divisor c of a window: K where the padding counts, else its taps inside (at least 1).
inline std::size_t divisor(const PoolParams& p, std::size_t n_in) {
  return p.include ? static_cast<std::size_t>(p.g.kh * p.g.kw) : (n_in ? n_in : 1);
}

// The fp32 epilogue: rne(fl32(fl32(acc) S)) + zy, clamped (|fl32(acc) S| < 2^30: the handler's bound),
// S constant or fl32(1 / fl32(c)) per window.
template <class V>
struct Fp32Pool : CodeSum<V> {
  using I = typename V::I;
  using F = typename V::F;
  struct Pixel {
    std::size_t n_in;
    F scale;
  };
  const PoolParams& p;
  F scale;
  I zy, lo, hi;
  explicit Fp32Pool(const PoolParams& q)
      : CodeSum<V>(q), p(q), scale(V::set1(q.scale)), zy(V::set1(q.zy)), lo(V::set1(q.lo)), hi(V::set1(q.hi)) {}
  Pixel pixel(std::size_t n_in) const {
    return {n_in, p.per_count ? V::set1(1.0f / static_cast<float>(divisor(p, n_in))) : scale};
  }
  I finish(I a, const Pixel& px) const {
    return V::clamp(V::add(V::rne(V::mul(V::to_float(this->less_zx(a, px.n_in)), px.scale)), zy), lo, hi);
  }
};

// ONNX Runtime's float pipeline: a += fl32(xs fl32(X - zx)) per tap, / fl32(c), / ys, + fl32(zy), rne.
template <class V>
struct OrtPool {
  using I = typename V::I;
  using F = typename V::F;
  using Acc = F;
  using Pixel = F;  // fl32(c)
  const PoolParams& p;
  F xs, ys, fzy;
  I zx, lo, hi;
  explicit OrtPool(const PoolParams& q)
      : p(q),
        xs(V::set1(q.xs)),
        ys(V::set1(q.ys)),
        fzy(V::set1(q.fzy)),
        zx(V::set1(q.zx)),
        lo(V::set1(q.lo)),
        hi(V::set1(q.hi)) {}
  static Acc zero() { return V::set1(0.0f); }
  Acc tap(Acc a, I codes) const { return V::add(a, V::mul(xs, V::to_float(V::sub(codes, zx)))); }
  Pixel pixel(std::size_t n_in) const { return V::set1(static_cast<float>(divisor(p, n_in))); }
  I finish(Acc a, Pixel c) const { return V::clamp(V::rne(V::add(V::div(V::div(a, c), ys), fzy)), lo, hi); }
};

// round_half_away(s / n) = s's sign times floor((|s| + floor(n/2)) / n), the quotient taken in binary32:
// u = |s| + floor(n/2) < 2^24 and n (n + u < 2^24, the handler's bound) are exact there, and
// fl32(u / n) truncates to floor(u / n): an integer quotient is exact, and otherwise u / n lies at
// least 1/n below floor(u / n) + 1, farther than half its ulp ((u / n + 1) 2^-24 < 1/n).
template <class V>
struct HalfAwayDiv {
  using I = typename V::I;
  struct Pixel {
    I half;
    typename V::F n;
  };
  static Pixel pixel(std::size_t n) {
    return {V::set1(static_cast<std::int32_t>(n / 2)), V::set1(static_cast<float>(n))};
  }
  static I div(I s, const Pixel& d) {
    return V::with_sign_of(V::trunc(V::div(V::to_float(V::add(V::abs(s), d.half)), d.n)), s);
  }
};

// TFLite's AveragePool: round_half_away(sum T / n_in) of the codes, clamped.
template <class V>
struct TflitePool : CodeSum<V>, HalfAwayDiv<V> {
  using I = typename V::I;
  using Pixel = typename HalfAwayDiv<V>::Pixel;
  I lo, hi;
  explicit TflitePool(const PoolParams& p) : CodeSum<V>(p), lo(V::set1(p.lo)), hi(V::set1(p.hi)) {}
  using HalfAwayDiv<V>::pixel;
  I finish(I s, const Pixel& d) const { return V::clamp(HalfAwayDiv<V>::div(s, d), lo, hi); }
};

// oneDNN's code average: the jit kernels' fl32(s) times fl32(1 / fl32(c)) or ref_pooling's
// fl32(s) / fl32(c) (|s| < 2^24: exact in binary32), rne, clamped.
template <class V>
struct OnednnPool : CodeSum<V> {
  using I = typename V::I;
  using Pixel = typename V::F;  // the reciprocal (jit) or the count (ref)
  const PoolParams& p;
  I lo, hi;
  explicit OnednnPool(const PoolParams& q) : CodeSum<V>(q), p(q), lo(V::set1(q.lo)), hi(V::set1(q.hi)) {}
  Pixel pixel(std::size_t n_in) const {
    const auto c = static_cast<float>(divisor(p, n_in));
    return V::set1(p.jit ? 1.0f / c : c);
  }
  I finish(I s, Pixel d) const {
    const auto f = V::to_float(s);
    return V::clamp(V::rne(p.jit ? V::mul(f, d) : V::div(f, d)), lo, hi);
  }
};

// The NHWC driver: for every output pixel, kLanes channels at a time (the last n % kLanes through
// V's partial load and store), the taps inside in window order.
template <class V, bool kU8, class K>
void pool_drive(const K& k, const PoolParams& p, const void* xv, void* yv) {
  const PoolGeom& g = p.g;
  const auto* x = static_cast<const std::uint8_t*>(xv);
  auto* y = static_cast<std::uint8_t*>(yv);
  const std::int64_t L = V::kLanes;
  for (std::int64_t b = 0; b < g.n; ++b) {
    const std::uint8_t* image = x + b * g.h * g.w * g.c;
    for (std::int64_t oy = 0; oy < g.oh; ++oy)
      for (std::int64_t ox = 0; ox < g.ow; ++ox, y += g.c) {
        const PoolWindow w = pool_window(g, oy, ox);
        const auto px = k.pixel(w.n_in);
        const std::uint8_t* first = image + (w.n_in ? (w.h0 * g.w + w.w0) * g.c : 0);  // no tap: not read
        const std::int64_t row = g.w * g.c, cols = w.w1 - w.w0;
        std::int64_t ch = 0;
        for (; ch + 2 * L <= g.c; ch += 2 * L) {  // two independent accumulators
          auto a0 = k.zero(), a1 = k.zero();
          const std::uint8_t* r = first + ch;
          for (std::int64_t h = w.h0; h < w.h1; ++h, r += row)
            for (std::int64_t v = 0; v < cols; ++v) {
              a0 = k.tap(a0, V::template load<kU8>(r + v * g.c));
              a1 = k.tap(a1, V::template load<kU8>(r + v * g.c + L));
            }
          V::template store<kU8>(y + ch, k.finish(a0, px));
          V::template store<kU8>(y + ch + L, k.finish(a1, px));
        }
        for (; ch < g.c; ch += L) {
          const auto n = static_cast<std::size_t>(g.c - ch < L ? g.c - ch : L);
          auto a = k.zero();
          const std::uint8_t* r = first + ch;
          for (std::int64_t h = w.h0; h < w.h1; ++h, r += row)
            for (std::int64_t v = 0; v < cols; ++v)
              a = k.tap(a, n == static_cast<std::size_t>(L) ? V::template load<kU8>(r + v * g.c)
                                                            : V::template load<kU8>(r + v * g.c, n));
          if (n == static_cast<std::size_t>(L))
            V::template store<kU8>(y + ch, k.finish(a, px));
          else
            V::template store<kU8>(y + ch, k.finish(a, px), n);
        }
      }
  }
}

// Calls run(f) with the functor of p's kind on width V; false for TFLite's Mean (ymm only: its fixed
// point is requant_kinds_avx2.h's).
template <class V, class Run>
bool run_pool_kind(const PoolParams& p, const Run& run) {
  using K = PoolParams::Kind;
  switch (p.kind) {
    case K::kXnnpack: run(XnnpackPool<V>(p)); return true;
    case K::kFp32: run(Fp32Pool<V>(p)); return true;
    case K::kOrt: run(OrtPool<V>(p)); return true;
    case K::kTflite: run(TflitePool<V>(p)); return true;
    case K::kOnednn: run(OnednnPool<V>(p)); return true;
    case K::kTfliteMean: return false;
  }
  return false;
}

}  // namespace
}  // namespace qspec::simd::avx2
