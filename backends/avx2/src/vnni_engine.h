// Internal to the VNNI GEMM engines (ymm, zmm): the GemmEngine face they share, each entry point
// turned into one correction record that the engine's own run_impl applies at its store.
#pragma once

#include <cstdint>

#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {

// What an engine's store adds and where it writes: nothing (row_add null, plain run), row_add[r]
// plus col_add[j] (run with corrections), row_add[r] plus col_mul * col_sums[j] (run_fused), and
// for run_requant also the requantizing epilogue with its byte output (c unused).
struct VnniCorr {
  const std::int32_t* row_add = nullptr;
  const std::int32_t* col_add = nullptr;  // readable up to a multiple of 16 entries
  std::int32_t col_mul = 0;
  const std::int32_t* col_sums = nullptr;  // exactly n entries
  const FusedRequantView* ep = nullptr;
  std::uint8_t* y = nullptr;
  std::int64_t ldy = 0;
};

// Impl supplies kName and
//   static void run_impl(m, a, lda, const PackedB&, std::int32_t* c, ldc, const VnniCorr&);
// both engines pack B with pack_vnni_panels and prepare A with prepare_a_avx2.
template <class Impl>
class VnniGemmEngine final : public GemmEngine {
 public:
  const char* name() const override { return Impl::kName; }

  void pack(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out) const override {
    pack_vnni_panels(n, k, b, ldb, out);
    out.engine = this;
  }

  void prepare_a(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                 std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums) const override {
    prepare_a_avx2(m, k, a, lda, flip, dst, ldd, sums);
  }

  void run(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c, std::int64_t ldc,
           const std::int32_t* row_add, const std::int32_t* col_add) const override {
    VnniCorr corr;
    if (row_add != nullptr) {
      corr.row_add = row_add;
      corr.col_add = col_add;
    }
    Impl::run_impl(m, a, lda, b, c, ldc, corr);
  }

  void run_fused(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c,
                 std::int64_t ldc, const std::int32_t* row_add, std::int32_t col_mul) const override {
    VnniCorr corr;
    corr.row_add = row_add;
    corr.col_mul = col_mul;
    corr.col_sums = b.row_sums.data();
    Impl::run_impl(m, a, lda, b, c, ldc, corr);
  }

  bool fuses_requant() const override { return true; }

  void run_requant(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b,
                   const std::int32_t* row_add, std::int32_t col_mul, const FusedRequantView& e, std::uint8_t* y,
                   std::int64_t ldy) const override {
    VnniCorr corr;
    corr.row_add = row_add;
    corr.col_mul = col_mul;
    corr.col_sums = b.row_sums.data();
    corr.ep = &e;
    corr.y = y;
    corr.ldy = ldy;
    Impl::run_impl(m, a, lda, b, nullptr, 0, corr);
  }
};

}  // namespace qspec::simd::avx2
