// AVX2 float -> integer quantization and integer -> float dequantization, bit-exact with the scalar
// path: the same IEEE binary32 steps (div/mul, add, round, add) on 8 lanes; -mavx2 only, no FMA.
#include <immintrin.h>

#include "narrow_store.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {

void quantize(const QuantizeParams& p, std::size_t n, const float* x, void* y) {
  if (!p.narrow) return quantize_scalar(p, n, x, y);
  const __m256 s = _mm256_set1_ps(p.s), pre = _mm256_set1_ps(p.pre_zp), post = _mm256_set1_ps(p.post_zpf);
  const __m256 flo = _mm256_set1_ps(p.flo), fhi = _mm256_set1_ps(p.fhi);
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
  const __m256i zp = _mm256_set1_epi32(p.post == QuantizeParams::Post::kInt ? static_cast<std::int32_t>(p.post_zp) : 0);
  const bool away = p.round == QuantizeParams::Round::kHalfAway;
  auto f = [&](std::size_t i) {
    const __m256 xv = _mm256_loadu_ps(x + i);
    __m256 v = p.divide ? _mm256_div_ps(xv, s) : _mm256_mul_ps(xv, s);
    if (p.pre_add) v = _mm256_add_ps(v, pre);
    __m256 r;
    if (away) {
      // trunc(v) + sign(v) where |v - trunc(v)| >= 1/2: the difference is exact, and for
      // |v| >= 2^23 (already an integer, or infinite) it is 0 or NaN, so nothing is added.
      const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
      const __m256 d = _mm256_andnot_ps(sign, _mm256_sub_ps(v, t));
      const __m256 step = _mm256_or_ps(one, _mm256_and_ps(sign, v));
      r = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(d, half, _CMP_GE_OQ), step));
    } else {
      r = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    if (p.post == QuantizeParams::Post::kFloat) r = _mm256_add_ps(r, post);
    // Integer bounds (exact binary32, |.| <= 2^24): clamping the integral r is the saturation;
    // max_ps(NaN, lo) = lo, as the scalar path maps NaN to the low end.
    r = _mm256_min_ps(_mm256_max_ps(r, flo), fhi);
    return _mm256_add_epi32(_mm256_cvtps_epi32(r), zp);
  };
  const std::size_t es = static_cast<std::size_t>(out_size(p.out));
  narrow_loop_any(p.out, n, y, f,
                  [&](std::size_t i) { quantize_scalar(p, n - i, x + i, static_cast<unsigned char*>(y) + i * es); });
}

void dequantize(std::size_t n, const std::int32_t* x, std::int32_t zp, float s, float* y) {
  const __m256i z = _mm256_set1_epi32(zp);
  const __m256 sv = _mm256_set1_ps(s);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    const __m256i d = _mm256_sub_epi32(xv, z);
    // x - zp must be the exact (int64) difference: a lane whose int32 subtraction overflowed
    // (operand signs differ and the result's sign differs from x's) takes the scalar path.
    const __m256i ovf = _mm256_and_si256(_mm256_xor_si256(xv, z), _mm256_xor_si256(xv, d));
    if (_mm256_movemask_ps(_mm256_castsi256_ps(ovf)) != 0) {
      dequantize_scalar(8, x + i, zp, s, y + i);
      continue;
    }
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(d), sv));  // cvtepi32_ps: nearest even
  }
  if (i < n) dequantize_scalar(n - i, x + i, zp, s, y + i);
}

}  // namespace qspec::simd::avx2
