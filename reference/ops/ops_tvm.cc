// Reference ops for TVM QNN: quantize, dequantize, requantize (UPWARD / TONEAREST), per-axis forms, fixed_point_multiply.
//
// Vocabulary (spec/tvm_qnn.md, shared with spec/float_conventions.md):
//   op "quantize" / "dequantize": attrs scale (float32 bits), zero_point, out_dtype (quantize)
//   op "requantize" "tvm.upward" / "tvm.tonearest": attrs input_scale, input_zero_point,
//      output_scale, output_zero_point, out_dtype, optional rounding ("UPWARD" / "TONEAREST")
//   op "quantize_per_channel" "tvm.quantize": attrs axis, scales [f32 bits], zero_points, out_dtype
//   op "requantize_per_channel" "tvm.upward" / "tvm.tonearest": attrs axis, input_scales
//      [f32 bits], input_zero_points [int] (or a scalar input_zero_point), output_scale,
//      output_zero_point, out_dtype, optional rounding
//   op "fixed_point_multiply" "tvm": attrs multiplier, shift; int32 in and out
// TVM's axis may be negative (counted from the back), as in RequantizeRel.
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/core/json_values.h"
#include "qspec/ref/tvm_qnn.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;

const Tensor& input_x(const std::vector<Tensor>& inputs) {
  for (const auto& in : inputs)
    if (in.name == "x") return in;
  throw JsonValueError("missing input tensor 'x'");
}

// A dtype name TVM may reject (ERROR_IF in the reference): only unknown names "do not apply".
DType out_dtype(const Attrs& attrs) {
  const std::string name = attr_str(attrs, "out_dtype");
  const auto t = dtype_from_name(name);
  if (!t) throw JsonValueError("attribute 'out_dtype': unknown dtype " + name);
  return *t;
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

// TVM's axis: negative counts from the back; ERROR_IF out of range or the per-channel arrays'
// length differs from the axis size (QuantizeRel / RequantizeRel).
std::size_t tvm_axis(const Attrs& attrs, const Tensor& x, std::size_t channels) {
  std::int64_t axis = attr_int(attrs, "axis");
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (axis < 0) axis += rank;
  QSPEC_ERROR_IF(axis < 0 || axis >= rank, "tvm: axis is out of range");
  QSPEC_ERROR_IF(static_cast<std::size_t>(x.shape[static_cast<std::size_t>(axis)]) != channels,
                "tvm: per-axis scales / zero points must have shape[axis] entries");
  return static_cast<std::size_t>(axis);
}
std::size_t channel_of(const Tensor& x, std::size_t i, std::size_t axis) {
  std::size_t inner = 1;
  for (std::size_t d = axis + 1; d < x.shape.size(); ++d) inner *= static_cast<std::size_t>(x.shape[d]);
  return (i / inner) % static_cast<std::size_t>(x.shape[axis]);
}

// The "rounding" attribute, if present, must be one TVM knows (ERROR_IF) and match the
// convention (otherwise the convention does not apply to this test).
void check_rounding(const Attrs& attrs, ref::TvmRounding rounding) {
  if (!has_attr(attrs, "rounding")) return;
  const std::string r = attr_str(attrs, "rounding");
  QSPEC_ERROR_IF(r != "UPWARD" && r != "TONEAREST", "tvm.requantize: rounding must be UPWARD or TONEAREST, not " + r);
  const bool upward = rounding == ref::TvmRounding::Upward;
  if ((r == "UPWARD") != upward) throw JsonValueError("rounding attribute " + r + " selects the other convention");
}

std::vector<Tensor> quantize_fn(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  const Tensor& x = input_x(inputs);
  if (x.dtype != DType::F32) throw JsonValueError("tvm.quantize: input x must be float32");
  const DType out = out_dtype(attrs);
  const std::uint32_t scale = attr_f32(attrs, "scale");
  const Int zp(attr_int(attrs, "zero_point"));
  Tensor y{"y", out, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::tvm_quantize(static_cast<std::uint32_t>(v), scale, zp, out)));
  return {y};
}

std::vector<Tensor> quantize_per_channel_fn(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  const Tensor& x = input_x(inputs);
  if (x.dtype != DType::F32) throw JsonValueError("tvm.quantize: input x must be float32");
  const DType out = out_dtype(attrs);
  const auto scales = attr_f32_array(attrs, "scales");
  const auto zps = attr_int_array(attrs, "zero_points");
  QSPEC_ERROR_IF(scales.size() != zps.size(), "tvm.quantize: scale and zero point counts differ");
  const std::size_t axis = tvm_axis(attrs, x, scales.size());
  Tensor y{"y", out, x.shape, {}};
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    const std::size_t c = channel_of(x, i, axis);
    y.data.push_back(static_cast<std::int64_t>(
        ref::tvm_quantize(static_cast<std::uint32_t>(x.data[i]), scales[c], Int(zps[c]), out)));
  }
  return {y};
}

std::vector<Tensor> dequantize_fn(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  const Tensor& x = input_x(inputs);
  if (is_float(x.dtype)) throw JsonValueError("tvm.dequantize: input x must be an integer tensor");
  const std::uint32_t scale = attr_f32(attrs, "scale");
  const Int zp(attr_int(attrs, "zero_point"));
  Tensor y{"y", DType::F32, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::tvm_dequantize(Int(v), x.dtype, zp, scale)));
  return {y};
}

OpFn requantize_fn(ref::TvmRounding rounding) {
  return [rounding](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input_x(inputs);
    if (is_float(x.dtype)) throw JsonValueError("tvm.requantize: input x must be an integer tensor");
    check_rounding(attrs, rounding);
    const DType out = out_dtype(attrs);
    const std::uint32_t in_s = attr_f32(attrs, "input_scale"), out_s = attr_f32(attrs, "output_scale");
    const Int in_zp(attr_int(attrs, "input_zero_point")), out_zp(attr_int(attrs, "output_zero_point"));
    Tensor y{"y", out, x.shape, {}};
    for (auto v : x.data)
      y.data.push_back(
          static_cast<std::int64_t>(ref::tvm_requantize(Int(v), in_s, in_zp, out_s, out_zp, rounding, out)));
    return std::vector<Tensor>{y};
  };
}

OpFn requantize_per_channel_fn(ref::TvmRounding rounding) {
  return [rounding](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input_x(inputs);
    if (is_float(x.dtype)) throw JsonValueError("tvm.requantize: input x must be an integer tensor");
    check_rounding(attrs, rounding);
    const DType out = out_dtype(attrs);
    const auto in_scales = attr_f32_array(attrs, "input_scales");
    std::vector<std::int64_t> in_zps;
    if (has_attr(attrs, "input_zero_points"))
      in_zps = attr_int_array(attrs, "input_zero_points");
    else
      in_zps.assign(in_scales.size(), attr_int(attrs, "input_zero_point"));
    QSPEC_ERROR_IF(in_zps.size() != in_scales.size(), "tvm.requantize: input scale and zero point counts differ");
    const std::size_t axis = tvm_axis(attrs, x, in_scales.size());
    const std::uint32_t out_s = attr_f32(attrs, "output_scale");
    const Int out_zp(attr_int(attrs, "output_zero_point"));
    Tensor y{"y", out, x.shape, {}};
    for (std::size_t i = 0; i < x.data.size(); ++i) {
      const std::size_t c = channel_of(x, i, axis);
      y.data.push_back(static_cast<std::int64_t>(ref::tvm_requantize(Int(x.data[i]), in_scales[c], Int(in_zps[c]), out_s,
                                                                     out_zp, rounding, out, /*per_axis=*/true)));
    }
    return std::vector<Tensor>{y};
  };
}

QSPEC_REGISTER_REF_OP({.op = "quantize",
                       .convention = "tvm.quantize",
                       .fn = quantize_fn});
QSPEC_REGISTER_REF_OP({.op = "quantize_per_channel",
                       .convention = "tvm.quantize",
                       .fn = quantize_per_channel_fn});
QSPEC_REGISTER_REF_OP({.op = "dequantize",
                       .convention = "tvm.dequantize",
                       .fn = dequantize_fn});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "tvm.upward",
                       .fn = requantize_fn(ref::TvmRounding::Upward)});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "tvm.tonearest",
                       .fn = requantize_fn(ref::TvmRounding::ToNearest)});
QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "tvm.upward",
                       .fn = requantize_per_channel_fn(ref::TvmRounding::Upward)});
QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "tvm.tonearest",
                       .fn = requantize_per_channel_fn(ref::TvmRounding::ToNearest)});
QSPEC_REGISTER_REF_OP({.op = "fixed_point_multiply",
                       .convention = "tvm",
                       .fn = [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
                         const Tensor& x = input_x(inputs);
                         if (x.dtype != DType::I32) throw JsonValueError("fixed_point_multiply: input x must be int32");
                         const Int m(attr_int(attrs, "multiplier"));
                         const std::int64_t s = attr_int(attrs, "shift");
                         if (s < -64 || s > 64) throw JsonValueError("attribute 'shift': out of the modelled range");
                         Tensor y{"y", DType::I32, x.shape, {}};
                         for (auto v : x.data)
                           y.data.push_back(static_cast<std::int64_t>(ref::tvm_fixed_point_multiply(Int(v), m, static_cast<int>(s))));
                         return std::vector<Tensor>{y};
                       }});

}  // namespace
}  // namespace qspec::refops
