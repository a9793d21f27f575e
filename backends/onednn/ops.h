// The oneDNN adapter's op implementations, one file each; every one runs a real oneDNN primitive.
#pragma once

#include "qspec/core/window_keys.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::onednn_adapter {

void run_requantize(const thirdparty::Call& call);                        // op_requantize.cc
void run_quantize(const thirdparty::Call& call);                          // op_quantize.cc
void run_fully_connected(const thirdparty::Call& call);                   // op_matmul.cc
void run_tvm_dense(const thirdparty::Call& call);                         // op_matmul.cc
void run_conv2d(const thirdparty::Call& call);                            // op_conv.cc
void run_tvm_conv2d(const thirdparty::Call& call);                        // op_conv.cc
void run_max_pool2d(const thirdparty::Call& call, const PoolKeys& keys);  // op_pool_concat.cc
void run_concat(const thirdparty::Call& call);                            // op_pool_concat.cc
void run_qlinear_conv2d(const thirdparty::Call& call);                    // op_qlinear.cc
void run_qlinear_fully_connected(const thirdparty::Call& call);           // op_qlinear.cc
void run_qlinear_matmul(const thirdparty::Call& call);                    // op_qlinear.cc
void run_qlinear_avg_pool2d(const thirdparty::Call& call);                // op_qlinear_pool.cc
void run_qlinear_global_avg_pool(const thirdparty::Call& call);           // op_qlinear_pool.cc
void run_qlinear_max_pool2d(const thirdparty::Call& call);                // op_qlinear_pool.cc
void run_qlinear_add(const thirdparty::Call& call);                       // op_qlinear_binary.cc
void run_qlinear_mul(const thirdparty::Call& call);                       // op_qlinear_binary.cc

}  // namespace qspec::onednn_adapter
