// Handlers of qlinear.add and qlinear.mul (spec/operators_qlinear_elementwise.md) under
// xnnpack.fp32, onnxruntime, tflite.double_round, tflite.single_round, armnn.cpuref, pytorch.*, onednn
// (spec/operators_qlinear_onednn_binary.md) and tosa: the NumPy broadcast, each engine's parameter derivation
// with its rejections, and its element arithmetic on the hardware's binary32 / binary64 operations (every step
// the spec names is one correctly rounded operation; this library is built with -ffp-contract=off, and the FMAs
// ONNX Runtime's add fuses are fmaf).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elementwise_steps.h"
#include "qlinear_common.h"
#include "qspec/backend_common/q31.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"
#include "qspec/simd/qlinear_add.h"
#include "qspec/simd/qlinear_mul.h"

namespace qspec::simd {
namespace {

using qlinear::bits_of;
using qlinear::f32_of;
using qlinear::finite_positive;
using qlinear::fits;
using qlinear::hi_of;
using qlinear::lo_of;

using elementwise::mbqm;
using elementwise::rne_int32;
using nn::reject_if;
using qlinear::named;
using Add = cat::qlinear_add;
using Mul = cat::qlinear_mul;

enum class Conv { kXnnpack, kOrt, kTfliteDouble, kTfliteSingle, kArmnn, kPytorch, kPytorchQnnpack, kOnednn, kTosa };
using Element = std::function<std::int64_t(std::int64_t, std::int64_t)>;

std::int64_t clamp(std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::min(std::max(v, lo), hi); }

struct Params {
  qspec_dtype t = QSPEC_DTYPE_INT8;
  float sa = 1, sb = 1, sy = 1;
  std::int64_t za = 0, zb = 0, zy = 0, ymin = 0, ymax = 0;
};

q31::Q31 quantize(double d, bool single) {
  const q31::Q31 r = q31::tflite_quantize_multiplier(d);
  return single && r.shift > 30 ? q31::Q31{INT32_MAX, 30} : r;
}

// ---- the element functions (parameters checked first) ----

// The add kernels' common parameters: codes, zero points and the clamp of y.
AddParams add_params(const Params& p, AddParams::Kind kind) {
  AddParams q;
  q.kind = kind;
  q.u8 = p.t == QSPEC_DTYPE_UINT8;
  q.za = static_cast<std::int32_t>(p.za), q.zb = static_cast<std::int32_t>(p.zb), q.zy = static_cast<std::int32_t>(p.zy);
  q.lo = static_cast<std::int32_t>(std::max(p.ymin, lo_of(p.t)));  // y_min, y_max fit the dtype (read_params)
  q.hi = static_cast<std::int32_t>(std::min(p.ymax, hi_of(p.t)));
  return q;
}

AddParams xnnpack_add(const Params& p) {
  const float ra = p.sa / p.sy, rb = p.sb / p.sy;
  for (float r : {ra, rb})
    reject_if(!(r >= 0x1.0p-10f && r < 0x1.0p+8f), "xnnpack.fp32 add: scale ratio must be in [2**-10, 2**8) range");
  const int exponent = static_cast<int>((bits_of(std::max(ra, rb)) >> 23) & 0xffu) - 127;
  const int shift = 20 - exponent;
  const std::int64_t ma = std::lrint(std::ldexp(ra, shift)), mb = std::lrint(std::ldexp(rb, shift));
  const std::int64_t bias = (std::int64_t{1} << (shift - 1)) - ma * p.za - mb * p.zb;
  AddParams q = add_params(p, AddParams::Kind::kXnnpack);
  // The larger ratio is below 2^(exponent+1), so ma, mb <= 2^21; |code - zero point| <= 255 and
  // shift <= 30: bias, and bias + a ma + b mb = 2^(shift-1) + (a - za) ma + (b - zb) mb, stay below
  // 2^29 + 2 * 255 * 2^21 < 2^31. int32 arithmetic is exact, and no element meets a REQUIRE.
  q.ma = static_cast<std::int32_t>(ma), q.mb = static_cast<std::int32_t>(mb), q.bias = static_cast<std::int32_t>(bias);
  q.shift = shift;
  q.fast = true;
  return q;
}

// The mul kernels' common parameters: codes, zero points and the clamp of y.
MulParams mul_params(const Params& p, MulParams::Kind kind) {
  const AddParams a = add_params(p, AddParams::Kind::kXnnpack);
  MulParams q;
  q.kind = kind;
  q.u8 = a.u8;
  q.za = a.za, q.zb = a.zb, q.zy = a.zy, q.lo = a.lo, q.hi = a.hi;
  return q;
}

// The largest |(a - z_a)(b - z_b)| over the dtype's codes (<= 255^2 < 2^16).
double max_product(const MulParams& q) {
  return static_cast<double>(max_code_distance(q.u8, q.za) * max_code_distance(q.u8, q.zb));
}

MulParams xnnpack_mul(const Params& p) {
  const float s = p.sa * p.sb / p.sy;
  reject_if(!(s >= 0x1.0p-16f && s < 0x1.0p+8f), "xnnpack.fp32 mul: product-to-output scale ratio out of range");
  MulParams q = mul_params(p, MulParams::Kind::kXnnpack);
  q.s = s;
  q.fast = true;  // |p| < 2^16 and s < 2^8: |fl32(p) s| < 2^24, finite, its rne far inside int32
  return q;
}

// ATen's qmul_kernel (qlinear.mul.pytorch_onednn): multiplier = self_scale * other_scale * inv_scale
// with inv_scale = 1.0f / scale, then lrintf(p * multiplier) + z_y clamped (no sum: nothing to
// contract): XNNPACK's element with this multiplier.
MulParams pytorch_mul(const Params& p) {
  const float inv = 1.0f / p.sy;
  const float m = p.sa * p.sb * inv;
  if (!std::isfinite(m)) throw Unsupported("pytorch.onednn mul: a finite multiplier (REQUIRE)");
  MulParams q = mul_params(p, MulParams::Kind::kXnnpack);
  q.s = m;
  // One rounding of a value below 2^30 stays below 2^30: v finite, rne(v) + z_y inside int32.
  q.fast = max_product(q) * m < 0x1.0p30;
  return q;
}

// scalar_a: ONNX Runtime calls MLAS with the roles swapped (b as InputA, a as the scalar InputB),
// so the constant folds b's zero point first and a's term is added to it before b's.
AddParams ort_add(const Params& p, bool scalar_a) {
  const float ra = p.sa / p.sy, rb = p.sb / p.sy;
  const float k =
      scalar_a ? static_cast<float>(p.zy) - std::fma(rb, static_cast<float>(p.zb), ra * static_cast<float>(p.za))
               : static_cast<float>(p.zy) - std::fma(ra, static_cast<float>(p.za), rb * static_cast<float>(p.zb));
  if (!std::isfinite(ra) || !std::isfinite(rb) || !std::isfinite(k))
    throw Unsupported("onnxruntime add: finite ratios and constant (REQUIRE)");
  AddParams q = add_params(p, AddParams::Kind::kOrt);  // y_min, y_max are the dtype's (no fused clamp)
  q.fa = ra, q.fb = rb, q.fk = k, q.swap = scalar_a;
  // |codes| <= 255 and each of the two FMAs rounds once (a relative 2^-24): below this bound every
  // element's value is finite and its rne fits int32.
  q.fast = 256.0 * ra + 256.0 * rb + std::fabs(static_cast<double>(k)) < 0x1.0p30;
  return q;
}

// Whether ONNX Runtime's QLinearAdd reads a as one scalar per span (qlinear_add_onnxruntime_path's
// ScalarA); throws Unsupported for unit last axes on both sides with different shapes (REQUIRE).
bool ort_add_scalar_a(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b, std::int64_t out_size) {
  const auto last = [](const std::vector<std::int64_t>& s) { return s.empty() ? std::int64_t{1} : s.back(); };
  const auto size = [](const std::vector<std::int64_t>& s) {
    std::int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
  };
  if (size(a) == 1 || out_size == 1) return true;
  if (size(b) == 1) return false;
  const std::int64_t la = last(a), lb = last(b);
  if (la == 1 && lb > 1) return true;
  if (la == 1 && lb == 1 && a != b)
    throw Unsupported("onnxruntime add: unit last axes on both operands (REQUIRE)");
  return false;
}

MulParams ort_mul(const Params& p) {
  const float r = p.sa * p.sb / p.sy;
  if (!std::isfinite(r)) throw Unsupported("onnxruntime mul: a finite scale (REQUIRE)");
  MulParams q = mul_params(p, MulParams::Kind::kOrt);  // y_min, y_max are the dtype's (no fused clamp)
  q.s = r;
  // |fl32(p) r| < 2^30 - 2^8 and |z_y| <= 255: two roundings keep v below 2^30, rne(v) in int32.
  q.fast = max_product(q) * r + 256.0 < 0x1.0p30;
  return q;
}

AddParams tflite_add(const Params& p, bool single) {
  const float twice = 2.0f * std::max(p.sa, p.sb);
  const float denom = 1048576.0f * p.sy;
  if (!std::isfinite(twice)) throw Unsupported("tflite add: twice_max_input_scale finite (REQUIRE)");
  const double ra = static_cast<double>(p.sa) / twice, rb = static_cast<double>(p.sb) / twice;
  const double ro = static_cast<double>(twice) / static_cast<double>(denom);
  q31::Q31 m[3];
  const double reals[3] = {ra, rb, ro};
  for (int i = 0; i < 3; ++i) {
    reject_if(!(reals[i] < 1.0) || !(reals[i] > 0.0), "tflite add: a real multiplier outside (0, 1) (TFLITE_CHECK)");
    m[i] = quantize(reals[i], single);
    reject_if(m[i].shift > 0, "tflite add: a multiplier rounds up to 1 (TFLITE_CHECK_LE(shift, 0))");
  }
  AddParams q = add_params(p, single ? AddParams::Kind::kTfliteSingle : AddParams::Kind::kTfliteDouble);
  bool shifts_in_range = true;
  for (int i = 0; i < 3; ++i) {
    q.m[i] = m[i].multiplier, q.e[i] = m[i].shift;
    shifts_in_range = shifts_in_range && m[i].shift >= -31;
  }
  // Shifts are <= 0 (checked above), so |(code - zero point) 2^20| < 2^28 and each MBQM of it is
  // at most that times M / 2^31 < 1: the sum stays below 2^29, and no MBQM leaves int32. The only
  // REQUIRE left is MBQM's shift range.
  q.fast = shifts_in_range;
  return q;
}

MulParams tflite_mul(const Params& p, bool single) {
  const q31::Q31 m =
      quantize(static_cast<double>(p.sa) * static_cast<double>(p.sb) / static_cast<double>(p.sy), single);
  MulParams q = mul_params(p, single ? MulParams::Kind::kTfliteSingle : MulParams::Kind::kTfliteDouble);
  q.m = m.multiplier, q.e = m.shift;
  // MBQM's REQUIREs: the shift in [-31, 30]; double rounding: p 2^max(e, 0) in int32 (then SRDHM and
  // RDBPOT stay in int32); single rounding: the quotient p M / 2^(31-e) (< |p| 2^e) in int32.
  q.fast = m.shift >= -31 && m.shift <= 30 && max_product(q) * std::ldexp(1.0, std::max(m.shift, 0)) < 0x1.0p31 &&
           max_product(q) * std::ldexp(1.0, m.shift) < 0x1.0p30;
  return q;
}

// ATen's scalar qadd_kernel (qlinear.add.pytorch_onednn): dequantize_val (an exact float difference
// times the double scale, rounded to float), the float sum, quantize_val (times fl32(1 / s_y),
// nearbyint, + z_y, clamped). Results beyond the dtype saturate whatever their size.
AddParams pytorch_add(const Params& p) {
  AddParams q = add_params(p, AddParams::Kind::kPytorch);  // clamp(clamp(., dtype), y_min, y_max): y_min, y_max fit
  q.fa = p.sa, q.fb = p.sb, q.fk = 1.0f / p.sy;
  // |codes - zero points| <= 255 and three roundings (each a relative 2^-24): below these bounds
  // every float step is finite, so no element meets the REQUIRE.
  const double dequantized = 256.0 * p.sa + 256.0 * p.sb;
  q.fast = dequantized < 0x1.0p120 && dequantized * q.fk < 0x1.0p120;
  return q;
}

// PyTorch's QNNPACK q8add (qlinear.add.pytorch_qnnpack, uint8 of one shape): 22-bit multipliers of
// the float ratios, shift 21 - the larger ratio's exponent, round half away from zero.
Element pytorch_q8add(const Params& p) {
  for (float s : {p.sa, p.sb, p.sy})
    reject_if(!(std::isnormal(s) && s > 0.0f), "pytorch.qnnpack add: scale must be finite and positive (normal)");
  reject_if(p.ymin >= p.ymax, "pytorch.qnnpack add: output range min must be below range max");
  const float ra = p.sa / p.sy, rb = p.sb / p.sy;
  for (float r : {ra, rb})
    reject_if(!(r >= 0x1.0p-14f && r < 0x1.0p+8f), "pytorch.qnnpack add: scale ratio must be in [2**-14, 2**8) range");
  const int e = std::ilogb(std::max(ra, rb));
  const int shift = 21 - e;
  if (shift >= 32) throw Unsupported("pytorch.qnnpack add: the larger ratio below 2^-10 (REQUIRE)");
  const std::int64_t ma = std::lrint(std::ldexp(static_cast<double>(ra), shift));
  const std::int64_t mb = std::lrint(std::ldexp(static_cast<double>(rb), shift));
  return [=](std::int64_t a, std::int64_t b) {
    const std::int64_t acc = (a - p.za) * ma + (b - p.zb) * mb;
    const std::int64_t mag = ((acc < 0 ? -acc : acc) + (std::int64_t{1} << (shift - 1))) >> shift;  // half away
    return clamp((acc < 0 ? -mag : mag) + p.zy, p.ymin, p.ymax);
  };
}

// TOSA (qlinear.{add,mul}.tosa): the legalization's RESCALEs (scale32, DOUBLE_ROUND) around the int32
// ADD / MUL, then CLAMP. apply_scale_32 on int64: round 2^(s-1), +-2^30 when s > 31, floor shift.
std::int64_t apply_scale_32(std::int64_t v, const qlinear::TosaScale& m) {
  std::int64_t round = std::int64_t{1} << (m.shift - 1);
  if (m.shift > 31) round += v >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
  return (v * m.multiplier + round) >> m.shift;  // |v| < 2^31, M < 2^31: no overflow
}
qlinear::TosaScale tosa_scale(double d, const char* what) {
  const qlinear::TosaScale m = qlinear::tosa_multiplier_and_shift(d);
  reject_if(m.shift < 2 || m.shift > 62, std::string("tosa: the ") + what + " RESCALE's shift is outside [2, 62]");
  return m;
}

Element tosa_add(const Params& p) {
  const double sa = p.sa, sb = p.sb, m2 = 2.0 * std::max(sa, sb);
  const double ra = sa / m2, rb = sb / m2, ro = m2 / (static_cast<double>(p.sy) * 1048576.0);
  const bool a1 = ra == 0.5, b1 = rb == 0.5;  // one RESCALE by 2^19 instead of 2^20 then r
  const qlinear::TosaScale ma = tosa_scale(a1 ? ra * 1048576.0 : ra, "input a");
  const qlinear::TosaScale mb = tosa_scale(b1 ? rb * 1048576.0 : rb, "input b");
  const qlinear::TosaScale mo = tosa_scale(ro, "output");
  const qlinear::TosaScale m20 = qlinear::tosa_multiplier_and_shift(1048576.0);
  return [=](std::int64_t a, std::int64_t b) {
    const std::int64_t ta = a1 ? apply_scale_32(a - p.za, ma) : apply_scale_32(apply_scale_32(a - p.za, m20), ma);
    const std::int64_t tb = b1 ? apply_scale_32(b - p.zb, mb) : apply_scale_32(apply_scale_32(b - p.zb, m20), mb);
    const std::int64_t v = clamp(apply_scale_32(ta + tb, mo) + p.zy, -128, 127);  // RESCALE's int8 clip
    return clamp(v, p.ymin, p.ymax);                                              // CLAMP
  };
}

Element tosa_mul(const Params& p) {
  const float s = p.sa * p.sb / p.sy;  // convertMultiplyOp: float arithmetic, then widened
  if (!finite_positive(s)) throw Unsupported("tosa mul: a finite positive float scale (REQUIRE)");
  const qlinear::TosaScale m = tosa_scale(static_cast<double>(s), "output");
  return [=](std::int64_t a, std::int64_t b) {
    const std::int64_t v = clamp(apply_scale_32((a - p.za) * (b - p.zb), m) + p.zy, -128, 127);
    return clamp(v, p.ymin, p.ymax);
  };
}

// Arm NN CpuRef (qlinear.{add,mul}.armnn_cpuref): armnn::Dequantize of both codes, std::plus /
// std::multiplies in binary32, armnn::Quantize (std::round of the quotient, + offset, clamp in float).
Element armnn(const Params& p, bool is_add) {
  const auto finite = [](float v) {
    if (!std::isfinite(v)) throw Unsupported("armnn.cpuref: a float step overflows (REQUIRE)");
    return v;
  };
  const float lo = static_cast<float>(lo_of(p.t)), hi = static_cast<float>(hi_of(p.t));
  return [=](std::int64_t a, std::int64_t b) {
    const float da = finite(static_cast<float>(a - p.za) * p.sa), db = finite(static_cast<float>(b - p.zb) * p.sb);
    const float v = finite(is_add ? da + db : da * db);
    const float r = std::round(v / p.sy) + static_cast<float>(p.zy);
    return static_cast<std::int64_t>(std::min(std::max(r, lo), hi));
  };
}

// oneDNN 2.6 binary_add / binary_mul as a user maps the operator (qlinear.{add,mul}.onednn): the
// source scales (add: s_a / s_y, s_b / s_y; mul: (s_a s_b) / s_y on src0 only), vmulps per source,
// vaddps / vmulps, the eltwise_linear post-op's + z_y in float, clip, saturation, rne.
float onednn_finite(float v) {
  if (!std::isfinite(v)) throw Unsupported("onednn: a float step overflows (REQUIRE)");
  return v;
}
AddParams onednn_add(const Params& p) {
  AddParams q = add_params(p, AddParams::Kind::kOnednn);
  q.fa = onednn_finite(p.sa / p.sy);
  q.fb = onednn_finite(p.sb / p.sy);
  q.fk = static_cast<float>(p.zy);
  // |codes| <= 255: below this bound no float step of the add can overflow (the kernels' case).
  q.fast = 256.0 * q.fa + 256.0 * q.fb + std::fabs(static_cast<double>(q.fk)) < 0x1.0p120;
  return q;
}
MulParams onednn_mul(const Params& p) {
  MulParams q = mul_params(p, MulParams::Kind::kOnednn);
  q.s = onednn_finite(onednn_finite(p.sa * p.sb) / p.sy);
  // |codes| <= 256, |z_y| <= 255: below this bound no float step of the product can overflow.
  q.fast = 65536.0 * q.s < 0x1.0p120;
  return q;
}

// The parameters with the rejections every engine shares and each convention's own checks of
// zero points, clamp and scales.
template <class Op>
Params read_params(const OpCall& c, const qspec_tensor& a, const qspec_tensor& b, Conv conv) {
  using A = typename Op::attr;
  const auto eight_bit = [](qspec_dtype t) { return t == QSPEC_DTYPE_INT8 || t == QSPEC_DTYPE_UINT8; };
  if (!eight_bit(a.dtype) || !eight_bit(b.dtype)) throw Unsupported("qlinear elementwise: 8-bit tensors only");
  reject_if(a.dtype != b.dtype, "qlinear elementwise: a and b must have the same dtype");
  Params p;
  p.t = a.dtype;
  p.sa = f32_of(attr::get(c.attrs, A::a_scale));
  p.sb = f32_of(attr::get(c.attrs, A::b_scale));
  p.sy = f32_of(attr::get(c.attrs, A::y_scale));
  p.za = attr::get(c.attrs, A::a_zero_point);
  p.zb = attr::get(c.attrs, A::b_zero_point);
  p.zy = attr::get(c.attrs, A::y_zero_point);
  p.ymin = lo_of(p.t), p.ymax = hi_of(p.t);
  if (conv != Conv::kOrt && conv != Conv::kArmnn) {
    p.ymin = attr::get_or(c.attrs, A::y_min, p.ymin);
    p.ymax = attr::get_or(c.attrs, A::y_max, p.ymax);
  }
  if (conv == Conv::kArmnn) {  // int32 offsets Arm NN does not check; no fused clamp: REQUIREs
    if (!fits(p.za, p.t) || !fits(p.zb, p.t) || !fits(p.zy, p.t))
      throw Unsupported("armnn.cpuref: zero points outside the dtype (REQUIRE)");
    if (attr::has(c.attrs, A::y_min) || attr::has(c.attrs, A::y_max))
      throw Unsupported("armnn.cpuref: no fused clamp (REQUIRE)");
  }
  reject_if(conv == Conv::kOnednn && (p.za != 0 || p.zb != 0),
            "onednn: the binary primitive has no source zero points");
  reject_if(!fits(p.za, p.t) || !fits(p.zb, p.t) || !fits(p.zy, p.t), "qlinear elementwise: a zero point does not fit");
  reject_if(!fits(p.ymin, p.t) || !fits(p.ymax, p.t), "qlinear elementwise: y_min and y_max must fit the dtype");
  reject_if(conv == Conv::kTosa && p.t != QSPEC_DTYPE_INT8, "tosa: a TFLite int8 model only");
  if (conv == Conv::kXnnpack) {
    for (float s : {p.sa, p.sb, p.sy})
      reject_if(!(std::isnormal(s) && s > 0.0f), "xnnpack.fp32: scale must be finite and positive (normal)");
    reject_if(p.ymin >= p.ymax, "xnnpack.fp32: output range lower bound must be below upper bound");
  } else {
    reject_if(conv != Conv::kOrt && p.ymin > p.ymax, "qlinear elementwise: y_min > y_max");
    if (!finite_positive(p.sa) || !finite_positive(p.sb) || !finite_positive(p.sy))
      throw Unsupported("qlinear elementwise: scales finite and positive (REQUIRE)");
  }
  return p;
}

// a and b's shapes padded with leading 1s to the rank of the broadcast.
std::vector<std::int64_t> padded(const std::vector<std::int64_t>& s, std::size_t rank) {
  std::vector<std::int64_t> d(rank, 1);
  std::copy(s.begin(), s.end(), d.begin() + static_cast<std::ptrdiff_t>(rank - s.size()));
  return d;
}

// The broadcast shape (rejects shapes that do not broadcast).
std::vector<std::int64_t> broadcast_shape(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  const std::vector<std::int64_t> da = padded(a, rank), db = padded(b, rank);
  std::vector<std::int64_t> out(rank);
  for (std::size_t j = 0; j < rank; ++j) {
    reject_if(da[j] != db[j] && da[j] != 1 && db[j] != 1, "qlinear elementwise: the shapes do not broadcast");
    out[j] = da[j] == 1 ? db[j] : da[j];
  }
  return out;
}

// The broadcast shape and, per output element, the offsets of its a and b elements.
struct Broadcast {
  std::vector<std::int64_t> out;
  std::vector<std::size_t> ia, ib;
};
Broadcast broadcast(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  Broadcast r;
  r.out = broadcast_shape(a, b);
  const std::size_t rank = r.out.size();
  const std::vector<std::int64_t> da = padded(a, rank), db = padded(b, rank);
  // Strides of a and b in the output's axes (0 on a broadcast axis).
  std::vector<std::int64_t> sa(rank, 0), sb(rank, 0);
  for (std::int64_t j = static_cast<std::int64_t>(rank) - 1, ma = 1, mb = 1; j >= 0; --j) {
    const auto u = static_cast<std::size_t>(j);
    sa[u] = da[u] == 1 ? 0 : ma;
    sb[u] = db[u] == 1 ? 0 : mb;
    ma *= da[u];
    mb *= db[u];
  }
  std::int64_t n = 1;
  for (auto d : r.out) n *= d;
  std::vector<std::int64_t> idx(rank, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t oa = 0, ob = 0;
    for (std::size_t j = 0; j < rank; ++j) oa += idx[j] * sa[j], ob += idx[j] * sb[j];
    r.ia.push_back(static_cast<std::size_t>(oa));
    r.ib.push_back(static_cast<std::size_t>(ob));
    for (std::size_t j = rank; j-- > 0;) {
      if (++idx[j] < r.out[j]) break;
      idx[j] = 0;
    }
  }
  return r;
}

// The add kernel's parameters under eff, or nullopt (its conventions without one use an Element).
std::optional<AddParams> add_kernel(Conv eff, const Params& p, bool scalar_a) {
  switch (eff) {
    case Conv::kXnnpack: return xnnpack_add(p);
    case Conv::kOrt: return ort_add(p, scalar_a);
    case Conv::kTfliteDouble: return tflite_add(p, false);
    case Conv::kTfliteSingle: return tflite_add(p, true);
    case Conv::kOnednn: return onednn_add(p);
    case Conv::kPytorch: return pytorch_add(p);
    default: return std::nullopt;
  }
}

// The mul kernel's parameters under eff, or nullopt (its conventions without one use an Element).
std::optional<MulParams> mul_kernel(Conv eff, const Params& p) {
  switch (eff) {
    case Conv::kXnnpack: return xnnpack_mul(p);
    case Conv::kOrt: return ort_mul(p);
    case Conv::kTfliteDouble: return tflite_mul(p, false);
    case Conv::kTfliteSingle: return tflite_mul(p, true);
    case Conv::kOnednn: return onednn_mul(p);
    case Conv::kPytorch: return pytorch_mul(p);
    default: return std::nullopt;
  }
}

// The period of `other` in the output's flat order where it repeats: `full` has the output's shape
// and `other` (padded) is 1s then the output's trailing axes (a scalar: 1; a per-channel row [C]
// against [..., C]: C; the same shape: the whole tensor), so element i reads other[i % period].
// 0 for any other broadcast.
std::size_t repeat_period(const std::vector<std::int64_t>& full, const std::vector<std::int64_t>& other,
                          const std::vector<std::int64_t>& out) {
  const std::size_t rank = out.size();
  if (padded(full, rank) != out) return 0;
  const std::vector<std::int64_t> o = padded(other, rank);
  std::size_t j = rank, period = 1;
  for (; j > 0 && o[j - 1] == out[j - 1]; --j) period *= static_cast<std::size_t>(o[j - 1]);
  for (std::size_t i = 0; i < j; ++i)
    if (o[i] != 1) return 0;
  return period;
}

// Calls run(i, count, row) over the n output elements in chunks starting at multiples of the period,
// row being the repeating operand's codes for elements i..i+count-1: the row itself, or, for a row
// shorter than kChunk, the row tiled to a whole number of periods past kChunk (a scalar: a splat),
// so that each kernel call has a vector loop's worth of elements.
template <class Run>
void run_repeating(std::size_t n, std::size_t period, const std::uint8_t* row, const Run& run) {
  constexpr std::size_t kChunk = 256;
  std::vector<std::uint8_t> tiled;
  std::size_t len = period;
  if (period < kChunk && period < n) {
    len = (kChunk + period - 1) / period * period;
    tiled.resize(len);
    for (std::size_t i = 0; i < len; ++i) tiled[i] = row[i % period];
    row = tiled.data();
  }
  for (std::size_t i = 0; i < n; i += len) run(i, std::min(len, n - i), row);
}

// Runs the kernel fn where it can: parameters no element can take to a REQUIRE, y of the inputs'
// dtype and the output's shape, and one operand of the output's shape with the other repeating
// (repeat_period). The kernel reads and writes the codes in place (8-bit tensors: every code fits
// its dtype). False where the element loop must run.
template <class Q, class Fn>
bool run_kernel(Fn fn, const Q& q, const qspec_tensor& at, const qspec_tensor& bt, qspec_tensor& yt,
                const std::vector<std::int64_t>& out, std::size_t n) {
  if (!q.fast || yt.dtype != at.dtype || n == 0) return false;
  std::uint8_t* y = qlinear::byte_output(yt, out);
  if (y == nullptr) return false;
  const std::vector<std::int64_t> sa(at.shape, at.shape + at.rank), sb(bt.shape, bt.shape + bt.rank);
  const auto* a = static_cast<const std::uint8_t*>(at.data);
  const auto* b = static_cast<const std::uint8_t*>(bt.data);
  if (const std::size_t period = repeat_period(sa, sb, out)) {
    run_repeating(n, period, b, [&](std::size_t i, std::size_t m, const std::uint8_t* row) { fn(q, m, a + i, row, y + i); });
    return true;
  }
  if (const std::size_t period = repeat_period(sb, sa, out)) {
    run_repeating(n, period, a, [&](std::size_t i, std::size_t m, const std::uint8_t* row) { fn(q, m, row, b + i, y + i); });
    return true;
  }
  return false;
}

template <class Op, bool is_add, Conv conv>
void qlinear_elementwise(OpCall& c) {
  const qspec_tensor &at = named(c, Op::in::a), &bt = named(c, Op::in::b);
  const std::vector<std::int64_t> sa(at.shape, at.shape + at.rank), sb(bt.shape, bt.shape + bt.rank);
  const std::vector<std::int64_t> out_shape = broadcast_shape(sa, sb);
  const std::size_t rank = out_shape.size();
  std::int64_t n_out = 1;
  for (auto d : out_shape) n_out *= d;
  // PyTorch's add under the qnnpack engine: int8 is XNNPACK's add, broadcast uint8 ATen's kernel.
  Conv eff = conv;
  if (conv == Conv::kPytorchQnnpack)
    eff = at.dtype == QSPEC_DTYPE_INT8 ? Conv::kXnnpack : (sa == sb ? conv : Conv::kPytorch);
  // PyTorch's mul: qint8 with y_zero_point < 127 is XNNPACK's multiply (QMul::run).
  if (conv == Conv::kPytorch && !is_add && at.dtype == QSPEC_DTYPE_INT8 &&
      attr::get(c.attrs, Op::attr::y_zero_point) < 127)
    eff = Conv::kXnnpack;
  if (eff == Conv::kXnnpack) reject_if(rank > 6, "xnnpack.fp32: at most 6 dimensions");
  if (conv == Conv::kTfliteDouble || conv == Conv::kTfliteSingle)
    if (rank > 4) throw Unsupported("tflite: at most 4 dimensions (REQUIRE)");
  if (conv == Conv::kArmnn && rank > 5) throw Unsupported("armnn.cpuref: at most 5 dimensions (REQUIRE)");
  reject_if(conv == Conv::kOnednn && rank > 12, "onednn: at most 12 dimensions (DNNL_MAX_NDIMS)");
  if (conv == Conv::kTosa) reject_if(rank > 6, "tosa: rank <= MAX_RANK = 6 (level 8K)");
  const bool scalar_a = is_add && conv == Conv::kOrt && ort_add_scalar_a(sa, sb, n_out);
  const Params p = read_params<Op>(c, at, bt, eff);
  Element f;
  const std::optional<AddParams> add = is_add ? add_kernel(eff, p, scalar_a) : std::nullopt;
  const std::optional<MulParams> mul = is_add ? std::nullopt : mul_kernel(eff, p);
  if (!add && !mul) switch (eff) {
      case Conv::kArmnn: f = armnn(p, is_add); break;
      case Conv::kPytorchQnnpack: f = pytorch_q8add(p); break;
      case Conv::kTosa: f = is_add ? tosa_add(p) : tosa_mul(p); break;
      default: throw std::logic_error("qlinear elementwise: a convention with a kernel has none");
    }
  qspec_tensor& yt = c.output(Op::out::y, 0);
  const auto n = static_cast<std::size_t>(n_out);
  if (add) {
    if (run_kernel(c.k.add, *add, at, bt, yt, out_shape, n)) return;
    f = [q = *add](std::int64_t a, std::int64_t b) {
      return add_one(q, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));  // codes of 8-bit tensors
    };
  }
  if (mul) {
    if (run_kernel(c.k.mul, *mul, at, bt, yt, out_shape, n)) return;
    f = [q = *mul](std::int64_t a, std::int64_t b) {
      return mul_one(q, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
    };
  }
  const IntArray a = read_int(at), b = read_int(bt);
  const Broadcast bc = broadcast(a.shape, b.shape);
  for (auto v : a.data) reject_if(!fits(v, p.t), "qlinear elementwise: a code outside its dtype");
  for (auto v : b.data) reject_if(!fits(v, p.t), "qlinear elementwise: a code outside its dtype");
  std::vector<std::int64_t> y(bc.ia.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = f(a.data[bc.ia[i]], b.data[bc.ib[i]]);
  write_int(yt, bc.out, y);
}

// The kernel parameters of Op under `convention` for two same-shape tensors (prepared_add, prepared_mul).
template <class Op, class Q, class Derive>
std::optional<Q> prepared(std::string_view convention, const nlohmann::ordered_json& attrs, qspec_dtype t,
                          const Derive& derive) {
  using C = typename Op::conv;
  const std::pair<std::string_view, Conv> kernels[] = {
      {C::xnnpack_fp32, Conv::kXnnpack},  {C::onnxruntime, Conv::kOrt}, {C::tflite_double_round, Conv::kTfliteDouble},
      {C::tflite_single_round, Conv::kTfliteSingle}, {C::onednn, Conv::kOnednn},  {C::pytorch_onednn, Conv::kPytorch}};
  for (const auto& [name, conv] : kernels) {
    if (name != convention) continue;
    static const KernelSet scalar = scalar_kernel_set();
    const std::int64_t one = 1;
    const qspec_tensor ab[2] = {{Op::in::a.data(), t, 1, &one, nullptr, 0}, {Op::in::b.data(), t, 1, &one, nullptr, 0}};
    const OpCall c{scalar, attrs, ab, 2, nullptr, 0};
    return derive(conv, read_params<Op>(c, ab[0], ab[1], conv));
  }
  return std::nullopt;
}

}  // namespace

std::optional<AddParams> prepared_add(std::string_view convention, const nlohmann::ordered_json& attrs,
                                      qspec_dtype t) {
  return prepared<Add, AddParams>(convention, attrs, t, [](Conv conv, const Params& p) {
    return add_kernel(conv, p, false);  // same shapes: a is no scalar
  });
}

std::optional<MulParams> prepared_mul(std::string_view convention, const nlohmann::ordered_json& attrs,
                                      qspec_dtype t) {
  return prepared<Mul, MulParams>(convention, attrs, t, [&](Conv conv, const Params& p) {
    // PyTorch's qint8 mul with y_zero_point < 127 is XNNPACK's (the handler's choice).
    const bool xnnpack = conv == Conv::kPytorch && t == QSPEC_DTYPE_INT8 && p.zy < 127;
    return mul_kernel(xnnpack ? Conv::kXnnpack : conv, p);
  });
}

void add_qlinear_elementwise_ops(std::vector<OpEntry>& t) {
  const std::string d = "broadcast + ";
  t.push_back(entry<Add>(Add::conv::xnnpack_fp32, d + "XNNPACK 21-bit multipliers, asr",
                         qlinear_elementwise<Add, true, Conv::kXnnpack>));
  t.push_back(entry<Add>(Add::conv::onnxruntime, d + "MLAS AVX2 FMAs", qlinear_elementwise<Add, true, Conv::kOrt>));
  t.push_back(entry<Add>(Add::conv::tflite_double_round, d + "TFLite fixed point, double rounding",
                         qlinear_elementwise<Add, true, Conv::kTfliteDouble>));
  t.push_back(entry<Add>(Add::conv::tflite_single_round, d + "TFLite fixed point, single rounding",
                         qlinear_elementwise<Add, true, Conv::kTfliteSingle>));
  t.push_back(entry<Mul>(Mul::conv::xnnpack_fp32, d + "XNNPACK fp32", qlinear_elementwise<Mul, false, Conv::kXnnpack>));
  t.push_back(entry<Mul>(Mul::conv::onnxruntime, d + "MLAS SSE2 float, zero point before rounding",
                         qlinear_elementwise<Mul, false, Conv::kOrt>));
  t.push_back(entry<Mul>(Mul::conv::tflite_double_round, d + "TFLite fixed point, double rounding",
                         qlinear_elementwise<Mul, false, Conv::kTfliteDouble>));
  t.push_back(entry<Mul>(Mul::conv::tflite_single_round, d + "TFLite fixed point, single rounding",
                         qlinear_elementwise<Mul, false, Conv::kTfliteSingle>));
  t.push_back(entry<Add>(Add::conv::armnn_cpuref, d + "Arm NN CpuRef binary32 sum, round half away",
                         qlinear_elementwise<Add, true, Conv::kArmnn>));
  t.push_back(entry<Mul>(Mul::conv::armnn_cpuref, d + "Arm NN CpuRef binary32 product, round half away",
                         qlinear_elementwise<Mul, false, Conv::kArmnn>));
  t.push_back(entry<Add>(Add::conv::onednn, d + "oneDNN binary_add: float source scales, z_y in float",
                         qlinear_elementwise<Add, true, Conv::kOnednn>));
  t.push_back(entry<Mul>(Mul::conv::onednn, d + "oneDNN binary_mul: one float source scale, z_y in float",
                         qlinear_elementwise<Mul, false, Conv::kOnednn>));
  t.push_back(entry<Mul>(Mul::conv::pytorch_onednn, d + "ATen qmul_kernel: reciprocal output scale, lrintf",
                         qlinear_elementwise<Mul, false, Conv::kPytorch>));
  t.push_back(entry<Add>(Add::conv::pytorch_onednn,
                         d + "ATen qadd_kernel: float dequantize, sum, reciprocal, nearbyint",
                         qlinear_elementwise<Add, true, Conv::kPytorch>));
  t.push_back(entry<Add>(Add::conv::pytorch_qnnpack,
                         d + "QNNPACK q8add (uint8), ATen (broadcast uint8), XNNPACK (int8)",
                         qlinear_elementwise<Add, true, Conv::kPytorchQnnpack>));
  t.push_back(entry<Add>(Add::conv::tosa, d + "TOSA RESCALEs (double round), int32 ADD, CLAMP",
                         qlinear_elementwise<Add, true, Conv::kTosa>));
  t.push_back(entry<Mul>(Mul::conv::tosa, d + "TOSA RESCALEs, int32 MUL, RESCALE by the float scale, CLAMP",
                         qlinear_elementwise<Mul, false, Conv::kTosa>));
}

}  // namespace qspec::simd
