// The XNNPACK adapter's op implementations, one file each; every one drives a real XNNPACK operator.
#pragma once

#include "qspec/core/window_keys.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::xnnpack_adapter {

void run_requantize(const thirdparty::Call& call);                        // op_requantize.cc
void run_requantize_per_channel(const thirdparty::Call& call);            // op_requantize.cc
void run_quantize(const thirdparty::Call& call);                          // op_quantize.cc
void run_dequantize(const thirdparty::Call& call);                        // op_dequantize.cc
void run_tvm_dense(const thirdparty::Call& call);                         // op_nn.cc
void run_tvm_conv2d(const thirdparty::Call& call);                        // op_nn.cc
void run_tvm_add(const thirdparty::Call& call);                           // op_nn.cc
void run_qlinear_add(const thirdparty::Call& call);                       // op_nn.cc
void run_qlinear_mul(const thirdparty::Call& call);                       // op_nn.cc
void run_qlinear_conv2d(const thirdparty::Call& call);                    // op_qlinear.cc
void run_qlinear_fully_connected(const thirdparty::Call& call);           // op_qlinear.cc
void run_qlinear_matmul(const thirdparty::Call& call);                    // op_qlinear.cc
void run_qlinear_avg_pool2d(const thirdparty::Call& call);                // op_qlinear_pool.cc
void run_qlinear_global_avg_pool(const thirdparty::Call& call);           // op_qlinear_pool.cc
void run_qlinear_max_pool2d(const thirdparty::Call& call);                // op_qlinear_pool.cc
void run_qlinear_leaky_relu(const thirdparty::Call& call);                // op_qlinear_pool.cc
void run_max_pool2d(const thirdparty::Call& call, const PoolKeys& keys);  // op_nn.cc: max_pool2d, tvm.qnn.max_pool2d
void run_concat(const thirdparty::Call& call);                            // op_nn.cc

}  // namespace qspec::xnnpack_adapter
