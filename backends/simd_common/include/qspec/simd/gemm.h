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

#include "qspec/simd/requant.h"

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

  // n x k, row_sums zero, `bytes` of data, all zero (padding must read as zero). Out of line
  // (gemm_scalar.cc): the ISA-flagged packers calling it then compile no std::vector<int32_t>
  // member of their own, whose copy the linker could keep for the baseline code (the ASan build
  // did, tools/isa_leak_check.py).
  void reset(std::int64_t rows, std::int64_t cols, std::size_t bytes);
};

// The requantization a GEMM engine fuses into its tile stores (the int8 / uint8 outputs of the
// qlinear operators): for output column j, v = C[i][j] + bias[j] (in int32: the caller has bounded
// the accumulator so that it is exact), or oneDNN's fl32(fl32(C) + fl32(bias[j])), then column j's
// RequantParams, stored as one byte. A view: arrays of the columns col0.. of a FusedRequant.
struct FusedRequantView {
  RequantKind kind = RequantKind::kFloatThenZp;
  bool float_bias = false;
  const RequantParams* params = nullptr;     // per column: the scalar form (requant_one)
  const std::int32_t* bias = nullptr;        // per column (zeros when the op has none)
  const float* scale = nullptr;              // per column (float kinds)
  const std::int32_t* multiplier = nullptr;  // per column (kQ31Double), and its shifts
  const std::int32_t* left_shift = nullptr;
  const std::int32_t* right_shift = nullptr;
  // per column (kShiftRound, input_offset 0, S >= 0): the rounding constants, the clamp of
  // x*M + c (finalize's wide_lo / wide_hi for a wide column, else none: INT64_MIN / MAX), and S
  const std::int64_t* round_pos = nullptr;
  const std::int64_t* round_neg = nullptr;
  const std::int64_t* s_lo = nullptr;
  const std::int64_t* s_hi = nullptr;
  const std::int64_t* shift = nullptr;
  float flo = 0, fhi = 0, zp_f = 0;  // shared by the columns (float kinds: float_narrow's bounds)
  std::int32_t zp = 0, lo_nozp = 0, hi_nozp = 0;
  // Float kinds: the largest |scale| of the columns (+inf for a NaN). For any int32 v, |fl32(fl32(v) *
  // scale)| <= 2^31 * max_abs_scale (fl32(v) is at most 2^31 in magnitude, 2^31 * s is a float and
  // rounding is monotone), which tells an epilogue when VCVTPS2DQ cannot return its out-of-range
  // value and a saturating narrowing may stand for the clamp (below 1: at most 2^31 - 128).
  float max_abs_scale = 0;
  // The shift kinds folded, where every column folds (kQ31Double through q31_as_shift_round, then
  // kShiftRound with S >= 32 through zp_into_rounding): column j's byte before the clamp is
  // floor((v * fold_m[j] + fold_c[j] + [v < 0] * fold_diff) / 2^(32 + fold_s[j])), the zero point
  // included, with one difference of the rounding constants fold_diff for every column.
  bool folded = false;
  std::int64_t fold_diff = 0;
  const std::int32_t* fold_m = nullptr;
  const std::int64_t* fold_c = nullptr;
  const std::int32_t* fold_s = nullptr;
};

// The per-column arrays behind a FusedRequantView, built from a plan of 1 or n RequantParams
// (one output type and clamp for all). ok() is false when a column's kind or parameters are
// outside the fused epilogues (kShiftRound with an input offset or a left shift; float kinds
// without float_narrow): use two passes.
class FusedRequant {
 public:
  FusedRequant(const std::vector<RequantParams>& plan, std::int64_t n, const std::int64_t* bias, bool float_bias);
  bool ok() const { return ok_; }
  FusedRequantView view(std::int64_t col0 = 0) const;

 private:
  void fold();  // the folded shift form, where it exists
  bool ok_ = false;
  FusedRequantView v_;
  std::vector<RequantParams> params_;
  std::vector<std::int32_t> bias_, multiplier_, left_shift_, right_shift_;
  std::vector<float> scale_;
  std::vector<std::int64_t> round_pos_, round_neg_, s_lo_, s_hi_, shift_;
  std::vector<std::int32_t> fold_m_, fold_s_;
  std::vector<std::int64_t> fold_c_;
};

// Column j's byte, exactly as the two passes compute it (the scalar form every engine must match).
std::int32_t fused_requant_one(const FusedRequantView& e, std::int64_t j, std::int32_t c);

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
  // y[i][j] (m x b.n bytes, row stride ldy) = the epilogue e of column j applied to run_fused's
  // C[i][j]. The default stores C tiles in a scratch buffer and applies fused_requant_one (exact,
  // but scalar: slower than two passes through a vector requantization kernel); the VNNI engines
  // requantize in registers before the byte store, and say so with fuses_requant().
  virtual void run_requant(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b,
                           const std::int32_t* row_add, std::int32_t col_mul, const FusedRequantView& e,
                           std::uint8_t* y, std::int64_t ldy) const;
  // Whether run_requant is the engine's own in-register epilogue (the route to prefer over two passes).
  virtual bool fuses_requant() const { return false; }
  // Row sums of m rows of k bytes XOR `flip` (0 or 0x80), and, if dst is given, the flipped
  // bytes copied there (row stride ldd). The SIMD engines override it with vector code.
  virtual void prepare_a(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                         std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums) const;
};

// The portable engine (plain loops; B stored as given).
const GemmEngine& scalar_gemm_engine();

}  // namespace qspec::simd
