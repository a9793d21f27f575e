// MRT requantization of integer tensors: realize, the input quantizers, and V1 requant_operator.
#include <algorithm>
#include <string>

#include "qspec/ref/bits.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/mrt.h"
#include "qspec/ref/types.h"

namespace qspec::ref {
namespace {

bool f64_finite(std::uint64_t b) { return float_is_finite(b, kBinary64); }
std::uint64_t f64_from_int(const Int& v) { return float_round(Rat(v), kBinary64); }

void check_prec(int p, const char* clause, const char* what) {
  QSPEC_ERROR_IF(p < 1 || p > 32, std::string(clause) + ": " + what + " must be in [1, 32], got " + std::to_string(p));
}

// The precision CVM assigns to x * frac: broadcast_mul adds the precisions, and MRT's nd_const
// gives the constant frac the precision get_bit(frac).
int product_precision(const Int& frac, int input_precision) {
  return frac > 1 ? input_precision + mrt_get_bit(Rat(frac)) : input_precision;
}

void require_in_precision(const std::vector<Int>& x, int prec, const char* clause) {
  const Int a = mrt_alpha(prec);
  for (const auto& v : x)
    QSPEC_REQUIRE(abs(v) <= a, std::string(clause) + ": |x| <= 2^(iprec-1) - 1 (the producer's precision)");
}

}  // namespace

void mrt_realize_check(const Int& frac, int exp, int precision, int input_precision) {
  check_prec(precision, "mrt.realize", "precision");
  check_prec(input_precision, "mrt.realize", "input precision");
  QSPEC_REQUIRE(frac >= 1, "mrt.realize: frac >= 1 (cvm_float of a positive scale)");
  const int ip = product_precision(frac, input_precision);
  QSPEC_ERROR_IF(ip > 32, "mrt.realize: precision of x * frac = " + std::to_string(ip) + " exceeds 32");
  if (exp < 0) QSPEC_ERROR_IF(-exp > 32, "mrt.realize: right shift by " + std::to_string(-exp) + " > 32");
  if (exp > 0) {
    QSPEC_ERROR_IF(exp > 32, "mrt.realize: left shift by " + std::to_string(exp) + " > 32");
    QSPEC_ERROR_IF(ip + exp > 32, "mrt.realize: left shift of a " + std::to_string(ip) + "-bit value by " +
                                std::to_string(exp) + " exceeds 32 bits");
  }
}

// spec: mrt.realize
// tfm_utils.requant_operator: "if frac > 1: X = broadcast_mul(X, frac)", then
// tfm_utils.realize(X, -exp, oprec): sb == 0 -> cvm_clip, sb < 0 -> cvm_left_shift(-sb),
// sb > 0 -> cvm_right_shift(sb).
Int mrt_realize(const Int& x, const Int& frac, int exp, int precision, int input_precision) {
  mrt_realize_check(frac, exp, precision, input_precision);
  QSPEC_REQUIRE(abs(x) <= mrt_alpha(input_precision), "mrt.realize: |x| <= 2^(input_precision-1) - 1");
  const Int xf = frac > 1 ? Int(x * frac) : x;
  const int ip = product_precision(frac, input_precision);
  const int sb = -exp;
  if (sb == 0) return cvm_clip(xf, precision);
  if (sb > 0) return cvm_right_shift(xf, sb, precision);
  return cvm_left_shift(xf, -sb, precision, ip);
}

// Python: iscale * frac * (2 ** exp), evaluated left to right. frac < 2^31 and 2^exp (|exp| <= 32
// once realize has accepted it) convert to binary64 exactly; each product rounds once.
std::uint64_t mrt_simulated_scale(std::uint64_t iscale_f64, const CvmFloat& cf) {
  const std::uint64_t a = f64_mul(iscale_f64, f64_from_int(cf.frac));
  return f64_mul(a, float_round(pow2r(cf.exp), kBinary64));
}

// spec: mrt.sym_input_quantizer
MrtRequantResult mrt_sym_input_quantize(const std::vector<Int>& xe, std::uint64_t iscale_f64,
                                        std::uint64_t threshold_f64, int iprec, int prec) {
  const char* clause = "mrt.sym_input_quantizer";
  check_prec(prec, clause, "precision");
  check_prec(iprec, clause, "input precision");
  QSPEC_REQUIRE(f64_finite(iscale_f64) && f64_value(iscale_f64) > 0, "mrt.sym_input_quantizer: iscale > 0, finite");
  QSPEC_REQUIRE(f64_finite(threshold_f64) && f64_value(threshold_f64) >= 0, "mrt.sym_input_quantizer: threshold >= 0, finite");
  require_in_precision(xe, iprec, clause);
  MrtRequantResult r;
  if (f64_value(threshold_f64) == 0) {  // MRT returns the node unchanged, scale 1
    r.y = xe;
    r.prec = 1;
    r.scale = 0x3ff0000000000000ull;
    return r;
  }
  const std::uint64_t sc_x = mrt_scale(threshold_f64, prec);
  const std::uint64_t ratio = f64_div(sc_x, iscale_f64);
  QSPEC_REQUIRE(f64_finite(ratio) && f64_value(ratio) > 0, "mrt.sym_input_quantizer: sc_x / sc_xe positive and finite");
  const CvmFloat cf = mrt_cvm_float(ratio, 32 - iprec);
  mrt_realize_check(cf.frac, cf.exp, prec, iprec);
  for (const auto& v : xe) r.y.push_back(mrt_realize(v, cf.frac, cf.exp, prec, iprec));
  r.prec = prec;
  r.scale = mrt_simulated_scale(iscale_f64, cf);
  return r;
}

// spec: mrt.sym_input_quantizer
int mrt_v2_operator_prec(std::uint64_t simulated_scale_f64, std::uint64_t threshold_f64) {
  // V2/tfm_types.py USQuantizer._quantize_operator: "oprec = self.get_prec(oscale*absmax)", a
  // binary64 product, then get_bit = ceil(log2(|x| + 1)) + 1.
  QSPEC_REQUIRE(f64_finite(simulated_scale_f64) && f64_finite(threshold_f64),
                "mrt.sym_input_quantizer: finite scale and threshold");
  return mrt_get_bit(f64_value(f64_mul(simulated_scale_f64, threshold_f64)));
}

// spec: mrt.affine_input_quantizer
MrtRequantResult mrt_affine_input_quantize(const std::vector<Int>& xe, std::uint64_t iscale_f64,
                                           std::uint64_t min_f64, std::uint64_t max_f64, int iprec, int prec) {
  const char* clause = "mrt.affine_input_quantizer";
  // The unsigned range [0, 2^p - 1] needs the symmetric CVM precision p + 1 <= 32.
  QSPEC_ERROR_IF(prec < 1 || prec > 31, "mrt.affine_input_quantizer: precision must be in [1, 31], got " + std::to_string(prec));
  check_prec(iprec, clause, "input precision");
  QSPEC_REQUIRE(f64_finite(iscale_f64) && f64_value(iscale_f64) > 0, "mrt.affine_input_quantizer: iscale > 0, finite");
  require_in_precision(xe, iprec, clause);
  const std::uint64_t sc_x = mrt_affine_scale(min_f64, max_f64, prec);  // ERROR_IF max == min
  // zpoint = round(minv * iscale): one binary64 product, Python round (half to even).
  const std::uint64_t zprod = f64_mul(min_f64, iscale_f64);
  QSPEC_REQUIRE(f64_finite(zprod), "mrt.affine_input_quantizer: finite min * sc_xe");
  const Int zp = round_half_even(f64_value(zprod));
  // Xe - zp is a CVM broadcast_sub with a constant of precision get_bit(zp): max + 1.
  const int ip = std::max(iprec, mrt_get_bit(Rat(zp))) + 1;
  QSPEC_ERROR_IF(ip > 32, "mrt.affine_input_quantizer: precision of Xe - zp = " + std::to_string(ip) + " exceeds 32");
  const std::uint64_t ratio = f64_div(sc_x, iscale_f64);
  QSPEC_REQUIRE(f64_finite(ratio) && f64_value(ratio) > 0, "mrt.affine_input_quantizer: sc_x / sc_xe positive and finite");
  const CvmFloat cf = mrt_cvm_float(ratio, 32 - ip);
  mrt_realize_check(cf.frac, cf.exp, prec + 1, ip);
  MrtRequantResult r;
  for (const auto& v : xe) {
    const Int y = mrt_realize(v - zp, cf.frac, cf.exp, prec + 1, ip);
    r.y.push_back(y < 0 ? Int(0) : y);  // the unsigned clip CVM documents (is_sign = False)
  }
  r.prec = prec;
  r.scale = mrt_simulated_scale(iscale_f64, cf);
  r.zero_point = zp;
  return r;
}

// spec: mrt.requant_operator
// tfm_utils.requant_operator, step by step (oprec is the per-consumer precision already chosen).
MrtRequantResult mrt_requant_operator(const std::vector<Int>& xe, std::uint64_t iscale_f64,
                                      std::uint64_t threshold_f64, int iprec, int oprec,
                                      std::optional<std::uint64_t> oscale_f64, int shift_bits) {
  const char* clause = "mrt.requant_operator";
  check_prec(oprec, clause, "output precision");
  check_prec(iprec, clause, "input precision");
  QSPEC_REQUIRE(f64_finite(iscale_f64) && f64_value(iscale_f64) > 0, "mrt.requant_operator: iscale > 0, finite");
  QSPEC_REQUIRE(f64_finite(threshold_f64) && f64_value(threshold_f64) >= 0, "mrt.requant_operator: threshold >= 0, finite");
  if (oscale_f64)
    QSPEC_REQUIRE(f64_finite(*oscale_f64) && f64_value(*oscale_f64) > 0, "mrt.requant_operator: oscale > 0, finite");
  QSPEC_REQUIRE(shift_bits >= 0, "mrt.requant_operator: shift_bits >= 0");
  require_in_precision(xe, iprec, clause);
  MrtRequantResult r;
  // 1. "if th_dict[xn] == 0: return X, 1, oscale if oscale else 1"
  if (f64_value(threshold_f64) == 0) {
    r.y = xe;
    r.prec = 1;
    r.scale = oscale_f64 ? *oscale_f64 : 0x3ff0000000000000ull;
    return r;
  }
  // 2. exactly = oscale given; oscale = oscale or scale(th, oprec)
  const bool exactly = oscale_f64.has_value();
  const std::uint64_t oscale = exactly ? *oscale_f64 : mrt_scale(threshold_f64, oprec);
  std::vector<Int> x = xe;
  int ip = iprec;
  std::uint64_t iscale = iscale_f64;
  // 3. sb = get_bit(th * iscale) - oprec; coarse pre-shift when sb > shift_bits.
  const std::uint64_t tight = f64_mul(threshold_f64, iscale_f64);
  QSPEC_REQUIRE(f64_finite(tight), "mrt.requant_operator: finite th * iscale");
  const int sb = mrt_get_bit(f64_value(tight)) - oprec;
  if (sb > shift_bits) {
    ip -= sb;
    QSPEC_ERROR_IF(ip < 1, "mrt.requant_operator: pre-shift by " + std::to_string(sb) + " leaves precision " +
                         std::to_string(ip) + " < 1");
    QSPEC_ERROR_IF(sb > 32, "mrt.requant_operator: pre-shift by " + std::to_string(sb) + " > 32");
    for (auto& v : x) v = cvm_right_shift(v, sb, ip);
    iscale = f64_div(iscale, float_round(pow2r(sb), kBinary64));
  }
  // 4. requantize if the scale is imposed or the precision must shrink.
  if (exactly || ip > oprec) {
    const std::uint64_t ratio = f64_div(oscale, iscale);
    QSPEC_REQUIRE(f64_finite(ratio) && f64_value(ratio) > 0, "mrt.requant_operator: oscale / iscale positive and finite");
    const CvmFloat cf = mrt_cvm_float(ratio, 32 - ip);
    mrt_realize_check(cf.frac, cf.exp, oprec, ip);
    for (auto& v : x) v = mrt_realize(v, cf.frac, cf.exp, oprec, ip);
    r.scale = mrt_simulated_scale(iscale, cf);
  } else {
    r.scale = iscale;
  }
  r.y = std::move(x);
  r.prec = oprec;
  return r;
}

}  // namespace qspec::ref
