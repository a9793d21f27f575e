// The engines' conventions of quantized add and mul (spec/operators_qlinear_elementwise.md): each
// engine's parameter derivation with its ERROR_IFs and its per-element arithmetic, float steps
// modelled exactly (ieee.h), TFLite's fixed-point steps through requant.tflite.* (tflite_tosa.h).
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

std::string name(DType t) { return std::string(dtype_name(t)); }
bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
// isnormal(f) && f > 0.
bool positive_normal(std::uint32_t b) {
  const std::uint32_t e = (b >> 23) & 0xffu;
  return !f32_sign(b) && e != 0 && e != 0xffu;
}
bool finite_positive(std::uint32_t b) { return float_is_finite(b, kBinary32) && f32_value(b) > 0; }

// The clamp [y_min, y_max] (default: the dtype's range).
Range clamp_of(const QEwParams& p) {
  const Range r = int_range(p.type);
  return Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)};
}

// a / b and a * b in binary32 where the exact result may overflow to +inf (operands finite, b > 0).
std::uint32_t div_ext(std::uint32_t a, std::uint32_t b) { return f32_is_inf(a) ? kF32PosInf : f32_div(a, b); }
// fma(x, y, z): the exact x y + z rounded once (binary32, finite operands).
std::uint32_t fma32(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return f32_round(f32_value(x) * f32_value(y) + f32_value(z));
}
std::uint32_t finite_or_require(std::uint32_t v, const std::string& what) {
  QSPEC_REQUIRE(float_is_finite(v, kBinary32), what);
  return v;
}

// The checks XNNPACK's create functions share (binary-elementwise-nd.c): positive normal scales,
// output_min < output_max; the zero points and the clamp are int8_t / uint8_t parameters.
void xnnpack_common_checks(const QEwParams& p, const std::string& c) {
  const DType t = p.type;
  QSPEC_ERROR_IF(!fits(p.a_zero_point, t) || !fits(p.b_zero_point, t) || !fits(p.y_zero_point, t),
                 c + ": zero points must fit " + name(t));
  const Range cl = clamp_of(p);
  QSPEC_ERROR_IF(!fits(cl.lo, t) || !fits(cl.hi, t), c + ": y_min and y_max must fit " + name(t));
  QSPEC_ERROR_IF(!positive_normal(p.a_scale), c + ": input 1 scale must be finite and positive (normal)");
  QSPEC_ERROR_IF(!positive_normal(p.b_scale), c + ": input 2 scale must be finite and positive (normal)");
  QSPEC_ERROR_IF(!positive_normal(p.y_scale), c + ": output scale must be finite and positive (normal)");
  QSPEC_ERROR_IF(cl.lo >= cl.hi, c + ": output range lower bound must be below upper bound");
}

// TFLite's CalculateActivationRangeQuantized gives a sub-range of the dtype (min <= max).
void tflite_common_checks(const QEwParams& p, const std::string& c) {
  const DType t = p.type;
  QSPEC_ERROR_IF(!fits(p.a_zero_point, t) || !fits(p.b_zero_point, t) || !fits(p.y_zero_point, t),
                 c + ": zero points must fit " + name(t));
  const Range cl = clamp_of(p);
  QSPEC_ERROR_IF(!fits(cl.lo, t) || !fits(cl.hi, t) || cl.lo > cl.hi,
                 c + ": the activation range [y_min, y_max] must lie in " + name(t) + " with y_min <= y_max");
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                c + ": scales finite and positive (the TFLite schema)");
}

}  // namespace

// spec: qlinear.add.xnnpack_fp32
QEwXnnpackAdd qlinear_add_xnnpack_params(const QEwParams& p) {
  const std::string c = "xnnpack.fp32 add";
  xnnpack_common_checks(p, c);
  QEwXnnpackAdd k;
  k.a_ratio = f32_div(p.a_scale, p.y_scale);  // normal operands: the quotient may round to +inf
  k.b_ratio = f32_div(p.b_scale, p.y_scale);
  // input1_scale / output_scale outside [2^-10, 2^8): xnn_status_unsupported_parameter (an
  // overflow to +inf or an underflow below 2^-10 is outside too).
  for (auto [r, which] : {std::pair{k.a_ratio, "input1"}, std::pair{k.b_ratio, "input2"}})
    QSPEC_ERROR_IF(f32_is_inf(r) || f32_value(r) < pow2r(-10) || f32_value(r) >= 256,
                   c + ": " + which + "-to-output scale ratio must be in [2**-10, 2**8) range");
  const std::uint32_t larger = f32_compare(k.a_ratio, k.b_ratio) >= 0 ? k.a_ratio : k.b_ratio;
  const int exponent = static_cast<int>((larger >> 23) & 0xffu) - 127;
  k.shift = 20 - exponent;  // in [13, 30] for ratios in [2^-10, 2^8)
  // lrintf(fp32_from_bits(bits + (shift << 23))): the ratio times 2^shift, exactly, rounded half to even.
  k.a_multiplier = round_half_even(f32_value(k.a_ratio) * pow2r(k.shift));
  k.b_multiplier = round_half_even(f32_value(k.b_ratio) * pow2r(k.shift));
  k.bias = pow2(static_cast<unsigned>(k.shift - 1)) - k.a_multiplier * p.a_zero_point - k.b_multiplier * p.b_zero_point;
  return k;
}

// spec: qlinear.add.onnxruntime
QEwOnnxRuntimeAdd qlinear_add_onnxruntime_params(const QEwParams& p, QEwOrtAddPath path) {
  const std::string c = "onnxruntime add";
  const DType t = p.type;
  QSPEC_ERROR_IF(!fits(p.a_zero_point, t) || !fits(p.b_zero_point, t) || !fits(p.y_zero_point, t),
                 c + ": zero points must have the tensors' type " + name(t));
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                c + ": scales finite and positive");
  QEwOnnxRuntimeAdd k;
  k.a_ratio = finite_or_require(f32_div(p.a_scale, p.y_scale), c + ": A_scale / C_scale is finite");
  k.b_ratio = finite_or_require(f32_div(p.b_scale, p.y_scale), c + ": B_scale / C_scale is finite");
  // (float)ZeroPointC - (ScaleRatio_AC * ZeroPointA + ScaleRatio_BC * ZeroPointB), contracted by the
  // compiler of qladd_avx2.cpp (-mfma) into one FMA (engines.md: measured).
  // The ScalarA path calls MLAS with b as its InputA and a as its (scalar) InputB.
  const bool swapped = path == QEwOrtAddPath::ScalarA;
  k.scalar_a = swapped;
  const std::uint32_t first_ratio = swapped ? k.b_ratio : k.a_ratio, second_ratio = swapped ? k.a_ratio : k.b_ratio;
  const Int& first_zp = swapped ? p.b_zero_point : p.a_zero_point;
  const Int& second_zp = swapped ? p.a_zero_point : p.b_zero_point;
  const std::uint32_t bz = f32_mul(second_ratio, f32_from_int(second_zp));
  const std::uint32_t sum = fma32(first_ratio, f32_from_int(first_zp), bz);
  k.fixed = finite_or_require(f32_round(f32_value(f32_from_int(p.y_zero_point)) - f32_value(sum)),
                              c + ": the folded constant is finite");
  return k;
}

// spec: qlinear.add.onnxruntime
std::uint32_t qlinear_add_onnxruntime_value(const Int& a, const Int& b, const QEwOnnxRuntimeAdd& k) {
  // ScalarA: the scalar (a) is folded into the constant first (VectorFixedPart += a r_a, contracted
  // into one FMA), then each element of b; otherwise b's term first, then a's.
  if (k.scalar_a) {
    const std::uint32_t t = fma32(f32_from_int(a), k.a_ratio, k.fixed);
    return finite_or_require(fma32(f32_from_int(b), k.b_ratio, t), "onnxruntime add: the float result is finite");
  }
  const std::uint32_t t = fma32(f32_from_int(b), k.b_ratio, k.fixed);
  return finite_or_require(fma32(f32_from_int(a), k.a_ratio, t), "onnxruntime add: the float result is finite");
}

// spec: qlinear.add.tflite_double_round
// spec: qlinear.add.tflite_single_round
QEwTfliteAdd qlinear_add_tflite_params(const QEwParams& p, bool single_round) {
  const std::string c = single_round ? "tflite.single_round add" : "tflite.double_round add";
  tflite_common_checks(p, c);
  QEwTfliteAdd k;
  // 2 * std::max(float, float) is a float (exact doubling), then widened; (1 << 20) * float is a
  // float product (exact, or +inf beyond the range), then widened.
  const std::uint32_t larger = f32_compare(p.a_scale, p.b_scale) >= 0 ? p.a_scale : p.b_scale;
  const std::uint32_t twice = f32_mul(0x40000000u, larger);
  QSPEC_REQUIRE(!f32_is_inf(twice), c + ": twice_max_input_scale is finite");
  const std::uint32_t denom = f32_mul(0x49800000u /* 2^20 */, p.y_scale);
  const std::uint64_t twice64 = f64_from_f32(twice);
  const std::uint64_t ra = f64_div(f64_from_f32(p.a_scale), twice64), rb = f64_div(f64_from_f32(p.b_scale), twice64);
  const std::uint64_t ro = f32_is_inf(denom) ? 0 : f64_div(twice64, f64_from_f32(denom));
  const auto build = single_round ? TfliteBuild::SingleRounding : TfliteBuild::Default;
  // QuantizeMultiplierSmallerThanOneExp: TFLITE_CHECK_LT(m, 1.), TFLITE_CHECK_GT(m, 0.) and
  // TFLITE_CHECK_LE(shift, 0) abort the program: rejected.
  for (auto [r, out, which] :
       {std::tuple{ra, &k.a, "input1"}, std::tuple{rb, &k.b, "input2"}, std::tuple{ro, &k.out, "output"}}) {
    QSPEC_ERROR_IF(!(f64_value(r) < 1) || !(f64_value(r) > 0),
                   c + ": the real " + which + " multiplier must lie in (0, 1) (TFLITE_CHECK)");
    *out = tflite_quantize_multiplier(r, build);
    QSPEC_ERROR_IF(out->shift > 0, c + ": the " + which + " multiplier rounds up to 1 (TFLITE_CHECK_LE(shift, 0))");
  }
  return k;
}

// spec: qlinear.add.tflite_double_round
// spec: qlinear.add.tflite_single_round
Int qlinear_add_tflite_raw_sum(const Int& a, const Int& b, const QEwTfliteAdd& k, const QEwParams& p,
                               bool single_round) {
  auto scaled = [&](const Int& x, const Int& zp, const QuantizedMultiplier& m) {
    const Int shifted = (x - zp) * pow2(static_cast<unsigned>(k.left_shift));
    return single_round ? tflite_multiply_by_quantized_multiplier_single_round(shifted, m.multiplier, m.shift)
                        : tflite_multiply_by_quantized_multiplier_double_round(shifted, m.multiplier, m.shift);
  };
  return scaled(a, p.a_zero_point, k.a) + scaled(b, p.b_zero_point, k.b);
}

// spec: qlinear.mul.xnnpack_fp32
std::uint32_t qlinear_mul_xnnpack_scale(const QEwParams& p) {
  const std::string c = "xnnpack.fp32 mul";
  xnnpack_common_checks(p, c);
  const std::uint32_t s = div_ext(f32_mul(p.a_scale, p.b_scale), p.y_scale);
  QSPEC_ERROR_IF(f32_is_inf(s) || f32_value(s) < pow2r(-16) || f32_value(s) >= 256,
                 c + ": product-to-output scale ratio must be in [2**-16, 2**8) range");
  return s;
}

// spec: qlinear.mul.onnxruntime
std::uint32_t qlinear_mul_onnxruntime_scale(const QEwParams& p) {
  const std::string c = "onnxruntime mul";
  const DType t = p.type;
  QSPEC_ERROR_IF(!fits(p.a_zero_point, t) || !fits(p.b_zero_point, t) || !fits(p.y_zero_point, t),
                 c + ": zero points must have the tensors' type " + name(t));
  QSPEC_REQUIRE(finite_positive(p.a_scale) && finite_positive(p.b_scale) && finite_positive(p.y_scale),
                c + ": scales finite and positive");
  return finite_or_require(div_ext(f32_mul(p.a_scale, p.b_scale), p.y_scale),
                           c + ": ScaleA * ScaleB / ScaleC is finite");
}

// spec: qlinear.mul.onnxruntime
std::uint32_t qlinear_mul_onnxruntime_value(const Int& a, const Int& b, std::uint32_t scale, const QEwParams& p) {
  const Int prod = (a - p.a_zero_point) * (b - p.b_zero_point);  // |prod| <= 255^2 < 2^24: exact in float
  const std::uint32_t v = f32_add(f32_mul(f32_from_int(prod), scale), f32_from_int(p.y_zero_point));
  return finite_or_require(v, "onnxruntime mul: the float result is finite");
}

// spec: qlinear.mul.tflite_double_round
// spec: qlinear.mul.tflite_single_round
QuantizedMultiplier qlinear_mul_tflite_params(const QEwParams& p, bool single_round) {
  const std::string c = single_round ? "tflite.single_round mul" : "tflite.double_round mul";
  tflite_common_checks(p, c);
  // static_cast<double>(s_a) * static_cast<double>(s_b) is exact (24 + 24 bits); one rounded division.
  const std::uint64_t real =
      f64_div(f64_mul(f64_from_f32(p.a_scale), f64_from_f32(p.b_scale)), f64_from_f32(p.y_scale));
  return tflite_quantize_multiplier(real, single_round ? TfliteBuild::SingleRounding : TfliteBuild::Default);
}

QEwElement qlinear_ew_element(QEwOp op, const QEwParams& p, QEwConvention c, QEwOrtAddPath ort_add_path) {
  QSPEC_ERROR_IF(p.b_type != p.type, "qlinear elementwise: a and b must have the same dtype, not " + name(p.type) +
                                         " and " + name(p.b_type));
  const Range cl = clamp_of(p);
  const bool single = c == QEwConvention::TfliteSingleRound;
  if (c == QEwConvention::Tosa) return qlinear_ew_tosa_element(op, p);
  if (c == QEwConvention::ArmnnCpuref) {
    qlinear_ew_armnn_check(p);
    return [op, p](const Int& a, const Int& b) {
      return armnn_quantize(qlinear_ew_armnn_value(op, a, b, p), p.y_scale, p.y_zero_point, p.type);
    };
  }
  if (c == QEwConvention::Onednn) {
    const QEwOnednnScales k = qlinear_ew_onednn_scales(op, p);
    return [op, k, p, cl](const Int& a, const Int& b) {
      return saturate(saturate(round_half_even(f32_value(qlinear_ew_onednn_value(op, a, b, k, p))), p.type), cl);
    };
  }
  if (op == QEwOp::Add) {
    switch (c) {
      case QEwConvention::PytorchOnednn: {
        const std::uint32_t inv = qlinear_add_pytorch_onednn_inverse(p);
        return [inv, p](const Int& a, const Int& b) { return qlinear_add_pytorch_onednn_element(a, b, inv, p); };
      }
      case QEwConvention::PytorchQnnpack: {  // the q8add path (qlinear_elementwise picks the others)
        const QEwQnnpackAdd k = qlinear_add_pytorch_qnnpack_params(p);
        return [k, p](const Int& a, const Int& b) { return qlinear_add_pytorch_qnnpack_element(a, b, k, p); };
      }
      case QEwConvention::XnnpackFp32: {
        const QEwXnnpackAdd k = qlinear_add_xnnpack_params(p);
        return [k, p, cl](const Int& a, const Int& b) {
          const Int acc = k.bias + a * k.a_multiplier + b * k.b_multiplier;      // |acc| < 2^31 (ratios < 2^8)
          const Int out = floor_div(acc, pow2(static_cast<unsigned>(k.shift)));  // asr_s32
          return saturate(out, Range{cl.lo - p.y_zero_point, cl.hi - p.y_zero_point}) + p.y_zero_point;
        };
      }
      case QEwConvention::OnnxRuntime: {
        const QEwOnnxRuntimeAdd k = qlinear_add_onnxruntime_params(p, ort_add_path);
        return [k, p](const Int& a, const Int& b) {
          const Int y = round_half_even(f32_value(qlinear_add_onnxruntime_value(a, b, k)));
          QSPEC_REQUIRE(y >= -pow2(31) && y < pow2(31), "onnxruntime add: the rounded result fits int32 (cvtps2dq)");
          return saturate(y, p.type);
        };
      }
      default: {
        const QEwTfliteAdd k = qlinear_add_tflite_params(p, single);
        return [k, p, cl, single](const Int& a, const Int& b) {
          const Int raw = qlinear_add_tflite_raw_sum(a, b, k, p, single);
          const Int out =
              single ? tflite_multiply_by_quantized_multiplier_single_round(raw, k.out.multiplier, k.out.shift)
                     : tflite_multiply_by_quantized_multiplier_double_round(raw, k.out.multiplier, k.out.shift);
          return saturate(out + p.y_zero_point, cl);
        };
      }
    }
  }
  switch (c) {
    case QEwConvention::PytorchOnednn: {
      const std::uint32_t m = qlinear_mul_pytorch_onednn_multiplier(p);
      // QMul::run: qint8 with zero_point < 127 is _mul_out_xnnpack, XNNPACK's multiply.
      if (qlinear_mul_pytorch_runs_xnnpack(p)) return qlinear_ew_element(op, p, QEwConvention::XnnpackFp32);
      return [m, p](const Int& a, const Int& b) { return qlinear_mul_pytorch_onednn_element(a, b, m, p); };
    }
    case QEwConvention::XnnpackFp32: {
      const std::uint32_t s = qlinear_mul_xnnpack_scale(p);
      return [s, p, cl](const Int& a, const Int& b) {
        const Int prod = (a - p.a_zero_point) * (b - p.b_zero_point);
        return saturate(xnnpack_fp32_requantize(prod, s, p.y_zero_point, p.type), cl);
      };
    }
    case QEwConvention::OnnxRuntime: {
      const std::uint32_t s = qlinear_mul_onnxruntime_scale(p);
      return [s, p](const Int& a, const Int& b) {
        const Int y = round_half_even(f32_value(qlinear_mul_onnxruntime_value(a, b, s, p)));
        QSPEC_REQUIRE(y >= -pow2(31) && y < pow2(31), "onnxruntime mul: the rounded result fits int32 (cvtps2dq)");
        return saturate(y, p.type);
      };
    }
    default: {
      const QuantizedMultiplier m = qlinear_mul_tflite_params(p, single);
      return [m, p, cl, single](const Int& a, const Int& b) {
        const Int prod = (a - p.a_zero_point) * (b - p.b_zero_point);
        const Int out = single ? tflite_multiply_by_quantized_multiplier_single_round(prod, m.multiplier, m.shift)
                               : tflite_multiply_by_quantized_multiplier_double_round(prod, m.multiplier, m.shift);
        return saturate(out + p.y_zero_point, cl);
      };
    }
  }
}

}  // namespace qspec::ref::ops
