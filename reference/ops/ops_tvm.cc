// Reference ops for TVM QNN: quantize, dequantize, requantize (UPWARD / TONEAREST), per-axis forms,
// fixed_point_multiply.
//
// Tensors and attributes: spec/tvm_qnn.md and spec/catalogue/{quantize,dequantize,requantize,
// quantize_per_channel,requantize_per_channel,fixed_point_multiply}.json, read through the typed
// keys. TVM reads any out_dtype name and rejects the ones it does not take by an ERROR_IF; its
// axis may be negative (counted from the back), as in RequantizeRel.
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/tvm_qnn.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;

// TVM's axis: negative counts from the back; ERROR_IF out of range or the per-channel arrays'
// length differs from the axis size (QuantizeRel / RequantizeRel).
template <class Op>
std::size_t tvm_axis(const Attrs& attrs, const Tensor& x, std::size_t channels) {
  std::int64_t axis = attr::get(attrs, Op::attr::axis);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (axis < 0) axis += rank;
  QSPEC_ERROR_IF(axis < 0 || axis >= rank, "tvm: axis is out of range");
  QSPEC_ERROR_IF(static_cast<std::size_t>(x.shape[static_cast<std::size_t>(axis)]) != channels,
                 "tvm: per-axis scales / zero points must have shape[axis] entries");
  return static_cast<std::size_t>(axis);
}

// The "rounding" attribute, if present, must be one TVM knows (ERROR_IF) and match the
// convention (otherwise the convention does not apply to this test).
template <class Op>
void check_rounding(const Attrs& attrs, ref::TvmRounding rounding) {
  using Is = typename Op::attr::rounding_is;
  if (!attr::has(attrs, Op::attr::rounding)) return;
  const std::string_view r = attr::get(attrs, Op::attr::rounding);
  QSPEC_ERROR_IF(r != Is::UPWARD && r != Is::TONEAREST,
                 "tvm.requantize: rounding must be UPWARD or TONEAREST, not " + std::string(r));
  const bool upward = rounding == ref::TvmRounding::Upward;
  if ((r == Is::UPWARD) != upward)
    throw JsonValueError("rounding attribute " + std::string(r) + " selects the other convention");
}

std::vector<Tensor> quantize_fn(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::quantize;
  const Tensor& x = input(inputs, Op::in::x);
  if (x.dtype != DType::F32) throw JsonValueError("tvm.quantize: input x must be float32");
  const DType out = attr::get(attrs, Op::attr::out_dtype);
  const std::uint32_t scale = attr::get(attrs, Op::attr::scale);
  const Int zp(attr::get(attrs, Op::attr::zero_point));
  Tensor y{std::string(Op::out::y), out, x.shape, {}};
  for (auto v : x.data)
    y.data.push_back(static_cast<std::int64_t>(ref::tvm_quantize(static_cast<std::uint32_t>(v), scale, zp, out)));
  return {y};
}

std::vector<Tensor> quantize_per_channel_fn(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::quantize_per_channel;
  const Tensor& x = input(inputs, Op::in::x);
  if (x.dtype != DType::F32) throw JsonValueError("tvm.quantize: input x must be float32");
  const DType out = attr::get(attrs, Op::attr::out_dtype);
  const auto scales = attr::get(attrs, Op::attr::scales);
  const auto zps = attr::get(attrs, Op::attr::zero_points);
  QSPEC_ERROR_IF(scales.size() != zps.size(), "tvm.quantize: scale and zero point counts differ");
  const std::size_t axis = tvm_axis<Op>(attrs, x, scales.size());
  Tensor y{std::string(Op::out::y), out, x.shape, {}};
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    const std::size_t c = channel_of(x, i, axis);
    y.data.push_back(static_cast<std::int64_t>(
        ref::tvm_quantize(static_cast<std::uint32_t>(x.data[i]), scales[c], Int(zps[c]), out)));
  }
  return {y};
}

std::vector<Tensor> dequantize_fn(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::dequantize;
  const Tensor& x = input(inputs, Op::in::x);
  if (is_float(x.dtype)) throw JsonValueError("tvm.dequantize: input x must be an integer tensor");
  const std::uint32_t scale = attr::get(attrs, Op::attr::scale);
  const Int zp(attr::get(attrs, Op::attr::zero_point));
  Tensor y{std::string(Op::out::y), DType::F32, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::tvm_dequantize(Int(v), x.dtype, zp, scale)));
  return {y};
}

OpFn requantize_fn(ref::TvmRounding rounding) {
  using Op = cat::requantize;
  return [rounding](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Op::in::x);
    if (is_float(x.dtype)) throw JsonValueError("tvm.requantize: input x must be an integer tensor");
    check_rounding<Op>(attrs, rounding);
    const DType out = attr::get(attrs, Op::attr::out_dtype);
    const std::uint32_t in_s = attr::get(attrs, Op::attr::input_scale);
    const std::uint32_t out_s = attr::get(attrs, Op::attr::output_scale);
    const Int in_zp(attr::get(attrs, Op::attr::input_zero_point));
    const Int out_zp(attr::get(attrs, Op::attr::output_zero_point));
    Tensor y{std::string(Op::out::y), out, x.shape, {}};
    for (auto v : x.data)
      y.data.push_back(
          static_cast<std::int64_t>(ref::tvm_requantize(Int(v), in_s, in_zp, out_s, out_zp, rounding, out)));
    return std::vector<Tensor>{y};
  };
}

OpFn requantize_per_channel_fn(ref::TvmRounding rounding) {
  using Op = cat::requantize_per_channel;
  return [rounding](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Op::in::x);
    if (is_float(x.dtype)) throw JsonValueError("tvm.requantize: input x must be an integer tensor");
    check_rounding<Op>(attrs, rounding);
    const DType out = attr::get(attrs, Op::attr::out_dtype);
    const auto in_scales = attr::get(attrs, Op::attr::input_scales);
    const std::vector<std::int64_t> in_zps =
        attr::has(attrs, Op::attr::input_zero_points)
            ? attr::get(attrs, Op::attr::input_zero_points)
            : std::vector<std::int64_t>(in_scales.size(), attr::get(attrs, Op::attr::input_zero_point));
    QSPEC_ERROR_IF(in_zps.size() != in_scales.size(), "tvm.requantize: input scale and zero point counts differ");
    const std::size_t axis = tvm_axis<Op>(attrs, x, in_scales.size());
    const std::uint32_t out_s = attr::get(attrs, Op::attr::output_scale);
    const Int out_zp(attr::get(attrs, Op::attr::output_zero_point));
    Tensor y{std::string(Op::out::y), out, x.shape, {}};
    for (std::size_t i = 0; i < x.data.size(); ++i) {
      const std::size_t c = channel_of(x, i, axis);
      y.data.push_back(static_cast<std::int64_t>(ref::tvm_requantize(Int(x.data[i]), in_scales[c], Int(in_zps[c]),
                                                                     out_s, out_zp, rounding, out, /*per_axis=*/true)));
    }
    return std::vector<Tensor>{y};
  };
}

QSPEC_REGISTER_REF_OP(registration<cat::quantize>(cat::quantize::conv::tvm_quantize, quantize_fn));
QSPEC_REGISTER_REF_OP(registration<cat::quantize_per_channel>(cat::quantize_per_channel::conv::tvm_quantize,
                                                              quantize_per_channel_fn));
QSPEC_REGISTER_REF_OP(registration<cat::dequantize>(cat::dequantize::conv::tvm_dequantize, dequantize_fn));
QSPEC_REGISTER_REF_OP(registration<cat::requantize>(cat::requantize::conv::tvm_upward,
                                                    requantize_fn(ref::TvmRounding::Upward)));
QSPEC_REGISTER_REF_OP(registration<cat::requantize>(cat::requantize::conv::tvm_tonearest,
                                                    requantize_fn(ref::TvmRounding::ToNearest)));
QSPEC_REGISTER_REF_OP(registration<cat::requantize_per_channel>(cat::requantize_per_channel::conv::tvm_upward,
                                                                requantize_per_channel_fn(ref::TvmRounding::Upward)));
QSPEC_REGISTER_REF_OP(registration<cat::requantize_per_channel>(
    cat::requantize_per_channel::conv::tvm_tonearest, requantize_per_channel_fn(ref::TvmRounding::ToNearest)));
QSPEC_REGISTER_REF_OP(registration<cat::fixed_point_multiply>(
    cat::fixed_point_multiply::conv::tvm, [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
      using Op = cat::fixed_point_multiply;
      const Tensor& x = input(inputs, Op::in::x);
      if (x.dtype != DType::I32) throw JsonValueError("fixed_point_multiply: input x must be int32");
      const Int m(attr::get(attrs, Op::attr::multiplier));
      const int s = static_cast<int>(attr::get(attrs, Op::attr::shift));
      Tensor y{std::string(Op::out::y), DType::I32, x.shape, {}};
      for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::tvm_fixed_point_multiply(Int(v), m, s)));
      return std::vector<Tensor>{y};
    }));

}  // namespace
}  // namespace qspec::refops
