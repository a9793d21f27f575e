// The parameters of a requantize / quantize call, read from a vector's attributes in either the
// fixed-point form (Q31 multiplier + shift) or the float form (float32 scale), and translated
// between the two the way a user porting a model from one library to another would.
//
// Only the translation is approximate; each library then computes with its own arithmetic. A
// library is never handed a translated parameter for its OWN convention: there the vector's
// parameters are passed through unchanged (the translations are exact on their own form).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "qspec/backend.h"
#include "qspec/backend_common/q31.h"
#include "qspec/core/attr.h"
#include "qspec/core/json_values.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::thirdparty {

// m = multiplier * 2^(shift - 31), TFLite's sign convention (shift > 0 shifts left).
using FixedPointMultiplier = q31::Q31;

// A parameter read through its catalogue key (qspec/core/attr.h): a value outside the key's domain
// is a parameter no library takes, Unsupported (not an adapter error).
template <class Key>
auto parameter(const nlohmann::ordered_json& attrs, const Key& key) -> decltype(attr::get(attrs, key)) {
  try {
    return attr::get(attrs, key);
  } catch (const JsonValueError& e) {
    throw Unsupported(e.what());
  }
}

struct RequantParams {
  // Which parameter form the attributes used:
  //   FixedPoint: (multiplier, shift), the Q31 conventions (gemmlowp, TFLite, TOSA);
  //   Scale:      a float32 `scale`, the float conventions (XNNPACK, oneDNN, PyTorch);
  //   Ratio:      float32 `input_scale` / `output_scale` and an `input_zero_point` (TVM, Glow).
  //   Legacy:     gemmlowp's legacy (result_offset, result_mult_int, result_shift): an input
  //               offset -result_offset and the multiplier result_mult_int / 2^result_shift.
  enum class Form { FixedPoint, Scale, Ratio, Legacy };
  Form form = Form::Scale;
  bool fixed_point = false;                                   // form == FixedPoint
  FixedPointMultiplier fp;                                    // valid if fixed_point
  std::uint32_t scale_bits = 0;                               // form == Scale: IEEE binary32 bit pattern
  std::uint32_t input_scale_bits = 0, output_scale_bits = 0;  // form == Ratio
  std::int64_t input_zero_point = 0;                          // Ratio / Legacy: subtracted from x before scaling
  std::int64_t legacy_mult = 0, legacy_shift = 0;             // form == Legacy
  std::int64_t output_zero_point = 0;
  qspec_dtype out_dtype = QSPEC_DTYPE_INT8;

  // The real multiplier as a double: exact for the fixed-point form (31 significant bits) and
  // the scale form (24); for the ratio form the double quotient input_scale / output_scale.
  double real_multiplier() const;
  // The float32 a user would pass to a float-scale library: exact for the scale form; the
  // nearest binary32 (ties to even) of the exact multiplier for the fixed-point form; the
  // float32 quotient input_scale / output_scale for the ratio form.
  float as_f32_scale() const;
  // The (multiplier, shift) a user would pass to a fixed-point library: exact for the
  // fixed-point form; TFLite's QuantizeMultiplier (q31::tflite_quantize_multiplier: frexp, round
  // half away to Q31, carry at 2^31, flush below 2^-32) of real_multiplier() otherwise.
  FixedPointMultiplier as_fixed_point() const;
  // x - input_zero_point for every element (x itself outside the ratio form); throws
  // Unsupported if a difference leaves int32 (the libraries take int32 accumulators).
  std::vector<std::int32_t> accumulators(const std::vector<std::int32_t>& x) const;
};

// Reads the attributes of op requantize (spec/catalogue/requantize.json) in one of its forms:
// (multiplier, shift), scale, (input_scale, output_scale[, input_zero_point]) or the legacy
// (result_mult_int, result_shift[, result_offset]); plus output_zero_point and out_dtype. Throws
// Unsupported when no parameter form is present, or a parameter lies outside the catalogue's
// domain (no library takes it).
RequantParams read_requant_params(const nlohmann::ordered_json& attrs);

// requantize_per_channel: the parameters of each of `channels` channels, read as per tensor from
// the attributes with every array replaced by its channel's entry (multiplier/shift, scales ->
// scale, input_scales -> input_scale, input_zero_points -> input_zero_point, result_offset /
// result_mult_int of the legacy stage). An array of another length is refused (Call::refuse).
std::vector<RequantParams> read_per_channel_params(const Call& call, std::int64_t channels);

struct QuantizeParams {
  std::uint32_t scale_bits = 0;  // float32 scale: y = x / scale + zero_point, each library rounding its own way
  std::int64_t zero_point = 0;
  qspec_dtype out_dtype = QSPEC_DTYPE_INT8;
  float scale() const;
};
// The attributes of op quantize (spec/catalogue/quantize.json); `fallback_out` is used when they
// carry no out_dtype (gemmlowp.quantize: uint8).
QuantizeParams read_quantize_params(const nlohmann::ordered_json& attrs, qspec_dtype fallback_out);

// The integer input of a requantize as int32 accumulators: int32 as is; narrower integer types
// (Glow rescales int8 / int16 tensors) widened exactly; int64 only where every value fits.
std::vector<std::int32_t> read_accumulator_input(const qspec_tensor& t);

float f32_from_bits(std::uint32_t bits);
std::uint32_t f32_bits(float f);

}  // namespace qspec::thirdparty
