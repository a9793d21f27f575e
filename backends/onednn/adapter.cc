// The oneDNN adapter: claims, dispatch, and the exported qspec_backend_create2 of the plugin.
#include "qspec/thirdparty/adapter.h"

#include <memory>
#include <string>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"

namespace qspec::onednn_adapter {
namespace {

class OnednnAdapter final : public thirdparty::Adapter {
 public:
  std::string name() const override { return "onednn"; }
  std::string version() const override { return version_string(); }

  std::vector<thirdparty::Claim> claims() const override {
    return {
        thirdparty::claim<cat::requantize>(
            cat::requantize::conv::onednn_fp32,
            "reorder s32 -> s8/u8/s32 with output scale and dst zero point (zero point added before rounding); "
            "no int16"),
        thirdparty::claim<cat::quantize>(cat::quantize::conv::onednn_reorder,
                                         "reorder f32 -> s8/u8 with output scale 1.0f/scale and dst zero point"),
        thirdparty::claim<cat::fully_connected>(cat::fully_connected::conv::mrt,
                                                "matmul s8/u8 x s8 (u8 weights shifted) -> s32: the exact accumulator"),
        thirdparty::claim<cat::tvm_qnn_dense>(
            cat::tvm_qnn_dense::conv::tvm,
            "matmul with source and weight zero points -> s32; int8/uint8 outputs only in the all-conventions mode "
            "(oneDNN's own epilogue)"),
        thirdparty::claim<cat::conv2d>(
            cat::conv2d::conv::mrt, "convolution_forward s8/u8 x s8 -> s32, format any (jit int8); pad_value 0 only"),
        thirdparty::claim<cat::tvm_qnn_conv2d>(
            cat::tvm_qnn_conv2d::conv::tvm,
            "convolution_forward with a source zero point -> s32 (weight zero points rejected by oneDNN 2.6); "
            "int8/uint8 outputs only in the all-conventions mode"),
        thirdparty::claim<cat::max_pool2d>(cat::max_pool2d::conv::mrt, "pooling_v2 pooling_max, NCHW, s8/u8/s32"),
        thirdparty::claim<cat::tvm_qnn_max_pool2d>(cat::tvm_qnn_max_pool2d::conv::tvm,
                                                   "pooling_v2 pooling_max, NCHW, s8/u8/s32"),
        thirdparty::claim<cat::concat>(cat::concat::conv::mrt, "concat primitive, plain layouts, one data type"),
        thirdparty::claim<cat::qlinear_conv2d>(
            cat::qlinear_conv2d::conv::onednn,
            "convolution_forward s8/u8 x s8 (weights tag::any), NHWC, s32 bias, output scales per tensor or per "
            "channel, source and destination zero points, eltwise_clip for y_min/y_max"),
        thirdparty::claim<cat::qlinear_fully_connected>(
            cat::qlinear_fully_connected::conv::onednn,
            "matmul s8/u8 x s8 (weights tag::any) with a (1, O) s32 bias, output scales per tensor or per channel, "
            "source, weights and destination zero points, eltwise_clip (inner_product rejects zero points)"),
        thirdparty::claim<cat::qlinear_matmul>(
            cat::qlinear_matmul::conv::onednn,
            "matmul s8/u8 x s8 (weights tag::any), batch broadcast, output scales per tensor or per column, "
            "source, weights and destination zero points, eltwise_clip"),
        thirdparty::claim<cat::qlinear_avg_pool2d>(
            cat::qlinear_avg_pool2d::conv::onednn,
            "pooling_v2_forward pooling_avg_include_padding / _exclude_padding, s8/u8 NHWC, forward_inference, "
            "eltwise_clip for y_min/y_max; x and y parameters must be equal (no quantization attributes)"),
        thirdparty::claim<cat::qlinear_global_avg_pool>(
            cat::qlinear_global_avg_pool::conv::onednn,
            "pooling_v2_forward average pooling with the kernel (H, W), s8/u8 NHWC, eltwise_clip"),
        thirdparty::claim<cat::qlinear_max_pool2d>(
            cat::qlinear_max_pool2d::conv::onednn,
            "pooling_v2_forward pooling_max (dilation d - 1), s8/u8 NHWC, eltwise_clip for y_min/y_max"),
        thirdparty::claim<cat::qlinear_add>(
            cat::qlinear_add::conv::onednn,
            "binary binary_add s8/u8, plain layouts at the output's rank, source scales s_a/s_y and s_b/s_y, "
            "eltwise_linear(1, z_y) and eltwise_clip post-ops; source zero points are refused by oneDNN"),
        thirdparty::claim<cat::qlinear_mul>(
            cat::qlinear_mul::conv::onednn,
            "binary binary_mul s8/u8, plain layouts at the output's rank, src0 scale (s_a s_b)/s_y, "
            "eltwise_linear(1, z_y) and eltwise_clip post-ops; source zero points are refused by oneDNN"),
    };
  }

  void run(const thirdparty::Call& call) override {
    if (call.op == cat::requantize::op) return run_requantize(call);
    if (call.op == cat::quantize::op) return run_quantize(call);
    if (call.op == cat::fully_connected::op) return run_fully_connected(call);
    if (call.op == cat::tvm_qnn_dense::op) return run_tvm_dense(call);
    if (call.op == cat::conv2d::op) return run_conv2d(call);
    if (call.op == cat::tvm_qnn_conv2d::op) return run_tvm_conv2d(call);
    if (call.op == cat::max_pool2d::op) return run_max_pool2d(call, pool_keys<cat::max_pool2d>);
    if (call.op == cat::tvm_qnn_max_pool2d::op) return run_max_pool2d(call, pool_keys<cat::tvm_qnn_max_pool2d>);
    if (call.op == cat::concat::op) return run_concat(call);
    if (call.op == cat::qlinear_conv2d::op) return run_qlinear_conv2d(call);
    if (call.op == cat::qlinear_fully_connected::op) return run_qlinear_fully_connected(call);
    if (call.op == cat::qlinear_matmul::op) return run_qlinear_matmul(call);
    if (call.op == cat::qlinear_avg_pool2d::op) return run_qlinear_avg_pool2d(call);
    if (call.op == cat::qlinear_global_avg_pool::op) return run_qlinear_global_avg_pool(call);
    if (call.op == cat::qlinear_max_pool2d::op) return run_qlinear_max_pool2d(call);
    if (call.op == cat::qlinear_add::op) return run_qlinear_add(call);
    if (call.op == cat::qlinear_mul::op) return run_qlinear_mul(call);
    throw thirdparty::Unsupported("oneDNN adapter has no op '" + call.op + "'");
  }
};

}  // namespace
}  // namespace qspec::onednn_adapter

extern "C" QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version,
                                                          const qspec_backend_options* options, qspec_backend* out) {
  try {
    return qspec::thirdparty::make_backend(std::make_unique<qspec::onednn_adapter::OnednnAdapter>(), host_abi_version,
                                           options, out);
  } catch (...) {
    return 1;
  }
}
