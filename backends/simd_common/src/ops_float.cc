// Handlers of the float-based conventions: requantize (XNNPACK, oneDNN, PyTorch, TVM, Glow),
// quantize / dequantize (ONNX, XNNPACK, oneDNN, PyTorch, TVM, Glow, gemmlowp) and their per-channel
// forms, and TVM's fixed_point_multiply. Each maps onto requant.h / quantize.h kernels; the
// ERROR_IFs of each convention's clause are checked before any output is written.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "glow_params.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/core/attr.h"
#include "qspec/simd/backend_core.h"
#include "tvm_requant.h"

namespace qspec::simd {
namespace {

using Quantize = cat::quantize;
using Dequantize = cat::dequantize;
using Requantize = cat::requantize;

float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
// A float32 attribute (IEEE bits in the vectors) as a float.
float f32_attr(const OpCall& c, const attr::F32& key) { return f32_of(attr::get(c.attrs, key)); }
std::vector<float> f32_array_attr(const OpCall& c, const attr::F32Array& key) {
  std::vector<float> v;
  for (std::uint32_t b : attr::get(c.attrs, key)) v.push_back(f32_of(b));
  return v;
}
// The out_dtype attribute of op `Op` in the ABI's enumeration.
template <class Op>
qspec_dtype out_dtype(const OpCall& c) {
  return to_abi_dtype(attr::get(c.attrs, Op::attr::out_dtype));
}

bool is_one_of(qspec_dtype d, std::initializer_list<qspec_dtype> set) {
  for (auto s : set)
    if (s == d) return true;
  return false;
}
bool fits(std::int64_t v, OutType t) { return v >= out_min(t) && v <= out_max(t); }
bool fits_dtype(std::int64_t v, qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: return v >= -128 && v <= 127;
    case QSPEC_DTYPE_UINT8: return v >= 0 && v <= 255;
    case QSPEC_DTYPE_INT16: return v >= -32768 && v <= 32767;
    case QSPEC_DTYPE_UINT16: return v >= 0 && v <= 65535;
    case QSPEC_DTYPE_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    default: return true;
  }
}
bool positive_normal(float s) { return std::isnormal(s) && s > 0; }

// The integer input widened to int32 (int8..int32 inputs; wider ones are not implemented).
const std::int32_t* int32_view(const qspec_tensor& x, std::vector<std::int32_t>& buf) {
  const std::size_t n = static_cast<std::size_t>(numel(x));
  switch (x.dtype) {
    case QSPEC_DTYPE_INT32: return static_cast<const std::int32_t*>(x.data);
    case QSPEC_DTYPE_INT8:
      buf.assign(static_cast<const std::int8_t*>(x.data), static_cast<const std::int8_t*>(x.data) + n);
      break;
    case QSPEC_DTYPE_UINT8:
      buf.assign(static_cast<const std::uint8_t*>(x.data), static_cast<const std::uint8_t*>(x.data) + n);
      break;
    case QSPEC_DTYPE_INT16:
      buf.assign(static_cast<const std::int16_t*>(x.data), static_cast<const std::int16_t*>(x.data) + n);
      break;
    case QSPEC_DTYPE_UINT16:
      buf.assign(static_cast<const std::uint16_t*>(x.data), static_cast<const std::uint16_t*>(x.data) + n);
      break;
    case QSPEC_DTYPE_INT64: {
      buf.resize(n);
      const auto* p = static_cast<const std::int64_t*>(x.data);
      for (std::size_t i = 0; i < n; ++i) {
        if (p[i] < INT32_MIN || p[i] > INT32_MAX)
          throw Unsupported("int64 input values beyond int32 are not implemented");
        buf[i] = static_cast<std::int32_t>(p[i]);
      }
      break;
    }
    default: throw std::invalid_argument("input 'x' must be an integer tensor");
  }
  return buf.data();
}

// The output type named by out_dtype (read before any output is touched: an invalid test has none).
template <class Op>
OutType out_attr(const OpCall& c) {
  const qspec_dtype d = out_dtype<Op>(c);
  switch (d) {
    case QSPEC_DTYPE_INT8: return OutType::I8;
    case QSPEC_DTYPE_UINT8: return OutType::U8;
    case QSPEC_DTYPE_INT16: return OutType::I16;
    case QSPEC_DTYPE_UINT16: return OutType::U16;
    case QSPEC_DTYPE_INT32: return OutType::I32;
    default:
      throw std::invalid_argument("attribute '" + std::string(Op::attr::out_dtype.name) +
                                  "': not an 8/16/32-bit integer type");
  }
}

// Output "y" after validation: x's shape and the type `out`.
template <class Op>
qspec_tensor& output_y(const OpCall& c, const qspec_tensor& x, OutType out) {
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_same_shape(x, y, "output 'y' and input 'x'");
  if (out_type_of(y) != out) throw std::invalid_argument("output 'y' dtype differs from 'out_dtype'");
  return y;
}

// Per-channel runs: `outer` blocks of `channels` runs of `inner` contiguous elements.
struct Runs {
  std::int64_t outer = 1, channels = 1, inner = 1;
};
Runs runs_along(const qspec_tensor& x, std::int64_t axis, std::size_t n, bool tvm_negative_axis, bool reject) {
  if (tvm_negative_axis && axis < 0) axis += x.rank;
  if (axis < 0 || axis >= x.rank || static_cast<std::size_t>(x.shape[axis]) != n) {
    if (reject) throw Rejected("axis out of range, or per-channel arrays without shape[axis] entries (ERROR_IF)");
    throw std::invalid_argument("attribute 'axis': must index a dimension of x with one entry per channel");
  }
  Runs r;
  for (std::int32_t d = 0; d < x.rank; ++d) {
    if (d < axis) r.outer *= x.shape[d];
    if (d > axis) r.inner *= x.shape[d];
  }
  r.channels = x.shape[axis];
  return r;
}

// ---- requantize with a float32 scale ----

enum class FloatRequant { kXnnpack, kOnednn, kPytorch };

RequantParams float_requant_params(FloatRequant conv, float scale, std::int64_t zp, OutType out) {
  if (conv == FloatRequant::kXnnpack) {  // float.xnnpack_fp32 ERROR_IFs (operator creation)
    if (!std::isfinite(scale)) throw Rejected("xnnpack.fp32: scale must be finite (ERROR_IF)");
    if (!(scale > 0)) throw Rejected("xnnpack.fp32: scale must be positive (ERROR_IF)");
    if (scale >= 256.0f) throw Rejected("xnnpack.fp32: scale must be < 256 (ERROR_IF)");
    if (!fits(zp, out)) throw Rejected("xnnpack.fp32: zero_point must fit the output type (ERROR_IF)");
  }
  if (zp < INT32_MIN || zp > INT32_MAX) throw Unsupported("zero points beyond int32 are not implemented");
  RequantParams p;
  p.kind = conv == FloatRequant::kOnednn ? RequantKind::kFloatInclZp : RequantKind::kFloatThenZp;
  p.scale = scale;
  p.zp = static_cast<std::int32_t>(zp);
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  if (!finalize(p)) throw Unsupported("requantization parameters outside the kernels' domain");
  return p;
}

void check_float_out(FloatRequant conv, OutType out) {
  const bool ok = out == OutType::I8 || out == OutType::U8 || (conv == FloatRequant::kPytorch && out == OutType::I32);
  if (!ok) throw std::invalid_argument("this convention does not apply to the output dtype");
}

template <FloatRequant kConv>
void requantize_float(OpCall& c) {
  const qspec_tensor& x = c.input(Requantize::in::x, 0);
  const OutType out = out_attr<Requantize>(c);
  check_float_out(kConv, out);
  const RequantParams p = float_requant_params(kConv, f32_attr(c, Requantize::attr::scale),
                                               attr::get(c.attrs, Requantize::attr::output_zero_point), out);
  qspec_tensor& y = output_y<Requantize>(c, x, out);
  std::vector<std::int32_t> buf;
  c.k.requant(p, static_cast<std::size_t>(numel(x)), int32_view(x, buf), y.data);
}

void requantize_per_channel_xnnpack(OpCall& c) {
  using Op = cat::requantize_per_channel;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  const OutType out = out_attr<Op>(c);
  check_float_out(FloatRequant::kXnnpack, out);
  const auto scales = f32_array_attr(c, Op::attr::scales);
  const Runs r = runs_along(x, attr::get(c.attrs, Op::attr::axis), scales.size(), false, true);
  const std::int64_t zp = attr::get(c.attrs, Op::attr::output_zero_point);
  std::vector<RequantParams> ps;
  for (float s : scales) ps.push_back(float_requant_params(FloatRequant::kXnnpack, s, zp, out));  // all checked first
  qspec_tensor& y = output_y<Op>(c, x, out);
  std::vector<std::int32_t> buf;
  const std::int32_t* xs = int32_view(x, buf);
  auto* ys = static_cast<unsigned char*>(y.data);
  const std::size_t es = static_cast<std::size_t>(out_size(out));
  for (std::int64_t o = 0; o < r.outer; ++o)
    for (std::int64_t ch = 0; ch < r.channels; ++ch) {
      const std::int64_t off = (o * r.channels + ch) * r.inner;
      c.k.requant(ps[static_cast<std::size_t>(ch)], static_cast<std::size_t>(r.inner), xs + off,
                  ys + static_cast<std::size_t>(off) * es);
    }
}

// ---- quantize ----

enum class QConv { kOnnx, kXnnpack, kOnednn, kPytorch, kTvm, kGlow, kGemmlowp, kArmnn };

QuantizeParams quantize_params(QConv conv, float scale, std::int64_t zp, OutType out, qspec_dtype out_dtype) {
  QuantizeParams p;
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  auto need = [&](std::initializer_list<qspec_dtype> set) {
    if (!is_one_of(out_dtype, set)) throw std::invalid_argument("this convention does not apply to the output dtype");
  };
  auto zp_in_range = [&](std::string_view what) {
    if (!fits(zp, out)) throw Rejected(std::string(what) + ": zero_point outside the output type (ERROR_IF)");
  };
  if (zp < INT32_MIN || zp > INT32_MAX) throw Unsupported("zero points beyond int32 are not implemented");
  const float zpf = static_cast<float>(zp);  // int -> float: nearest even, as C converts
  switch (conv) {
    case QConv::kOnnx:  // sat(half_even(fl32(x / s)) + zp)
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_UINT16, QSPEC_DTYPE_INT32});
      zp_in_range(Quantize::conv::onnx_quantize_linear);
      p.divide = true, p.s = scale, p.post = QuantizeParams::Post::kInt, p.post_zp = zp;
      break;
    case QConv::kXnnpack:  // sat(half_even(fl32(x * fl32(1/s))) + zp)
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8});
      if (!positive_normal(scale))
        throw Rejected("xnnpack.convert: scale must be finite, normalized, positive (ERROR_IF)");
      zp_in_range(Quantize::conv::xnnpack_convert);
      p.divide = false, p.s = 1.0f / scale, p.post = QuantizeParams::Post::kInt, p.post_zp = zp;
      break;
    case QConv::kOnednn:  // sat(half_even(fl32(fl32(x * fl32(1/s)) + fl32(zp))))
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8});
      p.divide = false, p.s = 1.0f / scale, p.pre_add = true, p.pre_zp = zpf;
      break;
    case QConv::kPytorch:  // clamp(fl32(fl32(zp) + nearbyint(fl32(x * fl32(1/s)))))
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT32});
      zp_in_range(Quantize::conv::pytorch_quantize_per_tensor);
      p.divide = false, p.s = 1.0f / scale, p.post = QuantizeParams::Post::kFloat, p.post_zpf = zpf;
      break;
    case QConv::kTvm:  // clip(fl32(half_away(fl32(x / s)) + fl32(zp)))
      if (!is_one_of(out_dtype,
                     {QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_UINT16, QSPEC_DTYPE_INT32}))
        throw Rejected("tvm.quantize: out_dtype must be int8, uint8, int16, uint16 or int32 (ERROR_IF)");
      p.divide = true, p.s = scale, p.round = QuantizeParams::Round::kHalfAway;
      p.post = QuantizeParams::Post::kFloat, p.post_zpf = zpf;
      break;
    case QConv::kGlow:  // clip(nearbyint(fl32(fl32(x / s) + fl32(offset))))
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_INT32});
      p.divide = true, p.s = scale, p.pre_add = true, p.pre_zp = zpf;
      break;
    case QConv::kGemmlowp:  // half_away(clamp(fl32(zp + fl32(x / s)), 0, 255))
      need({QSPEC_DTYPE_UINT8});
      p.divide = true, p.s = scale, p.pre_add = true, p.pre_zp = zpf, p.round = QuantizeParams::Round::kHalfAway;
      break;
    case QConv::kArmnn:  // armnn::Quantize: TVM's steps on QAsymmS8 / QAsymmU8, no ERROR_IF
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8});
      p.divide = true, p.s = scale, p.round = QuantizeParams::Round::kHalfAway;
      p.post = QuantizeParams::Post::kFloat, p.post_zpf = zpf;
      break;
  }
  finalize(p);
  return p;
}

template <QConv kConv>
void quantize_op(OpCall& c) {
  const qspec_tensor& x = c.input(Quantize::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_FLOAT32, "input 'x'");
  const qspec_dtype od = kConv == QConv::kGemmlowp ? QSPEC_DTYPE_UINT8 : out_dtype<Quantize>(c);
  if (kConv == QConv::kTvm &&
      !is_one_of(od, {QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_UINT16, QSPEC_DTYPE_INT32}))
    throw Rejected("tvm.quantize: out_dtype must be int8, uint8, int16, uint16 or int32 (ERROR_IF)");
  const OutType out = kConv == QConv::kGemmlowp ? OutType::U8 : out_attr<Quantize>(c);
  const QuantizeParams p = quantize_params(kConv, f32_attr(c, Quantize::attr::scale),
                                           attr::get(c.attrs, Quantize::attr::zero_point), out, od);
  qspec_tensor& y = output_y<Quantize>(c, x, out);
  c.k.quantize(p, static_cast<std::size_t>(numel(x)), static_cast<const float*>(x.data), y.data);
}

template <QConv kConv>
void quantize_per_channel_op(OpCall& c) {
  using Op = cat::quantize_per_channel;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_FLOAT32, "input 'x'");
  const qspec_dtype od = out_dtype<Op>(c);
  const auto scales = f32_array_attr(c, Op::attr::scales);
  const auto zps = attr::get(c.attrs, Op::attr::zero_points);
  const bool tvm = kConv == QConv::kTvm;
  if (scales.size() != zps.size()) throw Rejected("scales and zero_points must have the same length (ERROR_IF)");
  if (tvm &&
      !is_one_of(od, {QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_UINT16, QSPEC_DTYPE_INT32}))
    throw Rejected("tvm.quantize: out_dtype must be int8, uint8, int16, uint16 or int32 (ERROR_IF)");
  const OutType out = out_attr<Op>(c);
  const Runs r = runs_along(x, attr::get(c.attrs, Op::attr::axis), scales.size(), tvm, true);
  std::vector<QuantizeParams> ps;
  for (std::size_t i = 0; i < scales.size(); ++i) ps.push_back(quantize_params(kConv, scales[i], zps[i], out, od));
  qspec_tensor& y = output_y<Op>(c, x, out);
  const auto* xs = static_cast<const float*>(x.data);
  auto* ys = static_cast<unsigned char*>(y.data);
  const std::size_t es = static_cast<std::size_t>(out_size(out));
  for (std::int64_t o = 0; o < r.outer; ++o)
    for (std::int64_t ch = 0; ch < r.channels; ++ch) {
      const std::int64_t off = (o * r.channels + ch) * r.inner;
      c.k.quantize(ps[static_cast<std::size_t>(ch)], static_cast<std::size_t>(r.inner), xs + off,
                   ys + static_cast<std::size_t>(off) * es);
    }
}

// ---- dequantize: fl32(fl32(x - zp) * scale) in every convention ----

enum class DConv { kOnnx, kXnnpack, kPytorch, kTvm, kGlow, kGemmlowp, kArmnn };

template <DConv kConv>
void dequantize_op(OpCall& c) {
  const qspec_tensor& x = c.input(Dequantize::in::x, 0);
  const float scale = f32_attr(c, Dequantize::attr::scale);
  const std::int64_t zp = attr::get(c.attrs, Dequantize::attr::zero_point);
  auto need = [&](std::initializer_list<qspec_dtype> set) {
    if (!is_one_of(x.dtype, set)) throw std::invalid_argument("this convention does not apply to the input dtype");
  };
  switch (kConv) {
    case DConv::kOnnx:
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT32});
      if (!fits_dtype(zp, x.dtype))
        throw Rejected("onnx.dequantize_linear: x_zero_point must have x's type (ERROR_IF)");
      if (x.dtype == QSPEC_DTYPE_INT32 && zp != 0)
        throw Rejected("onnx.dequantize_linear: int32 has no zero point (ERROR_IF)");
      break;
    case DConv::kXnnpack:
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8});
      if (!positive_normal(scale))
        throw Rejected("xnnpack.convert: scale must be finite, normalized, positive (ERROR_IF)");
      if (!fits_dtype(zp, x.dtype)) throw Rejected("xnnpack.convert: zero_point must fit the input type (ERROR_IF)");
      break;
    case DConv::kPytorch:
      need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT32});
      if (!fits_dtype(zp, x.dtype)) throw Rejected("pytorch.dequantize: zero_point out of range (ERROR_IF)");
      break;
    case DConv::kTvm:
      if (!is_one_of(x.dtype,
                     {QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_UINT16, QSPEC_DTYPE_INT32}))
        throw Rejected("tvm.dequantize: input type must be int8, uint8, int16, uint16 or int32 (ERROR_IF)");
      break;
    case DConv::kGlow: need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_INT32}); break;
    case DConv::kGemmlowp: need({QSPEC_DTYPE_UINT8}); break;
    case DConv::kArmnn: need({QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8}); break;  // any int32 offset
  }
  if (zp < INT32_MIN || zp > INT32_MAX) throw Unsupported("zero points beyond int32 are not implemented");
  qspec_tensor& y = c.output(Dequantize::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_FLOAT32, "output 'y'");
  expect_same_shape(x, y, "output 'y' and input 'x'");
  std::vector<std::int32_t> buf;
  c.k.dequantize(static_cast<std::size_t>(numel(x)), int32_view(x, buf), static_cast<std::int32_t>(zp), scale,
                 static_cast<float*>(y.data));
}

// TVM's ERROR_IFs of requantize and requantize_per_channel (Op): rounding, output scale, out_dtype.
template <class Op>
void tvm_checks(const OpCall& c, float out_s) {
  using Is = typename Op::attr::rounding_is;
  if (attr::has(c.attrs, Op::attr::rounding)) {
    const std::string_view r = attr::get(c.attrs, Op::attr::rounding);
    if (r != Is::UPWARD && r != Is::TONEAREST)
      throw Rejected("tvm.requantize: rounding must be UPWARD or TONEAREST (ERROR_IF)");
  }
  if (std::isnan(out_s) || out_s == 0.0f) throw Rejected("tvm.requantize: output scale can not be 0 (ERROR_IF)");
  const qspec_dtype od = out_dtype<Op>(c);
  if (!is_one_of(od, {QSPEC_DTYPE_INT8, QSPEC_DTYPE_UINT8, QSPEC_DTYPE_INT16, QSPEC_DTYPE_INT32}))
    throw Rejected("tvm.requantize: out_dtype must be int8, uint8, int16 or int32 (ERROR_IF)");
}

template <class Op>
void tvm_rounding_applies(const OpCall& c, bool to_nearest) {
  if (attr::has(c.attrs, Op::attr::rounding) &&
      (attr::get(c.attrs, Op::attr::rounding) == Op::attr::rounding_is::TONEAREST) != to_nearest)
    throw std::invalid_argument("the rounding attribute selects the other convention");
}

template <bool kToNearest>
void tvm_requantize(OpCall& c) {
  using Op = Requantize;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  const float in_s = f32_attr(c, Op::attr::input_scale), out_s = f32_attr(c, Op::attr::output_scale);
  tvm_checks<Op>(c, out_s);
  tvm_rounding_applies<Op>(c, kToNearest);
  const OutType out = out_attr<Op>(c);
  // Bitwise-equal scales skip the multiplication (x' itself): M = 2^30, e = 1 is that identity.
  const RequantParams p = tvm::per_tensor(in_s, out_s, kToNearest, attr::get(c.attrs, Op::attr::input_zero_point),
                                          attr::get(c.attrs, Op::attr::output_zero_point), out);
  qspec_tensor& y = output_y<Op>(c, x, out);
  std::vector<std::int32_t> buf;
  c.k.requant(p, static_cast<std::size_t>(numel(x)), int32_view(x, buf), y.data);
}

template <bool kToNearest>
void tvm_requantize_per_channel(OpCall& c) {
  using Op = cat::requantize_per_channel;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  const float out_s = f32_attr(c, Op::attr::output_scale);
  tvm_checks<Op>(c, out_s);
  tvm_rounding_applies<Op>(c, kToNearest);
  const OutType out = out_attr<Op>(c);
  const auto in_scales = f32_array_attr(c, Op::attr::input_scales);
  std::vector<std::int64_t> izps =
      attr::has(c.attrs, Op::attr::input_zero_points)
          ? attr::get(c.attrs, Op::attr::input_zero_points)
          : std::vector<std::int64_t>(in_scales.size(), attr::get(c.attrs, Op::attr::input_zero_point));
  if (izps.size() != in_scales.size())
    throw Rejected("tvm.requantize: input scale and zero point counts differ (ERROR_IF)");
  const Runs r = runs_along(x, attr::get(c.attrs, Op::attr::axis), in_scales.size(), true, true);
  const std::int64_t ozp = attr::get(c.attrs, Op::attr::output_zero_point);
  std::vector<RequantParams> ps;
  for (std::size_t i = 0; i < in_scales.size(); ++i)
    ps.push_back(tvm::params(tvm::multiplier(in_scales[i], out_s), kToNearest, izps[i], ozp, out));
  qspec_tensor& y = output_y<Op>(c, x, out);
  std::vector<std::int32_t> buf;
  const std::int32_t* xs = int32_view(x, buf);
  auto* ys = static_cast<unsigned char*>(y.data);
  const std::size_t es = static_cast<std::size_t>(out_size(out));
  for (std::int64_t o = 0; o < r.outer; ++o)
    for (std::int64_t ch = 0; ch < r.channels; ++ch) {
      const std::int64_t off = (o * r.channels + ch) * r.inner;
      c.k.requant(ps[static_cast<std::size_t>(ch)], static_cast<std::size_t>(r.inner), xs + off,
                  ys + static_cast<std::size_t>(off) * es);
    }
}

// tir.q_multiply_shift(x, M, 31, shift): half_up(x * M * 2^(shift - 31)), int32 in and out.
void tvm_fixed_point_multiply(OpCall& c) {
  using Op = cat::fixed_point_multiply;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_INT32, "input 'x'");
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_INT32, "output 'y'");
  expect_same_shape(x, y, "output 'y' and input 'x'");
  const std::int64_t m = attr::get(c.attrs, Op::attr::multiplier), shift = attr::get(c.attrs, Op::attr::shift);
  if (m < 0 || m > INT32_MAX || shift < -32 || shift > 62) throw Unsupported("multiplier/shift outside the REQUIREs");
  const RequantParams p =
      tvm::params({static_cast<std::int32_t>(m), static_cast<int>(shift)}, false, 0, 0, OutType::I32);
  c.k.requant(p, static_cast<std::size_t>(numel(x)), static_cast<const std::int32_t*>(x.data), y.data);
}

// ---- Glow rescale ----

template <bool kInteger>
void glow_rescale(OpCall& c) {
  using Op = Requantize;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  if (!is_one_of(x.dtype, {QSPEC_DTYPE_INT8, QSPEC_DTYPE_INT32}))
    throw std::invalid_argument("glow rescale: x is int8 or int32");
  if (out_attr<Op>(c) != OutType::I8) throw std::invalid_argument("glow rescale: int8 output only");
  qspec_tensor& y = output_y<Op>(c, x, OutType::I8);
  std::vector<std::int32_t> buf;
  glow::rescale_run(c.k, kInteger, int32_view(x, buf), static_cast<std::size_t>(numel(x)),
                    f32_attr(c, Op::attr::input_scale), attr::get(c.attrs, Op::attr::input_zero_point),
                    f32_attr(c, Op::attr::output_scale), attr::get(c.attrs, Op::attr::output_zero_point), y.data);
}

}  // namespace

namespace glow {

void rescale_run(const KernelSet& k, bool integer, const std::int32_t* xs, std::size_t n, float in_s, std::int64_t izp,
                 float out_s, std::int64_t ozp, void* y) {
  if (izp < INT32_MIN || izp > INT32_MAX || ozp < INT32_MIN || ozp > INT32_MAX)
    throw Unsupported("int32 offsets (REQUIRE)");
  if (integer) {
    const Rescale g = rescale_params(in_s / out_s);  // float32 division
    if (g.pre > 31 || g.post > 31 || g.s > INT32_MAX) throw Unsupported("rescale parameters outside the REQUIREs");
    if (g.pre == 0) {
      // floor(((x - in_off) * S + rtn) / 2^post) + out_off: one kShiftRound.
      RequantParams p;
      p.kind = RequantKind::kShiftRound;
      p.input_offset = static_cast<std::int32_t>(-izp);
      p.multiplier = static_cast<std::int32_t>(g.s);
      p.shift = g.post;
      p.round_pos = p.round_neg = g.post > 0 ? std::int64_t{1} << (g.post - 1) : 0;
      p.zp = static_cast<std::int32_t>(ozp);
      p.out = OutType::I8;
      p.qmin = -128;
      p.qmax = 127;
      if (!finalize(p)) throw Unsupported("rescale parameters outside the kernels' domain");
      k.requant(p, n, xs, y);
      return;
    }
    auto* ys = static_cast<std::int8_t*>(y);  // pre > 0: two shifts, written out
    const std::int64_t rtn = g.post > 0 ? std::int64_t{1} << (g.post - 1) : 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t v = ((((std::int64_t{xs[i]} - izp) >> g.pre) * g.s + rtn) >> g.post) + ozp;
      ys[i] = static_cast<std::int8_t>(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    return;
  }
  // quantize<int8>(dequantize(x)): fl32(in_s * fl32(x - in_off)), then Glow's quantize.
  std::vector<float> d(n);
  k.dequantize(n, xs, static_cast<std::int32_t>(izp), in_s, d.data());
  const QuantizeParams p = quantize_params(QConv::kGlow, out_s, ozp, OutType::I8, QSPEC_DTYPE_INT8);
  k.quantize(p, n, d.data(), y);
}

}  // namespace glow

void add_float_ops(std::vector<OpEntry>& t) {
  using PerChannel = cat::requantize_per_channel;
  using QuantizePerChannel = cat::quantize_per_channel;
  const char* vec = "vectorized";
  t.push_back(entry<Requantize>(Requantize::conv::xnnpack_fp32, vec, requantize_float<FloatRequant::kXnnpack>));
  t.push_back(entry<Requantize>(Requantize::conv::onednn_fp32, vec, requantize_float<FloatRequant::kOnednn>));
  t.push_back(
      entry<Requantize>(Requantize::conv::pytorch_requantize_from_int, vec, requantize_float<FloatRequant::kPytorch>));
  t.push_back(entry<PerChannel>(PerChannel::conv::xnnpack_fp32, vec, requantize_per_channel_xnnpack));
  t.push_back(entry<Requantize>(Requantize::conv::tvm_upward, vec, tvm_requantize<false>));
  t.push_back(entry<Requantize>(Requantize::conv::tvm_tonearest, vec, tvm_requantize<true>));
  t.push_back(entry<PerChannel>(PerChannel::conv::tvm_upward, vec, tvm_requantize_per_channel<false>));
  t.push_back(entry<PerChannel>(PerChannel::conv::tvm_tonearest, vec, tvm_requantize_per_channel<true>));
  t.push_back(entry<cat::fixed_point_multiply>(cat::fixed_point_multiply::conv::tvm, vec, tvm_fixed_point_multiply));
  t.push_back(entry<Requantize>(Requantize::conv::glow_cpu_rescale, "vectorized when pre = 0", glow_rescale<true>));
  t.push_back(entry<Requantize>(Requantize::conv::glow_interpreter_rescale, vec, glow_rescale<false>));
  t.push_back(entry<Quantize>(Quantize::conv::onnx_quantize_linear, vec, quantize_op<QConv::kOnnx>));
  t.push_back(entry<Quantize>(Quantize::conv::xnnpack_convert, vec, quantize_op<QConv::kXnnpack>));
  t.push_back(entry<Quantize>(Quantize::conv::onednn_reorder, vec, quantize_op<QConv::kOnednn>));
  t.push_back(entry<Quantize>(Quantize::conv::pytorch_quantize_per_tensor, vec, quantize_op<QConv::kPytorch>));
  t.push_back(entry<Quantize>(Quantize::conv::tvm_quantize, vec, quantize_op<QConv::kTvm>));
  t.push_back(entry<Quantize>(Quantize::conv::glow_quantize, vec, quantize_op<QConv::kGlow>));
  t.push_back(entry<Quantize>(Quantize::conv::gemmlowp_quantize, vec, quantize_op<QConv::kGemmlowp>));
  t.push_back(entry<QuantizePerChannel>(QuantizePerChannel::conv::onnx_quantize_linear, vec,
                                        quantize_per_channel_op<QConv::kOnnx>));
  t.push_back(entry<QuantizePerChannel>(QuantizePerChannel::conv::pytorch_quantize_per_channel, vec,
                                        quantize_per_channel_op<QConv::kPytorch>));
  t.push_back(
      entry<QuantizePerChannel>(QuantizePerChannel::conv::tvm_quantize, vec, quantize_per_channel_op<QConv::kTvm>));
  t.push_back(entry<Dequantize>(Dequantize::conv::onnx_dequantize_linear, vec, dequantize_op<DConv::kOnnx>));
  t.push_back(entry<Dequantize>(Dequantize::conv::xnnpack_convert, vec, dequantize_op<DConv::kXnnpack>));
  t.push_back(entry<Dequantize>(Dequantize::conv::pytorch_dequantize, vec, dequantize_op<DConv::kPytorch>));
  t.push_back(entry<Dequantize>(Dequantize::conv::tvm_dequantize, vec, dequantize_op<DConv::kTvm>));
  t.push_back(entry<Dequantize>(Dequantize::conv::glow_dequantize, vec, dequantize_op<DConv::kGlow>));
  t.push_back(entry<Dequantize>(Dequantize::conv::gemmlowp_dequantize, vec, dequantize_op<DConv::kGemmlowp>));
  t.push_back(entry<Quantize>(Quantize::conv::armnn_cpuref, vec, quantize_op<QConv::kArmnn>));
  t.push_back(entry<Dequantize>(Dequantize::conv::armnn_cpuref, vec, dequantize_op<DConv::kArmnn>));
}

}  // namespace qspec::simd
