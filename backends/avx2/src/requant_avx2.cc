// AVX2 requantization kernels (8 int32 lanes per step), bit-exact with requant_scalar on every input.
//
// Compiled with -mavx2 only (no -mfma: a fused multiply-add would change the float conventions'
// two roundings into one). Called only after the dispatcher has checked AVX2 at run time.
#include <immintrin.h>

#include "narrow_store.h"
#include "requant_kinds_avx2.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

// ---- the float kinds (the integer ones are in requant_kinds_avx2.h) ----

// rne(fl32(fl32(x) * scale)) + zp (then clamp), or with kInclZp rne(fl32(that + fl32(zp))).
template <bool kInclZp, bool kNarrow>
struct FloatKind {
  __m256 scale, zp_f, flo, fhi;
  __m256d dzp, dlo, dhi;
  __m256i zp;
  explicit FloatKind(const RequantParams& p) : FloatKind(p, FloatLanes<kInclZp, kNarrow>(p)) {}
  FloatKind(const RequantParams& p, const FloatLanes<kInclZp, kNarrow>& c)
      : scale(_mm256_set1_ps(p.scale)),
        zp_f(_mm256_set1_ps(p.zp_f)),
        flo(_mm256_set1_ps(p.flo)),
        fhi(_mm256_set1_ps(p.fhi)),
        dzp(_mm256_set1_pd(c.dzp)),
        dlo(_mm256_set1_pd(p.qmin)),
        dhi(_mm256_set1_pd(p.qmax)),
        zp(_mm256_set1_epi32(c.izp)) {}

  // Round to nearest even and add the zero point in binary64 (exact while |r| < 2^53, and
  // beyond that far outside the range anyway), clamp there, convert: every int32 is exact.
  __m128i wide_half(__m128 f) const {
    __m256d d = _mm256_round_pd(_mm256_cvtps_pd(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    d = _mm256_min_pd(_mm256_max_pd(_mm256_add_pd(d, dzp), dlo), dhi);  // max_pd(NaN, lo) = lo
    return _mm256_cvtpd_epi32(d);
  }

  __m256i operator()(__m256i x) const {
    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(x), scale);  // cvtepi32_ps rounds to nearest even
    if constexpr (kInclZp) f = _mm256_add_ps(f, zp_f);
    __m256i r;
    if constexpr (kNarrow) {
      // Integer bounds commute with the monotone rounding, so clamping first is exact and keeps
      // cvtps_epi32 in range.
      f = _mm256_min_ps(_mm256_max_ps(f, flo), fhi);
      r = _mm256_cvtps_epi32(f);
    } else {
      r = _mm256_set_m128i(wide_half(_mm256_extractf128_ps(f, 1)), wide_half(_mm256_castps256_ps128(f)));
    }
    return _mm256_add_epi32(r, zp);
  }
};

// ---- the loop: full vectors, narrowing stores, scalar tail ----

inline __m256i load(const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// The ymm kernels for requant_with (requant_kinds.h).
struct Ymm {
  // RDBPOT and the two constants cost the same 18 instructions on ymm: no fold.
  static constexpr bool kQ31AsShiftRound = false;
  template <class F>
  static void run(const F& f, const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
    const std::size_t es = static_cast<std::size_t>(out_size(p.out));
    narrow_loop_any(
        p.out, n, y, [&](std::size_t i) { return f(load(x + i)); },
        [&](std::size_t i) { requant_scalar(p, n - i, x + i, static_cast<unsigned char*>(y) + i * es); });
  }
};

}  // namespace

void requant(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  requant_with<Ymm, Q31Double, ShiftRound, FloatKind>(p, n, x, y);
}

}  // namespace qspec::simd::avx2
