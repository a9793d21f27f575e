// Internal to the zmm VNNI depthwise kernels (depthwise_vnni512.cc, depthwise_vnni512_vbmi.cc): the
// vector type VnniZmm that depthwise_vnni_kernel.h's strips run on, 16 channels per zmm.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "depthwise_vnni_kernel.h"
#include "depthwise_zmm_pair_bytes.h"
#include "depthwise_zmm_shift_pack.h"
#include "epilogue_vnni512.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

// Two quarters of a group entry (16 channels) per zmm: the entry's bytes 64h .. 64h + 63 are
// channels 16h .. 16h + 15 of the block in lane order, as the corrections and the output are.
struct VnniZmm : VnniVector<64> {
  using Mask = __mmask16;
  using Ep = Epilogue16;
  static Vec dpbusd(Vec acc, Vec a, Vec b) { return _mm512_dpbusd_epi32(acc, a, b); }
  static Mask mask(std::int64_t n) {
    return n >= 16 ? Mask{0xffff} : n <= 0 ? Mask{0} : static_cast<Mask>((1u << n) - 1);
  }
  static Vec load32(Mask m, const std::int32_t* p) { return _mm512_maskz_loadu_epi32(m, p); }
  // Unmasked where the 16 lanes are all stored (every block but a channel tail's).
  __attribute__((always_inline)) static void store(std::int32_t* y, Mask m, Vec v) {
    if (m == 0xffff) return _mm512_storeu_si512(y, v);
    _mm512_mask_storeu_epi32(y, m, v);
  }
  // Inlined into the strips (a call would spill their vector registers).
  __attribute__((always_inline)) static void store_bytes(std::uint8_t* y, Mask, int n, Vec v) {
    avx2::store_bytes(y, v, n);
  }
  // kBias = false: the caller started its accumulators from the bias (Sink::init).
  template <bool kBias>
  __attribute__((always_inline)) static Vec float_then_zp(const Ep& e, Vec v) {
    return avx2::float_then_zp(v, kBias ? e.bias : _mm512_setzero_si512(), e.scale, e.flo, e.fhi, e.zp);
  }
  static Vec add32(Vec a, Vec b) { return _mm512_add_epi32(a, b); }

  // The fused epilogue of a full block's pixel pair, 64 bytes (kFloatThenZp with an int32 bias,
  // added by init to the accumulators' initial value as Sink::init does): per vector the float
  // steps of float_then_zp without the zero point, r = rne(clamp(fl32(v) * S, flo, fhi)) in
  // [lo_nozp, hi_nozp]; then VPACKSSDW (exact: applies() bounds lo_nozp and hi_nozp to int16),
  // VPADDSW of zp (exact: r + zp lies in [qmin, qmax], a byte range, and zp fits int16), the
  // byte pack (VPACKSSWB for int8 bounds, VPACKUSWB for uint8: exact, inside the range) and one
  // VPERMD that undoes the packs' per-128-bit interleaving: 4 + 1 + 2 operations and one store per
  // 64 bytes where float_then_zp's VPADDD and four VPMOVDB with their stores took 12.
  struct PairPack {
    __m512 scale[2], flo, fhi;
    __m512i bias[2], zp16;
    bool u8;        // qmin >= 0: the unsigned byte pack
    bool clamp_lo;  // qmin above the byte type's minimum: the float clamp's VMAXPS is needed
    bool clamp_hi;  // qmax below the byte type's maximum, or a |scale| of 1 or more: VMINPS is needed
    static bool applies(const FusedRequantView& e) {
      const std::int64_t qmin = std::int64_t{e.lo_nozp} + e.zp, qmax = std::int64_t{e.hi_nozp} + e.zp;
      return e.kind == RequantKind::kFloatThenZp && !e.float_bias && e.lo_nozp >= -32768 && e.hi_nozp <= 32767 &&
             e.zp >= -32768 && e.zp <= 32767 && qmin >= -128 && qmax <= 255 && (qmin >= 0 || qmax <= 127);
    }
    // Channels j .. j + 31, all present (a full block).
    __attribute__((always_inline)) PairPack(const FusedRequantView* e, std::int64_t j, std::int64_t, std::int64_t)
        : scale{_mm512_loadu_ps(e->scale + j), _mm512_loadu_ps(e->scale + j + 16)},
          flo(_mm512_set1_ps(e->flo)),
          fhi(_mm512_set1_ps(e->fhi)),
          bias{_mm512_loadu_si512(e->bias + j), _mm512_loadu_si512(e->bias + j + 16)},
          zp16(_mm512_set1_epi16(static_cast<std::int16_t>(e->zp))),
          u8(unsigned_bytes(*e)),
          clamp_lo(needs_clamp_lo(*e)),
          clamp_hi(needs_clamp_hi(*e)) {}
    static bool needs_clamp_lo(const FusedRequantView& e) {
      return std::int64_t{e.lo_nozp} + e.zp != (unsigned_bytes(e) ? 0 : -128);
    }
    static bool needs_clamp_hi(const FusedRequantView& e) {
      return std::int64_t{e.hi_nozp} + e.zp != (unsigned_bytes(e) ? 255 : 127) || !(e.max_abs_scale < 1.0f);
    }
    __attribute__((always_inline)) Vec init(int k, Vec c) const { return _mm512_add_epi32(c, bias[k]); }
    // The forms a strip can fix at compile time (its loop then tests no flag per pair): kRuntime
    // reads the flags per call; kS8Full / kU8Full are a full int8 / uint8 range with every
    // |scale| < 1, where neither float clamp is needed (pair_as) and the pack is known.
    static constexpr int kRuntime = 0, kS8Full = 1, kU8Full = 2;
    static int form(const FusedRequantView& e) {
      return needs_clamp_lo(e) || needs_clamp_hi(e) ? kRuntime : unsigned_bytes(e) ? kU8Full : kS8Full;
    }
    // a, b: channels 0-15 and 16-31 of pixels 2j and 2j + 1 (b ignored without second); y: pixel 2j's
    // first byte, pixel 2j + 1's c bytes on.
    template <int kForm>
    __attribute__((always_inline)) void pair(std::uint8_t* y, const Vec* a, const Vec* b, bool second,
                                             std::int64_t c) const {
      if constexpr (kForm != kRuntime) {
        pair_as<false, false, kForm == kU8Full ? 1 : 0>(y, a, b, second, c);
      } else if (clamp_lo) {
        clamp_hi ? pair_as<true, true>(y, a, b, second, c) : pair_as<true, false>(y, a, b, second, c);
      } else {
        clamp_hi ? pair_as<false, true>(y, a, b, second, c) : pair_as<false, false>(y, a, b, second, c);
      }
    }
    // Without kClampLo (qmin is the byte type's minimum) the lower clamp is the packs' saturation:
    // below flo, VCVTPS2DQ gives rne(f) < lo_nozp or, past int32, INT32_MIN; VPACKSSDW then gives at
    // most max(lo_nozp - 1, -32768), VPADDSW at most max(qmin - 1, zp - 32768) <= qmin (lo_nozp =
    // qmin - zp >= -32768), and the byte pack saturates that to its minimum, qmin, as the clamp does.
    // Without kClampHi (qmax is the byte type's maximum, every |scale| < 1) the upper clamp is the
    // same saturation from above: f <= 2^31 - 128 (max_abs_scale < 1), so VCVTPS2DQ gives rne(f) >
    // hi_nozp exactly where f > fhi; VPACKSSDW gives at least min(hi_nozp + 1, 32767), VPADDSW at
    // least min(qmax + 1, zp + 32767) >= qmax (hi_nozp = qmax - zp <= 32767), and the byte pack
    // saturates that to qmax. Which saves a VMINPS per 16 outputs, 8 per strip step of 128.
    // kU8: 1 the unsigned byte pack, 0 the signed one, -1 the flag's (read per call).
    template <bool kClampLo, bool kClampHi, int kU8 = -1>
    __attribute__((always_inline)) void pair_as(std::uint8_t* y, const Vec* a, const Vec* b, bool second,
                                                std::int64_t c) const {
      auto raw = [&](Vec v, int k) {
        const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(v), scale[k]);
        const __m512 lo = kClampLo ? _mm512_max_ps(f, flo) : f;
        return _mm512_cvtps_epi32(kClampHi ? _mm512_min_ps(lo, fhi) : lo);  // rne: MXCSR's
      };
      const __m512i p = _mm512_adds_epi16(_mm512_packs_epi32(raw(a[0], 0), raw(a[1], 1)), zp16);
      const __m512i q = _mm512_adds_epi16(_mm512_packs_epi32(raw(b[0], 0), raw(b[1], 1)), zp16);
      store_pair_bytes(y, p, q, kU8 < 0 ? u8 : kU8 == 1, second, c);
    }
  };
  static constexpr bool kOneSweep = true;  // 32 registers: strip_pairs may hold all four quarters
  using ShiftPack = ShiftPairPack;          // the shift kinds' pair pack (depthwise_zmm_shift_pack.h)
};

}  // namespace
}  // namespace qspec::simd::avx2
