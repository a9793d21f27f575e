// Portable u8 x s8 -> int32 matrix-product engine, the GemmEngine defaults and the aligned buffer.
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "qspec/simd/gemm.h"

namespace qspec::simd {

void AlignedBuffer::Free::operator()(std::uint8_t* p) const { std::free(p); }

void AlignedBuffer::resize(std::size_t n) {
  if (n <= n_ && p_) return;
  const std::size_t bytes = (n + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  p_.reset(static_cast<std::uint8_t*>(p));
  n_ = n;
}

void GemmEngine::prepare_a(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                           std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums) const {
  for (std::int64_t i = 0; i < m; ++i) {
    std::int64_t s = 0;
    for (std::int64_t t = 0; t < k; ++t) {
      const std::uint8_t v = a[i * lda + t] ^ flip;
      if (dst) dst[i * ldd + t] = v;
      s += v;
    }
    sums[i] = s;
  }
}

void GemmEngine::run_fused(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c,
                           std::int64_t ldc, const std::int32_t* row_add, std::int32_t col_mul) const {
  thread_local std::vector<std::int32_t> col_add;
  col_add.assign(static_cast<std::size_t>((b.n + 15) / 16 * 16), 0);  // readable up to a multiple of 16
  // modulo 2^32: unsigned, never undefined
  for (std::int64_t j = 0; j < b.n; ++j)
    col_add[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(
        static_cast<std::uint32_t>(col_mul) * static_cast<std::uint32_t>(b.row_sums[static_cast<std::size_t>(j)]));
  run(m, a, lda, b, c, ldc, row_add, col_add.data());
}

namespace {

class ScalarEngine final : public GemmEngine {
 public:
  const char* name() const override { return "scalar"; }

  void pack(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out) const override {
    out.n = n;
    out.k = k;
    out.engine = this;
    out.row_sums.assign(static_cast<std::size_t>(n), 0);
    out.data.resize(static_cast<std::size_t>(n * k));
    auto* d = reinterpret_cast<std::int8_t*>(out.data.data());
    for (std::int64_t j = 0; j < n; ++j) {
      std::int32_t s = 0;
      for (std::int64_t i = 0; i < k; ++i) s += d[j * k + i] = b[j * ldb + i];
      out.row_sums[static_cast<std::size_t>(j)] = s;
    }
  }

  void run(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c, std::int64_t ldc,
           const std::int32_t* row_add, const std::int32_t* col_add) const override {
    const auto* w = reinterpret_cast<const std::int8_t*>(b.data.data());
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < b.n; ++j) {
        std::int32_t s = 0;  // |s| <= k * 255 * 128 < 2^31 for k <= kMaxExactK
        for (std::int64_t t = 0; t < b.k; ++t) s += static_cast<std::int32_t>(a[i * lda + t]) * w[j * b.k + t];
        std::uint32_t u = static_cast<std::uint32_t>(s);  // the additions wrap modulo 2^32
        if (row_add) u += static_cast<std::uint32_t>(row_add[i]) + static_cast<std::uint32_t>(col_add[j]);
        c[i * ldc + j] = static_cast<std::int32_t>(u);
      }
  }
};

}  // namespace

const GemmEngine& scalar_gemm_engine() {
  static const ScalarEngine e;
  return e;
}

}  // namespace qspec::simd
