// AVX2 depthwise convolution (NHWC, multiplier 1): 16 channels per step, two taps per VPMADDWD.
//
// Operands are int16 (x - za, w - zw, bounded by the packer so every sum stays in int32). For a
// pair of taps (t, u), unpack{lo,hi}_epi16(x_t, x_u) interleaves the two taps of each channel and
// VPMADDWD against the equally interleaved weights gives x_t*w_t + x_u*w_u per channel, exactly.
// Pixels whose whole window is inside the input take a fast path with constant tap offsets.
#include <immintrin.h>

#include "local_vector.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

inline __m256i load16(const std::int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// x16 = x - za for n elements (bytes int8 or uint8).
void widen(const std::uint8_t* x, std::int64_t n, bool x_signed, std::int64_t za, std::int16_t* out) {
  const __m256i z = _mm256_set1_epi16(static_cast<std::int16_t>(za));
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    const __m256i v = x_signed ? _mm256_cvtepi8_epi16(b) : _mm256_cvtepu8_epi16(b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_sub_epi16(v, z));
  }
  for (; i < n; ++i)
    out[i] =
        static_cast<std::int16_t>((x_signed ? std::int64_t{static_cast<std::int8_t>(x[i])} : std::int64_t{x[i]}) - za);
}

// One output pixel: taps[t] + off[t] point at tap t's c channels.
inline void pixel(const std::int16_t* const* taps, const std::int64_t* off, std::int64_t pairs, std::int64_t c,
                  std::int64_t cv, const std::int16_t* wi, const std::int16_t* w16, std::int64_t ntaps,
                  std::int32_t* yp) {
  for (std::int64_t cb = 0; cb < cv; cb += 16) {
    __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
    for (std::int64_t pi = 0; pi < pairs; ++pi) {
      const __m256i xt = load16(taps[2 * pi] + off[2 * pi] + cb);
      const __m256i xu = load16(taps[2 * pi + 1] + off[2 * pi + 1] + cb);
      const std::int16_t* w = wi + (pi * cv + cb) * 2;
      lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xt, xu), load16(w)));
      hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(xt, xu), load16(w + 16)));
    }
    // lo holds channels 0-3 | 8-11, hi 4-7 | 12-15 (per 128-bit lane): restore the order.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(yp + cb), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(yp + cb + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  for (std::int64_t ch = cv; ch < c; ++ch) {  // channel tail
    std::int32_t s = 0;
    for (std::int64_t t = 0; t < ntaps; ++t) s += std::int32_t{taps[t][off[t] + ch]} * w16[t * c + ch];
    yp[ch] = s;
  }
}

// kPix consecutive interior pixels of one output row (pixel stride `step` elements): each weight
// vector is loaded once per tap pair and used for all of them.
template <int kPix>
inline void interior_pixels(const std::int16_t* base, std::int64_t step, const std::int64_t* off, std::int64_t pairs,
                            std::int64_t cv, const std::int16_t* wi, const std::int16_t* zeros, std::int64_t ntaps,
                            std::int32_t* yp, std::int64_t c) {
  for (std::int64_t cb = 0; cb < cv; cb += 16) {
    __m256i lo[kPix], hi[kPix];
#pragma GCC unroll 4
    for (int k = 0; k < kPix; ++k) lo[k] = hi[k] = _mm256_setzero_si256();
    for (std::int64_t pi = 0; pi < pairs; ++pi) {
      const std::int16_t* w = wi + (pi * cv + cb) * 2;
      const __m256i wl = load16(w), wh = load16(w + 16);
      const bool odd = 2 * pi + 1 == ntaps;  // the last tap of an odd count pairs with zeros
#pragma GCC unroll 4
      for (int k = 0; k < kPix; ++k) {
        const std::int16_t* b = base + k * step + cb;
        const __m256i xt = load16(b + off[2 * pi]);
        const __m256i xu = odd ? load16(zeros) : load16(b + off[2 * pi + 1]);
        lo[k] = _mm256_add_epi32(lo[k], _mm256_madd_epi16(_mm256_unpacklo_epi16(xt, xu), wl));
        hi[k] = _mm256_add_epi32(hi[k], _mm256_madd_epi16(_mm256_unpackhi_epi16(xt, xu), wh));
      }
    }
#pragma GCC unroll 4
    for (int k = 0; k < kPix; ++k) {
      std::int32_t* y = yp + k * c + cb;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), _mm256_permute2x128_si256(lo[k], hi[k], 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + 8), _mm256_permute2x128_si256(lo[k], hi[k], 0x31));
    }
  }
}

}  // namespace

void depthwise(const DepthwiseArgs& a) {
  const ConvGeom& g = *a.g;
  const std::int64_t oh = g.oh(), ow = g.ow(), c = g.c, taps = g.kh * g.kw;
  const std::int64_t pairs = (taps + 1) / 2, cv = c / 16 * 16;
  thread_local LocalVector<std::int16_t> x16, wi, pad16, zeros;
  x16.resize(static_cast<std::size_t>(g.n * g.h * g.w * c + 16));
  widen(a.x, g.n * g.h * g.w * c, a.x_signed, a.za, x16.data());
  pad16.assign(static_cast<std::size_t>(c), static_cast<std::int16_t>(a.pad - a.za));
  zeros.assign(static_cast<std::size_t>(c), 0);
  // Weights interleaved per tap pair exactly as the unpacks interleave the inputs.
  wi.assign(static_cast<std::size_t>(pairs * cv * 2), 0);
  for (std::int64_t pi = 0; pi < pairs; ++pi)
    for (std::int64_t cb = 0; cb < cv; cb += 16) {
      const __m256i wt = load16(a.w16 + 2 * pi * c + cb);
      const __m256i wu = 2 * pi + 1 < taps ? load16(a.w16 + (2 * pi + 1) * c + cb) : _mm256_setzero_si256();
      std::int16_t* dst = wi.data() + (pi * cv + cb) * 2;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_unpacklo_epi16(wt, wu));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 16), _mm256_unpackhi_epi16(wt, wu));
    }
  // Tap pointers (generic path) and constant tap offsets from the window corner (fast path).
  LocalVector<const std::int16_t*> tp(static_cast<std::size_t>(2 * pairs));
  LocalVector<std::int64_t> zero_off(static_cast<std::size_t>(2 * pairs), 0),
      off(static_cast<std::size_t>(2 * pairs), 0);
  for (std::int64_t i = 0; i < g.kh; ++i)
    for (std::int64_t j = 0; j < g.kw; ++j)
      off[static_cast<std::size_t>(i * g.kw + j)] = (i * g.dh * g.w + j * g.dw) * c;
  if (taps % 2 == 1) {
    tp[static_cast<std::size_t>(taps)] = zeros.data();  // the odd tap is paired with zeros
    off[static_cast<std::size_t>(taps)] = 0;
  }
  // Interior output columns: the whole window inside the input horizontally.
  std::int64_t q_lo = 0, q_hi = 0;
  while (q_lo < ow && q_lo * g.sw - g.pw < 0) ++q_lo;
  q_hi = q_lo;
  while (q_hi < ow && q_hi * g.sw - g.pw + (g.kw - 1) * g.dw < g.w) ++q_hi;
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t p = 0; p < oh; ++p) {
      const std::int64_t h0 = p * g.sh - g.ph;
      const bool rows_inside = h0 >= 0 && h0 + (g.kh - 1) * g.dh < g.h;
      auto generic = [&](std::int64_t q) {
        const std::int64_t v0 = q * g.sw - g.pw;
        for (std::int64_t i = 0; i < g.kh; ++i)
          for (std::int64_t j = 0; j < g.kw; ++j) {
            const std::int64_t h = h0 + i * g.dh, v = v0 + j * g.dw;
            const bool inside = h >= 0 && h < g.h && v >= 0 && v < g.w;
            tp[static_cast<std::size_t>(i * g.kw + j)] =
                inside ? x16.data() + ((n * g.h + h) * g.w + v) * c : pad16.data();
          }
        pixel(tp.data(), zero_off.data(), pairs, c, cv, wi.data(), a.w16, taps, a.y + ((n * oh + p) * ow + q) * c);
      };
      if (!rows_inside || cv != c) {
        for (std::int64_t q = 0; q < ow; ++q) generic(q);
        continue;
      }
      for (std::int64_t q = 0; q < q_lo; ++q) generic(q);
      std::int64_t q = q_lo;
      const std::int16_t* row = x16.data() + (n * g.h + h0) * g.w * c;
      std::int32_t* yrow = a.y + (n * oh + p) * ow * c;
      for (; q + 4 <= q_hi; q += 4)
        interior_pixels<4>(row + (q * g.sw - g.pw) * c, g.sw * c, off.data(), pairs, cv, wi.data(), zeros.data(), taps,
                           yrow + q * c, c);
      for (; q < q_hi; ++q)
        interior_pixels<1>(row + (q * g.sw - g.pw) * c, g.sw * c, off.data(), pairs, cv, wi.data(), zeros.data(), taps,
                           yrow + q * c, c);
      for (; q < ow; ++q) generic(q);
    }
}

}  // namespace qspec::simd::avx2
