// The engines' quantized operators end to end (spec/operators_qlinear.md): shapes and parameters
// checked (ERROR_IF), then the exact accumulation, REQUIRE'd in int32, then the convention's epilogue.
#include <optional>
#include <stdexcept>
#include <string>

#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_armnn.h"

namespace qspec::ref::ops {
namespace {

const Int kInt32Min = -pow2(31);
const Int kInt32Max = pow2(31) - 1;

void require_codes(const IntArray& a, DType t, const std::string& what) {
  const Range r = int_range(t);
  for (const auto& v : a.data)
    QSPEC_REQUIRE(v >= r.lo && v <= r.hi, what + " codes lie in " + std::string(dtype_name(t)));
}

// Every accumulator in int32 (REQUIRE), then the epilogue of its channel, the last axis.
IntArray requantize(IntArray acc, const QLinearEpilogue& epilogue, const std::string& op) {
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    QSPEC_REQUIRE(acc.data[i] >= kInt32Min && acc.data[i] <= kInt32Max, op + ": the exact accumulator fits int32");
    acc.data[i] = epilogue(acc.data[i], i % channels);
  }
  return acc;
}

// oneDNN (qlinear.onednn): the s32 accumulator without the bias and the full one both REQUIRE'd
// in int32, then the epilogue that adds the bias in float.
// The output scales of the conventions with oneDNN's epilogue (qlinear.onednn, qlinear.pytorch_onednn).
std::vector<std::uint32_t> onednn_epilogue_scales(const QLinearParams& p, std::int64_t channels, QLinearOp op,
                                                  QLinearConvention c) {
  return c == QLinearConvention::PytorchOnednn ? qlinear_pytorch_onednn_scales(p, channels)
                                               : qlinear_onednn_scales(p, channels, op);
}
bool has_onednn_epilogue(QLinearConvention c) {
  return c == QLinearConvention::Onednn || c == QLinearConvention::PytorchOnednn;
}

IntArray requantize_onednn(IntArray acc, const IntArray* bias, const QLinearParams& p, QLinearOp op,
                           const std::string& name, QLinearConvention c = QLinearConvention::Onednn) {
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  const auto s = onednn_epilogue_scales(p, acc.shape.back(), op, c);
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % channels;
    const std::optional<Int> b = bias ? std::optional<Int>(bias->data[o]) : std::nullopt;
    QSPEC_REQUIRE(acc.data[i] >= kInt32Min && acc.data[i] <= kInt32Max, name + ": the s32 accumulator fits int32");
    const Int full = acc.data[i] + b.value_or(Int(0));
    QSPEC_REQUIRE(full >= kInt32Min && full <= kInt32Max, name + ": the exact accumulator with the bias fits int32");
    acc.data[i] = qlinear_onednn_output(acc.data[i], b, s[o], p);
  }
  return acc;
}

}  // namespace

QLinearEpilogue qlinear_epilogue(const QLinearParams& p, std::int64_t channels, QLinearConvention c, QLinearOp op) {
  if (c == QLinearConvention::ArmnnCpuref)
    throw std::logic_error("qlinear_epilogue: armnn.cpuref has no integer accumulator (qlinear_armnn.h)");
  if (qlinear_is_tflite(c)) {
    const bool single = c == QLinearConvention::TfliteSingleRound;
    auto m = qlinear_tflite_multipliers(p, channels, op, single);
    return [m = std::move(m), p, single](const Int& acc, std::size_t o) {
      return qlinear_tflite_output(acc, m[o], p, single);
    };
  }
  if (c == QLinearConvention::PytorchQnnpack) {
    auto s = qlinear_pytorch_qnnpack_scales(p, channels, op);
    return
        [s = std::move(s), p](const Int& acc, std::size_t o) { return qlinear_pytorch_qnnpack_output(acc, s[o], p); };
  }
  if (c == QLinearConvention::Tosa) {
    auto m = qlinear_tosa_multipliers(p, channels);
    return [m = std::move(m), p](const Int& acc, std::size_t o) { return qlinear_tosa_output(acc, m[o], p); };
  }
  if (has_onednn_epilogue(c))
    throw std::logic_error("qlinear_epilogue: oneDNN adds the bias in float (qlinear_onednn_output)");
  auto s = qlinear_scales(p, channels, c);
  return [s = std::move(s), p, c](const Int& acc, std::size_t o) { return qlinear_output(acc, s[o], p, c); };
}

// spec: qlinear.acc.conv2d
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
// spec: qlinear.tflite
// spec: qlinear.tosa
// spec: qlinear.pytorch_qnnpack
// spec: qlinear.onednn
// spec: qlinear.pytorch_onednn
std::array<std::int64_t, 2> qlinear_conv2d_out_size(const Shape& x, const Shape& w, const QConvGeometry& g,
                                                    QLinearConvention c) {
  if (c == QLinearConvention::ArmnnCpuref) {  // its sums carry the shape (qlinear_armnn.h)
    const IntArray probe_x(x), probe_w(w);
    const auto s = armnn_conv2d_sums(probe_x, probe_w, nullptr, g, QLinearParams{});
    return {s.shape[1], s.shape[2]};
  }
  auto dim = [&](int axis) {
    const auto a = static_cast<std::size_t>(axis);
    const std::int64_t in = x[a + 1], k = w[a + 1], d = g.dilations[a], s = g.strides[a];
    const std::int64_t pb = g.pads[a], pe = g.pads[a + 2];
    if (qlinear_is_tflite(c)) return qlinear_tflite_conv_out_dim(in, pb, pe, k, d, s);
    if (c == QLinearConvention::Tosa) return qlinear_tosa_conv_out_dim(in, pb, pe, k, d, s);
    if (c == QLinearConvention::PytorchQnnpack || c == QLinearConvention::PytorchOnednn)
      return qlinear_pytorch_conv_out_dim(in, pb, pe, k, d, s);
    if (c == QLinearConvention::Onednn) return qlinear_onednn_conv_out_dim(in, pb, pe, k, d, s);
    return c == QLinearConvention::XnnpackFp32 ? qlinear_xnnpack_conv_out_dim(in, pb, pe, k, d, s)
                                               : qlinear_onnxruntime_conv_out_dim(in, pb, pe, k, d, s);
  };
  if (qlinear_is_tflite(c)) qlinear_tflite_conv_groups_check(x, g);
  if (c == QLinearConvention::Tosa) qlinear_tosa_conv_groups_check(x, g);
  return {dim(0), dim(1)};
}

// spec: qlinear.acc.conv2d
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
// spec: qlinear.tflite
// spec: qlinear.tosa
// spec: qlinear.pytorch_qnnpack
// spec: qlinear.onednn
// spec: qlinear.pytorch_onednn
IntArray qlinear_conv2d(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                        const QLinearParams& p, QLinearConvention c) {
  if (c == QLinearConvention::ArmnnCpuref) return qlinear_armnn_conv2d(x, w, bias, g, p);
  qlinear_conv2d_check(x.shape, w.shape, bias ? &bias->shape : nullptr, g);
  if (has_onednn_epilogue(c)) {
    onednn_epilogue_scales(p, w.dim(0), QLinearOp::Conv2d, c);  // the ERROR_IFs first
    const auto [oh, ow] = qlinear_conv2d_out_size(x.shape, w.shape, g, c);
    require_codes(x, p.x_type, "qlinear.conv2d: x");
    require_codes(w, p.w_type, "qlinear.conv2d: w");
    if (bias) require_codes(*bias, DType::I32, "qlinear.conv2d: b");
    return requantize_onednn(qlinear_acc_conv2d(x, w, nullptr, g, p.x_zero_point, p.w_zero_point, oh, ow), bias, p,
                             QLinearOp::Conv2d, "qlinear.conv2d", c);
  }
  const auto epilogue = qlinear_epilogue(p, w.dim(0), c, QLinearOp::Conv2d);
  const auto [oh, ow] = qlinear_conv2d_out_size(x.shape, w.shape, g, c);
  require_codes(x, p.x_type, "qlinear.conv2d: x");
  require_codes(w, p.w_type, "qlinear.conv2d: w");
  if (bias) require_codes(*bias, DType::I32, "qlinear.conv2d: b");
  return requantize(qlinear_acc_conv2d(x, w, bias, g, p.x_zero_point, p.w_zero_point, oh, ow), epilogue,
                    "qlinear.conv2d");
}

// spec: qlinear.acc.fully_connected
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
// spec: qlinear.tflite
// spec: qlinear.tosa
// spec: qlinear.pytorch_qnnpack
// spec: qlinear.onednn
// spec: qlinear.pytorch_onednn
IntArray qlinear_fully_connected(const IntArray& x, const IntArray& w, const IntArray* bias, const QLinearParams& p,
                                 QLinearConvention c) {
  if (c == QLinearConvention::ArmnnCpuref) return qlinear_armnn_fully_connected(x, w, bias, p);
  qlinear_fully_connected_check(x.shape, w.shape, bias ? &bias->shape : nullptr);
  if (has_onednn_epilogue(c)) {
    onednn_epilogue_scales(p, w.dim(0), QLinearOp::FullyConnected, c);  // the ERROR_IFs first
    require_codes(x, p.x_type, "qlinear.fully_connected: x");
    require_codes(w, p.w_type, "qlinear.fully_connected: w");
    if (bias) require_codes(*bias, DType::I32, "qlinear.fully_connected: b");
    return requantize_onednn(qlinear_acc_fully_connected(x, w, nullptr, p.x_zero_point, p.w_zero_point), bias, p,
                             QLinearOp::FullyConnected, "qlinear.fully_connected", c);
  }
  const auto epilogue = qlinear_epilogue(p, w.dim(0), c, QLinearOp::FullyConnected);
  require_codes(x, p.x_type, "qlinear.fully_connected: x");
  require_codes(w, p.w_type, "qlinear.fully_connected: w");
  if (bias) require_codes(*bias, DType::I32, "qlinear.fully_connected: b");
  return requantize(qlinear_acc_fully_connected(x, w, bias, p.x_zero_point, p.w_zero_point), epilogue,
                    "qlinear.fully_connected");
}

// spec: qlinear.acc.matmul
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
// spec: qlinear.tflite
// spec: qlinear.tosa
// spec: qlinear.onednn
IntArray qlinear_matmul(const IntArray& a, const IntArray& b, const QLinearParams& p, QLinearConvention c) {
  if (c == QLinearConvention::ArmnnCpuref)
    throw std::logic_error("qlinear_matmul: Arm NN 20.08 has no batched matmul layer (no armnn.cpuref)");
  if (c == QLinearConvention::PytorchOnednn)
    throw std::logic_error("qlinear_matmul: pytorch.onednn is a convention of conv2d and fully_connected only");
  const Shape out = qlinear_matmul_output_shape(a.shape, b.shape);
  QSPEC_ERROR_IF(qlinear_is_tflite(c) && (a.shape.size() > 5 || b.shape.size() > 5),
                 "tflite: BATCH_MATMUL supports ranks 2 to 5");
  if (c == QLinearConvention::Tosa) qlinear_tosa_matmul_check(a.shape, b.shape);
  if (c == QLinearConvention::Onednn) {
    qlinear_onednn_scales(p, out.back(), QLinearOp::Matmul);  // the ERROR_IFs first
    require_codes(a, p.x_type, "qlinear.matmul: a");
    require_codes(b, p.w_type, "qlinear.matmul: b");
    return requantize_onednn(qlinear_acc_matmul(a, b, p.x_zero_point, p.w_zero_point), nullptr, p, QLinearOp::Matmul,
                             "qlinear.matmul");
  }
  const auto epilogue = qlinear_epilogue(p, out.back(), c, QLinearOp::Matmul);
  require_codes(a, p.x_type, "qlinear.matmul: a");
  require_codes(b, p.w_type, "qlinear.matmul: b");
  return requantize(qlinear_acc_matmul(a, b, p.x_zero_point, p.w_zero_point), epilogue, "qlinear.matmul");
}

}  // namespace qspec::ref::ops
