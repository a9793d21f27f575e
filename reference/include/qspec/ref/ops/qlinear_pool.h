// Engines' quantized pooling operators (spec/operators_qlinear_pool.md): one window clause shared
// by every pool (qlinear.pool.window: output size, the taps inside the input, in window order),
// composed with one engine's convention per op (XNNPACK ae108ef, ONNX Runtime, TFLite reference).
//
// Layout NHWC. Every function checks its convention's ERROR_IFs (throws ErrorIf) and REQUIREs
// (throws RequireViolation) before computing; float steps are binary32 via ieee.h, exactly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

struct QPoolGeometry {
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> strides{1, 1};
  std::array<std::int64_t, 2> dilations{1, 1};
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};  // top, left, bottom, right
};

// The quantization parameters of a pool (max pooling uses only the type and the clamp).
struct QPoolParams {
  DType type = DType::I8;              // x's and y's dtype
  std::uint32_t x_scale = 0x3f800000;  // float32 bit patterns
  std::uint32_t y_scale = 0x3f800000;
  Int x_zero_point{0}, y_zero_point{0};
  std::optional<Int> y_min, y_max;  // fused clamp; absent: the dtype's range
};

enum class QPoolConvention { XnnpackFp32, OnnxRuntime, Tflite, OneDnn, ArmnnCpuref, Tosa };

// spec: qlinear.pool.window
// ERROR_IF x is not rank 4 with every dimension >= 1, or a kernel, stride or dilation entry < 1,
// or a pad < 0; REQUIRE the dilated kernel to fit the padded input (an output position exists).
// Returns (OH, OW) = floor((H + pt + pb - DH (KH - 1) - 1) / SH) + 1, and W's likewise.
std::array<std::int64_t, 2> qlinear_pool_out_size(const Shape& x, const QPoolGeometry& g);

// spec: qlinear.pool.window
// For every output element (n, p, q, c) in NHWC order: the codes of its taps inside the input, in
// window order (i, then j): X[n, p SH - pt + i DH, q SW - pl + j DW, c].
std::vector<std::vector<Int>> qlinear_pool_window_codes(const IntArray& x, const QPoolGeometry& g, std::int64_t oh,
                                                        std::int64_t ow);

// ---- Arm NN 20.08 CpuRef Pooling2d (spec/operators_qlinear_armnn.md) ----

// spec: qlinear.avg_pool2d.armnn_cpuref
// spec: qlinear.max_pool2d.armnn_cpuref
// The convention's checks: ERROR_IF a dilation (Pooling2dDescriptor has none) or an output extent
// whose last window starts beyond the input and its leading padding ((O - 1) S >= in + pad_lo:
// Pooling2dLayer::InferOutputShapes infers one row or column fewer and the network is refused);
// REQUIRE zero points in the dtype, finite positive scales, no fused clamp.
void qlinear_armnn_pool_check(const Shape& x, const QPoolGeometry& g, const QPoolParams& p, bool with_scales);

// spec: qlinear.avg_pool2d.armnn_cpuref
// spec: qlinear.global_avg_pool.armnn_cpuref
// Pooling2d.cpp (Average) for one window with taps: sum = +0, sum = fl32(sum + x~) over the taps
// in window order (x~ = armnn_dequantize), v = fl32(sum / fl32(divisor)); REQUIRE finite.
std::uint32_t qlinear_armnn_avgpool_value(const std::vector<Int>& codes, std::int64_t divisor, const QPoolParams& p);

// ---- qlinear.avg_pool2d ----

// spec: qlinear.avg_pool2d.xnnpack_fp32
// The ERROR_IFs of xnn_create_average_pooling2d_nhwc_qu8 and S = fl32(x_s / fl32(y_s * fl32(KH KW)));
// REQUIRE 2^-32 <= S < 256 (the params init asserts it).
std::uint32_t qlinear_avg_pool2d_xnnpack_scale(const QPoolParams& p, const QPoolGeometry& g, bool count_include_pad);

// spec: qlinear.avg_pool2d.xnnpack_fp32
// The qu8 avgpool kernels' requantization: clamp(round_half_away(acc * S) + zp, y_min, y_max), with
// acc * S exact (S = multiplier 2^-shift, the params init's exact split of the float).
Int qlinear_xnnpack_avgpool_output(const Int& acc, std::uint32_t scale, const QPoolParams& p);

// spec: qlinear.avg_pool2d.onnxruntime
// QLinearAveragePool's float pipeline for one window: v = fl32(x_s * fl32(x - x_zp)) per tap,
// summed in binary32 in window order from +0, / fl32(count), then sat(rne(fl32(fl32(v / y_s) + y_zp))).
// REQUIRE every step finite and the rounded value in int32 (the cast).
Int qlinear_onnxruntime_avgpool_output(const std::vector<Int>& codes, std::int64_t count, const QPoolParams& p);

// spec: qlinear.avg_pool2d.tflite
// TFLite's AveragePool of one window: round_half_away(sum codes / count) clamped to [y_min, y_max];
// ERROR_IF count = 0 (the kernel returns false).
Int qlinear_tflite_avgpool_output(const std::vector<Int>& codes, const QPoolParams& p);

// spec: qlinear.avg_pool2d.tosa
// TOSA's reciprocal_scale(count): k = 32 - clz(count - 1), multiplier floor((2^30 + 1) 2^k / count),
// shift 30 + k (TOSA's right shift). REQUIRE 0 < count < 2^32 (a uint32_t).
QuantizedMultiplier qlinear_tosa_reciprocal_scale(std::int64_t count);

// spec: qlinear.avg_pool2d.tosa
// The ERROR_IFs of AVG_POOL2D.tosac and of the legalization's types (int8, pads < kernel, no
// count_include_pad with padding, int8 zero points) and its REQUIRE of equal input and output parameters.
void qlinear_tosa_avgpool_check(const QPoolParams& p, const QPoolGeometry& g, bool count_include_pad);

// spec: qlinear.avg_pool2d.tosa
// AVG_POOL2D of one window with input_zp = output_zp = 0 (the legalization's): acc = sum of the
// codes inside, clip(apply_scale_32(acc, reciprocal_scale(count)), -128, 127).
Int qlinear_tosa_avgpool_output(const std::vector<Int>& codes);

// spec: qlinear.max_pool2d.tosa
// MAX_POOL2D.tosac's ERROR_IFs and the legalization's types: int8 only, no dilation, every pad below
// its kernel (so no window is empty and the padding is never selected), no fused clamp (the
// legalization drops it, E-TOSAOP-3); REQUIRE idiv_check's exact division by the stride.
void qlinear_tosa_maxpool_check(const Shape& x, const QPoolGeometry& g, const QPoolParams& p);

// spec: qlinear.pool.window
// spec: qlinear.avg_pool2d.xnnpack_fp32
// spec: qlinear.avg_pool2d.onnxruntime
// spec: qlinear.avg_pool2d.tflite
// spec: qlinear.avg_pool2d.armnn_cpuref
// spec: qlinear.avg_pool2d.tosa
IntArray qlinear_avg_pool2d(const IntArray& x, const QPoolGeometry& g, bool count_include_pad, const QPoolParams& p,
                            QPoolConvention c);

// ---- qlinear.global_avg_pool ----

// spec: qlinear.global_avg_pool.xnnpack_fp32
// The ERROR_IFs of xnn_create_global_average_pooling_nwc_qs8 / _qu8 and
// S = fl32(x_s / fl32(y_s * fl32(H W))); REQUIRE 2^-32 <= S < 256 (asserted).
std::uint32_t qlinear_global_avg_pool_xnnpack_scale(const QPoolParams& p, std::int64_t image_size);

// spec: qlinear.global_avg_pool.onnxruntime
// The zero points' dtypes (ERROR_IF) and MLAS's S = fl32(x_s / fl32(y_s * fl32(H W))): ERROR_IF
// H W >= 2^24 or S outside [2^-32, 256) (std::invalid_argument); REQUIRE finite positive scales.
std::uint32_t qlinear_global_avg_pool_onnxruntime_scale(const QPoolParams& p, std::int64_t image_size);

// spec: qlinear.global_avg_pool.tflite
// TFLite's int8 Mean over H and W of one channel's window sum acc = sum (x - x_zp):
// sat_int8(round_half_away(MBQM(acc, M, shift) / (H W)) + y_zp), (M, shift) = QuantizeMultiplier(
// double(x_s) / double(y_s)). REQUIRE int8 (uint8 runs another kernel).
Int qlinear_tflite_mean_output(const Int& acc, std::int64_t image_size, const QPoolParams& p);

// spec: qlinear.global_avg_pool.tosa
// The legalization's types (ERROR_IF not int8, a zero point outside int8, a fused clamp) and the
// output RESCALE's (multiplier, shift): (M_o, s_o) = computeMultiplierAndShift(fl64(s_x / s_y)),
// k = min(floor(log2 n), 32, 62 - s_o), M = floor(M_o 2^k / n), s = s_o + k (TOSA's right shift).
// REQUIRE finite positive scales.
QuantizedMultiplier qlinear_tosa_mean_scale(const QPoolParams& p, std::int64_t image_size);

// spec: qlinear.global_avg_pool.tosa
// RESCALE(x - z_x) by 1.0 then REDUCE_SUM over the rows then the columns of one window's codes
// (row-major, `width` columns); REQUIRE every partial sum in int32.
Int qlinear_tosa_mean_sum(const std::vector<Int>& codes, std::int64_t width, const Int& x_zero_point);

// spec: qlinear.global_avg_pool.tosa
// The output RESCALE: clip_int8(apply_scale_32(acc, M, s, DOUBLE_ROUND) + y_zp) (requant.tosa.rescale).
Int qlinear_tosa_mean_output(const Int& acc, const QuantizedMultiplier& m, const QPoolParams& p);

// spec: qlinear.pool.window
// spec: qlinear.global_avg_pool.xnnpack_fp32
// spec: qlinear.global_avg_pool.onnxruntime
// spec: qlinear.global_avg_pool.tosa
// spec: qlinear.global_avg_pool.tflite
// spec: qlinear.global_avg_pool.armnn_cpuref
IntArray qlinear_global_avg_pool(const IntArray& x, const QPoolParams& p, QPoolConvention c);

// ---- qlinear.max_pool2d ----

// spec: qlinear.pool.window
// spec: qlinear.max_pool2d.xnnpack
// spec: qlinear.max_pool2d.onnxruntime
// spec: qlinear.max_pool2d.tflite
// spec: qlinear.max_pool2d.onednn
// spec: qlinear.max_pool2d.armnn_cpuref
// The maximum code over each window's taps inside the input (the dtype's minimum where there is
// none: ONNX Runtime and TFLite; XNNPACK REQUIREs a tap), clamped to [y_min, y_max].
// spec: qlinear.max_pool2d.tosa
IntArray qlinear_max_pool2d(const IntArray& x, const QPoolGeometry& g, const QPoolParams& p, QPoolConvention c);

// ---- oneDNN 2.6 pooling (spec/operators_qlinear_onednn_pool.md) ----

// The two implementations of oneDNN's s8/u8 average pooling: the x86 jit kernels multiply by a
// reciprocal, ref_pooling divides.
enum class OneDnnPoolPath { Jit, Ref };

// spec: qlinear.avg_pool2d.onednn
// One window from the sum of its codes s and its count c: q = fl32(fl32(s) * fl32(1 / fl32(c)))
// (jit) or fl32(fl32(s) / fl32(c)) (ref), y = clamp(sat_T(rne(q)), y_min, y_max).
Int qlinear_onednn_avgpool_output(const Int& code_sum, std::int64_t count, OneDnnPoolPath path, const QPoolParams& p);

// spec: qlinear.avg_pool2d.onednn
// The implementation oneDNN runs on x86 outside the ISA-dependent band: Ref when a pad (top, left
// or the effective bottom / right) is not below its kernel dimension, else Jit. `ambiguous` is set
// when N C min(H, OH) min(W, OW) < 16 without such a pad (ref below AVX-512, jit with it).
OneDnnPoolPath qlinear_onednn_pool_path(const Shape& x, const QPoolGeometry& g, bool* ambiguous);

// spec: qlinear.pool.window
// spec: qlinear.avg_pool2d.onednn
// spec: qlinear.global_avg_pool.onednn
// oneDNN's average pooling end to end: its ERROR_IFs (shared parameters, include-padding with a
// non-zero zero point, exclude-padding pads below the kernel, the clip), the path, and per window
// the output; REQUIRE both paths to agree where the path depends on the ISA.
IntArray qlinear_onednn_avg_pool2d(const IntArray& x, const QPoolGeometry& g, bool count_include_pad,
                                   const QPoolParams& p);

}  // namespace qspec::ref::ops
