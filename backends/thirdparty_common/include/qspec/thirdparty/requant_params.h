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

namespace qspec::thirdparty {

// m = multiplier * 2^(shift - 31), TFLite's sign convention (shift > 0 shifts left).
struct FixedPointMultiplier {
  std::int32_t multiplier = 0;
  int shift = 0;
};

struct RequantParams {
  // Which parameter form the attributes used:
  //   FixedPoint: (multiplier, shift), the Q31 conventions (gemmlowp, TFLite, TOSA);
  //   Scale:      a float32 `scale`, the float conventions (XNNPACK, oneDNN, PyTorch);
  //   Ratio:      float32 `input_scale` / `output_scale` and an `input_zero_point` (TVM, Glow).
  //   Legacy:     gemmlowp's legacy (result_offset, result_mult_int, result_shift): an input
  //               offset -result_offset and the multiplier result_mult_int / 2^result_shift.
  enum class Form { FixedPoint, Scale, Ratio, Legacy };
  Form form = Form::Scale;
  bool fixed_point = false;          // form == FixedPoint
  FixedPointMultiplier fp;           // valid if fixed_point
  std::uint32_t scale_bits = 0;      // form == Scale: IEEE binary32 bit pattern
  std::uint32_t input_scale_bits = 0, output_scale_bits = 0;  // form == Ratio
  std::int64_t input_zero_point = 0;  // Ratio / Legacy: subtracted from x before scaling
  std::int64_t legacy_mult = 0, legacy_shift = 0;  // form == Legacy
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
  // fixed-point form; TFLite's QuantizeMultiplier (frexp, round half away to Q31, carry at
  // 2^31, flush below 2^-31 * 2^-31 to zero) of real_multiplier() otherwise.
  FixedPointMultiplier as_fixed_point() const;
  // x - input_zero_point for every element (x itself outside the ratio form); throws
  // Unsupported if a difference leaves int32 (the libraries take int32 accumulators).
  std::vector<std::int32_t> accumulators(const std::vector<std::int32_t>& x) const;
};

// Reads {"multiplier","shift"}, {"scale"} or {"input_scale","output_scale"[,"input_zero_point"]},
// plus "output_zero_point" and "out_dtype". Throws Unsupported when no parameter form is
// present (a convention whose parameters no library takes, e.g. an MRT (frac, exp) pair).
RequantParams read_requant_params(const nlohmann::ordered_json& attrs);

// requantize_per_channel: the parameters of each of `channels` channels, read as per tensor from
// the attributes with every array replaced by its channel's entry (multiplier/shift, scales ->
// scale, input_scales -> input_scale, input_zero_points -> input_zero_point, result_offset /
// result_mult_int of the legacy stage). An array of another length is refused (Call::refuse).
struct Call;
std::vector<RequantParams> read_per_channel_params(const Call& call, std::int64_t channels);

// TFLite QuantizeMultiplier on a double (tensorflow/lite/kernels/internal/quantization_util.cc).
FixedPointMultiplier quantize_multiplier(double m);

struct QuantizeParams {
  std::uint32_t scale_bits = 0;  // float32 scale: y = x / scale + zero_point, each library rounding its own way
  std::int64_t zero_point = 0;
  qspec_dtype out_dtype = QSPEC_DTYPE_INT8;
  float scale() const;
};
// `fallback_out` is used when the attributes carry no out_dtype (gemmlowp.quantize: uint8).
QuantizeParams read_quantize_params(const nlohmann::ordered_json& attrs, qspec_dtype fallback_out);

// The integer input of a requantize as int32 accumulators: int32 as is; narrower integer types
// (Glow rescales int8 / int16 tensors) widened exactly; int64 only where every value fits.
std::vector<std::int32_t> read_accumulator_input(const qspec_tensor& t);

float f32_from_bits(std::uint32_t bits);
std::uint32_t f32_bits(float f);

}  // namespace qspec::thirdparty
