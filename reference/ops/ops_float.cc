// Reference ops for the float-based library conventions: XNNPACK, oneDNN, ONNX, PyTorch (+ exact yardsticks).
//
// Shared vocabulary (spec/float_conventions.md):
//   op "quantize":   input x float32; attrs scale (float32 bits "0x..."), zero_point, out_dtype -> y
//   op "dequantize": input x integer; attrs scale, zero_point -> y float32
//   op "requantize": input x integer; attrs scale (the real multiplier as float32 bits),
//                    output_zero_point, out_dtype -> y
//   op "quantize_per_channel":   attrs axis, scales [float32 bits], zero_points [int], out_dtype
//   op "requantize_per_channel": attrs axis, scales [float32 bits], output_zero_point, out_dtype
// Diagnostic-only: quantize "float.exact.<rounding>" and requantize "fp32.exact.<rounding>".
// An attribute or dtype a convention cannot take throws JsonValueError ("does not apply");
// ERROR_IF preconditions throw qspec::ref::ErrorIf from the reference functions.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "qspec/core/json_values.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;

const Tensor& input_x(const std::vector<Tensor>& inputs) {
  for (const auto& in : inputs)
    if (in.name == "x") return in;
  throw JsonValueError("missing input tensor 'x'");
}

DType out_dtype(const Attrs& attrs) {
  const std::string name = attr_str(attrs, "out_dtype");
  const auto t = dtype_from_name(name);
  if (!t || is_float(*t)) throw JsonValueError("attribute 'out_dtype': not an integer dtype: " + name);
  return *t;
}

void require_dtypes(DType t, std::initializer_list<DType> allowed, const std::string& what) {
  for (DType a : allowed)
    if (a == t) return;
  throw JsonValueError(what + " does not apply to dtype " + std::string(dtype_name(t)));
}

std::vector<std::uint32_t> attr_f32_array(const Attrs& attrs, const char* key) {
  if (!has_attr(attrs, key)) throw JsonValueError(std::string("missing attribute '") + key + "'");
  const auto& a = attrs.at(key);
  if (!a.is_array()) throw JsonValueError(std::string("attribute '") + key + "': must be an array of float32 bits");
  std::vector<std::uint32_t> v;
  for (const auto& e : a) v.push_back(json_to_f32(e));
  return v;
}
std::vector<std::int64_t> attr_int_array(const Attrs& attrs, const char* key) {
  if (!has_attr(attrs, key)) throw JsonValueError(std::string("missing attribute '") + key + "'");
  const auto& a = attrs.at(key);
  if (!a.is_array()) throw JsonValueError(std::string("attribute '") + key + "': must be an array of integers");
  std::vector<std::int64_t> v;
  for (const auto& e : a) v.push_back(json_to_int(e));
  return v;
}

// The per-channel axis: ERROR_IF it does not index a dimension of x, or the per-channel arrays
// do not have x.shape[axis] entries (the type checks of TVM / ONNX / PyTorch / XNNPACK).
std::size_t channel_axis(const Attrs& attrs, const Tensor& x, std::size_t channels) {
  const std::int64_t axis = attr_int(attrs, "axis");
  QSPEC_ERROR_IF(axis < 0 || axis >= static_cast<std::int64_t>(x.shape.size()), "axis must index a dimension of x");
  QSPEC_ERROR_IF(static_cast<std::size_t>(x.shape[static_cast<std::size_t>(axis)]) != channels,
                "per-channel scales / zero points must have shape[axis] entries");
  return static_cast<std::size_t>(axis);
}
std::size_t channel_of(const Tensor& x, std::size_t i, std::size_t axis) {
  std::size_t inner = 1;
  for (std::size_t d = axis + 1; d < x.shape.size(); ++d) inner *= static_cast<std::size_t>(x.shape[d]);
  return (i / inner) % static_cast<std::size_t>(x.shape[axis]);
}

using QuantizeFn = std::function<Int(std::uint32_t x, std::uint32_t scale, const Int& zp, ref::DType out)>;

OpFn quantize_op(QuantizeFn f, std::initializer_list<DType> outs, const std::string& conv) {
  std::vector<DType> allowed(outs);
  return [f, allowed, conv](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input_x(inputs);
    if (x.dtype != DType::F32) throw JsonValueError(conv + ": input x must be float32");
    const DType out = out_dtype(attrs);
    bool ok = false;
    for (DType a : allowed) ok = ok || a == out;
    if (!ok) throw JsonValueError(conv + " does not apply to out_dtype " + std::string(dtype_name(out)));
    const std::uint32_t scale = attr_f32(attrs, "scale");
    const Int zp(attr_int(attrs, "zero_point"));
    Tensor y{"y", out, x.shape, {}};
    for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(f(static_cast<std::uint32_t>(v), scale, zp, out)));
    return std::vector<Tensor>{y};
  };
}

OpFn quantize_per_channel_op(QuantizeFn f, std::initializer_list<DType> outs, const std::string& conv) {
  std::vector<DType> allowed(outs);
  return [f, allowed, conv](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input_x(inputs);
    if (x.dtype != DType::F32) throw JsonValueError(conv + ": input x must be float32");
    const DType out = out_dtype(attrs);
    bool ok = false;
    for (DType a : allowed) ok = ok || a == out;
    if (!ok) throw JsonValueError(conv + " does not apply to out_dtype " + std::string(dtype_name(out)));
    const auto scales = attr_f32_array(attrs, "scales");
    const auto zps = attr_int_array(attrs, "zero_points");
    QSPEC_ERROR_IF(scales.size() != zps.size(), "scales and zero_points must have the same length");
    const std::size_t axis = channel_axis(attrs, x, scales.size());
    Tensor y{"y", out, x.shape, {}};
    for (std::size_t i = 0; i < x.data.size(); ++i) {
      const std::size_t c = channel_of(x, i, axis);
      y.data.push_back(
          static_cast<std::int64_t>(f(static_cast<std::uint32_t>(x.data[i]), scales[c], Int(zps[c]), out)));
    }
    return std::vector<Tensor>{y};
  };
}

using RequantizeFn = std::function<Int(const Int& x, std::uint32_t scale, const Int& zp, ref::DType out)>;

OpFn requantize_op(RequantizeFn f, std::initializer_list<DType> outs, const std::string& conv) {
  std::vector<DType> allowed(outs);
  return [f, allowed, conv](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input_x(inputs);
    if (is_float(x.dtype)) throw JsonValueError(conv + ": input x must be an integer tensor");
    const DType out = out_dtype(attrs);
    bool ok = false;
    for (DType a : allowed) ok = ok || a == out;
    if (!ok) throw JsonValueError(conv + " does not apply to out_dtype " + std::string(dtype_name(out)));
    const std::uint32_t scale = attr_f32(attrs, "scale");
    const Int zp(attr_int(attrs, "output_zero_point"));
    Tensor y{"y", out, x.shape, {}};
    for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(f(Int(v), scale, zp, out)));
    return std::vector<Tensor>{y};
  };
}

// ---- op "quantize" ----

QSPEC_REGISTER_REF_OP({.op = "quantize",
                       .convention = "onnx.quantize_linear",
                       .fn = quantize_op(ref::onnx_quantize_linear,
                                         {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32},
                                         "onnx.quantize_linear")});
QSPEC_REGISTER_REF_OP({.op = "quantize",
                       .convention = "xnnpack.convert",
                       .fn = quantize_op(ref::xnnpack_convert_quantize, {DType::I8, DType::U8}, "xnnpack.convert")});
QSPEC_REGISTER_REF_OP({.op = "quantize",
                       .convention = "onednn.reorder",
                       .fn = quantize_op(ref::onednn_reorder_quantize, {DType::I8, DType::U8}, "onednn.reorder")});
QSPEC_REGISTER_REF_OP({.op = "quantize",
                       .convention = "pytorch.quantize_per_tensor",
                       .fn = quantize_op(ref::pytorch_quantize_per_tensor, {DType::I8, DType::U8, DType::I32},
                                         "pytorch.quantize_per_tensor")});

// Diagnostic yardsticks: the exact quotient under each of the seven roundings.
const bool kExactQuantizeRegistered = [] {
  for (ref::Rounding mode : ref::kAllRoundings) {
    const std::string id(ref::clause_id(mode));  // "round.half_even"
    const std::string conv = "float.exact." + id.substr(id.find('.') + 1);
    register_op({.op = "quantize",
                 .convention = conv,
                 .fn = quantize_op(
                     [mode](std::uint32_t x, std::uint32_t s, const Int& zp, ref::DType out) {
                       return ref::exact_quantize(x, s, zp, out, mode);
                     },
                     {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32}, conv)});
  }
  return true;
}();

// ---- op "dequantize" ----

OpFn dequantize_op(std::initializer_list<DType> ins, const std::string& conv,
                   std::function<void(DType in, const Int& zp, std::uint32_t scale)> checks) {
  std::vector<DType> allowed(ins);
  return [allowed, conv, checks](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input_x(inputs);
    bool ok = false;
    for (DType a : allowed) ok = ok || a == x.dtype;
    if (!ok) throw JsonValueError(conv + " does not apply to input dtype " + std::string(dtype_name(x.dtype)));
    const std::uint32_t scale = attr_f32(attrs, "scale");
    const Int zp(attr_int(attrs, "zero_point"));
    checks(x.dtype, zp, scale);
    Tensor y{"y", DType::F32, x.shape, {}};
    for (auto v : x.data) {
      QSPEC_REQUIRE(Int(v) - zp >= -ref::pow2(31) && Int(v) - zp < ref::pow2(31), conv + ": q - zero_point fits int32");
      y.data.push_back(static_cast<std::int64_t>(ref::float_dequantize(Int(v), zp, scale)));
    }
    return std::vector<Tensor>{y};
  };
}

bool fits(const Int& v, DType t) { return v >= dtype_min(t) && v <= dtype_max(t); }

QSPEC_REGISTER_REF_OP({.op = "dequantize",
                       .convention = "onnx.dequantize_linear",
                       .fn = dequantize_op({DType::I8, DType::U8, DType::I32}, "onnx.dequantize_linear",
                                           [](DType in, const Int& zp, std::uint32_t) {
                                             QSPEC_ERROR_IF(!fits(zp, in), "x_zero_point must have x's type");
                                             QSPEC_ERROR_IF(in == DType::I32 && zp != 0,
                                                           "dequantizing int32 has no zero point (must be 0)");
                                           })});
QSPEC_REGISTER_REF_OP({.op = "dequantize",
                       .convention = "xnnpack.convert",
                       .fn = dequantize_op({DType::I8, DType::U8}, "xnnpack.convert",
                                           [](DType in, const Int& zp, std::uint32_t scale) {
                                             const std::uint32_t e = (scale >> 23) & 0xffu;
                                             QSPEC_ERROR_IF((scale >> 31) != 0 || e == 0 || e == 0xffu,
                                                           "scale must be finite, normalized, and positive");
                                             QSPEC_ERROR_IF(!fits(zp, in), "zero_point must fit the input type");
                                           })});
QSPEC_REGISTER_REF_OP({.op = "dequantize",
                       .convention = "pytorch.dequantize",
                       .fn = dequantize_op({DType::I8, DType::U8, DType::I32}, "pytorch.dequantize",
                                           [](DType in, const Int& zp, std::uint32_t) {
                                             QSPEC_ERROR_IF(!fits(zp, in), "zero_point is out of range (checkZeroPoint)");
                                           })});

// ---- op "requantize" (real-valued scale vocabulary) ----

QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "xnnpack.fp32",
                       .fn = requantize_op(ref::xnnpack_fp32_requantize, {DType::I8, DType::U8}, "xnnpack.fp32")});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "onednn.fp32",
                       .fn = requantize_op(ref::onednn_fp32_requantize, {DType::I8, DType::U8}, "onednn.fp32")});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "pytorch.requantize_from_int",
                       .fn = requantize_op(ref::pytorch_requantize_from_int, {DType::I8, DType::U8, DType::I32},
                                           "pytorch.requantize_from_int")});

// Diagnostic: the exact real product. With attribute "scale" it is x * scale; with TVM / Glow's
// input_scale / output_scale / input_zero_point it is (x - input_zero_point) * in / out, exactly.
const bool kExactRequantizeRegistered = [] {
  for (ref::Rounding mode : ref::kAllRoundings) {
    const std::string id(ref::clause_id(mode));
    const std::string conv = "fp32.exact." + id.substr(id.find('.') + 1);
    register_op({.op = "requantize",
                 .convention = conv,
                 .fn =
                     [mode](const Attrs& attrs, const std::vector<Tensor>& inputs) {
                       const Tensor& x = input_x(inputs);
                       if (is_float(x.dtype)) throw JsonValueError("input x must be an integer tensor");
                       const DType out = out_dtype(attrs);
                       const Int zp(attr_int(attrs, "output_zero_point"));
                       Tensor y{"y", out, x.shape, {}};
                       if (has_attr(attrs, "scale")) {
                         const std::uint32_t s = attr_f32(attrs, "scale");
                         for (auto v : x.data)
                           y.data.push_back(static_cast<std::int64_t>(ref::exact_requantize(Int(v), s, zp, out, mode)));
                       } else {
                         const std::uint32_t in_s = attr_f32(attrs, "input_scale"), out_s = attr_f32(attrs, "output_scale");
                         const Int in_zp(attr_int(attrs, "input_zero_point"));
                         QSPEC_REQUIRE(ref::float_is_finite(in_s, ref::kBinary32) && ref::float_is_finite(out_s, ref::kBinary32) &&
                                          ref::f32_value(out_s) != 0,
                                      "fp32.exact: finite scales, nonzero output scale");
                         const ref::Rat m = ref::f32_value(in_s) / ref::f32_value(out_s);
                         for (auto v : x.data)
                           y.data.push_back(static_cast<std::int64_t>(
                               ref::saturate(ref::round(ref::Rat(Int(v) - in_zp) * m, mode) + zp, out)));
                       }
                       return std::vector<Tensor>{y};
                     }});
  }
  return true;
}();

// ---- per channel ----

QSPEC_REGISTER_REF_OP({.op = "quantize_per_channel",
                       .convention = "onnx.quantize_linear",
                       .fn = quantize_per_channel_op(ref::onnx_quantize_linear,
                                                     {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32},
                                                     "onnx.quantize_linear")});
QSPEC_REGISTER_REF_OP({.op = "quantize_per_channel",
                       .convention = "pytorch.quantize_per_channel",
                       .fn = quantize_per_channel_op(ref::pytorch_quantize_per_tensor, {DType::I8, DType::U8, DType::I32},
                                                     "pytorch.quantize_per_channel")});

QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "xnnpack.fp32",
                       .fn = [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
                         const Tensor& x = input_x(inputs);
                         if (is_float(x.dtype)) throw JsonValueError("input x must be an integer tensor");
                         const DType out = out_dtype(attrs);
                         require_dtypes(out, {DType::I8, DType::U8}, "xnnpack.fp32");
                         const auto scales = attr_f32_array(attrs, "scales");
                         const std::size_t axis = channel_axis(attrs, x, scales.size());
                         const Int zp(attr_int(attrs, "output_zero_point"));
                         // Operator creation checks every channel before any element is computed.
                         for (std::uint32_t s : scales) ref::xnnpack_fp32_requantize(Int(0), s, zp, out);
                         Tensor y{"y", out, x.shape, {}};
                         for (std::size_t i = 0; i < x.data.size(); ++i)
                           y.data.push_back(static_cast<std::int64_t>(
                               ref::xnnpack_fp32_requantize(Int(x.data[i]), scales[channel_of(x, i, axis)], zp, out)));
                         return std::vector<Tensor>{y};
                       }});

}  // namespace
}  // namespace qspec::refops
