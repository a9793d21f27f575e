// The XNNPACK adapter: claims, dispatch, and the exported qspec_backend_create2 of the plugin.
#include "qspec/thirdparty/adapter.h"

#include <memory>
#include <string>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "xnn_isa.h"
#include "xnn_util.h"

#ifndef QSPEC_XNNPACK_VERSION
#define QSPEC_XNNPACK_VERSION "unknown"
#endif

namespace qspec::xnnpack_adapter {
namespace {

class XnnpackAdapter final : public thirdparty::Adapter {
 public:
  XnnpackAdapter() { ensure_initialized(); }
  std::string name() const override { return "xnnpack"; }
  // The kernel family is part of the version: results of CPU-dispatched kernels are recorded and
  // expected per ISA (docs/third-party.md, `isa=` in --expect files).
  std::string version() const override {
    return std::string("XNNPACK ") + QSPEC_XNNPACK_VERSION + " (isa: " + dispatched_isa() + ")";
  }

  std::vector<thirdparty::Claim> claims() const override {
    std::vector<thirdparty::Claim> c;
#if defined(__x86_64__) || defined(__i386__)
    // On x86 every qs8/qu8 GEMM kernel of this snapshot uses the fp32 epilogue; on ARM the same
    // snapshot uses fixed-point (rndnu) kernels, which no qspec convention names yet.
    c.push_back(thirdparty::claim<cat::requantize>(
        cat::requantize::conv::xnnpack_fp32,
        "1x1 fully_connected_nc_qs8/qu8 with bias = x (no standalone requantize is exported); "
        "int8/uint8 outputs; scale must be a normal float32 < 256"));
    c.push_back(thirdparty::claim<cat::requantize_per_channel>(
        cat::requantize_per_channel::conv::xnnpack_fp32,
        "1x1 convolution2d_nhwc_qc8 per position with bias = x and kernel_scale[c] = scales[c]; int8 only"));
    // The x86 multiply kernels are fp32 (ARM's are rndnu); the add's integer parameters are x86's.
    c.push_back(thirdparty::claim<cat::qlinear_add>(cat::qlinear_add::conv::xnnpack_fp32, "add_nd_qs8/qu8"));
    c.push_back(thirdparty::claim<cat::qlinear_mul>(cat::qlinear_mul::conv::xnnpack_fp32, "multiply_nd_qs8/qu8"));
    // The x86 GEMM / IGEMM / depthwise kernels requantize in fp32 (spec/operators_qlinear.md).
    c.push_back(thirdparty::claim<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::xnnpack_fp32,
                                                       "convolution2d_nhwc_qs8 / qc8 (per channel) / qu8"));
    c.push_back(thirdparty::claim<cat::qlinear_fully_connected>(
        cat::qlinear_fully_connected::conv::xnnpack_fp32,
        "fully_connected_nc_qs8/qu8; per channel: a 1x1 convolution2d_nhwc_qc8 (no qc8 fully connected)"));
    c.push_back(thirdparty::claim<cat::qlinear_matmul>(
        cat::qlinear_matmul::conv::xnnpack_fp32,
        "per batch, fully_connected_nc_qs8/qu8 with weights b^T (per column: a 1x1 convolution2d_nhwc_qc8)"));
    // The x86 pooling kernels (sse2 / sse41): the global ones requantize in fp32.
    c.push_back(thirdparty::claim<cat::qlinear_avg_pool2d>(cat::qlinear_avg_pool2d::conv::xnnpack_fp32,
                                                           "average_pooling2d_nhwc_qu8 (no qs8 operator)"));
    c.push_back(thirdparty::claim<cat::qlinear_global_avg_pool>(cat::qlinear_global_avg_pool::conv::xnnpack_fp32,
                                                                "global_average_pooling_nwc_qs8/qu8"));
#endif
    c.push_back(thirdparty::claim<cat::qlinear_max_pool2d>(cat::qlinear_max_pool2d::conv::xnnpack_fp32,
                                                           "max_pooling2d_nhwc_s8/u8, exact"));
    c.push_back(thirdparty::claim<cat::qlinear_leaky_relu>(
        cat::qlinear_leaky_relu::conv::xnnpack_fp32, "leaky_relu_nc_qu8 (a table built at create; no qs8 operator)"));
    c.push_back(thirdparty::claim<cat::quantize>(cat::quantize::conv::xnnpack_convert,
                                                 "convert_nc_f32_qs8 / convert_nc_f32_qu8"));
    c.push_back(thirdparty::claim<cat::dequantize>(cat::dequantize::conv::xnnpack_convert,
                                                   "convert_nc_qs8_f32 / convert_nc_qu8_f32"));
    using thirdparty::claim;
    c.push_back(
        claim<cat::max_pool2d>(cat::max_pool2d::conv::mrt, "max_pooling2d_nhwc_s8/u8 (NCHW transposed), exact"));
    c.push_back(claim<cat::tvm_qnn_max_pool2d>(cat::tvm_qnn_max_pool2d::conv::tvm,
                                               "max_pooling2d_nhwc_s8/u8 (NCHW transposed), exact"));
    c.push_back(claim<cat::concat>(cat::concat::conv::mrt,
                                   "strided copy_nc_x8/x32 per input (no concat operator in this snapshot)"));
    // XNNPACK computes these ops, but requantizes its own way, never TVM's: all-conventions only.
    c.push_back(claim<cat::tvm_qnn_dense>(cat::tvm_qnn_dense::conv::tvm,
                                          "fully_connected_nc_qs8/qu8 with XNNPACK's fp32 epilogue", true));
    c.push_back(claim<cat::tvm_qnn_conv2d>(cat::tvm_qnn_conv2d::conv::tvm,
                                           "convolution2d_nhwc_qs8/qu8 (OHWI weights) with XNNPACK's fp32 epilogue",
                                           true));
    c.push_back(
        claim<cat::tvm_qnn_add>(cat::tvm_qnn_add::conv::tvm, "add_nd_qs8/qu8 (XNNPACK's own fixed-point add)", true));
    return c;
  }

  void run(const thirdparty::Call& call) override {
    if (call.op == cat::requantize::op) return run_requantize(call);
    if (call.op == cat::requantize_per_channel::op) return run_requantize_per_channel(call);
    if (call.op == cat::quantize::op) return run_quantize(call);
    if (call.op == cat::dequantize::op) return run_dequantize(call);
    if (call.op == cat::tvm_qnn_dense::op) return run_tvm_dense(call);
    if (call.op == cat::tvm_qnn_conv2d::op) return run_tvm_conv2d(call);
    if (call.op == cat::tvm_qnn_add::op) return run_tvm_add(call);
    if (call.op == cat::qlinear_add::op) return run_qlinear_add(call);
    if (call.op == cat::qlinear_mul::op) return run_qlinear_mul(call);
    if (call.op == cat::qlinear_conv2d::op) return run_qlinear_conv2d(call);
    if (call.op == cat::qlinear_fully_connected::op) return run_qlinear_fully_connected(call);
    if (call.op == cat::qlinear_matmul::op) return run_qlinear_matmul(call);
    if (call.op == cat::qlinear_avg_pool2d::op) return run_qlinear_avg_pool2d(call);
    if (call.op == cat::qlinear_global_avg_pool::op) return run_qlinear_global_avg_pool(call);
    if (call.op == cat::qlinear_max_pool2d::op) return run_qlinear_max_pool2d(call);
    if (call.op == cat::qlinear_leaky_relu::op) return run_qlinear_leaky_relu(call);
    if (call.op == cat::max_pool2d::op) return run_max_pool2d(call, pool_keys<cat::max_pool2d>);
    if (call.op == cat::tvm_qnn_max_pool2d::op) return run_max_pool2d(call, pool_keys<cat::tvm_qnn_max_pool2d>);
    if (call.op == cat::concat::op) return run_concat(call);
    throw thirdparty::Unsupported("XNNPACK adapter has no op '" + call.op + "'");
  }
};

}  // namespace
}  // namespace qspec::xnnpack_adapter

extern "C" QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version,
                                                          const qspec_backend_options* options, qspec_backend* out) {
  try {
    return qspec::thirdparty::make_backend(std::make_unique<qspec::xnnpack_adapter::XnnpackAdapter>(), host_abi_version,
                                           options, out);
  } catch (...) {
    return 1;  // xnn_initialize failed: the plugin cannot be created
  }
}
