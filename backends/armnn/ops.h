// The Arm NN adapter's op implementations; each drives a real Arm NN CpuRef layer.
#pragma once

#include "qspec/thirdparty/adapter.h"

namespace qspec::armnn_adapter {

void run_conv2d(const thirdparty::Call& call);           // op_qlinear.cc: Convolution2d, DepthwiseConvolution2d
void run_fully_connected(const thirdparty::Call& call);  // op_qlinear.cc: FullyConnected

}  // namespace qspec::armnn_adapter
