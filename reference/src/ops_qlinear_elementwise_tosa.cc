// TOSA's convention of the quantized add and mul (spec/operators_qlinear_elementwise.md,
// qlinear.add.tosa, qlinear.mul.tosa): a TFLite int8 ADD / MUL as the TFLite -> TOSA legalization
// lowers it (tensorflow 1f35abe, default TFLITE_DOUBLE_ROUNDING build): RESCALEs to int32, ADD or
// MUL (shift 0) in int32, a RESCALE to the output, CLAMP. Every (multiplier, shift) is the conv
// clause's computeMultiplierAndShift (qlinear_tosa_multiplier_and_shift), every RESCALE is
// requant.tosa.rescale.
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

bool fits_int8(const Int& v) { return v >= -128 && v <= 127; }
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

constexpr std::uint64_t kF64Two = 0x4000000000000000ull;      // 2.0
constexpr std::uint64_t kF64TwoTo20 = 0x4130000000000000ull;  // 2^20 = 1 << input_shift (8-bit)
constexpr std::uint64_t kF64Half = 0x3fe0000000000000ull;     // 0.5

// computeMultiplierAndShift of a binary64 scale, with buildRescale's rejection of a shift outside
// [2, 62] ("buildRescale: shift must be in the range 2 <= shift <= 62", an emitted error).
QuantizedMultiplier multiplier_of(std::uint64_t scale, const std::string& c, const std::string& which) {
  const QuantizedMultiplier m = qlinear_tosa_multiplier_and_shift(scale);
  QSPEC_ERROR_IF(m.shift < 2 || m.shift > 62,
                 c + ": the " + which + " RESCALE's shift " + std::to_string(m.shift) +
                     " is outside [2, 62] (buildRescale: computeMultiplierAndShift fails)");
  return m;
}

// A RESCALE int8 -> int32 or int32 -> int32 (input_zp folded into v: value = in - input_zp),
// output_zp 0, scale32, DOUBLE_ROUND (buildRescaleToInt32 in the default build).
Int rescale_to_int32(const Int& v, const QuantizedMultiplier& m) {
  return tosa_rescale(v, m.multiplier, m.shift, Int(0), DType::I32, TosaScale::Double32);
}

}  // namespace

// spec: qlinear.add.tosa
// spec: qlinear.mul.tosa
void qlinear_ew_tosa_check(const QEwParams& p, const std::string& c) {
  QSPEC_ERROR_IF(p.type != DType::I8, c +
                                          ": a TFLite int8 model (TOSA's ADD / MUL take the RESCALEd int32 values; "
                                          "uint8 is not modelled), not " +
                                          std::string(dtype_name(p.type)));
  QSPEC_ERROR_IF(!fits_int8(p.a_zero_point) || !fits_int8(p.b_zero_point),
                 c + ": RESCALE's input_zp lies in int8 (an !quant.uniform<i8> zero point)");
  QSPEC_ERROR_IF(!fits_int8(p.y_zero_point), c + ": RESCALE's output_zp not representable in int8");
  const Int lo = p.y_min.value_or(Int(-128)), hi = p.y_max.value_or(Int(127));
  QSPEC_ERROR_IF(!fits_int8(lo) || !fits_int8(hi), c + ": CLAMP's min_val and max_val are int8");
  QSPEC_ERROR_IF(hi < lo, c + ": CLAMP's max_val < min_val (ERROR_IF(max_val < min_val))");
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                c + ": scales finite and positive (the TFLite schema)");
}

// spec: qlinear.add.tosa
QEwTosaAdd qlinear_add_tosa_params(const QEwParams& p) {
  const std::string c = "tosa add";
  qlinear_ew_tosa_check(p, c);
  // double in_lhs_scale = getScale() (the float32 scale, exactly); max_scale_2x = 2.0 * max (exact).
  const std::uint64_t sa = f64_from_f32(p.a_scale), sb = f64_from_f32(p.b_scale), sy = f64_from_f32(p.y_scale);
  const std::uint64_t larger = f64_value(sa) >= f64_value(sb) ? sa : sb;
  const std::uint64_t max_2x = f64_mul(kF64Two, larger);
  const std::uint64_t ra = f64_div(sa, max_2x), rb = f64_div(sb, max_2x);
  // output_rescale_scale = max_scale_2x / (output_scale * double(1 << input_shift)): the product is exact.
  const std::uint64_t ro = f64_div(max_2x, f64_mul(sy, kF64TwoTo20));
  QEwTosaAdd k;
  // lhs_rescale_scale == 0.5: one RESCALE by 0.5 * 2^20; otherwise (1 << input_shift) then r.
  k.a_single = ra == kF64Half;
  k.b_single = rb == kF64Half;
  k.a = k.a_single ? multiplier_of(f64_mul(ra, kF64TwoTo20), c, "input a") : multiplier_of(ra, c, "input a");
  k.b = k.b_single ? multiplier_of(f64_mul(rb, kF64TwoTo20), c, "input b") : multiplier_of(rb, c, "input b");
  k.out = multiplier_of(ro, c, "output");
  return k;
}

// spec: qlinear.add.tosa
Int qlinear_add_tosa_sum(const Int& a, const Int& b, const QEwTosaAdd& k, const QEwParams& p) {
  const QuantizedMultiplier shift20 = qlinear_tosa_multiplier_and_shift(kF64TwoTo20);  // (2^30, 10): exact
  auto rescaled = [&](const Int& x, const Int& zp, const QuantizedMultiplier& m, bool single) {
    if (single) return rescale_to_int32(x - zp, m);
    return rescale_to_int32(rescale_to_int32(x - zp, shift20), m);
  };
  const Int sum = rescaled(a, p.a_zero_point, k.a, k.a_single) + rescaled(b, p.b_zero_point, k.b, k.b_single);
  QSPEC_REQUIRE(sum >= -pow2(31) && sum < pow2(31), "tosa add: the int32 ADD does not overflow (apply_add_s)");
  return sum;
}

// spec: qlinear.mul.tosa
QuantizedMultiplier qlinear_mul_tosa_params(const QEwParams& p) {
  const std::string c = "tosa mul";
  qlinear_ew_tosa_check(p, c);
  // float in_lhs_scale = getScale(); double output_rescale_scale = in_lhs_scale * in_rhs_scale /
  // output_scale: a float product and a float quotient, then widened.
  const std::uint32_t prod = f32_mul(p.a_scale, p.b_scale);
  QSPEC_REQUIRE(!f32_is_inf(prod), c + ": the float product s_a s_b is finite");
  const std::uint32_t s = f32_div(prod, p.y_scale);
  QSPEC_REQUIRE(finite_positive(s), c + ": the float scale fl32(fl32(s_a s_b) / s_y) is finite and positive");
  return multiplier_of(f64_from_f32(s), c, "output");
}

QEwElement qlinear_ew_tosa_element(QEwOp op, const QEwParams& p) {
  const Range clamp{p.y_min.value_or(Int(-128)), p.y_max.value_or(Int(127))};
  if (op == QEwOp::Add) {
    const QEwTosaAdd k = qlinear_add_tosa_params(p);
    return [k, p, clamp](const Int& a, const Int& b) {
      const Int sum = qlinear_add_tosa_sum(a, b, k, p);
      const Int y = tosa_rescale(sum, k.out.multiplier, k.out.shift, p.y_zero_point, DType::I8, TosaScale::Double32);
      return saturate(y, clamp);  // CLAMP (convertFusedActivation)
    };
  }
  const QuantizedMultiplier m = qlinear_mul_tosa_params(p);
  const QuantizedMultiplier unit = qlinear_tosa_multiplier_and_shift(0x3ff0000000000000ull);  // 1.0: (2^30, 30)
  return [m, unit, p, clamp](const Int& a, const Int& b) {
    // removeZeroPointAndCastToInt32: RESCALE by 1.0 with the input zero point (exact).
    const Int va = rescale_to_int32(a - p.a_zero_point, unit), vb = rescale_to_int32(b - p.b_zero_point, unit);
    const Int product = va * vb;  // MUL, shift 0: apply_mul_s<int32> (|product| <= 2^16)
    QSPEC_REQUIRE(product >= -pow2(31) && product < pow2(31), "tosa mul: the int32 MUL does not overflow");
    const Int y = tosa_rescale(product, m.multiplier, m.shift, p.y_zero_point, DType::I8, TosaScale::Double32);
    return saturate(y, clamp);  // CLAMP (convertFusedActivation)
  };
}

}  // namespace qspec::ref::ops
