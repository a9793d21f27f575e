// PyTorch 1.13's quantized::linear / conv2d under the onednn engine (spec/operators_qlinear.md,
// qlinear.pytorch_onednn): its ERROR_IFs and ideep's reciprocal-scale derivation of the output
// scales; the epilogue is qlinear.onednn's (qlinear_onednn_output), the output size PyTorch's.
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

const std::string kClause = "pytorch.onednn";

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
// std::isnormal(f) && f > 0.
bool positive_normal(std::uint32_t b) {
  const std::uint32_t e = (b >> 23) & 0xffu;
  return !f32_sign(b) && e != 0 && e != 0xffu;
}
// fl32(fl64(1 / fl64(s))): PyTorch hands oneDNN 1.0 / q_scale() in double, stored as float (ideep::scale_t).
std::uint32_t reciprocal(std::uint32_t s) {
  constexpr std::uint64_t kOne = 0x3ff0000000000000u;  // 1.0
  return f32_from_f64(f64_div(kOne, f64_from_f32(s)));
}

}  // namespace

// spec: qlinear.pytorch_onednn
std::uint32_t qlinear_pytorch_onednn_bias_scale(std::uint32_t x_scale, std::uint32_t w_scale) {
  return f32_mul(reciprocal(x_scale), reciprocal(w_scale));
}

// spec: qlinear.pytorch_onednn
std::vector<std::uint32_t> qlinear_pytorch_onednn_scales(const QLinearParams& p, std::int64_t channels) {
  QSPEC_ERROR_IF(p.x_type != DType::U8, kClause +
                                            ": quantized::linear / conv2d (ONEDNN): data type of input should "
                                            "be QUint8, not " +
                                            std::string(dtype_name(p.x_type)));
  QSPEC_ERROR_IF(p.w_type != DType::I8,
                 kClause + ": PyTorch's quantized weights are qint8 (int8), not " + std::string(dtype_name(p.w_type)));
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  QSPEC_ERROR_IF(n != 1 && n != channels, kClause + ": the weight scales must have 1 or " + std::to_string(channels) +
                                              " entries (one per output channel), not " + std::to_string(n));
  QSPEC_ERROR_IF(p.w_zero_point != 0, kClause +
                                          ": ONEDNN only supports symmetric quantization of weight, whose zero "
                                          "point must be 0 (linear_prepack / conv_prepack)");
  QSPEC_ERROR_IF(!fits(p.x_zero_point, DType::U8), kClause + ": x_zero_point must fit quint8 (checkZeroPoint)");
  // The output's quantizer is made without checkZeroPoint: outside uint8 the result is not stated.
  QSPEC_REQUIRE(fits(p.y_zero_point, DType::U8), kClause + ": y_zero_point in quint8");
  QSPEC_REQUIRE(positive_normal(p.x_scale) && positive_normal(p.y_scale),
                kClause + ": x_scale, y_scale positive normal");
  const std::uint32_t dst = reciprocal(p.y_scale);
  std::vector<std::uint32_t> scales;
  for (std::int64_t o = 0; o < channels; ++o) {
    const std::uint32_t ws = p.w_scales[n == 1 ? 0 : static_cast<std::size_t>(o)];
    QSPEC_REQUIRE(positive_normal(ws), kClause + ": weight scales positive normal");
    const std::uint32_t c = qlinear_pytorch_onednn_bias_scale(p.x_scale, ws);
    QSPEC_REQUIRE(positive_normal(c), kClause + ": fl32(1 / x_scale) fl32(1 / w_scale) is a positive normal float");
    const std::uint32_t m = f32_div(dst, c);
    QSPEC_REQUIRE(positive_normal(m), kClause + ": the output scale fl32(r(y_s) / c_o) is a positive normal float");
    scales.push_back(m);
  }
  return scales;
}

}  // namespace qspec::ref::ops
