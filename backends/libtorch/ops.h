// The libtorch adapter's op implementations and engine control; only these files include ATen.
#pragma once

#include <string>
#include <vector>

#include "qspec/core/window_keys.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::libtorch_adapter {

// Quantized engine (at::globalContext().setQEngine): QSPEC_LIBTORCH_QENGINE=qnnpack|onednn|fbgemm|x86
// selects one, else libtorch's default stays. Throws std::runtime_error for an engine this build
// lacks. Returns "<engine> (available: ...)" for the version string.
std::string select_engine();  // torch_util.cc
void set_single_thread();     // torch_util.cc: at::set_num_threads(1)

void run_quantize(const thirdparty::Call& call);                          // op_quantize.cc
void run_quantize_per_channel(const thirdparty::Call& call);              // op_quantize.cc
void run_dequantize(const thirdparty::Call& call);                        // op_quantize.cc
void run_requantize(const thirdparty::Call& call);                        // op_quantize.cc
void run_max_pool2d(const thirdparty::Call& call, const PoolKeys& keys);  // op_nn.cc: max_pool2d, tvm.qnn.max_pool2d
void run_concat(const thirdparty::Call& call);                            // op_nn.cc
void run_tvm_concatenate(const thirdparty::Call& call);                   // op_nn.cc
void run_tvm_add(const thirdparty::Call& call);                           // op_nn.cc
void run_tvm_dense(const thirdparty::Call& call);                         // op_nn.cc
void run_tvm_conv2d(const thirdparty::Call& call);                        // op_nn.cc
// The quantized engine an operator runs under (its convention: pytorch.qnnpack / pytorch.onednn).
enum class Engine { Qnnpack, Onednn };
void run_qlinear_fully_connected(const thirdparty::Call& call, Engine engine);  // op_qlinear.cc
void run_qlinear_conv2d(const thirdparty::Call& call, Engine engine);           // op_qlinear.cc
// op_qlinear_pool.cc: qlinear.avg_pool2d under the engine's convention (pytorch.onednn / pytorch.qnnpack).
void add_qlinear_pool_claims(std::vector<thirdparty::Claim>& claims, bool qnnpack_engine);
void run_qlinear_avg_pool2d(const thirdparty::Call& call);
// op_qlinear_maxpool.cc: qlinear.max_pool2d under the engine's convention (pytorch.onednn / pytorch.qnnpack).
void add_qlinear_maxpool_claims(std::vector<thirdparty::Claim>& claims, bool qnnpack_engine);
void run_qlinear_max_pool2d(const thirdparty::Call& call);
// op_qlinear_global_pool.cc: qlinear.global_avg_pool under the engine's convention (adaptive_avg_pool2d(x, 1)).
void add_qlinear_global_pool_claims(std::vector<thirdparty::Claim>& claims, bool qnnpack_engine);
void run_qlinear_global_avg_pool(const thirdparty::Call& call);
void run_qlinear_mul(const thirdparty::Call& call);  // op_qlinear_elementwise.cc: quantized::mul / mul_relu
void run_qlinear_add(const thirdparty::Call& call);  // op_qlinear_elementwise.cc: quantized::add / add_relu
// The qlinear.mul / qlinear.add claims of the onednn or the qnnpack engine (op_qlinear_elementwise.cc).
void add_qlinear_elementwise_claims(std::vector<thirdparty::Claim>& c, bool qnnpack);
// op_qlinear_concat.cc: qlinear.concat (quantized::cat) and qlinear.leaky_relu (quantized::leaky_relu),
// convention pytorch.onednn under either engine, and their claims.
void run_qlinear_concat(const thirdparty::Call& call);
void run_qlinear_leaky_relu(const thirdparty::Call& call);
void add_qlinear_concat_claims(std::vector<thirdparty::Claim>& c, bool qnnpack);

}  // namespace qspec::libtorch_adapter
