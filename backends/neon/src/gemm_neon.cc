// NEON u8 x s8 -> int32 engines: SMULL + SADALP on every AArch64 CPU, SDOT with FEAT_DotProd.
//
// Both multiply signed bytes: A (unsigned) is made signed by XOR 0x80 (A_s = A - 128), so
// dot(A, B) = dot(A_s, B) + 128 * sum(B), with sum(B) kept at pack time. SMULL of two int8 is
// at most 128 * 128 = 16384 in magnitude (fits int16), SADALP adds pairs into int32, SDOT adds
// four exact products per int32 lane: no saturation anywhere. B is stored as given (rows of k).
#include <arm_neon.h>

#include <cstring>
#include <vector>

#include "qspec/simd/neon_kernels.h"

namespace qspec::simd::neon {

std::int32_t dot_sdot(const std::int8_t* a, const std::int8_t* b, std::int64_t k16);  // gemm_sdot.cc

namespace {

// sum_t A_s[t] * B[t] over 16 * k16 elements with SMULL/SADALP.
std::int32_t dot_smull(const std::int8_t* a, const std::int8_t* b, std::int64_t k16) {
  int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
  for (std::int64_t t = 0; t < k16; ++t) {
    const int8x16_t av = vld1q_s8(a + 16 * t), bv = vld1q_s8(b + 16 * t);
    acc0 = vpadalq_s16(acc0, vmull_s8(vget_low_s8(av), vget_low_s8(bv)));
    acc1 = vpadalq_s16(acc1, vmull_high_s8(av, bv));
  }
  return vaddvq_s32(vaddq_s32(acc0, acc1));  // |sum| <= k * 16384: exact for k <= kMaxExactK
}

class NeonEngine final : public GemmEngine {
 public:
  explicit NeonEngine(bool sdot) : sdot_(sdot) {}
  const char* name() const override { return sdot_ ? "neon-sdot" : "neon-smull"; }

  void pack(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out) const override {
    out.n = n;
    out.k = k;
    out.engine = this;
    out.row_sums.assign(static_cast<std::size_t>(n), 0);
    out.data.resize(static_cast<std::size_t>(n * k));
    auto* d = reinterpret_cast<std::int8_t*>(out.data.data());
    for (std::int64_t j = 0; j < n; ++j) {
      std::int32_t s = 0;
      for (std::int64_t t = 0; t < k; ++t) s += d[j * k + t] = b[j * ldb + t];
      out.row_sums[static_cast<std::size_t>(j)] = s;
    }
  }

  void run(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c, std::int64_t ldc,
           const std::int32_t* row_add, const std::int32_t* col_add) const override {
    const auto* w = reinterpret_cast<const std::int8_t*>(b.data.data());
    const std::int64_t k = b.k, k16 = k / 16;
    thread_local std::vector<std::int8_t> as;
    as.resize(static_cast<std::size_t>(k));
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t t = 0; t < k; ++t)
        as[static_cast<std::size_t>(t)] = static_cast<std::int8_t>(a[i * lda + t] ^ 0x80);
      for (std::int64_t j = 0; j < b.n; ++j) {
        const std::int8_t* wj = w + j * k;
        std::int32_t s = sdot_ ? dot_sdot(as.data(), wj, k16) : dot_smull(as.data(), wj, k16);
        for (std::int64_t t = 16 * k16; t < k; ++t) s += std::int32_t{as[static_cast<std::size_t>(t)]} * wj[t];
        // dot(A, B) = dot(A_s, B) + 128 * sum(B); the corrections wrap modulo 2^32.
        std::uint32_t u =
            static_cast<std::uint32_t>(s) + 128u * static_cast<std::uint32_t>(b.row_sums[static_cast<std::size_t>(j)]);
        if (row_add) u += static_cast<std::uint32_t>(row_add[i]) + static_cast<std::uint32_t>(col_add[j]);
        c[i * ldc + j] = static_cast<std::int32_t>(u);
      }
    }
  }

 private:
  bool sdot_;
};

}  // namespace

const GemmEngine& gemm_engine_smull() {
  static const NeonEngine e(false);
  return e;
}
const GemmEngine& gemm_engine_sdot() {
  static const NeonEngine e(true);
  return e;
}

}  // namespace qspec::simd::neon
