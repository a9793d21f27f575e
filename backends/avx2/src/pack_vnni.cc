// The VNNI GEMM engines' shared layout of B (pack_vnni_panels), built with AVX2 flags only: every
// VNNI level calls it, including AVX-VNNI cores that lack the AVX-512 the engines' files are built for.
#include <cstdint>

#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

constexpr std::int64_t kNr = 16;  // columns per panel: the engines' kNr

}  // namespace

void pack_vnni_panels(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out) {
  const std::int64_t k4 = (k + 3) / 4, panels = (n + kNr - 1) / kNr;
  out.reset(n, k, static_cast<std::size_t>(panels * k4 * 64));
  auto* d = reinterpret_cast<std::int8_t*>(out.data.data());
  for (std::int64_t j = 0; j < n; ++j) {
    std::int8_t* col = d + (j / kNr) * k4 * 64 + (j % kNr) * 4;
    std::int32_t s = 0;
    for (std::int64_t t = 0; t < k; ++t) s += col[(t / 4) * 64 + t % 4] = b[j * ldb + t];
    out.row_sums[static_cast<std::size_t>(j)] = s;
  }
}

}  // namespace qspec::simd::avx2
