// Reference ops for the float-based library conventions: XNNPACK, oneDNN, ONNX, PyTorch (+ exact yardsticks).
//
// The ops' tensors and attributes (spec/float_conventions.md; spec/catalogue/{quantize,dequantize,
// requantize,quantize_per_channel,requantize_per_channel}.json) are read through the catalogue's
// typed keys. Diagnostic-only: quantize "float.exact.<rounding>" and requantize "fp32.exact.<rounding>".
// An attribute or dtype a convention cannot take throws JsonValueError ("does not apply");
// ERROR_IF preconditions throw qspec::ref::ErrorIf from the reference functions.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/armnn_quantize.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;
using Quantize = cat::quantize;
using Dequantize = cat::dequantize;
using Requantize = cat::requantize;

// The integer out_dtype of op `Op`, one of `allowed` for convention `conv`: a float dtype, or
// one the convention does not take, does not apply.
template <class Op>
DType out_dtype(const Attrs& attrs, const std::vector<DType>& allowed, std::string_view conv) {
  const DType t = attr::get(attrs, Op::attr::out_dtype);
  if (is_float(t))
    throw JsonValueError("attribute '" + std::string(Op::attr::out_dtype.name) +
                         "': not an integer dtype: " + std::string(dtype_name(t)));
  for (DType a : allowed)
    if (a == t) return t;
  throw JsonValueError(std::string(conv) + " does not apply to out_dtype " + std::string(dtype_name(t)));
}

// The per-channel axis: ERROR_IF it does not index a dimension of x, or the per-channel arrays
// do not have x.shape[axis] entries (the type checks of TVM / ONNX / PyTorch / XNNPACK).
template <class Op>
std::size_t channel_axis(const Attrs& attrs, const Tensor& x, std::size_t channels) {
  const std::int64_t axis = attr::get(attrs, Op::attr::axis);
  QSPEC_ERROR_IF(axis < 0 || axis >= static_cast<std::int64_t>(x.shape.size()), "axis must index a dimension of x");
  QSPEC_ERROR_IF(static_cast<std::size_t>(x.shape[static_cast<std::size_t>(axis)]) != channels,
                 "per-channel scales / zero points must have shape[axis] entries");
  return static_cast<std::size_t>(axis);
}

using QuantizeFn = std::function<Int(std::uint32_t x, std::uint32_t scale, const Int& zp, ref::DType out)>;

OpFn quantize_op(QuantizeFn f, std::vector<DType> allowed, std::string_view conv) {
  return [f, allowed, conv](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Quantize::in::x);
    if (x.dtype != DType::F32) throw JsonValueError(std::string(conv) + ": input x must be float32");
    const DType out = out_dtype<Quantize>(attrs, allowed, conv);
    const std::uint32_t scale = attr::get(attrs, Quantize::attr::scale);
    const Int zp(attr::get(attrs, Quantize::attr::zero_point));
    Tensor y{std::string(Quantize::out::y), out, x.shape, {}};
    for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(f(static_cast<std::uint32_t>(v), scale, zp, out)));
    return std::vector<Tensor>{y};
  };
}

OpFn quantize_per_channel_op(QuantizeFn f, std::vector<DType> allowed, std::string_view conv) {
  using Op = cat::quantize_per_channel;
  return [f, allowed, conv](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Op::in::x);
    if (x.dtype != DType::F32) throw JsonValueError(std::string(conv) + ": input x must be float32");
    const DType out = out_dtype<Op>(attrs, allowed, conv);
    const auto scales = attr::get(attrs, Op::attr::scales);
    const auto zps = attr::get(attrs, Op::attr::zero_points);
    QSPEC_ERROR_IF(scales.size() != zps.size(), "scales and zero_points must have the same length");
    const std::size_t axis = channel_axis<Op>(attrs, x, scales.size());
    Tensor y{std::string(Op::out::y), out, x.shape, {}};
    for (std::size_t i = 0; i < x.data.size(); ++i) {
      const std::size_t c = channel_of(x, i, axis);
      y.data.push_back(
          static_cast<std::int64_t>(f(static_cast<std::uint32_t>(x.data[i]), scales[c], Int(zps[c]), out)));
    }
    return std::vector<Tensor>{y};
  };
}

using RequantizeFn = std::function<Int(const Int& x, std::uint32_t scale, const Int& zp, ref::DType out)>;

OpFn requantize_op(RequantizeFn f, std::vector<DType> allowed, std::string_view conv) {
  return [f, allowed, conv](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Requantize::in::x);
    if (is_float(x.dtype)) throw JsonValueError(std::string(conv) + ": input x must be an integer tensor");
    const DType out = out_dtype<Requantize>(attrs, allowed, conv);
    const std::uint32_t scale = attr::get(attrs, Requantize::attr::scale);
    const Int zp(attr::get(attrs, Requantize::attr::output_zero_point));
    Tensor y{std::string(Requantize::out::y), out, x.shape, {}};
    for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(f(Int(v), scale, zp, out)));
    return std::vector<Tensor>{y};
  };
}

// The output (or input) dtypes a convention takes.
const std::vector<DType> kI8U8 = {DType::I8, DType::U8};
const std::vector<DType> kI8U8I32 = {DType::I8, DType::U8, DType::I32};
const std::vector<DType> kI8ToI32 = {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32};
const std::vector<DType> kIntegerTypes = {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32, DType::I64};

// ---- op "quantize" ----

QSPEC_REGISTER_REF_OP(registration<Quantize>(Quantize::conv::onnx_quantize_linear,
                                             quantize_op(ref::onnx_quantize_linear, kI8ToI32,
                                                         Quantize::conv::onnx_quantize_linear)));
QSPEC_REGISTER_REF_OP(registration<Quantize>(Quantize::conv::xnnpack_convert,
                                             quantize_op(ref::xnnpack_convert_quantize, kI8U8,
                                                         Quantize::conv::xnnpack_convert)));
QSPEC_REGISTER_REF_OP(registration<Quantize>(Quantize::conv::onednn_reorder,
                                             quantize_op(ref::onednn_reorder_quantize, kI8U8,
                                                         Quantize::conv::onednn_reorder)));
QSPEC_REGISTER_REF_OP(registration<Quantize>(Quantize::conv::pytorch_quantize_per_tensor,
                                             quantize_op(ref::pytorch_quantize_per_tensor, kI8U8I32,
                                                         Quantize::conv::pytorch_quantize_per_tensor)));

// The diagnostic conventions named after each of the seven roundings.
struct ExactConvention {
  ref::Rounding mode;
  std::string_view quantize, requantize;
};
const ExactConvention kExact[] = {
    {ref::Rounding::Floor, Quantize::conv::float_exact_floor, Requantize::conv::fp32_exact_floor},
    {ref::Rounding::Ceil, Quantize::conv::float_exact_ceil, Requantize::conv::fp32_exact_ceil},
    {ref::Rounding::Trunc, Quantize::conv::float_exact_trunc, Requantize::conv::fp32_exact_trunc},
    {ref::Rounding::HalfUp, Quantize::conv::float_exact_half_up, Requantize::conv::fp32_exact_half_up},
    {ref::Rounding::HalfDown, Quantize::conv::float_exact_half_down, Requantize::conv::fp32_exact_half_down},
    {ref::Rounding::HalfAway, Quantize::conv::float_exact_half_away, Requantize::conv::fp32_exact_half_away},
    {ref::Rounding::HalfEven, Quantize::conv::float_exact_half_even, Requantize::conv::fp32_exact_half_even},
};

// Diagnostic yardsticks: the exact quotient under each of the seven roundings.
const bool kExactQuantizeRegistered = [] {
  for (const auto& e : kExact) {
    const ref::Rounding mode = e.mode;
    register_op(registration<Quantize>(
        e.quantize, quantize_op([mode](std::uint32_t x, std::uint32_t s, const Int& zp,
                                       ref::DType out) { return ref::exact_quantize(x, s, zp, out, mode); },
                                kI8ToI32, e.quantize)));
  }
  return true;
}();

// ---- op "dequantize" ----

OpFn dequantize_op(std::vector<DType> allowed, std::string_view conv,
                   std::function<void(DType in, const Int& zp, std::uint32_t scale)> checks) {
  return [allowed, conv, checks](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Dequantize::in::x);
    bool ok = false;
    for (DType a : allowed) ok = ok || a == x.dtype;
    if (!ok)
      throw JsonValueError(std::string(conv) + " does not apply to input dtype " + std::string(dtype_name(x.dtype)));
    const std::uint32_t scale = attr::get(attrs, Dequantize::attr::scale);
    const Int zp(attr::get(attrs, Dequantize::attr::zero_point));
    checks(x.dtype, zp, scale);
    Tensor y{std::string(Dequantize::out::y), DType::F32, x.shape, {}};
    for (auto v : x.data) {
      QSPEC_REQUIRE(Int(v) - zp >= -ref::pow2(31) && Int(v) - zp < ref::pow2(31),
                    std::string(conv) + ": q - zero_point fits int32");
      y.data.push_back(static_cast<std::int64_t>(ref::float_dequantize(Int(v), zp, scale)));
    }
    return std::vector<Tensor>{y};
  };
}

bool fits(const Int& v, DType t) { return v >= dtype_min(t) && v <= dtype_max(t); }

QSPEC_REGISTER_REF_OP(registration<Dequantize>(
    Dequantize::conv::onnx_dequantize_linear,
    dequantize_op(kI8U8I32, Dequantize::conv::onnx_dequantize_linear, [](DType in, const Int& zp, std::uint32_t) {
      QSPEC_ERROR_IF(!fits(zp, in), "x_zero_point must have x's type");
      QSPEC_ERROR_IF(in == DType::I32 && zp != 0, "dequantizing int32 has no zero point (must be 0)");
    })));
QSPEC_REGISTER_REF_OP(registration<Dequantize>(
    Dequantize::conv::xnnpack_convert,
    dequantize_op(kI8U8, Dequantize::conv::xnnpack_convert, [](DType in, const Int& zp, std::uint32_t scale) {
      const std::uint32_t e = (scale >> 23) & 0xffu;
      QSPEC_ERROR_IF((scale >> 31) != 0 || e == 0 || e == 0xffu, "scale must be finite, normalized, and positive");
      QSPEC_ERROR_IF(!fits(zp, in), "zero_point must fit the input type");
    })));
QSPEC_REGISTER_REF_OP(registration<Dequantize>(
    Dequantize::conv::pytorch_dequantize,
    dequantize_op(kI8U8I32, Dequantize::conv::pytorch_dequantize, [](DType in, const Int& zp, std::uint32_t) {
      QSPEC_ERROR_IF(!fits(zp, in), "zero_point is out of range (checkZeroPoint)");
    })));

// ---- op "requantize" (real-valued scale vocabulary) ----

QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::xnnpack_fp32,
                                               requantize_op(ref::xnnpack_fp32_requantize, kI8U8,
                                                             Requantize::conv::xnnpack_fp32)));
QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::onednn_fp32,
                                               requantize_op(ref::onednn_fp32_requantize, kI8U8,
                                                             Requantize::conv::onednn_fp32)));
QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::pytorch_requantize_from_int,
                                               requantize_op(ref::pytorch_requantize_from_int, kI8U8I32,
                                                             Requantize::conv::pytorch_requantize_from_int)));

// Diagnostic: the exact real product. With attribute "scale" it is x * scale; with TVM / Glow's
// input_scale / output_scale / input_zero_point it is (x - input_zero_point) * in / out, exactly.
OpFn exact_requantize_op(ref::Rounding mode, std::string_view conv) {
  return [mode, conv](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Requantize::in::x);
    if (is_float(x.dtype)) throw JsonValueError("input x must be an integer tensor");
    const DType out = out_dtype<Requantize>(attrs, kIntegerTypes, conv);
    const Int zp(attr::get(attrs, Requantize::attr::output_zero_point));
    Tensor y{std::string(Requantize::out::y), out, x.shape, {}};
    if (attr::has(attrs, Requantize::attr::scale)) {
      const std::uint32_t s = attr::get(attrs, Requantize::attr::scale);
      for (auto v : x.data)
        y.data.push_back(static_cast<std::int64_t>(ref::exact_requantize(Int(v), s, zp, out, mode)));
    } else {
      const std::uint32_t in_s = attr::get(attrs, Requantize::attr::input_scale);
      const std::uint32_t out_s = attr::get(attrs, Requantize::attr::output_scale);
      const Int in_zp(attr::get(attrs, Requantize::attr::input_zero_point));
      QSPEC_REQUIRE(ref::float_is_finite(in_s, ref::kBinary32) && ref::float_is_finite(out_s, ref::kBinary32) &&
                        ref::f32_value(out_s) != 0,
                    "fp32.exact: finite scales, nonzero output scale");
      const ref::Rat m = ref::f32_value(in_s) / ref::f32_value(out_s);
      for (auto v : x.data)
        y.data.push_back(
            static_cast<std::int64_t>(ref::saturate(ref::round(ref::Rat(Int(v) - in_zp) * m, mode) + zp, out)));
    }
    return std::vector<Tensor>{y};
  };
}

const bool kExactRequantizeRegistered = [] {
  for (const auto& e : kExact)
    register_op(registration<Requantize>(e.requantize, exact_requantize_op(e.mode, e.requantize)));
  return true;
}();

// ---- per channel ----

QSPEC_REGISTER_REF_OP(registration<cat::quantize_per_channel>(
    cat::quantize_per_channel::conv::onnx_quantize_linear,
    quantize_per_channel_op(ref::onnx_quantize_linear, kI8ToI32,
                            cat::quantize_per_channel::conv::onnx_quantize_linear)));
QSPEC_REGISTER_REF_OP(registration<cat::quantize_per_channel>(
    cat::quantize_per_channel::conv::pytorch_quantize_per_channel,
    quantize_per_channel_op(ref::pytorch_quantize_per_tensor, kI8U8I32,
                            cat::quantize_per_channel::conv::pytorch_quantize_per_channel)));

QSPEC_REGISTER_REF_OP(registration<cat::requantize_per_channel>(
    cat::requantize_per_channel::conv::xnnpack_fp32, [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
      using Op = cat::requantize_per_channel;
      const Tensor& x = input(inputs, Op::in::x);
      if (is_float(x.dtype)) throw JsonValueError("input x must be an integer tensor");
      const DType out = out_dtype<Op>(attrs, kI8U8, Op::conv::xnnpack_fp32);
      const auto scales = attr::get(attrs, Op::attr::scales);
      const std::size_t axis = channel_axis<Op>(attrs, x, scales.size());
      const Int zp(attr::get(attrs, Op::attr::output_zero_point));
      // Operator creation checks every channel before any element is computed.
      for (std::uint32_t s : scales) ref::xnnpack_fp32_requantize(Int(0), s, zp, out);
      Tensor y{std::string(Op::out::y), out, x.shape, {}};
      for (std::size_t i = 0; i < x.data.size(); ++i)
        y.data.push_back(static_cast<std::int64_t>(
            ref::xnnpack_fp32_requantize(Int(x.data[i]), scales[channel_of(x, i, axis)], zp, out)));
      return std::vector<Tensor>{y};
    }));

// ---- Arm NN 20.08 CpuRef Quantize / Dequantize (spec/operators_qlinear_armnn.md) ----

QSPEC_REGISTER_REF_OP(registration<Quantize>(Quantize::conv::armnn_cpuref, quantize_op(ref::armnn_quantize_layer, kI8U8,
                                                                                       Quantize::conv::armnn_cpuref)));
// float.dequantize with any int32 offset (Arm NN checks none); armnn::Dequantize asserts scale != 0.
QSPEC_REGISTER_REF_OP(registration<Dequantize>(
    Dequantize::conv::armnn_cpuref,
    dequantize_op(kI8U8, Dequantize::conv::armnn_cpuref, [](DType, const Int&, std::uint32_t scale) {
      QSPEC_REQUIRE(ref::float_is_finite(scale, ref::kBinary32) && ref::f32_value(scale) != 0,
                    "armnn.cpuref: a finite nonzero scale (ARMNN_ASSERT(scale != 0.f))");
    })));

}  // namespace
}  // namespace qspec::refops
