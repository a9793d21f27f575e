// u8 x s8 -> int32 matrix-product engine with VPDPBUSD on ymm registers (AVX512-VNNI + AVX512VL; and,
// built again by gemm_avxvnni.cc, AVX-VNNI's VEX form: the instructions that differ are in vnni_isa.h).
//
// VPDPBUSD adds four exact u8*s8 products to each int32 lane without any intermediate
// saturation (unlike VPMADDUBSW), so the result is the exact dot product modulo 2^32, and exact
// for k <= kMaxExactK. Packed B: panels of 16 columns; for each group of 4 k values, 16 x 4
// bytes (column-major inside the group), zero-padded in k and n.
//
// Two kernels read that one layout: the register-blocked GEMM microkernel (up to 6 rows x 16
// columns) and, for a single row (M = 1, a GEMV), a kernel that walks four panels side by side
// so that each broadcast activation word feeds 8 VPDPBUSD (one per 32-byte weight vector) and the
// weights stream once at the cache's bandwidth. The zero-point corrections are added as the
// results are stored, the column term as col_mul * column sum (VPMULLD, modulo 2^32), and for
// run_requant the qlinear operators' requantization too (bias, the convention's arithmetic per
// column in registers, a byte store: epilogue_vnni.h, the text the depthwise kernel's store shares).
// GCC 12 reports its own _mm*_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og (the asan preset) as uninitialized
// (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "epilogue_vnni.h"
#include "qspec/simd/avx2_kernels.h"
#include "vnni_engine.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

constexpr int kNr = 16;  // columns per panel (two ymm of int32 lanes)
// GEMV software prefetch distance in groups of 4 k values (64 bytes each): measured on Zen 4,
// it lifts M=1 N=K=1024 (1 MiB of weights, past L2) by ~5%; neutral when the weights are in L2.
constexpr std::int64_t kGemvPrefetch = 8;

inline Lanes8 lanes_lo(int ncols) { return first_lanes(ncols); }
inline Lanes8 lanes_hi(int ncols) { return first_lanes(ncols - 8); }

// The column terms of panel columns j0..j0+15 (ncols of them valid; the others are never stored).
inline void col_terms(const VnniCorr& k, std::int64_t j0, int ncols, __m256i& c0, __m256i& c1) {
  if (k.col_add != nullptr) {
    c0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k.col_add + j0));
    c1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k.col_add + j0 + 8));
    return;
  }
  // Masked loads: the lanes past column n are neither read nor faulted on.
  const __m256i mul = _mm256_set1_epi32(k.col_mul);
  c0 = _mm256_mullo_epi32(mul, load_z32(lanes_lo(ncols), k.col_sums + j0));
  c1 = _mm256_mullo_epi32(mul, load_z32(lanes_hi(ncols), k.col_sums + j0 + 8));
}

inline void store_row(std::int32_t* c, __m256i v0, __m256i v1, int ncols) {
  if (ncols == kNr) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c), v0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + 8), v1);
    return;
  }
  store_m32(c, lanes_lo(ncols), v0);
  store_m32(c + 8, lanes_hi(ncols), v1);
}

// The common epilogue (kFloatThenZp with an int32 bias) of a full panel in registers, loaded once
// per microkernel call with unmasked loads: two Epilogue8 cost a few % more here (their
// constructors initialize every kind's members and load under masks).
struct PanelFloatThenZp {
  __m256i bias[2], zp;
  __m256 scale[2], flo, fhi;
  static bool applies(const FusedRequantView& e, int ncols) {
    return e.kind == RequantKind::kFloatThenZp && !e.float_bias && ncols == kNr;
  }
  PanelFloatThenZp(const FusedRequantView& e, std::int64_t j)
      : bias{_mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.bias + j)),
             _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.bias + j + 8))},
        zp(_mm256_set1_epi32(e.zp)),
        scale{_mm256_loadu_ps(e.scale + j), _mm256_loadu_ps(e.scale + j + 8)},
        flo(_mm256_set1_ps(e.flo)),
        fhi(_mm256_set1_ps(e.fhi)) {}
  __m256i operator()(__m256i v, int h) const { return float_then_zp(v, bias[h], scale[h], flo, fhi, zp); }
};

// c + off, or null for run_requant, which has no C (no arithmetic on a null pointer).
inline std::int32_t* at(std::int32_t* c, std::int64_t off) { return c == nullptr ? nullptr : c + off; }

// Row `row`, panel columns j..j+15 (ncols valid): C's int32 lanes, or with the fused epilogue
// its bytes (the low byte of each lane: the lanes are already inside the byte range).
inline void store_out(const VnniCorr& k, std::int32_t* c, std::int64_t row, std::int64_t j, __m256i v0, __m256i v1,
                      int ncols) {
  if (k.ep == nullptr) return store_row(c, v0, v1, ncols);
  std::uint8_t* y = k.y + row * k.ldy + j;
  const Lanes8 lo = lanes_lo(ncols), hi = lanes_hi(ncols);
  store_low_bytes(y, lo, ncols, Epilogue8(*k.ep, j, lo)(v0));
  if (ncols > 8) store_low_bytes(y + 8, hi, ncols - 8, Epilogue8(*k.ep, j + 8, hi)(v1));
}

inline __m256i bcast4(const std::uint8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// C[MR x ncols] = A[MR x 4*k4] * panel (+ the corrections of rows r, columns j0...); a rows have
// stride lda and 4*k4 readable bytes. With few rows, U accumulator sets split the k loop so that
// at least 8 independent VPDPBUSD chains hide the instruction latency (2 per cycle in flight).
template <int MR>
void microkernel(std::int64_t k4, const std::uint8_t* a, std::int64_t lda, const std::int8_t* panel, std::int32_t* c,
                 std::int64_t ldc, int ncols, const VnniCorr& corr, std::int64_t r0, std::int64_t j0) {
  constexpr int U = MR >= 3 ? 1 : 4 / MR;
  __m256i acc0[U][MR], acc1[U][MR];
  // Fully unrolled so that the accumulators live in registers, not in a stack array.
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) acc0[u][r] = acc1[u][r] = _mm256_setzero_si256();
  std::int64_t kb = 0;
  for (; kb + U <= k4; kb += U) {
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + (kb + u) * 64));
      const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + (kb + u) * 64 + 32));
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m256i av = bcast4(a + r * lda + 4 * (kb + u));
        acc0[u][r] = dpbusd(acc0[u][r], av, b0);
        acc1[u][r] = dpbusd(acc1[u][r], av, b1);
      }
    }
  }
  for (; kb < k4; ++kb) {
    const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + kb * 64));
    const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + kb * 64 + 32));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i av = bcast4(a + r * lda + 4 * kb);
      acc0[0][r] = dpbusd(acc0[0][r], av, b0);
      acc1[0][r] = dpbusd(acc1[0][r], av, b1);
    }
  }
#pragma GCC unroll 8
  for (int u = 1; u < U; ++u)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      acc0[0][r] = _mm256_add_epi32(acc0[0][r], acc0[u][r]);
      acc1[0][r] = _mm256_add_epi32(acc1[0][r], acc1[u][r]);
    }
  if (corr.row_add != nullptr) {  // the zero-point corrections, fused into the store
    __m256i c0, c1;
    col_terms(corr, j0, ncols, c0, c1);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i rv = _mm256_set1_epi32(corr.row_add[r0 + r]);
      acc0[0][r] = _mm256_add_epi32(acc0[0][r], _mm256_add_epi32(rv, c0));
      acc1[0][r] = _mm256_add_epi32(acc1[0][r], _mm256_add_epi32(rv, c1));
    }
  }
  // A full panel's epilogue with each parameter loaded once per call, applied in registers: per
  // row, an Epilogue8 built between byte stores (which may alias its parameters) loads them again.
  if (corr.ep != nullptr && ncols == kNr) {
    std::uint8_t* y = corr.y + r0 * corr.ldy + j0;
    if (PanelFloatThenZp::applies(*corr.ep, ncols)) {  // the common kind, branch-free
      const PanelFloatThenZp ep(*corr.ep, j0);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r, y += corr.ldy) store16_low_bytes(y, ep(acc0[0][r], 0), ep(acc1[0][r], 1));
      return;
    }
    const Epilogue8 e0(*corr.ep, j0, first_lanes(8)), e1(*corr.ep, j0 + 8, first_lanes(8));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r, y += corr.ldy) store16_low_bytes(y, e0(acc0[0][r]), e1(acc1[0][r]));
    return;
  }
  // int32 C, a full panel: the stores in line. Through store_out, an out-of-line call per row (it
  // holds the byte epilogue too), every accumulator was spilled around each call: the 1x1
  // convolution 56x56x64 -> 256 (K = 64: 16 VPDPBUSD steps per tile) spent a fifth of its time there.
  if (corr.ep == nullptr && ncols == kNr) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) store_row(c + r * ldc, acc0[0][r], acc1[0][r], kNr);
    return;
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) store_out(corr, at(c, r * ldc), r0 + r, j0, acc0[0][r], acc1[0][r], ncols);
}

// One row (a GEMV): c[0 .. 16*T) (ncols of them valid) = a[4*k4] * T consecutive panels, each
// panel pstride bytes after the previous. Per group of 4 k values, one broadcast of the
// activation word feeds 2*T VPDPBUSD; two accumulator sets (even/odd k groups) give 4*T
// independent chains, more than the latency x throughput of VPDPBUSD needs.
template <int T>
void gemv_kernel(std::int64_t k4, const std::uint8_t* a, const std::int8_t* panel, std::int64_t pstride,
                 std::int32_t* c, int ncols, const VnniCorr& corr, std::int64_t j0) {
  __m256i acc[2][T][2];
#pragma GCC unroll 8
  for (int u = 0; u < 2; ++u)
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) acc[u][t][0] = acc[u][t][1] = _mm256_setzero_si256();
  auto step = [&](int u, std::int64_t kb) __attribute__((always_inline)) {
    const __m256i av = bcast4(a + 4 * kb);
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      const std::int8_t* p = panel + t * pstride + kb * 64;
      acc[u][t][0] = dpbusd(acc[u][t][0], av, _mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
      acc[u][t][1] = dpbusd(acc[u][t][1], av, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + 32)));
    }
  };
  std::int64_t kb = 0;
  for (; kb + 2 <= k4; kb += 2) {
    // 512 bytes ahead in each stream; past a panel's end that is the next panel's start (the
    // next group's, for the last one), which the hardware prefetcher has not seen yet. The
    // address is formed as an integer: it may lie past the buffer (a prefetch never faults).
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
    __m256i v0 = _mm256_add_epi32(acc[0][t][0], acc[1][t][0]), v1 = _mm256_add_epi32(acc[0][t][1], acc[1][t][1]);
    const int nc = std::min(kNr, ncols - t * kNr);
    if (nc <= 0) break;
    if (corr.row_add != nullptr) {
      __m256i c0, c1;
      col_terms(corr, j0 + t * kNr, nc, c0, c1);
      const __m256i rv = _mm256_set1_epi32(corr.row_add[0]);
      v0 = _mm256_add_epi32(v0, _mm256_add_epi32(rv, c0));
      v1 = _mm256_add_epi32(v1, _mm256_add_epi32(rv, c1));
    }
    if (corr.ep != nullptr && PanelFloatThenZp::applies(*corr.ep, nc)) {  // inline: no call, no spills
      const PanelFloatThenZp ep(*corr.ep, j0 + t * kNr);
      store16_low_bytes(corr.y + j0 + t * kNr, ep(v0, 0), ep(v1, 1));
      continue;
    }
    if (corr.ep != nullptr && nc == kNr) {
      const Epilogue8 e0(*corr.ep, j0 + t * kNr, first_lanes(8)), e1(*corr.ep, j0 + t * kNr + 8, first_lanes(8));
      store16_low_bytes(corr.y + j0 + t * kNr, e0(v0), e1(v1));
      continue;
    }
    store_out(corr, at(c, t * kNr), 0, j0 + t * kNr, v0, v1, nc);
  }
}

struct VnniEngineImpl {
  static constexpr const char* kName = QSPEC_VNNI_PICK("avx512vnni-ymm", "avxvnni-ymm");

  static void run_impl(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c,
                       std::int64_t ldc, const VnniCorr& corr) {
    const std::int64_t k4 = (b.k + 3) / 4, panels = (b.n + kNr - 1) / kNr;
    const auto* w = reinterpret_cast<const std::int8_t*>(b.data.data());
    // Row blocks of A small enough to stay in L1/L2 while every panel of B streams past them.
    constexpr std::int64_t kMc = 96;
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
          kernel(k4, ab, w + p * k4 * 64, k4 * 64, at(ci0, p * kNr), ncols, ci, p * kNr);
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
      for (std::int64_t p = 0; p < panels; ++p) {
        const int ncols = static_cast<int>(std::min<std::int64_t>(kNr, b.n - p * kNr));
        const std::int8_t* panel = w + p * k4 * 64;
        std::int32_t* cp = at(c, i0 * ldc + p * kNr);
        std::int64_t i = 0;
        auto rows = [&](auto kernel) {
          kernel(k4, ab + i * ldab, ldab, panel, at(cp, i * ldc), ldc, ncols, corr, i0 + i, p * kNr);
        };
        for (; i + 6 <= mc; i += 6) rows(microkernel<6>);
        switch (mc - i) {
          case 5: rows(microkernel<5>); break;
          case 4: rows(microkernel<4>); break;
          case 3: rows(microkernel<3>); break;
          case 2: rows(microkernel<2>); break;
          case 1: rows(microkernel<1>); break;
          default: break;
        }
      }
    }
  }
};

}  // namespace

const GemmEngine& QSPEC_VNNI_PICK(gemm_engine_vnni, gemm_engine_avxvnni)() {
  static const VnniGemmEngine<VnniEngineImpl> e;
  return e;
}

}  // namespace qspec::simd::avx2
