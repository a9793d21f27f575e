// TFLite's convention of the quantized operators (spec/operators_qlinear.md, qlinear.tflite): the
// reference integer kernels' parameter derivation in binary64, QuantizeMultiplier, the ERROR_IFs of
// their Prepare functions, SAME / VALID geometry and the fixed-point epilogue of either build.
#include <algorithm>
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/tflite_tosa.h"

namespace qspec::ref::ops {
namespace {

const std::string kClause = "tflite";

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
std::string name(DType t) { return std::string(dtype_name(t)); }

std::uint32_t w_scale_of(const QLinearParams& p, std::size_t o) { return p.w_scales[p.w_scales.size() == 1 ? 0 : o]; }

}  // namespace

// spec: qlinear.tflite
bool qlinear_tflite_per_channel_path(const QLinearParams& p, QLinearOp op) {
  if (op == QLinearOp::Conv2d) return p.x_type == DType::I8;  // EvalQuantizedPerChannel for every int8 conv
  if (op == QLinearOp::FullyConnected) return p.w_scales.size() > 1;
  return false;  // BATCH_MATMUL: GetQuantizedConvolutionMultipler only
}

// spec: qlinear.tflite
std::uint64_t qlinear_tflite_real_multiplier(const QLinearParams& p, std::size_t o, bool per_channel_path) {
  const std::uint32_t ws = w_scale_of(p, o);
  for (auto s : {p.x_scale, ws, p.y_scale}) QSPEC_REQUIRE(float_is_finite(s, kBinary32), kClause + ": finite scales");
  QSPEC_REQUIRE(f32_value(p.y_scale) != 0, kClause + ": y_scale != 0 (the division)");
  if (per_channel_path) {
    // static_cast<double>(input_scale) * filter_scale / static_cast<double>(output_scale): the
    // product of two widened binary32 is exact in binary64, the quotient rounds once.
    return f64_div(f64_mul(f64_from_f32(p.x_scale), f64_from_f32(ws)), f64_from_f32(p.y_scale));
  }
  // static_cast<double>(input->params.scale * filter->params.scale): the product rounds in binary32.
  const std::uint32_t prod = f32_mul(p.x_scale, ws);
  QSPEC_REQUIRE(float_is_finite(prod, kBinary32), kClause + ": x_scale * w_scale finite in float32");
  QSPEC_ERROR_IF(f32_value(prod) < 0, kClause + ": input_product_scale >= 0 (TF_LITE_ENSURE, kernel_util.cc)");
  return f64_div(f64_from_f32(prod), f64_from_f32(p.y_scale));
}

// spec: qlinear.tflite
std::vector<QuantizedMultiplier> qlinear_tflite_multipliers(const QLinearParams& p, std::int64_t channels, QLinearOp op,
                                                            bool single_round) {
  const bool matmul = op == QLinearOp::Matmul;
  const bool s8 = p.x_type == DType::I8 && p.w_type == DType::I8;
  const bool u8 = p.x_type == DType::U8 && p.w_type == DType::U8;
  QSPEC_ERROR_IF(matmul && !s8, kClause + ": BATCH_MATMUL takes int8 operands of one type, not " + name(p.x_type) +
                                    " with " + name(p.w_type));
  QSPEC_ERROR_IF(!s8 && !u8, kClause + ": no kernel for " + name(p.x_type) + " activations with " + name(p.w_type) +
                                 " weights (int8 x int8, uint8 x uint8)");
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  QSPEC_ERROR_IF(matmul && n != 1,
                 kClause + ": BATCH_MATMUL has one weight scale (per tensor), not " + std::to_string(n));
  QSPEC_ERROR_IF(n != 1 && n != channels, kClause + ": the weight scales must have 1 or " + std::to_string(channels) +
                                              " entries (one per output channel), not " + std::to_string(n));
  QSPEC_ERROR_IF(n > 1 && !s8, kClause + ": per-channel quantization needs int8 activations and int8 weights");
  const bool per_channel_path = qlinear_tflite_per_channel_path(p, op);
  QSPEC_ERROR_IF(per_channel_path && p.w_zero_point != 0,
                 kClause + ": int8 weights of a per-channel kernel have zero point 0 (the kernel ignores it)");
  const DType t = p.x_type;
  QSPEC_ERROR_IF(!fits(p.x_zero_point, t), kClause + ": x_zero_point must fit " + name(t));
  QSPEC_ERROR_IF(!fits(p.w_zero_point, p.w_type), kClause + ": w_zero_point must fit " + name(p.w_type));
  QSPEC_ERROR_IF(!fits(p.y_zero_point, t), kClause + ": y_zero_point must fit " + name(t));
  const Range r = int_range(t);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(!fits(lo, t) || !fits(hi, t), kClause + ": y_min and y_max must fit " + name(t));
  QSPEC_ERROR_IF(lo > hi, kClause + ": y_min must not exceed y_max (output_activation_min <= output_activation_max)");
  const TfliteBuild build = single_round ? TfliteBuild::SingleRounding : TfliteBuild::Default;
  std::vector<QuantizedMultiplier> out;
  for (std::int64_t o = 0; o < channels; ++o)
    out.push_back(tflite_quantize_multiplier(
        qlinear_tflite_real_multiplier(p, static_cast<std::size_t>(o), per_channel_path), build));
  return out;
}

// spec: qlinear.tflite
Int qlinear_tflite_output(const Int& acc, const QuantizedMultiplier& m, const QLinearParams& p, bool single_round) {
  const Range r = int_range(p.x_type);
  const Int v = single_round ? tflite_requantize_single_round(acc, m.multiplier, m.shift, p.y_zero_point, p.x_type)
                             : tflite_requantize_double_round(acc, m.multiplier, m.shift, p.y_zero_point, p.x_type);
  // The kernels clamp acc + output_offset to [act_min, act_max] inside the dtype, then cast:
  // the dtype's saturation above, then the fused clamp, is the same clamp.
  return saturate(v, Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)});
}

// spec: qlinear.tflite
std::int64_t qlinear_tflite_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                         std::int64_t kernel, std::int64_t dilation, std::int64_t stride) {
  const std::int64_t effective = dilation * (kernel - 1) + 1;
  if (pad_begin == 0 && pad_end == 0) {  // VALID (where SAME has no padding either, its size is the same)
    QSPEC_REQUIRE(in >= effective, kClause +
                                       ": VALID padding with the dilated kernel inside the input (else "
                                       "TFLite's output size is < 1)");
    return (in - effective) / stride + 1;
  }
  // SAME (padding.h ComputePaddingWithOffset): out = ceil(in / stride), the total padding split
  // with its odd unit at the end.
  const std::int64_t out = (in + stride - 1) / stride;
  const std::int64_t total = std::max<std::int64_t>((out - 1) * stride + effective - in, 0);
  QSPEC_ERROR_IF(pad_begin != total / 2 || pad_end != total - total / 2,
                 kClause + ": pads (" + std::to_string(pad_begin) + ", " + std::to_string(pad_end) +
                     ") are neither VALID's (0, 0) nor SAME's (" + std::to_string(total / 2) + ", " +
                     std::to_string(total - total / 2) + ")");
  return out;
}

// spec: qlinear.tflite
void qlinear_tflite_conv_groups_check(const Shape& x, const QConvGeometry& g) {
  QSPEC_ERROR_IF(g.groups != 1 && g.groups != x[3],
                 kClause + ": CONV_2D has groups 1 and DEPTHWISE_CONV_2D groups = C; groups " +
                     std::to_string(g.groups) + " with C = " + std::to_string(x[3]) + " has no kernel");
}

}  // namespace qspec::ref::ops
