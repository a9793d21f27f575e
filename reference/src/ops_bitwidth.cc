// MRT infer_prec formulas as written (seed 000 / MRT code) and the sound formulas qspec adopts.
#include <algorithm>
#include <string>

#include "qspec/ref/bits.h"
#include "qspec/ref/mrt.h"
#include "qspec/ref/ops/bitwidth.h"

namespace qspec::ref::ops {
namespace {

// get_bit_cnt as MRT calls it: asserts a positive integer (nullopt here: the formula is undefined).
std::optional<int> gbc(const Int& n) {
  if (n <= 0) return std::nullopt;
  return mrt_get_bit_cnt(n);
}
int bl(const Int& n) { return bit_length(abs(n)); }
// get_bit of an integer constant: magnitude bits plus the sign bit.
int gb(const Int& c) { return needed_prec(c); }
Int max_abs_c(const PrecParams& p) {
  Int m = 0;
  for (const auto& s : p.wsums) m = std::max<Int>(m, abs(Int(p.zx * s)));
  return m;
}
int max_in(const PrecParams& p) {
  QSPEC_ERROR_IF(p.in_precs.empty(), "infer_prec: needs the input precisions");
  for (int v : p.in_precs) QSPEC_ERROR_IF(v < 1 || v > kMaxInferredPrec, "infer_prec: input precisions in [1, 32]");
  return *std::max_element(p.in_precs.begin(), p.in_precs.end());
}
// Convolution / FullyConnected: CVM verifies both operand precisions <= 8.
void conv_fc_check(const PrecParams& p) {
  QSPEC_ERROR_IF(p.xprec < 1 || p.wprec < 1 || p.xprec > kMaxConvFcOperandPrec || p.wprec > kMaxConvFcOperandPrec,
                 "infer_prec: Convolution/FullyConnected operand precisions in [1, 8] (CVM VERIFY_LE 8)");
  QSPEC_ERROR_IF(p.k < 1, "infer_prec: reduction length K >= 1");
}
void oprec_check(const PrecParams& p) {
  QSPEC_ERROR_IF(p.oprec < 1 || p.oprec > kMaxInferredPrec, "infer_prec: quantize_scale's oprec in [1, 32]");
}
// The result must fit CVM's 32-bit register.
int fits_register(int prec) {
  QSPEC_ERROR_IF(prec > kMaxInferredPrec,
                 "infer_prec: the inferred precision " + std::to_string(prec) + " exceeds 32 bits (CVM's register)");
  return prec;
}
int adopted(PrecFormula f, const PrecParams& p);

}  // namespace

// spec: bitwidth.fits
bool fits_prec(const Int& v, int p) { return p >= 1 && abs(v) <= pow2(static_cast<unsigned>(p - 1)) - 1; }

// spec: bitwidth.fits
int needed_prec(const Int& v) { return bit_length(abs(v)) + 1; }

// spec: bitwidth.mrt.conv2d_zpxw
std::optional<int> infer_prec_as_written(PrecFormula f, const PrecParams& p) {
  const int x = p.xprec, w = p.wprec;
  switch (f) {
    case PrecFormula::ConvSym:
    case PrecFormula::FcSym: {  // get_bit_cnt(K) + xprec + wprec
      auto b = gbc(p.k);
      if (!b) return std::nullopt;
      return *b + x + w;
    }
    case PrecFormula::ConvZpX:
    case PrecFormula::ConvZpW: return std::nullopt;  // the document gives no formula
    case PrecFormula::ConvZpXW: {
      auto p1 = gbc(p.k), p2 = gbc(Int(abs(p.zw) * p.k)), p3 = gbc(Int(abs(p.zx) * p.k)),
           p4 = gbc(Int(abs(p.zw) * abs(p.zx) * p.k));
      if (!p1 || !p2 || !p3 || !p4) return std::nullopt;
      return std::max({*p1 + x + w + 2, *p2 + x + 1, *p3 + w + 1, *p4}) + 2;
    }
    case PrecFormula::FcZpX: {  // max(get_bit_cnt(K)+x+w+1, get_bit_cnt(abs(C))) + 1
      auto p1 = gbc(p.k), p2 = gbc(max_abs_c(p));
      if (!p1 || !p2) return std::nullopt;
      return std::max(*p1 + x + w + 1, *p2) + 1;
    }
    case PrecFormula::FcZpW: {  // max(get_bit_cnt(K)+x+w+1, get_bit_cnt(abs(C)*K)+x) + 1, C = zp_w
      auto p1 = gbc(p.k), p2 = gbc(Int(abs(p.zw) * p.k));
      if (!p1 || !p2) return std::nullopt;
      return std::max(*p1 + x + w + 1, *p2 + x) + 1;
    }
    case PrecFormula::FcZpXW: {
      // max(gbc(K)+x+w+2, gbc(abs(C1)*K)+x+1, gbc(abs(max(C2))), gbc(abs(C3))) + 2 with
      // C1 = zp_w, C2[m] = zp_x * sum Wq[m], C3 = K*zp_x*zp_w. Note max(C2) is the signed maximum.
      QSPEC_ERROR_IF(p.wsums.empty(), "infer_prec: FullyConnected 4 needs the weight sums");
      Int maxc2 = p.zx * p.wsums[0];
      for (const auto& s : p.wsums) maxc2 = std::max<Int>(maxc2, Int(p.zx * s));
      auto p1 = gbc(p.k), p2 = gbc(Int(abs(p.zw) * p.k)), p3 = gbc(abs(maxc2)), p4 = gbc(abs(Int(p.k * p.zx * p.zw)));
      if (!p1 || !p2 || !p3 || !p4) return std::nullopt;
      return std::max({*p1 + x + w + 2, *p2 + x + 1, *p3, *p4}) + 2;
    }
    case PrecFormula::QuantizeScale:  // max(xprecs) if Concat else max(xprecs) + 1
      return p.concat ? max_in(p) : max_in(p) + 1;
    case PrecFormula::SamePrec: return max_in(p);
  }
  return std::nullopt;
}

// spec: bitwidth.mrt.conv2d_sym
// spec: bitwidth.mrt.conv2d_zpx
// spec: bitwidth.mrt.conv2d_zpw
// spec: bitwidth.mrt.fc_sym
// spec: bitwidth.mrt.fc_zpx
// spec: bitwidth.mrt.fc_zpw
// spec: bitwidth.mrt.fc_zpxw
// spec: bitwidth.mrt.quantize_scale
// spec: bitwidth.mrt.same_prec
int infer_prec(PrecFormula f, const PrecParams& p) {
  if (f != PrecFormula::QuantizeScale && f != PrecFormula::SamePrec) conv_fc_check(p);
  if (f == PrecFormula::ConvZpX || f == PrecFormula::ConvZpW) oprec_check(p);
  return fits_register(adopted(f, p));
}

namespace {
int adopted(PrecFormula f, const PrecParams& p) {
  const int x = p.xprec, w = p.wprec;
  const int b = bl(p.k);  // bitlen(K) = get_bit_cnt(K) for K >= 1
  switch (f) {
    case PrecFormula::ConvSym:
    case PrecFormula::FcSym: return b + x + w;
    case PrecFormula::ConvZpX: {
      // Ye1: |Xq| <= max(2^x - 1, |x_pad|) (affine X and its pad value), |Wq| <= 2^(w-1) - 1.
      const Int ax = std::max<Int>(Int(pow2(static_cast<unsigned>(x)) - 1), abs(p.x_pad));
      const Int bw = pow2(static_cast<unsigned>(w - 1)) - 1;
      return std::max({gb(Int(p.k * ax * bw)), gb(max_abs_c(p)), p.oprec + 1});
    }
    case PrecFormula::ConvZpW: return std::max({b + x + w, bl(Int(abs(p.zw) * p.k)) + x, p.oprec + 1});
    case PrecFormula::ConvZpXW:
      return std::max({b + x + w + 2, bl(Int(abs(p.zw) * p.k)) + x + 1, bl(Int(abs(p.zx) * p.k)) + w + 1,
                       gb(Int(p.k * p.zx * p.zw))}) +
             2;
    case PrecFormula::FcZpX: return std::max(b + x + w + 1, gb(max_abs_c(p))) + 1;
    case PrecFormula::FcZpW: return std::max(b + x + w + 1, bl(Int(abs(p.zw) * p.k)) + x) + 1;
    case PrecFormula::FcZpXW:
      return std::max({b + x + w + 2, bl(Int(abs(p.zw) * p.k)) + x + 1, gb(max_abs_c(p)), gb(Int(p.k * p.zx * p.zw))}) +
             2;
    case PrecFormula::QuantizeScale: {
      const int m = max_in(p);
      if (p.concat) return m;
      // N inputs of precision <= m sum to at most N (2^(m-1) - 1) <= 2^(m - 1 + bitlen(N-1)) - 1.
      const auto n = static_cast<long>(p.in_precs.size());
      return m + bit_length(Int(n - 1));
    }
    case PrecFormula::SamePrec: return max_in(p);
  }
  return 0;
}
}  // namespace

// spec: bitwidth.mrt.effective_prec
int effective_prec(int inferred, int tight) {
  QSPEC_ERROR_IF(inferred < 1 || inferred > kMaxInferredPrec || tight < 1 || tight > kMaxInferredPrec,
                 "post-op clip: precisions in [1, 32]");
  return std::min(inferred, tight);
}

// spec: bitwidth.mrt.effective_prec
Int post_op_clip(const Int& v, int inferred, int tight) {
  // tfm_pass.quantize._quant: "if precs[name][OUT_KEY] > tight_prec: insert cvm_clip(precision=tight_prec)".
  if (effective_prec(inferred, tight) == inferred) return v;
  return cvm_clip(v, tight);
}

}  // namespace qspec::ref::ops
