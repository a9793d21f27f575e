// The Arm NN adapter's op implementations; each drives a real Arm NN CpuRef layer.
#pragma once

#include "qspec/thirdparty/adapter.h"

namespace qspec::armnn_adapter {

void run_conv2d(const thirdparty::Call& call);           // op_qlinear.cc: Convolution2d, DepthwiseConvolution2d
void run_fully_connected(const thirdparty::Call& call);  // op_qlinear.cc: FullyConnected
void run_add(const thirdparty::Call& call);              // op_elementwise.cc: Addition
void run_mul(const thirdparty::Call& call);              // op_elementwise.cc: Multiplication
void run_avg_pool2d(const thirdparty::Call& call);       // op_pool.cc: Pooling2d, Average
void run_global_avg_pool(const thirdparty::Call& call);  // op_pool.cc: Pooling2d over the image
void run_max_pool2d(const thirdparty::Call& call);       // op_pool.cc: Pooling2d, Max

}  // namespace qspec::armnn_adapter
