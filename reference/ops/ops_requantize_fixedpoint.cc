// Reference ops for Q31 fixed-point requantization: gemmlowp, TFLite, TOSA and the exact yardsticks.
//
// The ops' tensors and attributes (multiplier, shift in TFLite's sign convention, the legacy
// stage's result_*, ...) are in spec/catalogue/{requantize,requantize_per_channel,srdhm,rdbpot,
// quantize_multiplier}.json and read through their typed keys, which check the catalogue's domains.
// Missing or unreadable attributes throw JsonValueError ("this convention does not apply");
// ERROR_IF preconditions throw qspec::ref::ErrorIf.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;
using Requantize = cat::requantize;
using PerChannel = cat::requantize_per_channel;

// The output dtype of every Q31 convention: a narrower dtype is "does not apply", not an ERROR_IF.
template <class Op>
DType out_dtype(const Attrs& attrs) {
  const DType t = attr::get(attrs, Op::attr::out_dtype);
  if (!(t == DType::I8 || t == DType::U8 || t == DType::I16 || t == DType::I32))
    throw JsonValueError("attribute '" + std::string(Op::attr::out_dtype.name) +
                         "': expected int8, uint8, int16 or int32, got \"" + std::string(dtype_name(t)) + "\"");
  return t;
}

// Applies `f` to every element of x, producing the output `name` of dtype `out`.
Tensor map_elements(std::string_view name, const Tensor& x, DType out,
                    const std::function<Int(const Int&, std::size_t)>& f) {
  Tensor y{std::string(name), out, x.shape, {}};
  y.data.reserve(x.data.size());
  for (std::size_t i = 0; i < x.data.size(); ++i) y.data.push_back(static_cast<std::int64_t>(f(Int(x.data[i]), i)));
  return y;
}

// The channel axis of a per-channel op; not indexing x, or arrays of another length, do not apply.
std::size_t channel_axis(const Attrs& attrs, const Tensor& x, std::size_t channels) {
  const std::int64_t axis = attr::get(attrs, PerChannel::attr::axis);
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.shape.size()))
    throw JsonValueError("attribute '" + std::string(PerChannel::attr::axis.name) + "': must index a dimension of x");
  if (static_cast<std::size_t>(x.shape[static_cast<std::size_t>(axis)]) != channels)
    throw JsonValueError("per-channel attribute arrays must have shape[axis] entries");
  return static_cast<std::size_t>(axis);
}

// "attributes 'a' and 'b' must have equal length"
JsonValueError unequal_lengths(std::string_view a, std::string_view b) {
  return JsonValueError("attributes '" + std::string(a) + "' and '" + std::string(b) + "' must have equal length");
}

// ---- op "requantize" ----

using ScalarRequant = std::function<Int(const Int& x, const Int& m, int shift, const Int& zp, ref::DType out)>;

OpFn requantize_op(ScalarRequant f) {
  return [f](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Requantize::in::x, DType::I32);
    const Int m(attr::get(attrs, Requantize::attr::multiplier));
    const int shift = static_cast<int>(attr::get(attrs, Requantize::attr::shift));
    const Int zp(attr::get(attrs, Requantize::attr::output_zero_point));
    const DType out = out_dtype<Requantize>(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{
        map_elements(Requantize::out::y, x, out, [&](const Int& v, std::size_t) { return f(v, m, shift, zp, rout); })};
  };
}

OpFn requantize_per_channel_op(ScalarRequant f) {
  return [f](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, PerChannel::in::x, DType::I32);
    const auto ms = attr::get(attrs, PerChannel::attr::multiplier);
    const auto ss = attr::get(attrs, PerChannel::attr::shift);
    if (ms.size() != ss.size()) throw unequal_lengths(PerChannel::attr::multiplier.name, PerChannel::attr::shift.name);
    const std::vector<Int> m(ms.begin(), ms.end());
    const std::vector<int> s(ss.begin(), ss.end());
    const std::size_t axis = channel_axis(attrs, x, m.size());
    const Int zp(attr::get(attrs, PerChannel::attr::output_zero_point));
    const DType out = out_dtype<PerChannel>(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{map_elements(PerChannel::out::y, x, out, [&](const Int& v, std::size_t i) {
      const std::size_t c = channel_of(x, i, axis);
      return f(v, m[c], s[c], zp, rout);
    })};
  };
}

// Each convention as a scalar function of (x, M, shift, zp, out) in the shared vocabulary.
Int gemmlowp_double_round(const Int& x, const Int& m, int shift, const Int& zp, ref::DType out) {
  // OutputStageScaleInt32ByFixedPointAndExponent (result_exponent = shift,
  // result_offset_after_shift = zp), then the saturating cast to out.
  return ref::saturate(ref::gemmlowp_scale_by_fixedpoint_and_exponent(x, m, shift, zp), out);
}

Int tflite_single_round(const Int& x, const Int& m, int shift, const Int& zp, ref::DType out) {
  return ref::tflite_requantize_single_round(x, m, shift, zp, out);
}

// TOSA's right shift from the shared `shift`: s = 31 - shift (scale32), s = 15 - shift with an
// int16 multiplier M / 2^16 (scale16); the real multiplier M * 2^(shift - 31) is unchanged.
ScalarRequant tosa(ref::TosaScale mode) {
  return [mode](const Int& x, const Int& m, int shift, const Int& zp, ref::DType out) {
    if (mode == ref::TosaScale::Scale16) {
      if (m % ref::pow2(16) != 0)
        throw JsonValueError("attribute '" + std::string(Requantize::attr::multiplier.name) +
                             "': " + std::string(Requantize::conv::tosa_scale16) +
                             " needs a multiple of 2^16 (an int16 Q15 multiplier)");
      return ref::tosa_rescale(x, m / ref::pow2(16), 15 - shift, zp, out, mode);
    }
    return ref::tosa_rescale(x, m, 31 - shift, zp, out, mode);
  };
}

ScalarRequant q31_exact(ref::Rounding mode) {
  return [mode](const Int& x, const Int& m, int shift, const Int& zp, ref::DType out) {
    return ref::q31_exact_requantize(x, m, shift, zp, out, mode);
  };
}

QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::gemmlowp_double_round,
                                               requantize_op(gemmlowp_double_round)));
QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::tflite_single_round,
                                               requantize_op(tflite_single_round)));
QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::tosa_single_round,
                                               requantize_op(tosa(ref::TosaScale::Single32))));
QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::tosa_double_round,
                                               requantize_op(tosa(ref::TosaScale::Double32))));
QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::tosa_scale16,
                                               requantize_op(tosa(ref::TosaScale::Scale16))));

// The exact rational requantization under each named rounding: diagnostics only.
struct ExactMode {
  std::string_view convention;
  ref::Rounding mode;
};
const ExactMode kExactModes[] = {
    {Requantize::conv::q31_exact_floor, ref::Rounding::Floor},
    {Requantize::conv::q31_exact_ceil, ref::Rounding::Ceil},
    {Requantize::conv::q31_exact_trunc, ref::Rounding::Trunc},
    {Requantize::conv::q31_exact_half_up, ref::Rounding::HalfUp},
    {Requantize::conv::q31_exact_half_down, ref::Rounding::HalfDown},
    {Requantize::conv::q31_exact_half_away, ref::Rounding::HalfAway},
    {Requantize::conv::q31_exact_half_even, ref::Rounding::HalfEven},
};
[[maybe_unused]] const bool kExactRegistered = [] {
  for (const auto& e : kExactModes)
    register_op(registration<Requantize>(e.convention, requantize_op(q31_exact(e.mode))));
  return true;
}();

// ---- op "requantize_per_channel" ----

QSPEC_REGISTER_REF_OP(registration<PerChannel>(PerChannel::conv::gemmlowp_double_round,
                                               requantize_per_channel_op(gemmlowp_double_round)));
QSPEC_REGISTER_REF_OP(registration<PerChannel>(PerChannel::conv::tflite_single_round,
                                               requantize_per_channel_op(tflite_single_round)));
QSPEC_REGISTER_REF_OP(registration<PerChannel>(PerChannel::conv::tosa_single_round,
                                               requantize_per_channel_op(tosa(ref::TosaScale::Single32))));
QSPEC_REGISTER_REF_OP(registration<PerChannel>(PerChannel::conv::tosa_double_round,
                                               requantize_per_channel_op(tosa(ref::TosaScale::Double32))));

// ---- gemmlowp's legacy stage: its own attributes ----

OpFn legacy_op() {
  return [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Requantize::in::x, DType::I32);
    const Int a(attr::get(attrs, Requantize::attr::result_offset));
    const Int b(attr::get(attrs, Requantize::attr::result_mult_int));
    const int r = static_cast<int>(attr::get(attrs, Requantize::attr::result_shift));
    const DType out = out_dtype<Requantize>(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{map_elements(Requantize::out::y, x, out, [&](const Int& v, std::size_t) {
      return ref::saturate(ref::gemmlowp_quantize_down_uint8_scale(v, a, b, r), rout);
    })};
  };
}

OpFn legacy_pc_op() {
  return [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, PerChannel::in::x, DType::I32);
    std::vector<Int> a, b;
    for (auto v : attr::get(attrs, PerChannel::attr::result_offset)) a.emplace_back(v);
    for (auto v : attr::get(attrs, PerChannel::attr::result_mult_int)) b.emplace_back(v);
    if (a.size() != b.size())
      throw unequal_lengths(PerChannel::attr::result_offset.name, PerChannel::attr::result_mult_int.name);
    const std::size_t axis = channel_axis(attrs, x, a.size());
    const int r = static_cast<int>(attr::get(attrs, PerChannel::attr::result_shift));
    const DType out = out_dtype<PerChannel>(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{map_elements(PerChannel::out::y, x, out, [&](const Int& v, std::size_t i) {
      return ref::saturate(ref::gemmlowp_quantize_down_uint8_scale_pc(v, channel_of(x, i, axis), a, b, r), rout);
    })};
  };
}

QSPEC_REGISTER_REF_OP(registration<Requantize>(Requantize::conv::gemmlowp_legacy_uint8_scale, legacy_op()));
QSPEC_REGISTER_REF_OP(registration<PerChannel>(PerChannel::conv::gemmlowp_legacy_uint8_scale, legacy_pc_op()));

// ---- the fixed-point primitives as ops ----

std::vector<Tensor> srdhm(const Attrs&, const std::vector<Tensor>& inputs) {
  const Tensor& a = input(inputs, cat::srdhm::in::a, DType::I32);
  const Tensor& b = input(inputs, cat::srdhm::in::b, DType::I32);
  if (a.shape != b.shape) throw JsonValueError("inputs 'a' and 'b' must have the same shape");
  return {map_elements(cat::srdhm::out::y, a, DType::I32,
                       [&](const Int& v, std::size_t i) { return ref::gemmlowp_srdhm(v, Int(b.data[i])); })};
}

std::vector<Tensor> rdbpot(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  const Tensor& x = input(inputs, cat::rdbpot::in::x, DType::I32);
  const int e = static_cast<int>(attr::get(attrs, cat::rdbpot::attr::exponent));
  return {map_elements(cat::rdbpot::out::y, x, DType::I32,
                       [&](const Int& v, std::size_t) { return ref::gemmlowp_rdbpot(v, e); })};
}

QSPEC_REGISTER_REF_OP(registration<cat::srdhm>(cat::srdhm::conv::gemmlowp, srdhm));
QSPEC_REGISTER_REF_OP(registration<cat::rdbpot>(cat::rdbpot::conv::gemmlowp, rdbpot));

// ---- op "quantize_multiplier" ----

using QM = cat::quantize_multiplier;

OpFn quantize_multiplier_op(std::function<ref::QuantizedMultiplier(std::uint64_t bits)> f, DType in) {
  return [f, in](const Attrs&, const std::vector<Tensor>& inputs) {
    const Tensor& r = input(inputs, QM::in::real_multiplier, in);
    Tensor m{std::string(QM::out::multiplier), DType::I32, r.shape, {}};
    Tensor s{std::string(QM::out::shift), DType::I32, r.shape, {}};
    for (std::int64_t bits : r.data) {
      const auto q = f(static_cast<std::uint64_t>(bits));
      m.data.push_back(static_cast<std::int64_t>(q.multiplier));
      s.data.push_back(q.shift);
    }
    return std::vector<Tensor>{m, s};
  };
}

Registration tflite_quantize_multiplier(std::string_view conv, ref::TfliteBuild build) {
  return registration<QM>(
      conv, quantize_multiplier_op([build](std::uint64_t b) { return ref::tflite_quantize_multiplier(b, build); },
                                   DType::F64));
}

QSPEC_REGISTER_REF_OP(tflite_quantize_multiplier(QM::conv::tflite_quantize_multiplier, ref::TfliteBuild::Default));
QSPEC_REGISTER_REF_OP(tflite_quantize_multiplier(QM::conv::tflite_quantize_multiplier_single_round,
                                                 ref::TfliteBuild::SingleRounding));
QSPEC_REGISTER_REF_OP(tflite_quantize_multiplier(QM::conv::tflite_quantize_multiplier_emulate_float,
                                                 ref::TfliteBuild::EmulateFloat));
QSPEC_REGISTER_REF_OP(registration<QM>(QM::conv::gemmlowp_quantize_multiplier_smaller_than_one,
                                       quantize_multiplier_op(
                                           [](std::uint64_t b) {
                                             return ref::gemmlowp_quantize_multiplier_smaller_than_one(
                                                 static_cast<std::uint32_t>(b));
                                           },
                                           DType::F32)));

}  // namespace
}  // namespace qspec::refops
