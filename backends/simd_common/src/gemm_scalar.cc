// Portable u8 x s8 -> int32 matrix-product engine, the GemmEngine defaults (incl. the two-pass form
// of the fused requantization) and the aligned buffer.
#include <algorithm>
#include <cmath>
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

void PackedB::reset(std::int64_t rows, std::int64_t cols, std::size_t bytes) {
  n = rows;
  k = cols;
  row_sums.assign(static_cast<std::size_t>(rows), 0);
  data.resize(bytes);
  std::memset(data.data(), 0, bytes);
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

FusedRequant::FusedRequant(const std::vector<RequantParams>& plan, std::int64_t n, const std::int64_t* bias,
                           bool float_bias) {
  if (plan.empty() || n < 1 || (plan.size() != 1 && static_cast<std::int64_t>(plan.size()) != n)) return;
  const auto un = static_cast<std::size_t>(n);
  const RequantParams& p0 = plan[0];
  bias_.assign(un, 0);
  float max_abs_scale = 0;
  for (std::size_t j = 0; j < un; ++j) {
    const RequantParams& p = plan[plan.size() == 1 ? 0 : j];
    // One kind, clamp and zero point for every column (the qlinear plans), a kind with a fused form.
    if (p.kind != p0.kind || p.qmin != p0.qmin || p.qmax != p0.qmax || p.zp != p0.zp) return;
    if (p.kind == RequantKind::kShiftRound && (p.input_offset != 0 || p.shift < 0)) return;
    if ((p.kind == RequantKind::kFloatThenZp || p.kind == RequantKind::kFloatInclZp) && !p.float_narrow) return;
    if (p.qmin < -128 || p.qmax > 255) return;  // a byte store
    params_.push_back(p);
    scale_.push_back(p.scale);
    max_abs_scale = std::isnan(p.scale) ? INFINITY : std::max(max_abs_scale, std::fabs(p.scale));
    multiplier_.push_back(p.multiplier);
    left_shift_.push_back(p.left_shift);
    right_shift_.push_back(p.right_shift);
    round_pos_.push_back(p.round_pos);
    round_neg_.push_back(p.round_neg);
    // finalize's clamp of x*M + c holds for the columns whose quotient can leave int32 (wide); the
    // others are clamped after the shift, in int32 (their wide_lo / wide_hi may be clipped to int64).
    s_lo_.push_back(p.wide ? p.wide_lo : INT64_MIN);
    s_hi_.push_back(p.wide ? p.wide_hi : INT64_MAX);
    shift_.push_back(p.shift);
    if (bias) {
      if (bias[j] < INT32_MIN || bias[j] > INT32_MAX) return;
      bias_[j] = static_cast<std::int32_t>(bias[j]);
    }
  }
  v_.kind = p0.kind;
  v_.float_bias = float_bias;
  v_.params = params_.data();
  v_.bias = bias_.data();
  v_.scale = scale_.data();
  v_.multiplier = multiplier_.data();
  v_.left_shift = left_shift_.data();
  v_.right_shift = right_shift_.data();
  v_.round_pos = round_pos_.data();
  v_.round_neg = round_neg_.data();
  v_.s_lo = s_lo_.data();
  v_.s_hi = s_hi_.data();
  v_.shift = shift_.data();
  v_.flo = p0.flo, v_.fhi = p0.fhi, v_.zp_f = p0.zp_f;
  v_.zp = p0.zp, v_.lo_nozp = p0.lo_nozp, v_.hi_nozp = p0.hi_nozp;
  v_.max_abs_scale = max_abs_scale;
  fold();
  ok_ = true;
}

// The folded shift form (FusedRequantView::folded) where every column has one and the differences of
// their rounding constants agree.
void FusedRequant::fold() {
  const std::size_t n = params_.size();
  fold_m_.resize(n), fold_s_.resize(n), fold_c_.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    RequantParams s = params_[j], z;
    if (s.kind == RequantKind::kQ31Double && !q31_as_shift_round(params_[j], s)) return;
    if (s.kind != RequantKind::kShiftRound || s.input_offset != 0 || !zp_into_rounding(s, z)) return;
    const std::int64_t diff = z.round_neg - z.round_pos;
    if (j == 0) v_.fold_diff = diff;
    if (diff != v_.fold_diff) return;
    fold_m_[j] = z.multiplier;
    fold_c_[j] = z.round_pos;
    fold_s_[j] = z.shift - 32;
  }
  v_.fold_m = fold_m_.data(), v_.fold_c = fold_c_.data(), v_.fold_s = fold_s_.data();
  v_.folded = n > 0;
}

FusedRequantView FusedRequant::view(std::int64_t col0) const {
  FusedRequantView v = v_;
  if (v.folded) v.fold_m += col0, v.fold_c += col0, v.fold_s += col0;
  v.params += col0, v.bias += col0, v.scale += col0;
  v.multiplier += col0, v.left_shift += col0, v.right_shift += col0;
  v.round_pos += col0, v.round_neg += col0, v.s_lo += col0, v.s_hi += col0, v.shift += col0;
  return v;
}

std::int32_t fused_requant_one(const FusedRequantView& e, std::int64_t j, std::int32_t c) {
  std::int32_t v;
  if (e.float_bias) {  // oneDNN: an integer of magnitude < 2^31 (the caller's bound)
    volatile float f = static_cast<float>(c);
    f = f + static_cast<float>(e.bias[j]);
    v = static_cast<std::int32_t>(f);
  } else {
    v = static_cast<std::int32_t>(static_cast<std::uint32_t>(c) + static_cast<std::uint32_t>(e.bias[j]));
  }
  return requant_one(e.params[j], v);
}

void GemmEngine::run_requant(std::int64_t m, const std::uint8_t* a, std::int64_t lda, const PackedB& b,
                             const std::int32_t* row_add, std::int32_t col_mul, const FusedRequantView& e,
                             std::uint8_t* y, std::int64_t ldy) const {
  constexpr std::int64_t kRows = 16;  // a tile of C that stays in L1 between the two passes
  thread_local std::vector<std::int32_t> c;
  c.resize(static_cast<std::size_t>(std::max<std::int64_t>(kRows * b.n, 1)));
  for (std::int64_t i0 = 0; i0 < m; i0 += kRows) {
    const std::int64_t mr = std::min(kRows, m - i0);
    run_fused(mr, a + i0 * lda, lda, b, c.data(), b.n, row_add + i0, col_mul);
    for (std::int64_t i = 0; i < mr; ++i)
      for (std::int64_t j = 0; j < b.n; ++j)
        y[(i0 + i) * ldy + j] =
            static_cast<std::uint8_t>(fused_requant_one(e, j, c[static_cast<std::size_t>(i * b.n + j)]));
  }
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
