// u8 x s8 -> int32 matrix-product engine with VPDPBUSD on ymm registers (AVX512-VNNI + AVX512VL).
//
// VPDPBUSD adds four exact u8*s8 products to each int32 lane without any intermediate
// saturation (unlike VPMADDUBSW), so the result is the exact dot product modulo 2^32, and exact
// for k <= kMaxExactK. Packed B: panels of 16 columns; for each group of 4 k values, 16 x 4
// bytes (column-major inside the group), zero-padded in k and n.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

constexpr int kNr = 16;  // columns per panel (two ymm of int32 lanes)

inline void store_row(std::int32_t* c, __m256i v0, __m256i v1, int ncols) {
  if (ncols == kNr) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c), v0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + 8), v1);
    return;
  }
  alignas(32) std::int32_t tmp[kNr];
  _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), v0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tmp + 8), v1);
  std::memcpy(c, tmp, static_cast<std::size_t>(ncols) * 4);
}

inline __m256i bcast4(const std::uint8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// C[MR x ncols] = A[MR x 4*k4] * panel (+ row_add[r] + col_add[j]); a rows have stride lda and
// 4*k4 readable bytes. With few rows, U accumulator sets split the k loop so that at least 8
// independent VPDPBUSD chains hide the instruction latency (2 per cycle in flight).
template <int MR>
void microkernel(std::int64_t k4, const std::uint8_t* a, std::int64_t lda, const std::int8_t* panel, std::int32_t* c,
                 std::int64_t ldc, int ncols, const std::int32_t* row_add, const std::int32_t* col_add) {
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
        acc0[u][r] = _mm256_dpbusd_epi32(acc0[u][r], av, b0);
        acc1[u][r] = _mm256_dpbusd_epi32(acc1[u][r], av, b1);
      }
    }
  }
  for (; kb < k4; ++kb) {
    const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + kb * 64));
    const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + kb * 64 + 32));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i av = bcast4(a + r * lda + 4 * kb);
      acc0[0][r] = _mm256_dpbusd_epi32(acc0[0][r], av, b0);
      acc1[0][r] = _mm256_dpbusd_epi32(acc1[0][r], av, b1);
    }
  }
#pragma GCC unroll 8
  for (int u = 1; u < U; ++u)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      acc0[0][r] = _mm256_add_epi32(acc0[0][r], acc0[u][r]);
      acc1[0][r] = _mm256_add_epi32(acc1[0][r], acc1[u][r]);
    }
  if (row_add != nullptr) {  // the zero-point corrections, fused into the store
    const __m256i c0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col_add));
    const __m256i c1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col_add + 8));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i rv = _mm256_set1_epi32(row_add[r]);
      acc0[0][r] = _mm256_add_epi32(acc0[0][r], _mm256_add_epi32(rv, c0));
      acc1[0][r] = _mm256_add_epi32(acc1[0][r], _mm256_add_epi32(rv, c1));
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) store_row(c + r * ldc, acc0[0][r], acc1[0][r], ncols);
}

class VnniEngine final : public GemmEngine {
 public:
  const char* name() const override { return "avx512vnni-ymm"; }

  void pack(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out) const override {
    const std::int64_t k4 = (k + 3) / 4, panels = (n + kNr - 1) / kNr;
    out.n = n;
    out.k = k;
    out.engine = this;
    out.row_sums.assign(static_cast<std::size_t>(n), 0);
    out.data.resize(static_cast<std::size_t>(panels * k4 * 64));
    auto* d = reinterpret_cast<std::int8_t*>(out.data.data());
    std::memset(d, 0, static_cast<std::size_t>(panels * k4 * 64));
    for (std::int64_t j = 0; j < n; ++j) {
      std::int8_t* col = d + (j / kNr) * k4 * 64 + (j % kNr) * 4;
      std::int32_t s = 0;
      for (std::int64_t t = 0; t < k; ++t) s += col[(t / 4) * 64 + t % 4] = b[j * ldb + t];
      out.row_sums[static_cast<std::size_t>(j)] = s;
    }
  }

  void prepare_a(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                 std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums) const override {
    prepare_a_avx2(m, k, a, lda, flip, dst, ldd, sums);
  }

  void run(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c, std::int64_t ldc,
           const std::int32_t* row_add, const std::int32_t* col_add) const override {
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
      for (std::int64_t p = 0; p < panels; ++p) {
        const int ncols = static_cast<int>(std::min<std::int64_t>(kNr, b.n - p * kNr));
        const std::int8_t* panel = w + p * k4 * 64;
        std::int32_t* cp = c + i0 * ldc + p * kNr;
        const std::int32_t* ra = row_add ? row_add + i0 : nullptr;
        const std::int32_t* ca = col_add ? col_add + p * kNr : nullptr;
        std::int64_t i = 0;
        auto rows = [&](auto kernel) {
          kernel(k4, ab + i * ldab, ldab, panel, cp + i * ldc, ldc, ncols, ra ? ra + i : nullptr, ca);
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

const GemmEngine& gemm_engine_vnni() {
  static const VnniEngine e;
  return e;
}

}  // namespace qspec::simd::avx2
