// PyTorch 1.13's quantized::linear / conv2d under the qnnpack engine (spec/operators_qlinear.md,
// qlinear.pytorch_qnnpack): parameter derivation and ERROR_IFs, output size and epilogue.
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}
// std::isnormal(f) && f > 0.
bool positive_normal(std::uint32_t b) {
  const std::uint32_t e = (b >> 23) & 0xffu;
  return !f32_sign(b) && e != 0 && e != 0xffu;
}

}  // namespace

// spec: qlinear.pytorch_qnnpack
std::vector<std::uint32_t> qlinear_pytorch_qnnpack_scales(const QLinearParams& p, std::int64_t channels, QLinearOp op) {
  const std::string c = "pytorch.qnnpack";
  QSPEC_ERROR_IF(p.w_type != DType::I8,
                 c + ": PyTorch's quantized weights are qint8 (int8), not " + std::string(dtype_name(p.w_type)));
  QSPEC_ERROR_IF(p.x_type != DType::I8 && p.x_type != DType::U8, c + ": activations are quint8 or qint8");
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  QSPEC_ERROR_IF(n != 1 && n != channels, c + ": the weight scales must have 1 or " + std::to_string(channels) +
                                              " entries (one per output channel), not " + std::to_string(n));
  if (p.x_type == DType::I8) {  // XNNPACK qs8 / qc8 (apply_impl_xnnp)
    QSPEC_ERROR_IF(op == QLinearOp::FullyConnected && n > 1,
                   c + ": quantized::linear of qint8 activations has no per-channel weights "
                       "(\"Unsupported config for dtype KQInt8\")");
    QLinearParams q = p;
    q.y_min.reset(), q.y_max.reset();
    return qlinear_xnnpack_fp32_scales(q, channels);
  }
  QSPEC_ERROR_IF(!fits(p.x_zero_point, DType::U8), c + ": x_zero_point must fit uint8");
  QSPEC_ERROR_IF(!fits(p.w_zero_point, DType::I8), c + ": w_zero_point must fit int8");
  QSPEC_ERROR_IF(!fits(p.y_zero_point, DType::U8), c + ": y_zero_point must fit uint8");
  QSPEC_REQUIRE(positive_normal(p.x_scale) && positive_normal(p.y_scale), c + ": x_scale and y_scale positive normal");
  const std::uint32_t inv_y = f32_div(0x3f800000u, p.y_scale);  // 1.f / output_scale
  std::vector<std::uint32_t> scales;
  for (std::int64_t o = 0; o < channels; ++o) {
    const std::uint32_t ws = p.w_scales[n == 1 ? 0 : static_cast<std::size_t>(o)];
    QSPEC_REQUIRE(positive_normal(ws), c + ": weight scales positive normal");
    const std::uint32_t prod = f32_mul(ws, p.x_scale);
    const std::uint32_t s = f32_is_inf(prod) ? kF32PosInf : f32_mul(prod, inv_y);
    QSPEC_ERROR_IF(!positive_normal(s), c + ": requantization scale must be finite and positive (normal)");
    scales.push_back(s);
  }
  return scales;
}

// spec: qlinear.pytorch_qnnpack
Int qlinear_pytorch_qnnpack_output(const Int& acc, std::uint32_t scale, const QLinearParams& p) {
  if (p.x_type == DType::I8) return qlinear_xnnpack_fp32_output(acc, scale, p);
  const std::uint32_t v = f32_mul(f32_from_int(acc), scale);
  QSPEC_REQUIRE(!f32_is_inf(v) && abs(f32_value(v)) < Rat(pow2(31)),
                "pytorch.qnnpack: |fl32(acc) S| < 2^31 (the domain of _mm_cvtps_epi32)");
  return saturate(round_half_even(f32_value(v)) + p.y_zero_point, int_range(DType::U8));
}

// spec: qlinear.pytorch_qnnpack
// spec: qlinear.pytorch_onednn
std::int64_t qlinear_pytorch_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                          std::int64_t kernel, std::int64_t dilation, std::int64_t stride) {
  QSPEC_ERROR_IF(pad_begin != pad_end, "pytorch: quantized::conv2d takes one padding per axis (both sides)");
  const std::int64_t numerator = in + 2 * pad_begin - dilation * (kernel - 1) - 1;
  QSPEC_ERROR_IF(numerator < 0, "pytorch: the dilated kernel is larger than the padded input");
  return numerator / stride + 1;
}

}  // namespace qspec::ref::ops
