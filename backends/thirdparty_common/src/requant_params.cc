// Reading and translating requantize / quantize parameters (see requant_params.h).
#include "qspec/thirdparty/requant_params.h"

#include <cmath>
#include <cstring>
#include <string>

#include "qspec/catalogue/keys.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/core/attr.h"
#include "qspec/core/json_values.h"
#include "qspec/thirdparty/adapter.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::thirdparty {
namespace {
using Requantize = cat::requantize;
}  // namespace

float f32_from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::uint32_t f32_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

double RequantParams::real_multiplier() const {
  switch (form) {
    case Form::FixedPoint: return std::ldexp(static_cast<double>(fp.multiplier), fp.shift - 31);
    case Form::Scale: return static_cast<double>(f32_from_bits(scale_bits));
    case Form::Ratio:
      return static_cast<double>(f32_from_bits(input_scale_bits)) /
             static_cast<double>(f32_from_bits(output_scale_bits));
    case Form::Legacy: return std::ldexp(static_cast<double>(legacy_mult), -static_cast<int>(legacy_shift));
  }
  return 0;
}

float RequantParams::as_f32_scale() const {
  switch (form) {
    case Form::Scale: return f32_from_bits(scale_bits);
    // float / float: one binary32 division, as a user computing the ratio in float would.
    case Form::Ratio: return f32_from_bits(input_scale_bits) / f32_from_bits(output_scale_bits);
    // double -> float conversion rounds to nearest, ties to even (default FP environment).
    case Form::FixedPoint:
    case Form::Legacy: return static_cast<float>(real_multiplier());
  }
  return 0;
}

std::vector<std::int32_t> RequantParams::accumulators(const std::vector<std::int32_t>& x) const {
  std::vector<std::int32_t> out;
  out.reserve(x.size());
  for (std::int32_t v : x) {
    const std::int64_t d = static_cast<std::int64_t>(v) - input_zero_point;
    if (d < INT32_MIN || d > INT32_MAX)
      throw Unsupported("x - input_zero_point = " + std::to_string(d) + " leaves the int32 accumulator");
    out.push_back(static_cast<std::int32_t>(d));
  }
  return out;
}

FixedPointMultiplier RequantParams::as_fixed_point() const {
  if (fixed_point) return fp;
  return q31::tflite_quantize_multiplier(real_multiplier());
}

RequantParams read_requant_params(const nlohmann::ordered_json& attrs) {
  using A = Requantize::attr;
  RequantParams p;
  if (attr::has(attrs, A::multiplier) && attr::has(attrs, A::shift)) {
    p.form = RequantParams::Form::FixedPoint;
    p.fixed_point = true;
    const std::int64_t m = parameter(attrs, A::multiplier), s = parameter(attrs, A::shift);
    if (s < -200 || s > 200) throw Unsupported("shift " + std::to_string(s) + " is out of any library's range");
    p.fp.multiplier = static_cast<std::int32_t>(m);  // the key's domain: [0, 2^31)
    p.fp.shift = static_cast<int>(s);
  } else if (attr::has(attrs, A::scale)) {
    p.form = RequantParams::Form::Scale;
    p.scale_bits = attr::get(attrs, A::scale);
  } else if (attr::has(attrs, A::input_scale) && attr::has(attrs, A::output_scale)) {
    p.form = RequantParams::Form::Ratio;
    p.input_scale_bits = attr::get(attrs, A::input_scale);
    p.output_scale_bits = attr::get(attrs, A::output_scale);
    p.input_zero_point = attr::get_or(attrs, A::input_zero_point, std::int64_t{0});
  } else if (attr::has(attrs, A::result_mult_int) && attr::has(attrs, A::result_shift) &&
             !attrs[std::string(A::result_mult_int.name)].is_array()) {
    // gemmlowp's legacy stage RDBPOT((x + a) * b, r): an input offset and the multiplier b / 2^r.
    p.form = RequantParams::Form::Legacy;
    p.input_zero_point = -attr::get_or(attrs, A::result_offset, std::int64_t{0});
    p.legacy_mult = attr::get(attrs, A::result_mult_int);
    p.legacy_shift = parameter(attrs, A::result_shift);
    if (p.legacy_shift < 0 || p.legacy_shift > 62) throw Unsupported("result_shift out of range");
  } else {
    throw Unsupported(
        "the attributes carry no (multiplier, shift), float32 scale, input/output scale pair or legacy "
        "(result_mult_int, result_shift)");
  }
  p.output_zero_point = attr::get_or(attrs, A::output_zero_point, std::int64_t{0});
  p.out_dtype = to_abi_dtype(attr::get(attrs, A::out_dtype));
  return p;
}

std::vector<RequantParams> read_per_channel_params(const Call& call, std::int64_t channels) {
  using PerChannel = cat::requantize_per_channel;
  const nlohmann::ordered_json& attrs = call.attrs;
  // The per-channel arrays with a plural name and their per-tensor attribute.
  static const std::pair<std::string_view, std::string_view> kPlural[] = {
      {PerChannel::attr::scales.name, Requantize::attr::scale.name},
      {PerChannel::attr::input_scales.name, Requantize::attr::input_scale.name},
      {PerChannel::attr::input_zero_points.name, Requantize::attr::input_zero_point.name}};
  std::vector<RequantParams> out;
  for (std::int64_t c = 0; c < channels; ++c) {
    nlohmann::ordered_json one = nlohmann::ordered_json::object();
    for (const auto& [key, value] : attrs.items()) {
      std::string k = key;
      for (const auto& [plural, singular] : kPlural)
        if (k == plural) k = singular;
      if (value.is_array()) {
        if (static_cast<std::int64_t>(value.size()) != channels)
          call.refuse("attribute '" + key + "' must have one entry per channel");
        one[k] = value[static_cast<std::size_t>(c)];
      } else {
        one[k] = value;
      }
    }
    out.push_back(read_requant_params(one));
  }
  return out;
}

float QuantizeParams::scale() const { return f32_from_bits(scale_bits); }

QuantizeParams read_quantize_params(const nlohmann::ordered_json& attrs, qspec_dtype fallback_out) {
  using A = cat::quantize::attr;
  QuantizeParams p;
  p.scale_bits = attr::get(attrs, A::scale);
  p.zero_point = attr::get_or(attrs, A::zero_point, std::int64_t{0});
  p.out_dtype = attr::has(attrs, A::out_dtype) ? to_abi_dtype(attr::get(attrs, A::out_dtype)) : fallback_out;
  return p;
}

std::vector<std::int32_t> read_accumulator_input(const qspec_tensor& t) {
  if (t.dtype == QSPEC_DTYPE_FLOAT32 || t.dtype == QSPEC_DTYPE_FLOAT64)
    throw std::invalid_argument("requantize input must be an integer tensor");
  std::vector<std::int32_t> out;
  for (std::int64_t v : read_ints(t)) {
    if (v < INT32_MIN || v > INT32_MAX)
      throw Unsupported("the library takes int32 accumulators; " + std::to_string(v) + " does not fit");
    out.push_back(static_cast<std::int32_t>(v));
  }
  return out;
}

}  // namespace qspec::thirdparty
