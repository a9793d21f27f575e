// The integer matrix-product engine shared by fully_connected and conv2d: u8 x s8 -> int32.
//
// Every quantized product is mapped onto one canonical form: an unsigned 8-bit left operand A
// (activations, M x K rows) times a signed 8-bit right operand B (weights, N x K rows, packed
// once), C[m][n] = sum_k A[m][k] * B[n][k] in int32. int8 activations become u8 by adding 128
// and uint8 weights become s8 by subtracting 128; both offsets fold into the zero points
// (qgemm.h), so one exact kernel per ISA serves every signedness. |A*B| <= 255 * 128, so a sum
// of up to kMaxExactK products never leaves int32, and every instruction used is exact
// (VPDPBUSD, VPMADDWD on 16-bit operands, SDOT/UDOT... never the saturating VPMADDUBSW).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace qspec::simd {

// Largest K whose u8 x s8 dot product is guaranteed to fit int32: 65793 * 255 * 128 < 2^31.
inline constexpr std::int64_t kMaxExactK = 65536;

// 64-byte aligned byte buffer.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t n) { resize(n); }
  void resize(std::size_t n);
  std::uint8_t* data() { return p_.get(); }
  const std::uint8_t* data() const { return p_.get(); }
  std::size_t size() const { return n_; }

 private:
  struct Free {
    void operator()(std::uint8_t* p) const;
  };
  std::unique_ptr<std::uint8_t, Free> p_;
  std::size_t n_ = 0;
};

// Weights B (N x K, signed 8-bit) in an engine's layout, with their row sums.
struct PackedB {
  std::int64_t n = 0, k = 0;
  std::vector<std::int32_t> row_sums;  // sum_k B[n][k]
  AlignedBuffer data;
  const void* engine = nullptr;  // the engine that packed it (run() checks)
};

class GemmEngine {
 public:
  virtual ~GemmEngine() = default;
  virtual const char* name() const = 0;
  // Packs B (n rows of k signed bytes, row stride ldb). k <= kMaxExactK.
  virtual void pack(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out) const = 0;
  // C[i][j] = sum_k A[i][k] * B[j][k] (+ row_add[i] + col_add[j] when given) modulo 2^32, for
  // i < m, j < b.n: A unsigned (row stride lda), C row stride ldc. The dot product is exact in
  // int32 (k <= kMaxExactK); col_add, if given, is readable up to a multiple of 16 entries.
  virtual void run(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c,
                   std::int64_t ldc, const std::int32_t* row_add = nullptr,
                   const std::int32_t* col_add = nullptr) const = 0;
  // The same product with qgemm's zero-point corrections, the column term formed in the kernel:
  // C[i][j] = sum_k A[i][k] * B[j][k] + row_add[i] + col_mul * b.row_sums[j], modulo 2^32.
  // (qgemm's column correction is -za' * colsum(W_s), and colsum is b.row_sums for one chunk;
  // forming it per call would be an O(n) pass that costs as much as a small GEMV.) The default
  // builds the col_add vector and calls run(); the x86 engines fuse it into their stores.
  virtual void run_fused(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b, std::int32_t* c,
                         std::int64_t ldc, const std::int32_t* row_add, std::int32_t col_mul) const;
  // Row sums of m rows of k bytes XOR `flip` (0 or 0x80), and, if dst is given, the flipped
  // bytes copied there (row stride ldd). The SIMD engines override it with vector code.
  virtual void prepare_a(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                         std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums) const;
};

// The portable engine (plain loops; B stored as given).
const GemmEngine& scalar_gemm_engine();

}  // namespace qspec::simd
