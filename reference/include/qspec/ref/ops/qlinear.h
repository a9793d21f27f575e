// Engines' quantized operators (spec/operators_qlinear.md): one exact integer accumulation per op
// shape (qlinear.acc.*), composed with one engine's convention (qlinear.xnnpack_fp32,
// qlinear.onnxruntime): its parameter derivation, its ERROR_IFs, its output size and its epilogue.
//
// The accumulations are pure exact sums over Z (no REQUIRE): the composition REQUIREs the result
// in int32, as the engines' wrapping int32 accumulators return it only then. Layouts are NHWC
// activations and OHWI weights; the per-channel axis of the weights' scales is the output's last.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

struct QConvGeometry {
  std::array<std::int64_t, 2> strides{1, 1};
  std::array<std::int64_t, 2> dilations{1, 1};
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};  // top, left, bottom, right
  std::int64_t groups = 1;
};

// spec: qlinear.acc.conv2d
// ERROR_IF the shapes or the geometry are invalid (ranks, empty dimensions, strides/dilations < 1,
// pads < 0, groups not dividing C and O, bias not (O)); `bias` may be null.
void qlinear_conv2d_check(const Shape& x, const Shape& w, const Shape* bias, const QConvGeometry& g);

// spec: qlinear.acc.conv2d
// acc[n,p,q,o] = b[o] + sum_{i,j,c} (X^[n, p SH - pt + i DH, q SW - pl + j DW, g Cg + c] - zx)(W[o,i,j,c] - zw)
// for p < oh, q < ow, with X^ = zx outside the input (a tap outside contributes 0). Exact.
IntArray qlinear_acc_conv2d(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                            const Int& zx, const Int& zw, std::int64_t oh, std::int64_t ow);

// spec: qlinear.acc.fully_connected
// ERROR_IF x is not (N,K), w not (O,K) with the same K >= 1, O < 1, or bias given and not (O).
void qlinear_fully_connected_check(const Shape& x, const Shape& w, const Shape* bias);

// spec: qlinear.acc.fully_connected
// acc[n,o] = b[o] + sum_k (X[n,k] - zx)(W[o,k] - zw). Exact.
IntArray qlinear_acc_fully_connected(const IntArray& x, const IntArray& w, const IntArray* bias, const Int& zx,
                                     const Int& zw);

// spec: qlinear.acc.matmul
// The output shape (broadcast batch..., M, N); ERROR_IF a rank < 2, K differs, an empty
// dimension, or batch dimensions that do not broadcast.
Shape qlinear_matmul_output_shape(const Shape& a, const Shape& b);

// spec: qlinear.acc.matmul
// acc[beta,m,n] = sum_k (A[beta_A,m,k] - za)(B[beta_B,k,n] - zb), NumPy batch broadcasting. Exact.
IntArray qlinear_acc_matmul(const IntArray& a, const IntArray& b, const Int& za, const Int& zb);

// ---- conventions ----

// ArmnnCpuref has no integer accumulator: its layers are qlinear_armnn.h's float pipeline.
enum class QLinearConvention {
  XnnpackFp32,
  OnnxRuntime,
  TfliteDoubleRound,
  TfliteSingleRound,
  Tosa,
  ArmnnCpuref,
  PytorchQnnpack,
  Onednn,
  PytorchOnednn
};

// Which operator a convention's parameter derivation is for (TFLite derives them per operator).
enum class QLinearOp { Conv2d, FullyConnected, Matmul };

// Whether c is one of TFLite's fixed-point conventions (qlinear.tflite), not a binary32 epilogue.
inline bool qlinear_is_tflite(QLinearConvention c) {
  return c == QLinearConvention::TfliteDoubleRound || c == QLinearConvention::TfliteSingleRound;
}

// One operator's quantization parameters (matmul: x = a, w = b).
struct QLinearParams {
  DType x_type = DType::I8, w_type = DType::I8;  // the activations' (and output's) and the weights' dtypes
  std::uint32_t x_scale = 0x3f800000;            // float32 bit patterns
  Int x_zero_point{0};
  std::vector<std::uint32_t> w_scales{0x3f800000};  // 1 (per tensor) or one per output channel
  Int w_zero_point{0};
  std::uint32_t y_scale = 0x3f800000;
  Int y_zero_point{0};
  std::optional<Int> y_min, y_max;  // fused clamp (XNNPACK); absent: the dtype's range
};

// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
// S = fl32(fl32(x_scale * w_scale) / y_scale): the requantization scale both engines derive.
// REQUIRE y_scale != 0 (a division by zero is outside both clauses).
std::uint32_t qlinear_fp32_scale(std::uint32_t x_scale, std::uint32_t w_scale, std::uint32_t y_scale);

// spec: qlinear.xnnpack_fp32
// The ERROR_IFs of XNNPACK's operator creation for `channels` output channels (dtypes, scale count,
// kernel zero point, zero points and clamp in the dtype, positive normal scales, y_min < y_max,
// S_o < 256) and the per-channel scales S_o; REQUIRE S_o >= 2^-32.
std::vector<std::uint32_t> qlinear_xnnpack_fp32_scales(const QLinearParams& p, std::int64_t channels);

// spec: qlinear.xnnpack_fp32
// y = clamp(float.xnnpack_fp32(acc, S, zy, dtype), y_min, y_max).
Int qlinear_xnnpack_fp32_output(const Int& acc, std::uint32_t scale, const QLinearParams& p);

// spec: qlinear.xnnpack_fp32
// XNNPACK's output size: floor((in + pad_begin + pad_end - dilation (kernel - 1) - 1) / stride) + 1;
// REQUIRE the dilated kernel to fit the padded input (XNNPACK's run reads out of bounds otherwise).
std::int64_t qlinear_xnnpack_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                          std::int64_t kernel, std::int64_t dilation, std::int64_t stride);

// spec: qlinear.onnxruntime
// The ERROR_IFs of ONNX Runtime's QLinearConv / QLinearMatMul (dtype pairs, scale count, zero
// points in their dtypes) and the per-channel scales S_o; REQUIRE finite positive scales, S_o finite.
std::vector<std::uint32_t> qlinear_onnxruntime_scales(const QLinearParams& p, std::int64_t channels);

// spec: qlinear.onnxruntime
// MlasRequantizeOutput: v = fl32(fl32(acc) * S) (inf on overflow), clamped in float to
// [qmin - zy, qmax - zy], y = rne(v) + zy.
Int qlinear_onnxruntime_output(const Int& acc, std::uint32_t scale, const QLinearParams& p);

// spec: qlinear.onnxruntime
// ONNX Runtime's output size: floor((in + pad_begin + pad_end - dilation (kernel - 1) - 1) / stride) + 1;
// ERROR_IF it is < 1 ("Invalid input shape").
std::int64_t qlinear_onnxruntime_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                              std::int64_t kernel, std::int64_t dilation, std::int64_t stride);

// Whether c has a fused [y_min, y_max] clamp (ONNX Runtime's, Arm NN's and PyTorch's operators have none).
inline bool qlinear_has_clamp(QLinearConvention c) {
  return c != QLinearConvention::OnnxRuntime && c != QLinearConvention::ArmnnCpuref &&
         c != QLinearConvention::PytorchQnnpack && c != QLinearConvention::PytorchOnednn;
}

// spec: qlinear.pytorch_qnnpack
// The ERROR_IFs of PyTorch 1.13's quantized::linear / conv2d under the qnnpack engine for `channels`
// output channels and the per-channel scales S_o. int8 (qint8) weights only. uint8 (quint8)
// activations: PyTorch's QNNPACK, S_o = fl32(fl32(w_s[o] x_s) fl32(1 / y_s)), ERROR_IF S_o is not a
// positive normal float (generate_requantization_scales); int8 (qint8) activations: XNNPACK qs8 / qc8,
// qlinear.xnnpack_fp32's ERROR_IFs and S_o, and ERROR_IF a per-channel fully connected layer.
std::vector<std::uint32_t> qlinear_pytorch_qnnpack_scales(const QLinearParams& p, std::int64_t channels, QLinearOp op);

// spec: qlinear.pytorch_qnnpack
// v = fl32(fl32(acc) S) (REQUIRE |v| < 2^31: _mm_cvtps_epi32's domain), y = sat(rne(v) + y_zero_point).
Int qlinear_pytorch_qnnpack_output(const Int& acc, std::uint32_t scale, const QLinearParams& p);

// spec: qlinear.pytorch_qnnpack
// quantized::conv2d's output size of one axis: floor((in + 2 pad - dilation (kernel - 1) - 1) / stride) + 1;
// ERROR_IF the pads of the axis differ (PyTorch takes one padding per axis) or the size is < 1.
std::int64_t qlinear_pytorch_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                          std::int64_t kernel, std::int64_t dilation, std::int64_t stride);

// spec: qlinear.tflite
// Whether TFLite derives op's multipliers on its per-channel path (PopulateConvolutionQuantizationParams:
// int8 CONV_2D and DEPTHWISE_CONV_2D always, FULLY_CONNECTED with more than one weight scale) rather
// than its per-tensor path (GetQuantizedConvolutionMultipler: uint8 conv, per-tensor fully connected,
// BATCH_MATMUL).
bool qlinear_tflite_per_channel_path(const QLinearParams& p, QLinearOp op);

// spec: qlinear.tflite
// The binary64 real multiplier of output channel o (bit pattern): on the per-channel path
// fl64(fl64(double(x_scale) * double(w_scale[o])) / double(y_scale)), on the per-tensor path
// fl64(double(fl32(x_scale * w_scale)) / double(y_scale)). REQUIRE finite scales, y_scale != 0.
std::uint64_t qlinear_tflite_real_multiplier(const QLinearParams& p, std::size_t o, bool per_channel_path);

// spec: qlinear.tflite
// The ERROR_IFs of TFLite's Prepare for op with `channels` output channels (dtypes, scale count,
// per-channel needs int8, the int8 filter zero point on the per-channel kernels, zero points and
// clamp in the dtype, y_min <= y_max), then QuantizeMultiplier of every channel's real multiplier
// (TFLITE_SINGLE_ROUNDING's saturation when single_round).
std::vector<QuantizedMultiplier> qlinear_tflite_multipliers(const QLinearParams& p, std::int64_t channels, QLinearOp op,
                                                            bool single_round);

// spec: qlinear.tflite
// y = clamp(MultiplyByQuantizedMultiplier(acc, M, shift) + y_zero_point, y_min, y_max) with the
// default build's double rounding or TFLITE_SINGLE_ROUNDING (requant.tflite.double_round / single_round).
Int qlinear_tflite_output(const Int& acc, const QuantizedMultiplier& m, const QLinearParams& p, bool single_round);

// spec: qlinear.tflite
// TFLite's CONV_2D / DEPTHWISE_CONV_2D geometry: ERROR_IF groups is neither 1 nor C (depthwise), or
// the pads of an axis are neither VALID's (0, 0) nor SAME's (floor(t / 2), t - floor(t / 2)) with
// t = max((ceil(in / stride) - 1) stride + dilation (kernel - 1) + 1 - in, 0). Returns the output
// size of the axis: ceil(in / stride) (SAME), floor((in - dilation (kernel - 1) - 1) / stride) + 1
// (VALID; REQUIRE it >= 1).
std::int64_t qlinear_tflite_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                         std::int64_t kernel, std::int64_t dilation, std::int64_t stride);

// spec: qlinear.tflite
// ERROR_IF groups is neither 1 (CONV_2D) nor C (DEPTHWISE_CONV_2D; shapes already checked).
void qlinear_tflite_conv_groups_check(const Shape& x, const QConvGeometry& g);

// spec: qlinear.tosa
// computeMultiplierAndShift(scale, multiplier, shift, 32) of the TFLite -> TOSA legalization for
// the binary64 `double_bits`: frexp, M = round half away(q 2^31) with the carry, TOSA shift
// s = 31 - e, and above 62 the multiplier shifted right by min(31, s - 62) and s = 62. REQUIRE a
// finite positive value. Returns (M, s) with s TOSA's right shift.
QuantizedMultiplier qlinear_tosa_multiplier_and_shift(std::uint64_t double_bits);

// spec: qlinear.tosa
// The ERROR_IFs of the TOSA operators for `channels` output channels (int8 tensors, zero points in
// int8, the scale count, CLAMP's min <= max), then every channel's (M_o, s_o) of the binary64
// (double(x_scale) * double(w_scale[o])) / double(y_scale) (REQUIRE finite scales, y_scale != 0).
std::vector<QuantizedMultiplier> qlinear_tosa_multipliers(const QLinearParams& p, std::int64_t channels);

// spec: qlinear.tosa
// y = CLAMP(RESCALE(acc; M, s, output_zp = y_zero_point, scale32, double_round), y_min, y_max):
// requant.tosa.rescale with TosaScale::Double32 to int8, then the clamp.
Int qlinear_tosa_output(const Int& acc, const QuantizedMultiplier& m, const QLinearParams& p);

// spec: qlinear.tosa
// TOSA CONV2D / DEPTHWISE_CONV2D output size of one axis: (in - 1 + pad_begin + pad_end - (kernel - 1)
// dilation) / stride + 1; ERROR_IF it is < 1; REQUIRE the division exact (idiv_check).
std::int64_t qlinear_tosa_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                       std::int64_t kernel, std::int64_t dilation, std::int64_t stride);

// spec: qlinear.tosa
// ERROR_IF groups is neither 1 (CONV2D) nor C (DEPTHWISE_CONV2D).
void qlinear_tosa_conv_groups_check(const Shape& x, const QConvGeometry& g);

// spec: qlinear.tosa
// TOSA MATMUL takes [N, H, C] x [N, C, W]: ERROR_IF the batch dimensions of a and b differ (no broadcast).
void qlinear_tosa_matmul_check(const Shape& a, const Shape& b);

// spec: qlinear.onednn
// The ERROR_IFs of oneDNN 2.6's int8 primitives for `channels` output channels of op (s8 or u8
// source, s8 weights; convolution: no weights zero point; the scale count) and the output scales
// S_o = fl32(fl32(x_scale * w_scale[o]) / y_scale) a user passes to set_output_scales; REQUIRE
// finite positive scales, S_o finite, the clamp in the dtype; ERROR_IF y_max < y_min (eltwise_clip).
std::vector<std::uint32_t> qlinear_onednn_scales(const QLinearParams& p, std::int64_t channels, QLinearOp op);

// spec: qlinear.onednn
// oneDNN's epilogue of the s32 accumulator `acc` (the bias not included): d = fl32(acc); with a
// bias d = fl32(d + fl32(bias)); d = fl32(d * S); with a clamp the eltwise_clip post-op
// d = min(max(d, fl32(y_min - zy)), fl32(y_max - zy)); d = fl32(d + fl32(zy)); saturate in float;
// y = rne(d).
Int qlinear_onednn_output(const Int& acc, const std::optional<Int>& bias, std::uint32_t scale, const QLinearParams& p);

// spec: qlinear.onednn
// oneDNN's convolution output size, as a user computes the destination dims:
// floor((in + pad_begin + pad_end - dilation (kernel - 1) - 1) / stride) + 1; REQUIRE the dilated
// kernel to fit the padded input (no output position otherwise).
std::int64_t qlinear_onednn_conv_out_dim(std::int64_t in, std::int64_t pad_begin, std::int64_t pad_end,
                                         std::int64_t kernel, std::int64_t dilation, std::int64_t stride);

// ---- the operators: accumulation, then the convention (parameters checked first) ----

// spec: qlinear.acc.conv2d
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
// The convention's output size (OH, OW) of a convolution (shapes already checked).
std::array<std::int64_t, 2> qlinear_conv2d_out_size(const Shape& x, const Shape& w, const QConvGeometry& g,
                                                    QLinearConvention c);

// spec: qlinear.acc.conv2d
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
IntArray qlinear_conv2d(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                        const QLinearParams& p, QLinearConvention c);

// spec: qlinear.acc.fully_connected
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
IntArray qlinear_fully_connected(const IntArray& x, const IntArray& w, const IntArray* bias, const QLinearParams& p,
                                 QLinearConvention c);

// spec: qlinear.acc.matmul
// spec: qlinear.xnnpack_fp32
// spec: qlinear.onnxruntime
IntArray qlinear_matmul(const IntArray& a, const IntArray& b, const QLinearParams& p, QLinearConvention c);

// The requantization scales S_o and the epilogue of convention c, for `channels` output channels
// (the ERROR_IFs of its operator creation first).
std::vector<std::uint32_t> qlinear_scales(const QLinearParams& p, std::int64_t channels, QLinearConvention c);
Int qlinear_output(const Int& acc, std::uint32_t scale, const QLinearParams& p, QLinearConvention c);

// The epilogue of convention c for op, one output channel at a time, after the ERROR_IFs of its
// parameter derivation for `channels` output channels: y = epilogue(acc, channel).
using QLinearEpilogue = std::function<Int(const Int& acc, std::size_t channel)>;
QLinearEpilogue qlinear_epilogue(const QLinearParams& p, std::int64_t channels, QLinearConvention c, QLinearOp op);

// spec: qlinear.pytorch_onednn
// The ERROR_IFs of PyTorch 1.13's quantized::linear / conv2d under the onednn engine (quint8
// activations, qint8 weights with zero point 0, 1 or `channels` weight scales, zero points in uint8)
// and the output scales oneDNN is given: with r(s) = fl32(fl64(1 / fl64(s))) (ideep's reciprocal
// scales), c_o = fl32(r(x_s) r(w_s[o])) and M_o = fl32(r(y_s) / c_o). The epilogue is
// qlinear_onednn_output with M_o and no clamp (the bias term fl32(b[o]) added in float).
std::vector<std::uint32_t> qlinear_pytorch_onednn_scales(const QLinearParams& p, std::int64_t channels);

// spec: qlinear.pytorch_onednn
// c_o = fl32(r(x_s) r(w_s)), the factor by which the engine scales the user's float bias into
// accumulator units (the bias term it adds is fl32(b_f c_o)).
std::uint32_t qlinear_pytorch_onednn_bias_scale(std::uint32_t x_scale, std::uint32_t w_scale);

}  // namespace qspec::ref::ops
