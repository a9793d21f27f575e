// A real multiplier as a Q31 fixed-point multiplier and a shift: "frexp, round to Q31, carry", the
// one rule TFLite's QuantizeMultiplier, TVM's GetFixedPointMultiplierShift and gemmlowp's
// QuantizeMultiplierSmallerThanOne share (spec/tflite_tosa.md requant.tflite.quantize_multiplier,
// spec/tvm_qnn.md tvm.requantize_multiplier, spec/gemmlowp.md requant.gemmlowp.quantize_multiplier).
//
// Shared by the optimized backends and the third-party adapters (which translate a float scale into
// a library's fixed-point parameters); tests/q31_test.cc checks it against the reference's exact
// arithmetic over every binary64 exponent.
#pragma once

#include <cstdint>

namespace qspec::q31 {

// The real number multiplier * 2^(shift - 31): TFLite's sign convention (shift > 0 shifts left).
struct Q31 {
  std::int32_t multiplier = 0;
  int shift = 0;
  friend bool operator==(const Q31&, const Q31&) = default;
};

// A rounded Q31 fraction m (|m| <= 2^31) with its shift; m = 2^31 carries into (2^30, shift + 1).
Q31 carry(std::int64_t m, int shift);

// TFLite's flush: a shift below -31 (a multiplier below 2^-32, below any int32 accumulator's
// resolution) becomes (0, 0).
Q31 flush_tiny(Q31 q);

// frexp(d) = q * 2^e with q in [1/2, 1); multiplier = round_half_away(q * 2^31) (exact: q has 53
// bits, so the product is exact and std::round sees it), carried at 2^31; shift = e. d == 0 gives
// (0, 0). No flush. For a finite d >= 0: multiplier is 0 or in [2^30, 2^31). A negative d (a
// translated invalid parameter) takes the same steps on the negative fraction: there is no carry
// at -2^31, which fits int32.
Q31 frexp_q31(double d);

// TFLite QuantizeMultiplier (default build, tensorflow/lite/kernels/internal/quantization_util.cc):
// frexp_q31, then flush_tiny.
Q31 tflite_quantize_multiplier(double d);

}  // namespace qspec::q31
