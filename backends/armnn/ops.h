// The Arm NN adapter's op implementations; each drives a real Arm NN CpuRef layer.
#pragma once

#include <armnn/Types.hpp>
#include <cstdint>

#include "qspec/thirdparty/adapter.h"

namespace qspec::armnn_adapter {

void run_conv2d(const thirdparty::Call& call);           // op_qlinear.cc: Convolution2d, DepthwiseConvolution2d
void run_fully_connected(const thirdparty::Call& call);  // op_qlinear.cc: FullyConnected
void run_add(const thirdparty::Call& call);              // op_elementwise.cc: Addition
void run_mul(const thirdparty::Call& call);              // op_elementwise.cc: Multiplication
void run_avg_pool2d(const thirdparty::Call& call);       // op_pool.cc: Pooling2d, Average
void run_global_avg_pool(const thirdparty::Call& call);  // op_pool.cc: Pooling2d over the image
void run_max_pool2d(const thirdparty::Call& call);       // op_pool.cc: Pooling2d, Max
void run_quantize(const thirdparty::Call& call);         // op_quantize.cc: Quantize
void run_dequantize(const thirdparty::Call& call);       // op_quantize.cc: Dequantize
void run_concat(const thirdparty::Call& call);           // op_concat.cc: Concat
void run_leaky_relu(const thirdparty::Call& call);       // op_activation.cc: Activation, LeakyReLu

// Shared by the op files (adapter.cc): the float32 whose bits the vectors carry, and Arm NN's 8-bit
// asymmetric type of a qspec dtype (thirdparty::Unsupported for any other).
float f32(std::uint32_t bits);
armnn::DataType data_type(qspec_dtype t);

}  // namespace qspec::armnn_adapter
