// Engines' quantized concatenation (spec/operators_qlinear_elementwise.md): qlinear.concat of
// inputs with their own (scale, zero point), requantized to the output's, under ONNX Runtime's
// QLinearConcat, TFLite's reference CONCATENATION and Arm NN's CpuRef Concat.
//
// Each input's codes go through that convention's code map (a float requantization, or the copy
// both engines take when the input's parameters equal the output's), then the mapped inputs are
// laid along the axis exactly as mrt.op.concat lays them (one shared layout).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "qspec/ref/ops/ndarray.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

enum class QConcatConvention { OnnxRuntime, TfliteReference, ArmnnCpuref, Tosa, PytorchOnednn };

struct QConcatParams {
  DType type = DType::U8;               // every input's and the output's dtype
  std::vector<DType> input_types;       // each input's dtype (ERROR_IF one differs from `type`)
  std::vector<std::uint32_t> x_scales;  // float32 bit patterns, one per input
  std::vector<Int> x_zero_points;       // one per input
  std::uint32_t y_scale = 0x3f800000;
  Int y_zero_point{0};
};

// spec: qlinear.concat.onnxruntime
// spec: qlinear.concat.tflite_reference
// spec: qlinear.concat.armnn_cpuref
// The code map of input i after the convention's parameter checks (ERROR_IF / REQUIRE):
// y = f(x) for a code x of the dtype.
std::function<Int(const Int&)> qlinear_concat_map(const QConcatParams& p, std::size_t i, QConcatConvention c);

// spec: qlinear.concat.armnn_cpuref
// Arm NN 20.08 CpuRef Concat (Concatenate.cpp): every code decoded and encoded again,
// y = armnn.quantize(float.dequantize(x, z_x, s_x), s_y, z_y) (no copy: an input with the output's
// parameters maps to itself through the two roundings). No ERROR_IF on the parameters (Arm NN
// checks none); REQUIRE the scales finite and positive and the zero points in int32.
std::function<Int(const Int&)> qlinear_concat_armnn_map(const QConcatParams& p, std::size_t i);

// spec: qlinear.concat.tosa
// The TFLite -> TOSA legalization's convertConcatV2Op (spec/operators_qlinear_tosa_elementwise.md):
// ERROR_IF the dtype is not int8 or a zero point does not fit int8; an input whose scale equals the
// output's (float equality) is copied, whatever its zero point; otherwise one RESCALE int8 -> int8
// by CMS(fl64(s_x / s_y)) (ERROR_IF its shift is outside [2, 62]), input_zp z_x, output_zp z_y,
// SINGLE_ROUND: y = clip_int8(apply_scale_32(x - z_x, M, s, false) + z_y).
std::function<Int(const Int&)> qlinear_concat_tosa_map(const QConcatParams& p, std::size_t i);

// spec: qlinear.concat.pytorch_onednn
// PyTorch 1.13's quantized::cat / torch.cat under every quantized engine
// (spec/operators_qlinear_pytorch_concat.md): ERROR_IF a zero point does not fit the dtype; REQUIRE
// the scales finite and positive; y = sat(rne(fl32(fl32((x - z_i) s_i) fl32(1 / s_y))) + z_y).
std::function<Int(const Int&)> qlinear_concat_pytorch_map(const QConcatParams& p, std::size_t i);

// spec: qlinear.concat.onnxruntime
// spec: qlinear.concat.tflite_reference
// spec: qlinear.concat.armnn_cpuref
// spec: qlinear.concat.tosa
// ERROR_IF the parameter lists do not have one entry per input (armnn.cpuref: or fewer than two
// inputs); then every input mapped by its code
// map and laid along `axis` (mrt.op.concat's layout and shape checks; tosa: ERROR_IF rank > 6).
IntArray qlinear_concat(const std::vector<IntArray>& xs, std::int64_t axis, const QConcatParams& p,
                        QConcatConvention c);

}  // namespace qspec::ref::ops
