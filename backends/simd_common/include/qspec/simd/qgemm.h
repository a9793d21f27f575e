// Quantized matrix product with zero points on a GemmEngine, exact for every K (int64 results).
//
//   y[i][j] = sum_t (A[i][t] - za) * (W[j][t] - zw)
//
// A (activations, m x k) and W (weights, n x k) are int8 or uint8. The engine multiplies
// u8 x s8 only, so A_u = A + oa (oa = 128 for int8: the byte XOR 0x80) and W_s = W - ob
// (ob = 128 for uint8), and with za' = za + oa, zw' = zw - ob:
//
//   y = dot(A_u, W_s) - zw' * rowsum(A_u) - za' * colsum(W_s) + k * za' * zw'
//
// dot() is exact in int32 for chunks of at most kMaxExactK terms; longer reductions are
// split into chunks summed in int64, so no K overflows (the spec's bit-width bounds say when
// int32 would: about 2^31 / (255 * 128) = 65793 terms at the extremes).
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/simd/gemm.h"

namespace qspec::simd {

struct QWeights {
  std::int64_t n = 0, k = 0;
  std::int32_t w_offset = 0;           // ob: 128 if the weights were uint8, else 0
  std::vector<PackedB> chunks;         // k split into runs of at most kMaxExactK
  std::vector<std::int64_t> col_sums;  // sum_t W_s[j][t] over the whole k
};

// Packs n x k weights (row stride ldw; uint8 if w_unsigned, else int8).
QWeights pack_weights(const GemmEngine& e, std::int64_t n, std::int64_t k, const void* w, bool w_unsigned,
                      std::int64_t ldw);

// y (m x n, row stride ldy) = the exact product above. a: m x k bytes, row stride lda.
// Out = int64_t gives the exact value; Out = int32_t gives it modulo 2^32 (exact whenever it
// fits int32, which the caller establishes from the spec's bounds).
template <class Out>
void qgemm(const GemmEngine& e, std::int64_t m, const void* a, bool a_signed, std::int64_t lda, std::int64_t za,
           const QWeights& w, std::int64_t zw, Out* y, std::int64_t ldy);

// The same product when A is already unsigned (A_u, e.g. an im2col buffer built with the
// offset applied) and its row sums are known: za_u is za' above.
template <class Out>
void qgemm_u8(const GemmEngine& e, std::int64_t m, const std::uint8_t* a_u, std::int64_t lda,
              const std::int64_t* row_sums, std::int64_t za_u, const QWeights& w, std::int64_t zw, Out* y,
              std::int64_t ldy);

// The int8 / uint8 outputs of the qlinear operators: y (m x n bytes, row stride ldy) = the epilogue
// e (gemm.h) of every column of the product above, fused into the engine's stores. The caller
// establishes that every product and its sum with the bias fit int32 and that w has one chunk.
void qgemm_requant(const GemmEngine& e, std::int64_t m, const void* a, bool a_signed, std::int64_t lda, std::int64_t za,
                   const QWeights& w, std::int64_t zw, const FusedRequantView& ep, std::uint8_t* y, std::int64_t ldy);
void qgemm_u8_requant(const GemmEngine& e, std::int64_t m, const std::uint8_t* a_u, std::int64_t lda,
                      const std::int64_t* row_sums, std::int64_t za_u, const QWeights& w, std::int64_t zw,
                      const FusedRequantView& ep, std::uint8_t* y, std::int64_t ldy);

}  // namespace qspec::simd
