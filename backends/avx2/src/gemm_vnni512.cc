// u8 x s8 -> int32 matrix-product engine with VPDPBUSD on zmm registers (AVX512F + BW + VNNI).
//
// The same packed B as the ymm engine (pack_vnni_panels: 16-column panels, 64 bytes per group of
// 4 k values), which is exactly one zmm per group: a zmm holds one panel's 16 int32 columns.
// VPDPBUSD adds four exact u8*s8 products per int32 lane without intermediate saturation, so the
// result is the exact dot product modulo 2^32 (exact for k <= kMaxExactK), as on ymm.
//
// The microkernel takes two panels (32 columns) and up to 8 rows: 16 zmm accumulators, each
// broadcast activation word feeding 2 VPDPBUSD and each pair of weight loads 16; per MAC that is
// a quarter of the ymm kernel's loads and half its instructions. A single row (a GEMV) walks four
// panels side by side, one zmm load and one VPDPBUSD per panel and group. The zero-point
// corrections are fused into the store as in the ymm engine, and so is, for run_requant, the
// qlinear operators' requantization (bias, the convention's arithmetic per column, a byte store:
// epilogue_vnni512.h, the text the direct convolution's store shares).
// GCC 12 reports its own _mm*_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og (the asan preset) as uninitialized
// (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "epilogue_vnni512.h"
#include "qspec/simd/avx2_kernels.h"
#include "vnni_engine.h"

namespace qspec::simd::avx2 {
namespace {

constexpr int kNr = 16;                    // columns per panel: one zmm of int32 lanes
constexpr std::int64_t kGemvPrefetch = 8;  // groups of 64 bytes ahead, as the ymm GEMV
static_assert(kNr == kEpilogueLanes);

// The column terms of columns j0..j0+15 (ncols of them valid; the others are never stored).
inline __m512i col_term(const VnniCorr& k, std::int64_t j0, int ncols) {
  if (k.col_add != nullptr) return _mm512_loadu_si512(k.col_add + j0);
  // Masked load: the lanes past column n are neither read nor faulted on.
  return _mm512_mullo_epi32(_mm512_set1_epi32(k.col_mul), _mm512_maskz_loadu_epi32(lanes(ncols), k.col_sums + j0));
}

inline void store16(std::int32_t* c, __m512i v, int ncols) {
  if (ncols >= kNr) {
    _mm512_storeu_si512(c, v);
  } else if (ncols > 0) {
    _mm512_mask_storeu_epi32(c, lanes(ncols), v);
  }
}

// c + off, or null for run_requant, which has no C (no arithmetic on a null pointer).
inline std::int32_t* at(std::int32_t* c, std::int64_t off) { return c == nullptr ? nullptr : c + off; }

inline __m512i bcast4(const std::uint8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// C[MR x (NP*16)] (ncols valid) = A[MR x 4*k4] * NP consecutive panels (pstride bytes apart).
template <int MR, int NP>
void microkernel(std::int64_t k4, const std::uint8_t* a, std::int64_t lda, const std::int8_t* panel,
                 std::int64_t pstride, std::int32_t* c, std::int64_t ldc, int ncols, const VnniCorr& corr,
                 std::int64_t r0, std::int64_t j0) {
  // Few rows: split the k loop over U accumulator sets so that >= 8 VPDPBUSD chains are in flight.
  constexpr int U = MR * NP >= 8 ? 1 : (8 + MR * NP - 1) / (MR * NP);
  __m512i acc[U][MR][NP];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
      for (int q = 0; q < NP; ++q) acc[u][r][q] = _mm512_setzero_si512();
  auto step = [&](int u, std::int64_t kb) __attribute__((always_inline)) {
    __m512i b[NP];
#pragma GCC unroll 2
    for (int q = 0; q < NP; ++q) b[q] = _mm512_load_si512(panel + q * pstride + kb * 64);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512i av = bcast4(a + r * lda + 4 * kb);
#pragma GCC unroll 2
      for (int q = 0; q < NP; ++q) acc[u][r][q] = _mm512_dpbusd_epi32(acc[u][r][q], av, b[q]);
    }
  };
  std::int64_t kb = 0;
  for (; kb + U <= k4; kb += U) {
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) step(u, kb + u);
  }
  for (; kb < k4; ++kb) step(0, kb);
#pragma GCC unroll 8
  for (int u = 1; u < U; ++u)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
      for (int q = 0; q < NP; ++q) acc[0][r][q] = _mm512_add_epi32(acc[0][r][q], acc[u][r][q]);
  if (corr.row_add != nullptr) {  // the zero-point corrections, fused into the store
    __m512i ct[NP];
#pragma GCC unroll 2
    for (int q = 0; q < NP; ++q) ct[q] = col_term(corr, j0 + q * kNr, ncols - q * kNr);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512i rv = _mm512_set1_epi32(corr.row_add[r0 + r]);
#pragma GCC unroll 2
      for (int q = 0; q < NP; ++q) acc[0][r][q] = _mm512_add_epi32(acc[0][r][q], _mm512_add_epi32(rv, ct[q]));
    }
  }
  if (corr.ep != nullptr) {  // run_requant: each panel's epilogue loaded once, then every row's bytes
    // Locals: the byte stores may alias anything reached through a pointer.
    std::uint8_t* const y = corr.y + r0 * corr.ldy + j0;
    const std::int64_t ldy = corr.ldy;
#pragma GCC unroll 2
    for (int q = 0; q < NP; ++q) {
      const int nc = ncols - q * kNr;
      if (nc <= 0) break;
      requant_rows<MR, false>(
          Epilogue16(*corr.ep, j0 + q * kNr, lanes(nc)), nc, y + q * kNr,
          ldy, [&](int r) __attribute__((always_inline)) { return acc[0][r][q]; });
    }
    return;
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int q = 0; q < NP; ++q) store16(c + r * ldc + q * kNr, acc[0][r][q], ncols - q * kNr);
}

// One row (a GEMV) over T consecutive panels: one broadcast per group feeds T VPDPBUSD; two
// accumulator sets (even / odd groups) give 2*T independent chains.
template <int T>
void gemv_kernel(std::int64_t k4, const std::uint8_t* a, const std::int8_t* panel, std::int64_t pstride,
                 std::int32_t* c, int ncols, const VnniCorr& corr, std::int64_t j0) {
  __m512i acc[2][T];
#pragma GCC unroll 8
  for (int u = 0; u < 2; ++u)
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) acc[u][t] = _mm512_setzero_si512();
  auto step = [&](int u, std::int64_t kb) __attribute__((always_inline)) {
    const __m512i av = bcast4(a + 4 * kb);
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t)
      acc[u][t] = _mm512_dpbusd_epi32(acc[u][t], av, _mm512_load_si512(panel + t * pstride + kb * 64));
  };
  std::int64_t kb = 0;
  for (; kb + 2 <= k4; kb += 2) {
    // 512 bytes ahead in each stream (formed as an integer: it may lie past the buffer, and a
    // prefetch never faults).
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t)
      _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(panel) +
                                                 static_cast<std::uintptr_t>(t * pstride + (kb + kGemvPrefetch) * 64)),
                   _MM_HINT_T0);
    step(0, kb);
    step(1, kb + 1);
  }
  if (kb < k4) step(0, kb);
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
    const int nc = std::min(kNr, ncols - t * kNr);
    if (nc <= 0) break;
    __m512i v = _mm512_add_epi32(acc[0][t], acc[1][t]);
    if (corr.row_add != nullptr)
      v = _mm512_add_epi32(v, _mm512_add_epi32(_mm512_set1_epi32(corr.row_add[0]), col_term(corr, j0 + t * kNr, nc)));
    if (corr.ep != nullptr) {
      const FusedRequantView& e = *corr.ep;
      const std::int64_t j = j0 + t * kNr;
      if (e.kind == RequantKind::kFloatThenZp && !e.float_bias && nc == kNr) {  // one row: no Epilogue16 to amortize
        const __m512i r = float_then_zp(v, _mm512_loadu_si512(e.bias + j), _mm512_loadu_ps(e.scale + j),
                                        _mm512_set1_ps(e.flo), _mm512_set1_ps(e.fhi), _mm512_set1_epi32(e.zp));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(corr.y + j), _mm512_cvtepi32_epi8(r));
      } else {
        store_bytes(corr.y + j, Epilogue16(e, j, lanes(nc))(v), nc);
      }
    } else {
      store16(c + t * kNr, v, nc);
    }
  }
}

struct Vnni512EngineImpl {
  static constexpr const char* kName = "avx512vnni-zmm";

  template <int NP>
  static void rows(std::int64_t mc, std::int64_t k4, const std::uint8_t* ab, std::int64_t ldab,
                   const std::int8_t* panel, std::int64_t pstride, std::int32_t* cp, std::int64_t ldc, int ncols,
                   const VnniCorr& corr, std::int64_t i0, std::int64_t j0) {
    std::int64_t i = 0;
    auto call = [&](auto kernel) {
      kernel(k4, ab + i * ldab, ldab, panel, pstride, at(cp, i * ldc), ldc, ncols, corr, i0 + i, j0);
    };
    for (; i + 8 <= mc; i += 8) call(microkernel<8, NP>);
    switch (mc - i) {
      case 7: call(microkernel<7, NP>); break;
      case 6: call(microkernel<6, NP>); break;
      case 5: call(microkernel<5, NP>); break;
      case 4: call(microkernel<4, NP>); break;
      case 3: call(microkernel<3, NP>); break;
      case 2: call(microkernel<2, NP>); break;
      case 1: call(microkernel<1, NP>); break;
      default: break;
    }
  }

  static void run_impl(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c,
                       std::int64_t ldc, const VnniCorr& corr) {
    const std::int64_t k4 = (b.k + 3) / 4, panels = (b.n + kNr - 1) / kNr, pstride = k4 * 64;
    const auto* w = reinterpret_cast<const std::int8_t*>(b.data.data());
    constexpr std::int64_t kMc = 96;  // rows of A kept in L1/L2 while the panels stream past
    thread_local AlignedBuffer scratch;
    for (std::int64_t i0 = 0; i0 < m; i0 += kMc) {
      const std::int64_t mc = std::min(kMc, m - i0);
      const std::uint8_t* ab = a + i0 * lda;
      std::int64_t ldab = lda;
      if (b.k % 4 != 0) {  // pad rows to a multiple of 4 bytes so the 4-byte broadcasts stay inside
        scratch.resize(static_cast<std::size_t>(mc * k4 * 4));
        std::uint8_t* s = scratch.data();
        for (std::int64_t i = 0; i < mc; ++i) {
          std::memcpy(s + i * k4 * 4, ab + i * lda, static_cast<std::size_t>(b.k));
          std::memset(s + i * k4 * 4 + b.k, 0, static_cast<std::size_t>(k4 * 4 - b.k));
        }
        ab = s;
        ldab = k4 * 4;
      }
      if (mc == 1) {  // a single row: the GEMV kernel, four panels at a time
        VnniCorr ci = corr;
        if (corr.row_add != nullptr) ci.row_add += i0;
        if (corr.ep != nullptr) ci.y += i0 * corr.ldy;
        std::int32_t* ci0 = at(c, i0 * ldc);
        std::int64_t p = 0;
        auto group = [&](auto kernel, std::int64_t np) {
          const int ncols = static_cast<int>(std::min<std::int64_t>(np * kNr, b.n - p * kNr));
          kernel(k4, ab, w + p * pstride, pstride, at(ci0, p * kNr), ncols, ci, p * kNr);
          p += np;
        };
        while (p + 4 <= panels) group(gemv_kernel<4>, 4);
        switch (panels - p) {
          case 3: group(gemv_kernel<3>, 3); break;
          case 2: group(gemv_kernel<2>, 2); break;
          case 1: group(gemv_kernel<1>, 1); break;
          default: break;
        }
        continue;
      }
      std::int64_t p = 0;
      for (; p + 2 <= panels; p += 2) {
        const int ncols = static_cast<int>(std::min<std::int64_t>(2 * kNr, b.n - p * kNr));
        rows<2>(mc, k4, ab, ldab, w + p * pstride, pstride, at(c, i0 * ldc + p * kNr), ldc, ncols, corr, i0, p * kNr);
      }
      if (p < panels) {
        const int ncols = static_cast<int>(b.n - p * kNr);
        rows<1>(mc, k4, ab, ldab, w + p * pstride, pstride, at(c, i0 * ldc + p * kNr), ldc, ncols, corr, i0, p * kNr);
      }
    }
  }
};

}  // namespace

const GemmEngine& gemm_engine_vnni512() {
  static const VnniGemmEngine<Vnni512EngineImpl> e;
  return e;
}

}  // namespace qspec::simd::avx2
