// Reference ops for Q31 fixed-point requantization: gemmlowp, TFLite, TOSA and the exact yardsticks.
//
// Vocabulary (spec/tflite_tosa.md "Vector attributes", spec/gemmlowp.md): op "requantize" maps
// input "x" (int32) to output "y" (out_dtype) with attributes multiplier (Q31, [0, 2^31)),
// shift (TFLite sign convention: real multiplier = multiplier * 2^(shift - 31)),
// output_zero_point, out_dtype; "requantize_per_channel" takes multiplier/shift as arrays
// indexed along attribute "axis". Missing or unreadable attributes throw JsonValueError
// ("this convention does not apply"); ERROR_IF preconditions throw qspec::ref::ErrorIf.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "qspec/core/json_values.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;

const Tensor& input_named(const std::vector<Tensor>& inputs, const char* name, std::size_t position) {
  for (const auto& t : inputs)
    if (t.name == name) return t;
  if (position < inputs.size()) return inputs[position];
  throw JsonValueError(std::string("missing input tensor '") + name + "'");
}

const Tensor& int32_input(const std::vector<Tensor>& inputs, const char* name, std::size_t position) {
  const Tensor& t = input_named(inputs, name, position);
  if (t.dtype != DType::I32) throw JsonValueError(std::string("input '") + name + "' must be int32");
  return t;
}

DType out_dtype(const Attrs& attrs) {
  const std::string name = attr_str(attrs, "out_dtype");
  const auto t = dtype_from_name(name);
  if (!t || !(*t == DType::I8 || *t == DType::U8 || *t == DType::I16 || *t == DType::I32))
    throw JsonValueError("attribute 'out_dtype': expected int8, uint8, int16 or int32, got \"" + name + "\"");
  return *t;
}

Int q31_multiplier(std::int64_t m, const char* key) {
  if (m < 0 || m > 0x7fffffffLL)
    throw JsonValueError(std::string("attribute '") + key + "': a Q31 multiplier in [0, 2^31), got " + std::to_string(m));
  return Int(m);
}

int small_int(std::int64_t v, const char* key) {
  if (v < -1024 || v > 1024) throw JsonValueError(std::string("attribute '") + key + "': out of range");
  return static_cast<int>(v);
}

std::vector<std::int64_t> attr_int_array(const Attrs& attrs, const char* key) {
  if (!has_attr(attrs, key)) throw JsonValueError(std::string("missing attribute '") + key + "'");
  const auto& j = attrs.at(key);
  if (!j.is_array()) throw JsonValueError(std::string("attribute '") + key + "': expected an array of integers");
  std::vector<std::int64_t> v;
  for (const auto& e : j) v.push_back(json_to_int(e));
  return v;
}

// Applies `f` to every element of x, producing y of dtype `out`.
Tensor map_elements(const Tensor& x, DType out, const std::function<Int(const Int&, std::size_t)>& f) {
  Tensor y{"y", out, x.shape, {}};
  y.data.reserve(x.data.size());
  for (std::size_t i = 0; i < x.data.size(); ++i) y.data.push_back(static_cast<std::int64_t>(f(Int(x.data[i]), i)));
  return y;
}

// The channel of flat (row-major) element i along `axis`.
std::size_t channel_of(const Tensor& x, std::size_t i, std::size_t axis) {
  std::size_t inner = 1;
  for (std::size_t d = axis + 1; d < x.shape.size(); ++d) inner *= static_cast<std::size_t>(x.shape[d]);
  return (i / inner) % static_cast<std::size_t>(x.shape[axis]);
}

std::size_t channel_axis(const Attrs& attrs, const Tensor& x, std::size_t channels) {
  const std::int64_t axis = attr_int(attrs, "axis");
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.shape.size()))
    throw JsonValueError("attribute 'axis': must index a dimension of x");
  if (static_cast<std::size_t>(x.shape[static_cast<std::size_t>(axis)]) != channels)
    throw JsonValueError("per-channel attribute arrays must have shape[axis] entries");
  return static_cast<std::size_t>(axis);
}

// ---- op "requantize" ----

using ScalarRequant = std::function<Int(const Int& x, const Int& m, int shift, const Int& zp, ref::DType out)>;

OpFn requantize_op(ScalarRequant f) {
  return [f](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = int32_input(inputs, "x", 0);
    const Int m = q31_multiplier(attr_int(attrs, "multiplier"), "multiplier");
    const int shift = small_int(attr_int(attrs, "shift"), "shift");
    const Int zp(attr_int(attrs, "output_zero_point"));
    const DType out = out_dtype(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{map_elements(x, out, [&](const Int& v, std::size_t) { return f(v, m, shift, zp, rout); })};
  };
}

OpFn requantize_per_channel_op(ScalarRequant f) {
  return [f](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = int32_input(inputs, "x", 0);
    const auto ms = attr_int_array(attrs, "multiplier");
    const auto ss = attr_int_array(attrs, "shift");
    if (ms.size() != ss.size()) throw JsonValueError("attributes 'multiplier' and 'shift' must have equal length");
    std::vector<Int> m;
    std::vector<int> s;
    for (auto v : ms) m.push_back(q31_multiplier(v, "multiplier"));
    for (auto v : ss) s.push_back(small_int(v, "shift"));
    const std::size_t axis = channel_axis(attrs, x, m.size());
    const Int zp(attr_int(attrs, "output_zero_point"));
    const DType out = out_dtype(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{map_elements(x, out, [&](const Int& v, std::size_t i) {
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
        throw JsonValueError("attribute 'multiplier': tosa.scale16 needs a multiple of 2^16 (an int16 Q15 multiplier)");
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

QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "gemmlowp.double_round",
                       .fn = requantize_op(gemmlowp_double_round)});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "tflite.single_round",
                       .fn = requantize_op(tflite_single_round)});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "tosa.single_round",
                       .fn = requantize_op(tosa(ref::TosaScale::Single32))});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "tosa.double_round",
                       .fn = requantize_op(tosa(ref::TosaScale::Double32))});
QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "tosa.scale16",
                       .fn = requantize_op(tosa(ref::TosaScale::Scale16))});

// The exact rational requantization under each named rounding: diagnostics only.
struct ExactMode {
  const char* convention;
  ref::Rounding mode;
};
const ExactMode kExactModes[] = {
    {"q31.exact.floor", ref::Rounding::Floor},         {"q31.exact.ceil", ref::Rounding::Ceil},
    {"q31.exact.trunc", ref::Rounding::Trunc},         {"q31.exact.half_up", ref::Rounding::HalfUp},
    {"q31.exact.half_down", ref::Rounding::HalfDown},  {"q31.exact.half_away", ref::Rounding::HalfAway},
    {"q31.exact.half_even", ref::Rounding::HalfEven},
};
[[maybe_unused]] const bool kExactRegistered = [] {
  for (const auto& e : kExactModes)
    register_op({.op = "requantize",
                 .convention = e.convention,
                 .fn = requantize_op(q31_exact(e.mode))});
  return true;
}();

// ---- op "requantize_per_channel" ----

QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "gemmlowp.double_round",
                       .fn = requantize_per_channel_op(gemmlowp_double_round)});
QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "tflite.single_round",
                       .fn = requantize_per_channel_op(tflite_single_round)});
QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "tosa.single_round",
                       .fn = requantize_per_channel_op(tosa(ref::TosaScale::Single32))});
QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "tosa.double_round",
                       .fn = requantize_per_channel_op(tosa(ref::TosaScale::Double32))});

// ---- gemmlowp's legacy stage: its own attributes ----

OpFn legacy_op() {
  return [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = int32_input(inputs, "x", 0);
    const Int a(attr_int(attrs, "result_offset"));
    const Int b(attr_int(attrs, "result_mult_int"));
    const int r = small_int(attr_int(attrs, "result_shift"), "result_shift");
    const DType out = out_dtype(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{map_elements(x, out, [&](const Int& v, std::size_t) {
      return ref::saturate(ref::gemmlowp_quantize_down_uint8_scale(v, a, b, r), rout);
    })};
  };
}

OpFn legacy_pc_op() {
  return [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = int32_input(inputs, "x", 0);
    std::vector<Int> a, b;
    for (auto v : attr_int_array(attrs, "result_offset")) a.emplace_back(v);
    for (auto v : attr_int_array(attrs, "result_mult_int")) b.emplace_back(v);
    if (a.size() != b.size()) throw JsonValueError("attributes 'result_offset' and 'result_mult_int' must have equal length");
    const std::size_t axis = channel_axis(attrs, x, a.size());
    const int r = small_int(attr_int(attrs, "result_shift"), "result_shift");
    const DType out = out_dtype(attrs);
    const ref::DType rout = out;
    return std::vector<Tensor>{map_elements(x, out, [&](const Int& v, std::size_t i) {
      return ref::saturate(ref::gemmlowp_quantize_down_uint8_scale_pc(v, channel_of(x, i, axis), a, b, r), rout);
    })};
  };
}

QSPEC_REGISTER_REF_OP({.op = "requantize",
                       .convention = "gemmlowp.legacy_uint8_scale",
                       .fn = legacy_op()});
QSPEC_REGISTER_REF_OP({.op = "requantize_per_channel",
                       .convention = "gemmlowp.legacy_uint8_scale",
                       .fn = legacy_pc_op()});

// ---- the fixed-point primitives as ops ----

QSPEC_REGISTER_REF_OP({.op = "srdhm",
                       .convention = "gemmlowp",
                       .fn = [](const Attrs&, const std::vector<Tensor>& inputs) {
                         const Tensor& a = int32_input(inputs, "a", 0);
                         const Tensor& b = int32_input(inputs, "b", 1);
                         if (a.shape != b.shape) throw JsonValueError("inputs 'a' and 'b' must have the same shape");
                         return std::vector<Tensor>{map_elements(a, DType::I32, [&](const Int& v, std::size_t i) {
                           return ref::gemmlowp_srdhm(v, Int(b.data[i]));
                         })};
                       }});
QSPEC_REGISTER_REF_OP({.op = "rdbpot",
                       .convention = "gemmlowp",
                       .fn = [](const Attrs& attrs, const std::vector<Tensor>& inputs) {
                         const Tensor& x = int32_input(inputs, "x", 0);
                         const int e = small_int(attr_int(attrs, "exponent"), "exponent");
                         return std::vector<Tensor>{map_elements(
                             x, DType::I32, [&](const Int& v, std::size_t) { return ref::gemmlowp_rdbpot(v, e); })};
                       }});

// ---- op "quantize_multiplier" ----

OpFn quantize_multiplier_op(std::function<ref::QuantizedMultiplier(std::uint64_t bits)> f, DType in) {
  return [f, in](const Attrs&, const std::vector<Tensor>& inputs) {
    const Tensor& r = input_named(inputs, "real_multiplier", 0);
    if (r.dtype != in) throw JsonValueError(std::string("input 'real_multiplier' must be ") + std::string(dtype_name(in)));
    Tensor m{"multiplier", DType::I32, r.shape, {}}, s{"shift", DType::I32, r.shape, {}};
    for (std::int64_t bits : r.data) {
      const auto q = f(static_cast<std::uint64_t>(bits));
      m.data.push_back(static_cast<std::int64_t>(q.multiplier));
      s.data.push_back(q.shift);
    }
    return std::vector<Tensor>{m, s};
  };
}

QSPEC_REGISTER_REF_OP({.op = "quantize_multiplier",
                       .convention = "tflite.quantize_multiplier",
                       .fn = quantize_multiplier_op(
                           [](std::uint64_t b) { return ref::tflite_quantize_multiplier(b, ref::TfliteBuild::Default); },
                           DType::F64)});
QSPEC_REGISTER_REF_OP({.op = "quantize_multiplier",
                       .convention = "tflite.quantize_multiplier_single_round",
                       .fn = quantize_multiplier_op(
                           [](std::uint64_t b) {
                             return ref::tflite_quantize_multiplier(b, ref::TfliteBuild::SingleRounding);
                           },
                           DType::F64)});
QSPEC_REGISTER_REF_OP({.op = "quantize_multiplier",
                       .convention = "tflite.quantize_multiplier_emulate_float",
                       .fn = quantize_multiplier_op(
                           [](std::uint64_t b) {
                             return ref::tflite_quantize_multiplier(b, ref::TfliteBuild::EmulateFloat);
                           },
                           DType::F64)});
QSPEC_REGISTER_REF_OP({.op = "quantize_multiplier",
                       .convention = "gemmlowp.quantize_multiplier_smaller_than_one",
                       .fn = quantize_multiplier_op(
                           [](std::uint64_t b) {
                             return ref::gemmlowp_quantize_multiplier_smaller_than_one(static_cast<std::uint32_t>(b));
                           },
                           DType::F32)});

}  // namespace
}  // namespace qspec::refops
