// Quantized matrix product with zero points: offsets, chunking in k, and the zero-point corrections.
#include "qspec/simd/qgemm.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qspec::simd {
namespace {

// The row corrections of the single-chunk int32 path, modulo 2^32: k za' zw' - zw' rowsum(A_u).
const std::int32_t* row_corrections(std::int64_t m, const std::int64_t* row_sums, std::int64_t za_u, const QWeights& w,
                                    std::int64_t zw) {
  using U = std::uint64_t;
  const U zw_s = static_cast<U>(zw) - static_cast<U>(w.w_offset);
  const U kzz = static_cast<U>(w.k) * static_cast<U>(za_u) * zw_s;
  thread_local std::vector<std::int32_t> row_add;
  row_add.resize(static_cast<std::size_t>(std::max<std::int64_t>(m, 1)));
  for (std::int64_t i = 0; i < m; ++i)
    row_add[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(kzz - zw_s * static_cast<U>(row_sums[i]));
  return row_add.data();
}

// Row blocks of A made unsigned (int8 -> u8: XOR 0x80) and summed once each, then body(i0, mb, a_u, ld, sums).
template <class Body>
// sums_needed: false when the weight zero point in W_s's terms is 0, so that every row sum is
// multiplied by 0 (row_corrections, qgemm_u8's int64 rows): a uint8 A is then used as it is, with no
// pass over it.
void unsigned_row_blocks(const GemmEngine& e, std::int64_t m, const void* a, bool a_signed, std::int64_t lda,
                         std::int64_t k, bool sums_needed, const Body& body) {
  const auto* src = static_cast<const std::uint8_t*>(a);
  constexpr std::int64_t kRows = 256;
  thread_local std::vector<std::uint8_t> conv;
  thread_local std::vector<std::int64_t> sums;
  for (std::int64_t i0 = 0; i0 < m; i0 += kRows) {
    const std::int64_t mb = std::min(kRows, m - i0);
    const std::uint8_t* block = src + i0 * lda;
    std::int64_t ld = lda;
    sums.resize(static_cast<std::size_t>(mb));
    if (a_signed) {
      conv.resize(static_cast<std::size_t>(std::max<std::int64_t>(mb * k, 1)));
      e.prepare_a(mb, k, block, lda, 0x80, conv.data(), k, sums.data());
      block = conv.data();
      ld = k;
    } else if (sums_needed) {
      e.prepare_a(mb, k, block, lda, 0x00, nullptr, 0, sums.data());
    } else {
      std::fill(sums.begin(), sums.end(), 0);
    }
    body(i0, mb, block, ld, sums.data());
  }
}

}  // namespace

QWeights pack_weights(const GemmEngine& e, std::int64_t n, std::int64_t k, const void* w, bool w_unsigned,
                      std::int64_t ldw) {
  QWeights q;
  q.n = n;
  q.k = k;
  q.w_offset = w_unsigned ? 128 : 0;
  q.col_sums.assign(static_cast<std::size_t>(n), 0);
  const auto* src = static_cast<const std::uint8_t*>(w);
  std::vector<std::int8_t> tmp;
  for (std::int64_t k0 = 0; k0 < k || (k == 0 && k0 == 0); k0 += kMaxExactK) {
    const std::int64_t kc = std::min(kMaxExactK, k - k0);
    // W_s = W - ob: for uint8 that is the byte XOR 0x80; int8 bytes are used as they are.
    tmp.resize(static_cast<std::size_t>(std::max<std::int64_t>(n * kc, 1)));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t t = 0; t < kc; ++t)
        tmp[static_cast<std::size_t>(j * kc + t)] =
            static_cast<std::int8_t>(src[j * ldw + k0 + t] ^ (w_unsigned ? 0x80 : 0x00));
    q.chunks.emplace_back();
    e.pack(n, kc, tmp.data(), kc, q.chunks.back());
    for (std::int64_t j = 0; j < n; ++j)
      q.col_sums[static_cast<std::size_t>(j)] += q.chunks.back().row_sums[static_cast<std::size_t>(j)];
    if (k == 0) break;
  }
  return q;
}

template <class Out>
void qgemm_u8(const GemmEngine& e, std::int64_t m, const std::uint8_t* a_u, std::int64_t lda,
              const std::int64_t* row_sums, std::int64_t za_u, const QWeights& w, std::int64_t zw, Out* y,
              std::int64_t ldy) {
  // The corrections are computed modulo 2^64 (unsigned, so never undefined): the result is exact
  // whenever the true value fits Out, whatever the size of the zero points and of k.
  using U = std::uint64_t;
  const U zw_s = static_cast<U>(zw) - static_cast<U>(w.w_offset);
  const U za = static_cast<U>(za_u);
  const U kzz = static_cast<U>(w.k) * za * zw_s;
  if constexpr (sizeof(Out) == 4) {
    if (w.chunks.size() == 1 && w.k > 0) {
      // One chunk, int32 result modulo 2^32: the engine adds the corrections as it stores, the
      // column term -za' * colsum(W_s) from the chunk's own row sums (the same sums: one chunk).
      e.run_fused(m, a_u, lda, w.chunks[0], reinterpret_cast<std::int32_t*>(y), ldy,
                  row_corrections(m, row_sums, za_u, w, zw), static_cast<std::int32_t>(U{0} - za));
      return;
    }
  }
  thread_local std::vector<std::int32_t> c;
  c.resize(static_cast<std::size_t>(std::max<std::int64_t>(m * w.n, 1)));
  for (std::size_t ch = 0; ch < w.chunks.size(); ++ch) {
    const std::int64_t k0 = static_cast<std::int64_t>(ch) * kMaxExactK;
    if (w.chunks[ch].k > 0) {
      e.run(m, a_u + k0, lda, w.chunks[ch], c.data(), w.n);
    } else {
      std::fill(c.begin(), c.end(), 0);
    }
    for (std::int64_t i = 0; i < m; ++i) {
      const std::int32_t* ci = c.data() + i * w.n;
      Out* yi = y + i * ldy;
      if (ch == 0) {
        const U row = kzz - zw_s * static_cast<U>(row_sums[i]);
        for (std::int64_t j = 0; j < w.n; ++j)
          yi[j] = static_cast<Out>(static_cast<U>(std::int64_t{ci[j]}) + row -
                                   za * static_cast<U>(w.col_sums[static_cast<std::size_t>(j)]));
      } else {
        // Later chunks add modulo 2^64 (int64: exact; int32: the low 32 bits are what matter).
        for (std::int64_t j = 0; j < w.n; ++j)
          yi[j] =
              static_cast<Out>(static_cast<U>(static_cast<std::int64_t>(yi[j])) + static_cast<U>(std::int64_t{ci[j]}));
      }
    }
  }
}

template <class Out>
void qgemm(const GemmEngine& e, std::int64_t m, const void* a, bool a_signed, std::int64_t lda, std::int64_t za,
           const QWeights& w, std::int64_t zw, Out* y, std::int64_t ldy) {
  const std::int64_t za_u = za + (a_signed ? 128 : 0);
  unsigned_row_blocks(e, m, a, a_signed, lda, w.k, zw != w.w_offset,
                      [&](std::int64_t i0, std::int64_t mb, const std::uint8_t* au, std::int64_t ld,
                          const std::int64_t* sums) { qgemm_u8(e, mb, au, ld, sums, za_u, w, zw, y + i0 * ldy, ldy); });
}

void qgemm_u8_requant(const GemmEngine& e, std::int64_t m, const std::uint8_t* a_u, std::int64_t lda,
                      const std::int64_t* row_sums, std::int64_t za_u, const QWeights& w, std::int64_t zw,
                      const FusedRequantView& ep, std::uint8_t* y, std::int64_t ldy) {
  if (w.chunks.size() != 1 || w.k < 1) throw std::logic_error("qgemm_u8_requant: one chunk of k >= 1 only");
  e.run_requant(m, a_u, lda, w.chunks[0], row_corrections(m, row_sums, za_u, w, zw),
                static_cast<std::int32_t>(std::uint64_t{0} - static_cast<std::uint64_t>(za_u)), ep, y, ldy);
}

void qgemm_requant(const GemmEngine& e, std::int64_t m, const void* a, bool a_signed, std::int64_t lda, std::int64_t za,
                   const QWeights& w, std::int64_t zw, const FusedRequantView& ep, std::uint8_t* y, std::int64_t ldy) {
  const std::int64_t za_u = za + (a_signed ? 128 : 0);
  unsigned_row_blocks(
      e, m, a, a_signed, lda, w.k, zw != w.w_offset,
      [&](std::int64_t i0, std::int64_t mb, const std::uint8_t* au, std::int64_t ld, const std::int64_t* sums) {
        qgemm_u8_requant(e, mb, au, ld, sums, za_u, w, zw, ep, y + i0 * ldy, ldy);
      });
}

template void qgemm<std::int32_t>(const GemmEngine&, std::int64_t, const void*, bool, std::int64_t, std::int64_t,
                                  const QWeights&, std::int64_t, std::int32_t*, std::int64_t);
template void qgemm<std::int64_t>(const GemmEngine&, std::int64_t, const void*, bool, std::int64_t, std::int64_t,
                                  const QWeights&, std::int64_t, std::int64_t*, std::int64_t);
template void qgemm_u8<std::int32_t>(const GemmEngine&, std::int64_t, const std::uint8_t*, std::int64_t,
                                     const std::int64_t*, std::int64_t, const QWeights&, std::int64_t, std::int32_t*,
                                     std::int64_t);
template void qgemm_u8<std::int64_t>(const GemmEngine&, std::int64_t, const std::uint8_t*, std::int64_t,
                                     const std::int64_t*, std::int64_t, const QWeights&, std::int64_t, std::int64_t*,
                                     std::int64_t);

}  // namespace qspec::simd
