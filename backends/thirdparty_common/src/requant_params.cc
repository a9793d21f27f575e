// Reading and translating requantize / quantize parameters (see requant_params.h).
#include "qspec/thirdparty/requant_params.h"

#include <cmath>
#include <cstring>
#include <string>

#include "qspec/core/json_values.h"
#include "qspec/thirdparty/adapter.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::thirdparty {

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
      return static_cast<double>(f32_from_bits(input_scale_bits)) / static_cast<double>(f32_from_bits(output_scale_bits));
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

FixedPointMultiplier quantize_multiplier(double m) {
  FixedPointMultiplier r;
  if (m == 0.0) return r;
  int shift = 0;
  const double q = std::frexp(m, &shift);  // m = q * 2^shift, q in [0.5, 1)
  auto q_fixed = static_cast<std::int64_t>(std::round(q * 2147483648.0));
  if (q_fixed == (std::int64_t{1} << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  r.multiplier = static_cast<std::int32_t>(q_fixed);
  r.shift = shift;
  return r;
}

FixedPointMultiplier RequantParams::as_fixed_point() const {
  if (fixed_point) return fp;
  return quantize_multiplier(real_multiplier());
}

RequantParams read_requant_params(const nlohmann::ordered_json& attrs) {
  RequantParams p;
  if (has_attr(attrs, "multiplier") && has_attr(attrs, "shift")) {
    p.form = RequantParams::Form::FixedPoint;
    p.fixed_point = true;
    const std::int64_t m = attr_int(attrs, "multiplier"), s = attr_int(attrs, "shift");
    if (m < INT32_MIN || m > INT32_MAX) throw Unsupported("multiplier " + std::to_string(m) + " is not an int32");
    if (s < -200 || s > 200) throw Unsupported("shift " + std::to_string(s) + " is out of any library's range");
    p.fp.multiplier = static_cast<std::int32_t>(m);
    p.fp.shift = static_cast<int>(s);
  } else if (has_attr(attrs, "scale")) {
    p.form = RequantParams::Form::Scale;
    p.scale_bits = attr_f32(attrs, "scale");
  } else if (has_attr(attrs, "input_scale") && has_attr(attrs, "output_scale")) {
    p.form = RequantParams::Form::Ratio;
    p.input_scale_bits = attr_f32(attrs, "input_scale");
    p.output_scale_bits = attr_f32(attrs, "output_scale");
    p.input_zero_point = has_attr(attrs, "input_zero_point") ? attr_int(attrs, "input_zero_point") : 0;
  } else if (has_attr(attrs, "result_mult_int") && has_attr(attrs, "result_shift") && !attrs["result_mult_int"].is_array()) {
    // gemmlowp's legacy stage RDBPOT((x + a) * b, r): an input offset and the multiplier b / 2^r.
    p.form = RequantParams::Form::Legacy;
    p.input_zero_point = has_attr(attrs, "result_offset") ? -attr_int(attrs, "result_offset") : 0;
    p.legacy_mult = attr_int(attrs, "result_mult_int");
    p.legacy_shift = attr_int(attrs, "result_shift");
    if (p.legacy_shift < 0 || p.legacy_shift > 62) throw Unsupported("result_shift out of range");
  } else {
    throw Unsupported("the attributes carry no (multiplier, shift), float32 scale, input/output scale pair or legacy "
                      "(result_mult_int, result_shift)");
  }
  p.output_zero_point = has_attr(attrs, "output_zero_point") ? attr_int(attrs, "output_zero_point") : 0;
  p.out_dtype = dtype_from_name(attr_str(attrs, "out_dtype"));
  return p;
}

std::vector<RequantParams> read_per_channel_params(const Call& call, std::int64_t channels) {
  const nlohmann::ordered_json& attrs = call.attrs;
  static const std::pair<const char*, const char*> kPlural[] = {
      {"scales", "scale"}, {"input_scales", "input_scale"}, {"input_zero_points", "input_zero_point"}};
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
  QuantizeParams p;
  p.scale_bits = attr_f32(attrs, "scale");
  p.zero_point = has_attr(attrs, "zero_point") ? attr_int(attrs, "zero_point") : 0;
  p.out_dtype = has_attr(attrs, "out_dtype") ? dtype_from_name(attr_str(attrs, "out_dtype")) : fallback_out;
  return p;
}

std::vector<std::int32_t> read_accumulator_input(const qspec_tensor& t) {
  if (t.dtype == QSPEC_DTYPE_FLOAT32 || t.dtype == QSPEC_DTYPE_FLOAT64)
    throw std::invalid_argument("requantize input must be an integer tensor");
  std::vector<std::int32_t> out;
  for (std::int64_t v : read_ints(t)) {
    if (v < INT32_MIN || v > INT32_MAX) throw Unsupported("the library takes int32 accumulators; " + std::to_string(v) + " does not fit");
    out.push_back(static_cast<std::int32_t>(v));
  }
  return out;
}

}  // namespace qspec::thirdparty
