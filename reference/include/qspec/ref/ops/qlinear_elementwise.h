// Engines' quantized elementwise operators (spec/operators_qlinear_elementwise.md): qlinear.add and
// qlinear.mul with NumPy broadcasting, under XNNPACK's, ONNX Runtime's and TFLite's conventions.
//
// Each (op, convention) is the shared broadcast (qlinear.ew.broadcast) composed with one element
// function: the convention's parameter derivation is done once (its ERROR_IFs first), then every
// output element is the element function of its two broadcast inputs. Float steps are modelled
// exactly (ieee.h); TFLite's fixed-point steps reuse requant.tflite.*.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

enum class QEwOp { Add, Mul };
enum class QEwConvention {
  XnnpackFp32,
  OnnxRuntime,
  TfliteDoubleRound,
  TfliteSingleRound,
  ArmnnCpuref,
  PytorchOnednn,
  PytorchQnnpack,
  Onednn,
  Tosa,
};

// One operator's quantization parameters: a, b and y share `type` (b_type must equal it).
struct QEwParams {
  DType type = DType::I8, b_type = DType::I8;
  std::uint32_t a_scale = 0x3f800000, b_scale = 0x3f800000, y_scale = 0x3f800000;  // float32 bit patterns
  Int a_zero_point{0}, b_zero_point{0}, y_zero_point{0};
  std::optional<Int> y_min, y_max;  // fused clamp (XNNPACK, TFLite); absent: the dtype's range
};

// spec: qlinear.ew.broadcast
// The NumPy broadcast of a and b: the output shape and, per output element (row-major), the
// row-major offsets of the a and b elements it reads. ERROR_IF the shapes do not broadcast.
struct QEwBroadcast {
  Shape out;
  std::vector<std::int64_t> a_offset, b_offset;
};
QEwBroadcast qlinear_ew_broadcast(const Shape& a, const Shape& b);

// ---- the conventions' derived parameters ----

// spec: qlinear.add.xnnpack_fp32
// xnn_init_qs8_add_minmax_*_params: multipliers rne(fl32(s_a / s_y) 2^shift), shift = 20 - the
// exponent of the larger ratio, bias = 2^(shift-1) - m_a z_a - m_b z_b.
struct QEwXnnpackAdd {
  std::uint32_t a_ratio = 0, b_ratio = 0;  // fl32(s_a / s_y), fl32(s_b / s_y)
  Int a_multiplier, b_multiplier, bias;
  int shift = 0;
};
QEwXnnpackAdd qlinear_add_xnnpack_params(const QEwParams& p);

// spec: qlinear.add.onnxruntime
// How QLinearAdd<T>::Compute calls MLAS for two shapes: General (both operands span the output's
// last axis, or b is one scalar per span: the same arithmetic), ScalarA (a one element, or a unit
// last axis against a longer one: MLAS gets the operands' roles swapped and folds a into its
// constant). Other shapes (unit last axes on both sides with different shapes, neither operand
// one element) are a REQUIRE.
enum class QEwOrtAddPath { General, ScalarA };
QEwOrtAddPath qlinear_add_onnxruntime_path(const Shape& a, const Shape& b);

// spec: qlinear.add.onnxruntime
// MlasQLinearAddKernelAvx2Helper: r_a = fl32(s_a / s_y), r_b = fl32(s_b / s_y),
// K = fl32(fl32(z_y) - fma(r_a, z_a, fl32(r_b z_b))); on the ScalarA path (the roles swapped)
// K = fl32(fl32(z_y) - fma(r_b, z_b, fl32(r_a z_a))).
struct QEwOnnxRuntimeAdd {
  std::uint32_t a_ratio = 0, b_ratio = 0, fixed = 0;
  bool scalar_a = false;  // the ScalarA path: a is folded into the constant first
};
QEwOnnxRuntimeAdd qlinear_add_onnxruntime_params(const QEwParams& p, QEwOrtAddPath path = QEwOrtAddPath::General);
// v (binary32 bits) for the codes a, b: fma(a, r_a, fma(b, r_b, K)), or on the ScalarA path
// fma(b, r_b, fma(a, r_a, K)); REQUIRE it finite.
std::uint32_t qlinear_add_onnxruntime_value(const Int& a, const Int& b, const QEwOnnxRuntimeAdd& k);

// spec: qlinear.add.tflite_double_round
// spec: qlinear.add.tflite_single_round
// add.cc Prepare: left_shift 20, twice_max_input_scale, the input and output multipliers.
struct QEwTfliteAdd {
  QuantizedMultiplier a, b, out;
  int left_shift = 20;
};
QEwTfliteAdd qlinear_add_tflite_params(const QEwParams& p, bool single_round);
// raw_sum = MBQM(2^20 (a - z_a), M_a, s_a) + MBQM(2^20 (b - z_b), M_b, s_b): the output step's input.
Int qlinear_add_tflite_raw_sum(const Int& a, const Int& b, const QEwTfliteAdd& k, const QEwParams& p,
                               bool single_round);

// spec: qlinear.mul.xnnpack_fp32
// S = fl32(fl32(s_a s_b) / s_y); ERROR_IF S outside [2^-16, 2^8).
std::uint32_t qlinear_mul_xnnpack_scale(const QEwParams& p);

// spec: qlinear.mul.onnxruntime
// MlasQLinearMulKernel (SSE2): R = fl32(fl32(s_a s_b) / s_y).
std::uint32_t qlinear_mul_onnxruntime_scale(const QEwParams& p);
// v = fl32(fl32(fl32(p) R) + fl32(z_y)) with p = (a - z_a)(b - z_b); REQUIRE it finite.
std::uint32_t qlinear_mul_onnxruntime_value(const Int& a, const Int& b, std::uint32_t scale, const QEwParams& p);

// spec: qlinear.mul.tflite_double_round
// spec: qlinear.mul.tflite_single_round
// mul.cc Prepare: QuantizeMultiplier(double(s_a) * double(s_b) / double(s_y)).
QuantizedMultiplier qlinear_mul_tflite_params(const QEwParams& p, bool single_round);

// spec: qlinear.add.armnn_cpuref
// spec: qlinear.mul.armnn_cpuref
// Arm NN 20.08 CpuRef (spec/operators_qlinear_armnn.md): the binary32 v = fl32(a~ + b~) or fl32(a~ b~)
// with a~ = fl32(float(a - z_a) s_a), b~ likewise (armnn::Dequantize): std::plus / std::multiplies
// in float; REQUIRE every step finite. y = armnn_quantize(v, s_y, z_y) (qlinear_armnn.h).
// qlinear_ew_armnn_check: the convention's REQUIREs (zero points in the dtype, finite positive
// scales, no fused clamp).
void qlinear_ew_armnn_check(const QEwParams& p);
std::uint32_t qlinear_ew_armnn_value(QEwOp op, const Int& a, const Int& b, const QEwParams& p);

// spec: qlinear.mul.pytorch_onednn
// ATen's qmul_kernel (PyTorch 1.13): M = fl32(fl32(s_a s_b) fl32(1 / s_y)) (ops_qlinear_elementwise_pytorch.cc).
std::uint32_t qlinear_mul_pytorch_onednn_multiplier(const QEwParams& p);
// Whether QMul::run hands the operands to XNNPACK's multiply (qint8 with y_zero_point < 127):
// then the element is qlinear.mul.xnnpack_fp32's.
bool qlinear_mul_pytorch_runs_xnnpack(const QEwParams& p);
// y = clamp(sat_T(rne(fl32(fl32(p) M)) + z_y), y_min, y_max) with p = (a - z_a)(b - z_b).
Int qlinear_mul_pytorch_onednn_element(const Int& a, const Int& b, std::uint32_t multiplier, const QEwParams& p);

// spec: qlinear.add.pytorch_onednn
// ATen's qadd_kernel, scalar path (PyTorch 1.13, ops_qlinear_elementwise_pytorch.cc): checks the
// parameters and returns inv = fl32(1 / s_y).
std::uint32_t qlinear_add_pytorch_onednn_inverse(const QEwParams& p);
// d_a = fl32((a - z_a) s_a), d_b likewise, v = fl32(fl32(d_a + d_b) inv) (binary32 bits; REQUIRE finite).
std::uint32_t qlinear_add_pytorch_onednn_value(const Int& a, const Int& b, std::uint32_t inverse, const QEwParams& p);
// y = clamp(sat_T(rne(v) + z_y), y_min, y_max).
Int qlinear_add_pytorch_onednn_element(const Int& a, const Int& b, std::uint32_t inverse, const QEwParams& p);

// spec: qlinear.add.pytorch_qnnpack
// Which kernel quantized::add runs under the qnnpack engine: PyTorch's QNNPACK q8add (uint8, equal
// shapes), ATen's qadd_kernel (uint8 with broadcasting) or XNNPACK's qs8 add (int8).
enum class QEwPytorchQnnpackAddPath { Q8Add, Aten, Xnnpack };
QEwPytorchQnnpackAddPath qlinear_add_pytorch_qnnpack_path(DType t, const Shape& a, const Shape& b);
// pytorch_qnnp_create_add_nc_q8 + pytorch_qnnp_compute_add_quantization_params: r = fl32(s / s_y)
// in [2^-14, 2^8), shift = 21 - the exponent of the larger ratio, multipliers rne(r 2^shift).
struct QEwQnnpackAdd {
  std::uint32_t a_ratio = 0, b_ratio = 0;
  Int a_multiplier, b_multiplier;
  int shift = 0;
};
QEwQnnpackAdd qlinear_add_pytorch_qnnpack_params(const QEwParams& p);
// acc = (a - z_a) m_a + (b - z_b) m_b, rounded half away from zero by 2^shift, + z_y, clamped.
Int qlinear_add_pytorch_qnnpack_element(const Int& a, const Int& b, const QEwQnnpackAdd& k, const QEwParams& p);
// spec: qlinear.add.onednn
// spec: qlinear.mul.onednn
// oneDNN 2.6.3 binary_add / binary_mul as a user maps the operator onto it
// (spec/operators_qlinear_onednn_binary.md): the source scales (add: s0 = fl32(s_a / s_y),
// s1 = fl32(s_b / s_y); mul: s0 = fl32(fl32(s_a s_b) / s_y), s1 = 1) after the convention's
// ERROR_IFs (source zero points 0, z_y and the clamp in the dtype) and REQUIREs (finite scales).
struct QEwOnednnScales {
  std::uint32_t src0 = 0x3f800000, src1 = 0x3f800000;  // float32 bit patterns
};
QEwOnednnScales qlinear_ew_onednn_scales(QEwOp op, const QEwParams& p);
// w = fl32(v + z_y) with v = fl32(fl32(A s0) + fl32(B s1)) (add) or fl32(fl32(A s0) B) (mul):
// the float the destination conversion rounds; REQUIRE every step finite.
std::uint32_t qlinear_ew_onednn_value(QEwOp op, const Int& a, const Int& b, const QEwOnednnScales& k,
                                      const QEwParams& p);

// spec: qlinear.add.tosa
// spec: qlinear.mul.tosa
// The TFLite -> TOSA legalization's checks of an int8 ADD / MUL (ops_qlinear_elementwise_tosa.cc):
// int8 tensors, int8 zero points, CLAMP's [y_min, y_max] in int8 with y_min <= y_max; REQUIRE
// finite positive scales.
void qlinear_ew_tosa_check(const QEwParams& p, const std::string& c);

// spec: qlinear.add.tosa
// The legalization's RESCALEs of TFL ADD (legalize_tfl.cc matchAndRewriteAddSub, default
// TFLITE_DOUBLE_ROUNDING build): per input either one RESCALE by 2^19 (r = s / (2 max s) = 1/2) or
// a RESCALE by 2^20 then one by r; the output RESCALE by 2 max s / (2^20 s_y); every (M, s) from
// computeMultiplierAndShift (qlinear_tosa_multiplier_and_shift), TOSA's right shift s.
struct QEwTosaAdd {
  QuantizedMultiplier a, b, out;
  bool a_single = false, b_single = false;  // r = 1/2: one RESCALE by 2^19
};
QEwTosaAdd qlinear_add_tosa_params(const QEwParams& p);
// The int32 ADD of the two rescaled inputs (the output RESCALE's input).
Int qlinear_add_tosa_sum(const Int& a, const Int& b, const QEwTosaAdd& k, const QEwParams& p);

// spec: qlinear.mul.tosa
// convertMultiplyOp (legalize_common.cc): the scales narrowed to float, S = fl32(fl32(s_a s_b) / s_y)
// widened to double, then computeMultiplierAndShift; ERROR_IF its shift < 2.
QuantizedMultiplier qlinear_mul_tosa_params(const QEwParams& p);

// ---- the operators ----

// The element function of (op, convention): y = f(a, b) for two codes. The convention's parameter
// ERROR_IFs and REQUIREs are checked when it is made (not per element).
using QEwElement = std::function<Int(const Int& a, const Int& b)>;
QEwElement qlinear_ew_element(QEwOp op, const QEwParams& p, QEwConvention c,
                              QEwOrtAddPath ort_add_path = QEwOrtAddPath::General);

// spec: qlinear.add.tosa
// spec: qlinear.mul.tosa
// The element function of TOSA's ADD / MUL graph (qlinear_ew_element's Tosa case).
QEwElement qlinear_ew_tosa_element(QEwOp op, const QEwParams& p);

// spec: qlinear.ew.broadcast
// spec: qlinear.add.xnnpack_fp32
// spec: qlinear.add.onnxruntime
// spec: qlinear.add.tflite_double_round
// spec: qlinear.add.tflite_single_round
// spec: qlinear.mul.xnnpack_fp32
// spec: qlinear.mul.onnxruntime
// spec: qlinear.mul.tflite_double_round
// spec: qlinear.mul.tflite_single_round
// spec: qlinear.add.armnn_cpuref
// spec: qlinear.mul.armnn_cpuref
// spec: qlinear.mul.pytorch_onednn
// spec: qlinear.add.pytorch_onednn
// spec: qlinear.add.pytorch_qnnpack
// spec: qlinear.add.onednn
// spec: qlinear.mul.onednn
// spec: qlinear.add.tosa
// spec: qlinear.mul.tosa
// y[i] = element(a[a_offset[i]], b[b_offset[i]]) over the broadcast; the shapes and dtypes are
// checked first, then the parameters, then the codes (REQUIRE in the dtype).
IntArray qlinear_elementwise(QEwOp op, const IntArray& a, const IntArray& b, const QEwParams& p, QEwConvention c);

}  // namespace qspec::ref::ops
