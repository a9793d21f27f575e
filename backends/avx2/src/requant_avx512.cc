// AVX-512 requantization kernels (16 int32 lanes per zmm), bit-exact with requant_scalar on every input.
//
// The arithmetic of requant_avx2.cc on zmm, with what AVX512F adds: compares into mask registers
// instead of blends, VPMINSQ / VPMAXSQ for the 64-bit clamp, VPERMT2D to gather the quotients' high
// dwords, VRNDSCALEPD for the binary64 rounding, VPMOVDB / VPMOVDW narrowing where the main loop does
// not pack (the lanes are already inside the output range, so truncation is exact), and a masked
// load and store for the tail instead of the scalar loop. kQ31Double is folded into kShiftRound
// where it can be (requant_kinds.h). Byte outputs of the integer kinds leave the clamp and the zero
// point to the packs' saturation (run_raw_bytes), and kShiftRound with S >= 32 adds the zero point in
// its rounding constant and loads its odd lanes from x + 1: on Zen 5 these kinds are bound by the
// vector operations per 16 lanes, not by the memory (docs/benchmarks.md). Compiled with the zmm
// level's flags and reached only from that level (kernel_set.cc). -mavx512f implies -mfma, but the
// target's -ffp-contract=off keeps the float kinds' multiply and add two roundings (checked: no
// VFMADD in the object).
// GCC 12 reports its own _mm*_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og (the asan preset) as uninitialized
// (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include "qspec/simd/avx2_kernels.h"
#include "requant_kinds.h"

namespace qspec::simd::avx2 {
namespace {

constexpr __mmask16 kOdd = 0xAAAA;  // the odd int32 lanes: the high dwords of the qwords

// ---- the four kinds as 16-lane functors: int32 in, clamped int32 (with zero point) out ----

struct Q31Double {
  __m512i m, nudge, mask, half, lo, hi, zp, one, int_min, int_max;
  __m128i lsh, rsh;
  bool fix_overflow;
  explicit Q31Double(const RequantParams& p) : Q31Double(p, Q31Lanes(p)) {}
  Q31Double(const RequantParams& p, const Q31Lanes& c)
      : m(_mm512_set1_epi64(p.multiplier)),  // mul_epi32 reads the low dword of each qword
        nudge(_mm512_set1_epi64(std::int64_t{1} << 30)),
        mask(_mm512_set1_epi32(c.mask)),
        half(_mm512_set1_epi32(c.half)),
        lo(_mm512_set1_epi32(p.lo_nozp)),
        hi(_mm512_set1_epi32(p.hi_nozp)),
        zp(_mm512_set1_epi32(p.zp)),
        one(_mm512_set1_epi32(1)),
        int_min(_mm512_set1_epi32(INT32_MIN)),
        int_max(_mm512_set1_epi32(INT32_MAX)),
        lsh(_mm_cvtsi32_si128(p.left_shift)),
        rsh(_mm_cvtsi32_si128(p.right_shift)),
        fix_overflow(c.fix_overflow) {}

  // The requantized value before the clamp and the zero point (run_raw_bytes adds those to bytes).
  __m512i raw(__m512i x) const {
    x = _mm512_sll_epi32(x, lsh);  // x * 2^L modulo 2^32
    // SRDHM: bits 31..62 of the exact 64-bit x*M + 2^30 of the even and odd lanes (requant_avx2.cc).
    const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(x, m), nudge);
    const __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), m), nudge);
    __m512i r = _mm512_mask_blend_epi32(kOdd, _mm512_srli_epi64(pe, 31), _mm512_slli_epi64(po, 1));
    if (fix_overflow) r = _mm512_mask_mov_epi32(r, _mm512_cmpeq_epi32_mask(x, int_min), int_max);
    // RDBPOT: (r >> R) + (remainder > (mask >> 1) + (r < 0)), i.e. ties away from zero.
    const __m512i thr = _mm512_sub_epi32(half, _mm512_srai_epi32(r, 31));
    const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(r, mask), thr);
    const __m512i q = _mm512_sra_epi32(r, rsh);
    return _mm512_mask_add_epi32(q, up, q, one);
  }
  __m512i operator()(__m512i x) const {
    return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(raw(x), lo), hi), zp);
  }
};

// floor((x*M + c(x)) / 2^S): 64-bit products of even and odd lanes, the rounding constant chosen
// by the sign of x through a mask, then the quotient's low 32 bits put back in lane order.
template <bool kTwoConstants, bool kWide, bool kHighShift>
struct ShiftRound {
  __m512i off, m, c_pos, c_neg, sign_lo, wlo, whi, lo, hi, zp, hi_dwords;
  __m128i s_lo, s_hi;
  bool has_offset;
  explicit ShiftRound(const RequantParams& p) : ShiftRound(p, ShiftLanes(p)) {}
  ShiftRound(const RequantParams& p, const ShiftLanes& c)
      : off(_mm512_set1_epi32(p.input_offset)),
        m(_mm512_set1_epi64(p.multiplier)),
        c_pos(_mm512_set1_epi64(p.round_pos)),
        c_neg(_mm512_set1_epi64(p.round_neg)),
        sign_lo(_mm512_set1_epi64(std::int64_t{1} << 31)),  // the even lane's sign bit in its qword
        wlo(_mm512_set1_epi64(p.wide_lo)),
        whi(_mm512_set1_epi64(p.wide_hi)),
        lo(_mm512_set1_epi32(p.lo_nozp)),
        hi(_mm512_set1_epi32(p.hi_nozp)),
        zp(_mm512_set1_epi32(p.zp)),
        hi_dwords(_mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31)),  // se's, so's
        s_lo(_mm_cvtsi32_si128(c.s_lo)),
        s_hi(_mm_cvtsi32_si128(c.s_hi)),
        has_offset(c.has_offset) {}

  // The parameters whose raw2 includes the zero point (requant_kinds.h), where they exist.
  static bool fold_zp(const RequantParams& p, RequantParams& z) {
    if constexpr (kWide || !kHighShift) return false;
    return zp_into_rounding(p, z);
  }

  // The quotient before the int32 clamp and the zero point (run_raw_bytes adds those to bytes), from
  // x and xo, whose low dword in each qword is x's odd lane (the kernel loads xo from x + 1).
  template <bool kOffset = true>
  __m512i raw2(__m512i x, __m512i xo) const {
    // The input offset, modulo 2^32 as the scalar path.
    if (kOffset && has_offset) x = _mm512_add_epi32(x, off), xo = _mm512_add_epi32(xo, off);
    __m512i se = _mm512_mul_epi32(x, m);
    __m512i so = _mm512_mul_epi32(xo, m);
    if constexpr (kTwoConstants) {
      // x < 0: each lane's sign is bit 31 of the qword it is the low dword of.
      const __mmask8 neg_e = _mm512_test_epi64_mask(x, sign_lo);
      const __mmask8 neg_o = _mm512_test_epi64_mask(xo, sign_lo);
      se = _mm512_add_epi64(se, _mm512_mask_mov_epi64(c_pos, neg_e, c_neg));
      so = _mm512_add_epi64(so, _mm512_mask_mov_epi64(c_pos, neg_o, c_neg));
    } else {
      se = _mm512_add_epi64(se, c_pos);
      so = _mm512_add_epi64(so, c_pos);
    }
    if constexpr (kWide) {  // the clamp of finalize(): the quotient then fits int32
      se = _mm512_min_epi64(_mm512_max_epi64(se, wlo), whi);
      so = _mm512_min_epi64(_mm512_max_epi64(so, wlo), whi);
    }
    __m512i r;
    if constexpr (kHighShift) {
      // S >= 32: floor(s / 2^S) = floor(hi32(s) / 2^(S-32)) with hi32 the signed high dword.
      // VPERMT2D gathers the high dwords in lane order: one instruction for a shift and a blend.
      r = _mm512_sra_epi32(_mm512_permutex2var_epi32(se, hi_dwords, so), s_lo);
    } else {
      // S < 32: bits S..S+31 of s are floor(s / 2^S) modulo 2^32, exact when it fits int32.
      r = _mm512_mask_blend_epi32(kOdd, _mm512_srl_epi64(se, s_lo), _mm512_sll_epi64(so, s_hi));
    }
    return r;  // kWide: already inside [lo_nozp, hi_nozp]
  }
  __m512i operator()(__m512i x) const {
    if (has_offset) x = _mm512_add_epi32(x, off);
    __m512i r = raw2<false>(x, _mm512_srli_epi64(x, 32));
    if constexpr (!kWide) r = _mm512_min_epi32(_mm512_max_epi32(r, lo), hi);
    return _mm512_add_epi32(r, zp);
  }
};

// rne(fl32(fl32(x) * scale)) + zp (then clamp), or with kInclZp rne(fl32(that + fl32(zp))).
template <bool kInclZp, bool kNarrow>
struct FloatKind {
  __m512 scale, zp_f, flo, fhi;
  __m512d dzp, dlo, dhi;
  __m512i zp;
  explicit FloatKind(const RequantParams& p) : FloatKind(p, FloatLanes<kInclZp, kNarrow>(p)) {}
  FloatKind(const RequantParams& p, const FloatLanes<kInclZp, kNarrow>& c)
      : scale(_mm512_set1_ps(p.scale)),
        zp_f(_mm512_set1_ps(p.zp_f)),
        flo(_mm512_set1_ps(p.flo)),
        fhi(_mm512_set1_ps(p.fhi)),
        dzp(_mm512_set1_pd(c.dzp)),
        dlo(_mm512_set1_pd(p.qmin)),
        dhi(_mm512_set1_pd(p.qmax)),
        zp(_mm512_set1_epi32(c.izp)) {}

  // Round to nearest even and add the zero point in binary64 (exact while |r| < 2^53, and beyond
  // that far outside the range anyway), clamp there, convert: every int32 is exact.
  __m256i wide_half(__m256 f) const {
    __m512d d = _mm512_roundscale_pd(_mm512_cvtps_pd(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    d = _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(d, dzp), dlo), dhi);  // max_pd(NaN, lo) = lo
    return _mm512_cvtpd_epi32(d);
  }

  __m512i operator()(__m512i x) const {
    __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(x), scale);  // cvtepi32_ps rounds to nearest even (MXCSR)
    if constexpr (kInclZp) f = _mm512_add_ps(f, zp_f);
    __m512i r;
    if constexpr (kNarrow) {
      // Integer bounds commute with the monotone rounding, so clamping first is exact and keeps
      // cvtps_epi32 in range.
      r = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, flo), fhi));
    } else {
      const __m256i a = wide_half(_mm512_castps512_ps256(f));
      const __m256i b = wide_half(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1)));
      r = _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
    }
    return _mm512_add_epi32(r, zp);
  }
};

// ---- the loop: 64 elements per step, then 16, then one masked step ----

// Stores of 16 lanes already inside the output type's range: truncating narrows are exact. The
// byte and word narrows are register forms plus a plain store (VPMOVDB's store form is slow on Zen 4).
template <OutType T>
struct Store {
  static constexpr std::size_t kSize = T == OutType::I8 || T == OutType::U8 ? 1 : T == OutType::I32 ? 4 : 2;
  static void full(unsigned char* y, __m512i r) {
    if constexpr (kSize == 1) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm512_cvtepi32_epi8(r));
    } else if constexpr (kSize == 2) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), _mm512_cvtepi32_epi16(r));
    } else {
      _mm512_storeu_si512(y, r);
    }
  }
  static void masked(unsigned char* y, __mmask16 k, __m512i r) {
    if constexpr (kSize == 1) {
      _mm512_mask_cvtepi32_storeu_epi8(y, k, r);
    } else if constexpr (kSize == 2) {
      _mm512_mask_cvtepi32_storeu_epi16(y, k, r);
    } else {
      _mm512_mask_storeu_epi32(y, k, r);
    }
  }
};

template <OutType T, class F>
void run_typed(const F& f, std::size_t n, const std::int32_t* x, void* yv) {
  using S = Store<T>;
  auto* y = static_cast<unsigned char*>(yv);
  auto ld = [x](std::size_t i) { return _mm512_loadu_si512(x + i); };
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    // Four independent vectors in flight: the loads of the next ones overlap this one's arithmetic.
    const __m512i a = f(ld(i)), b = f(ld(i + 16)), c = f(ld(i + 32)), d = f(ld(i + 48));
    if constexpr (S::kSize == 1) {
      // Lanes are inside the output range, so the saturating packs only narrow; VPERMD undoes their
      // per-128-bit interleaving. 4 instructions and one store per 64 bytes, against 4 VPMOVDB and 4 stores.
      const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
      const __m512i ab = _mm512_packs_epi32(a, b), cd = _mm512_packs_epi32(c, d);
      const __m512i r = T == OutType::I8 ? _mm512_packs_epi16(ab, cd) : _mm512_packus_epi16(ab, cd);
      _mm512_storeu_si512(y + i, _mm512_permutexvar_epi32(order, r));
    } else {
      S::full(y + i * S::kSize, a);
      S::full(y + (i + 16) * S::kSize, b);
      S::full(y + (i + 32) * S::kSize, c);
      S::full(y + (i + 48) * S::kSize, d);
    }
  }
  for (; i + 16 <= n; i += 16) S::full(y + i * S::kSize, f(ld(i)));
  if (i < n) {
    // Masked-off lanes are neither read (no fault past the end) nor written; they compute on zeros.
    const auto k = static_cast<__mmask16>((1u << (n - i)) - 1);
    S::masked(y + i * S::kSize, k, f(_mm512_maskz_loadu_epi32(k, x + i)));
  }
}

template <class F>
concept HasRaw = requires(const F& f, __m512i v) {
  f.raw(v);
};
template <class F>
concept HasRaw2 = requires(const F& f, __m512i v) {
  f.raw2(v, v);
};
template <class F>
concept FoldsZp = requires(const RequantParams& p, RequantParams& z) {
  F::fold_zp(p, z);
};

// Byte outputs from raw() (the value before the int32 clamp and the zero point), 64 per step: the
// clamp and the zero point become saturations of the packs instead of three operations per 16 lanes.
// With v = raw(x): packs_epi32 gives sat16(v); adds_epi16 gives sat16(sat16(v) + zp); the byte pack
// saturates that to T's range. That equals sat_T(v + zp) when |zp| <= 32512: where sat16 clipped v
// (v > 32767 or v < -32768), 32767 + zp >= 255 and -32768 + zp <= -128 still saturate to T's bound,
// as v + zp does; where the 16-bit addition saturates, so does the byte pack. kClamp then clamps the
// bytes to [qmin, qmax] (inside T's range), which is clamp(v, qmin - zp, qmax - zp) + zp = operator().
// Without kAddZp, raw() already includes zp (fold_zp) and the packs alone give sat_T(v).
// A functor with raw2 reads its odd lanes from x + 1 (a load instead of a shift), one element past
// its 16: the loop stops 64 + 1 elements before the end.
template <OutType T, bool kClamp, bool kAddZp, class F>
std::size_t run_raw_bytes(const F& f, const RequantParams& p, std::size_t n, const std::int32_t* x, void* yv) {
  auto* y = static_cast<unsigned char*>(yv);
  auto ld = [x](std::size_t i) { return _mm512_loadu_si512(x + i); };
  auto raw = [&](std::size_t i) {
    if constexpr (HasRaw2<F>) {
      return f.raw2(ld(i), ld(i + 1));
    } else {
      return f.raw(ld(i));
    }
  };
  const std::size_t end = HasRaw2<F> && n > 0 ? n - 1 : n;
  const __m512i zp16 = _mm512_set1_epi16(static_cast<std::int16_t>(p.zp));
  const __m512i qmin = _mm512_set1_epi8(static_cast<char>(p.qmin)), qmax = _mm512_set1_epi8(static_cast<char>(p.qmax));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  std::size_t i = 0;
  for (; i + 64 <= end; i += 64) {
    const __m512i a = raw(i), b = raw(i + 16), c = raw(i + 32), d = raw(i + 48);
    __m512i ab = _mm512_packs_epi32(a, b), cd = _mm512_packs_epi32(c, d);
    if constexpr (kAddZp) ab = _mm512_adds_epi16(ab, zp16), cd = _mm512_adds_epi16(cd, zp16);
    __m512i r = T == OutType::I8 ? _mm512_packs_epi16(ab, cd) : _mm512_packus_epi16(ab, cd);
    if constexpr (kClamp) {
      r = T == OutType::I8 ? _mm512_min_epi8(_mm512_max_epi8(r, qmin), qmax)
                           : _mm512_min_epu8(_mm512_max_epu8(r, qmin), qmax);
    }
    _mm512_storeu_si512(y + i, _mm512_permutexvar_epi32(order, r));
  }
  return i;
}

template <OutType T, bool kAddZp, class F>
std::size_t run_raw_bytes(const F& f, const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  const std::int32_t tmin = T == OutType::I8 ? -128 : 0, tmax = T == OutType::I8 ? 127 : 255;
  if (p.qmin < tmin || p.qmax > tmax) return 0;  // a clamp wider than T: left to run_typed
  if (p.qmin != tmin || p.qmax != tmax) return run_raw_bytes<T, true, kAddZp>(f, p, n, x, y);
  return run_raw_bytes<T, false, kAddZp>(f, p, n, x, y);
}

// Bytes: through raw() where it applies (the zero point folded into the functor's rounding where
// fold_zp allows, else added to words), the rest through operator().
template <OutType T, class F>
void run_bytes(const F& f, const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  std::size_t done = 0;
  if constexpr (FoldsZp<F>) {
    if (RequantParams z; F::fold_zp(p, z)) done = run_raw_bytes<T, false>(F(z), p, n, x, y);
  }
  if constexpr (HasRaw<F> || HasRaw2<F>) {
    if (done == 0 && p.zp >= -32512 && p.zp <= 32512) done = run_raw_bytes<T, true>(f, p, n, x, y);
  }
  run_typed<T>(f, n - done, x + done, static_cast<unsigned char*>(y) + done);
}

// The zmm kernels for requant_with (requant_kinds.h).
struct Zmm {
  // Mask registers make the two constants 4 instructions, RDBPOT 6 (and the fold drops SRDHM's nudge).
  static constexpr bool kQ31AsShiftRound = true;
  template <class F>
  static void run(const F& f, const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
    switch (p.out) {
      case OutType::I8: return run_bytes<OutType::I8>(f, p, n, x, y);
      case OutType::U8: return run_bytes<OutType::U8>(f, p, n, x, y);
      case OutType::I16:
      case OutType::U16: return run_typed<OutType::I16>(f, n, x, y);
      case OutType::I32: return run_typed<OutType::I32>(f, n, x, y);
    }
  }
};

}  // namespace

void requant_avx512(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y) {
  requant_with<Zmm, Q31Double, ShiftRound, FloatKind>(p, n, x, y);
}

}  // namespace qspec::simd::avx2
