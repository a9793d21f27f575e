// u8 x s8 -> int32 matrix-product engine with AVX2 VPMADDWD on 16-bit operands (no VNNI needed).
//
// Both operands are widened to int16 (A zero-extended, B sign-extended at pack time) and
// VPMADDWD forms a[2k]*b[2k] + a[2k+1]*b[2k+1] in each int32 lane: |sum| <= 2 * 255 * 128, exact.
// The tempting VPMADDUBSW (u8 x s8 straight to int16 pair sums) saturates: 255*127 + 255*127 =
// 64770 > 32767, so it is never used. Packed B: panels of 16 columns; for each pair of k values,
// 16 x 2 int16 (column-major inside the pair), zero-padded in k and n.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

constexpr int kNr = 16;

inline __m256i bcast_pair(const std::int16_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

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

// C[MR x ncols] = A16[MR x 2*k2] * panel (+ row_add[r] + col_add[j]); a rows (int16) have
// stride lda. With few rows, U accumulator sets split the k loop (more independent chains).
template <int MR>
void microkernel(std::int64_t k2, const std::int16_t* a, std::int64_t lda, const std::int16_t* panel, std::int32_t* c,
                 std::int64_t ldc, int ncols, const std::int32_t* row_add, const std::int32_t* col_add) {
  constexpr int U = MR >= 3 ? 1 : 4 / MR;
  __m256i acc0[U][MR], acc1[U][MR];
  // Fully unrolled so that the accumulators live in registers, not in a stack array.
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) acc0[u][r] = acc1[u][r] = _mm256_setzero_si256();
  std::int64_t kb = 0;
  for (; kb + U <= k2; kb += U) {
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + (kb + u) * 32));
      const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + (kb + u) * 32 + 16));
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m256i av = bcast_pair(a + r * lda + 2 * (kb + u));
        acc0[u][r] = _mm256_add_epi32(acc0[u][r], _mm256_madd_epi16(av, b0));
        acc1[u][r] = _mm256_add_epi32(acc1[u][r], _mm256_madd_epi16(av, b1));
      }
    }
  }
  for (; kb < k2; ++kb) {
    const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + kb * 32));
    const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(panel + kb * 32 + 16));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i av = bcast_pair(a + r * lda + 2 * kb);
      acc0[0][r] = _mm256_add_epi32(acc0[0][r], _mm256_madd_epi16(av, b0));
      acc1[0][r] = _mm256_add_epi32(acc1[0][r], _mm256_madd_epi16(av, b1));
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

// Zero-extends one row of k bytes to int16, padded with zeros to 2*k2 entries.
void widen_row(const std::uint8_t* src, std::int64_t k, std::int64_t k2, std::int16_t* dst) {
  std::int64_t t = 0;
  for (; t + 16 <= k; t += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + t),
                        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + t))));
  for (; t < k; ++t) dst[t] = src[t];
  for (; t < 2 * k2; ++t) dst[t] = 0;
}

}  // namespace

void prepare_a_avx2(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                    std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums) {
  const __m256i fv = _mm256_set1_epi8(static_cast<char>(flip)), zero = _mm256_setzero_si256();
  for (std::int64_t i = 0; i < m; ++i) {
    const std::uint8_t* src = a + i * lda;
    std::uint8_t* d = dst ? dst + i * ldd : nullptr;
    __m256i acc = zero;
    std::int64_t t = 0;
    for (; t + 32 <= k; t += 32) {
      const __m256i v = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + t)), fv);
      if (d) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + t), v);
      acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, zero));  // four 64-bit sums of 8 bytes each
    }
    alignas(32) std::int64_t part[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(part), acc);
    std::int64_t s = part[0] + part[1] + part[2] + part[3];
    for (; t < k; ++t) {
      const std::uint8_t v = src[t] ^ flip;
      if (d) d[t] = v;
      s += v;
    }
    sums[i] = s;
  }
}

namespace {

class MaddEngine final : public GemmEngine {
 public:
  const char* name() const override { return "avx2-vpmaddwd"; }

  void pack(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out) const override {
    const std::int64_t k2 = (k + 1) / 2, panels = (n + kNr - 1) / kNr;
    const std::size_t bytes = static_cast<std::size_t>(panels * k2 * 64);
    out.reset(n, k, bytes);
    out.engine = this;
    auto* d = reinterpret_cast<std::int16_t*>(out.data.data());
    for (std::int64_t j = 0; j < n; ++j) {
      std::int16_t* col = d + (j / kNr) * k2 * 32 + (j % kNr) * 2;
      std::int32_t s = 0;
      for (std::int64_t t = 0; t < k; ++t) s += col[(t / 2) * 32 + t % 2] = b[j * ldb + t];
      out.row_sums[static_cast<std::size_t>(j)] = s;
    }
  }

  void prepare_a(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                 std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums) const override {
    prepare_a_avx2(m, k, a, lda, flip, dst, ldd, sums);
  }

  void run(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c, std::int64_t ldc,
           const std::int32_t* row_add, const std::int32_t* col_add) const override {
    const std::int64_t k2 = (b.k + 1) / 2, panels = (b.n + kNr - 1) / kNr;
    const auto* w = reinterpret_cast<const std::int16_t*>(b.data.data());
    constexpr std::int64_t kMc = 64;
    thread_local AlignedBuffer scratch;
    scratch.resize(static_cast<std::size_t>(kMc * k2 * 2 * 2));
    auto* a16 = reinterpret_cast<std::int16_t*>(scratch.data());
    const std::int64_t ld16 = 2 * k2;
    for (std::int64_t i0 = 0; i0 < m; i0 += kMc) {
      const std::int64_t mc = std::min(kMc, m - i0);
      for (std::int64_t i = 0; i < mc; ++i) widen_row(a + (i0 + i) * lda, b.k, k2, a16 + i * ld16);
      for (std::int64_t p = 0; p < panels; ++p) {
        const int ncols = static_cast<int>(std::min<std::int64_t>(kNr, b.n - p * kNr));
        const std::int16_t* panel = w + p * k2 * 32;
        std::int32_t* cp = c + i0 * ldc + p * kNr;
        const std::int32_t* ra = row_add ? row_add + i0 : nullptr;
        const std::int32_t* ca = col_add ? col_add + p * kNr : nullptr;
        std::int64_t i = 0;
        auto rows = [&](auto kernel) {
          kernel(k2, a16 + i * ld16, ld16, panel, cp + i * ldc, ldc, ncols, ra ? ra + i : nullptr, ca);
        };
        for (; i + 4 <= mc; i += 4) rows(microkernel<4>);
        switch (mc - i) {
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

const GemmEngine& gemm_engine_madd() {
  static const MaddEngine e;
  return e;
}

}  // namespace qspec::simd::avx2
