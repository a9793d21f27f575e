// The two rows of spec/bitwidth.md's slack table whose value is a single operand repeated: the
// pass-through ops (bitwidth.mrt.same_prec) and MRT avg Pooling's rewrite into a Convolution whose
// every weight is 2^(p-1) - 1 (mrt.op.avg_pool2d under bitwidth.mrt.conv2d_sym).
#pragma once

#include <climits>
#include <string>

#include "ops_bitwidth_extreme.h"
#include "qspec/ref/ops/bitwidth.h"

namespace qspec::opstest {

// A table row: the exact least slack of the adopted formula and of the formula as written, and
// the first problem (smallest parameters first) where the adopted one is tightest.
struct OperandRow {
  int adopted_min = INT_MAX;
  int written_min = INT_MAX;
  std::string adopted_at;
  bool exact = true;  // false if the formula were not constant on a class the argument assumes
};

// same_prec: pad (adds 0), relu, max Pooling (its INT_MIN pad never wins), flatten and slice only
// move, drop or compare values, so the widest value is an input's own, at most 2^(x-1) - 1 in
// magnitude (attained by an input at that value). The domain is every x in [1, 32]; the slack at
// each is P(x) - needed(2^(x-1) - 1), computed for all 32.
inline OperandRow analyze_same_prec() {
  OperandRow r;
  for (int x = 1; x <= ref::ops::kMaxInferredPrec; ++x) {
    ref::ops::PrecParams p;
    p.in_precs = {x};
    const int adopted = ref::ops::infer_prec(ref::ops::PrecFormula::SamePrec, p);
    const int written = *ref::ops::infer_prec_as_written(ref::ops::PrecFormula::SamePrec, p);
    const I128 e = p2(x - 1) - 1;
    r.written_min = std::min(r.written_min, written - needed128(e));
    // Ties keep the first precision above 1 (at x = 1 the only value is 0: a poor example).
    const int slack = adopted - needed128(e);
    if (slack < r.adopted_min || (slack == r.adopted_min && r.adopted_at.rfind("x=1:", 0) == 0)) {
      r.adopted_min = slack;
      r.adopted_at = "x=" + std::to_string(x) + ": P=" + std::to_string(adopted) + ", a value of magnitude " +
                     str128(e) + " (" + std::to_string(needed128(e)) + " bits)";
    }
  }
  return r;
}

// MRT's avg Pooling rewrite (mrt.op.avg_pool2d): a depthwise Convolution over a window of K =
// KH KW positions whose every weight is a = 2^(p-1) - 1, so Ye = a * (window sum of Xq), P by
// Convolution 1 (xprec x, wprec p). Domain: x in [1, 8], p in [2, 8] (CVM's Convolution limit; at
// p = 1 every weight is 0), every K >= 1 with P <= 32. |Ye| <= K (2^(x-1) - 1) a, attained by a
// uniform input at 2^(x-1) - 1 in a window without padding (checked on the expansion in
// exhaustive_ops_bitwidth). The formula reads K only through bitlen(K) (checked below at both
// ends of each class), and the extreme grows with K, so each class {bitlen(K) = b} is tightest at
// K = 2^b - 1: the least slack over all K is the least over b of that one problem.
inline OperandRow analyze_avg_pool_rewrite() {
  OperandRow r;
  for (int x = 1; x <= ref::ops::kMaxConvFcOperandPrec; ++x)
    for (int p = 2; p <= ref::ops::kMaxConvFcOperandPrec; ++p)
      for (int b = 1; b <= 64; ++b) {
        ref::ops::PrecParams pp;
        pp.xprec = x;
        pp.wprec = p;
        pp.k = ref::Int(1) << (b - 1);  // the class's least K
        int low = 0;
        try {
          low = ref::ops::infer_prec(ref::ops::PrecFormula::ConvSym, pp);
        } catch (const ref::ErrorIf&) {
          break;  // P > 32 from here on: P grows with bitlen(K)
        }
        pp.k = (ref::Int(1) << b) - 1;  // the class's greatest K
        int adopted = 0;
        try {
          adopted = ref::ops::infer_prec(ref::ops::PrecFormula::ConvSym, pp);
        } catch (const ref::ErrorIf&) {
          r.exact = false;  // P changed inside the class
          break;
        }
        const int written = *ref::ops::infer_prec_as_written(ref::ops::PrecFormula::ConvSym, pp);
        if (adopted != low) r.exact = false;
        const I128 k = p2(b) - 1;
        const I128 e = k * (p2(x - 1) - 1) * (p2(p - 1) - 1);
        r.written_min = std::min(r.written_min, written - needed128(e));
        const int slack = adopted - needed128(e);
        if (slack < r.adopted_min) {
          r.adopted_min = slack;
          r.adopted_at = "x=" + std::to_string(x) + " p=" + std::to_string(p) + " K=" + str128(k) +
                         ": P=" + std::to_string(adopted) + ", a value of magnitude " + str128(e) + " (" +
                         std::to_string(needed128(e)) + " bits)";
        }
      }
  return r;
}

}  // namespace qspec::opstest
