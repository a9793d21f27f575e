// The oneDNN adapter: claims, dispatch, and the exported qspec_backend_create2 of the plugin.
#include <memory>
#include <string>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::onednn_adapter {
namespace {

class OnednnAdapter final : public thirdparty::Adapter {
 public:
  std::string name() const override { return "onednn"; }
  std::string version() const override { return version_string(); }

  std::vector<thirdparty::Claim> claims() const override {
    return {
        {"requantize", "onednn.fp32",
         "reorder s32 -> s8/u8/s32 with output scale and dst zero point (zero point added before rounding); "
         "no int16"},
        {"quantize", "onednn.reorder", "reorder f32 -> s8/u8 with output scale 1.0f/scale and dst zero point"},
        {"fully_connected", "mrt", "matmul s8/u8 x s8 (u8 weights shifted) -> s32: the exact accumulator"},
        {"tvm.qnn.dense", "tvm",
         "matmul with source and weight zero points -> s32; int8/uint8 outputs only in the all-conventions mode "
         "(oneDNN's own epilogue)"},
        {"conv2d", "mrt", "convolution_forward s8/u8 x s8 -> s32, format any (jit int8); pad_value 0 only"},
        {"tvm.qnn.conv2d", "tvm",
         "convolution_forward with a source zero point -> s32 (weight zero points rejected by oneDNN 2.6); "
         "int8/uint8 outputs only in the all-conventions mode"},
        {"max_pool2d", "mrt", "pooling_v2 pooling_max, NCHW, s8/u8/s32"},
        {"tvm.qnn.max_pool2d", "tvm", "pooling_v2 pooling_max, NCHW, s8/u8/s32"},
        {"concat", "mrt", "concat primitive, plain layouts, one data type"},
    };
  }

  void run(const thirdparty::Call& call) override {
    if (call.op == "requantize") return run_requantize(call);
    if (call.op == "quantize") return run_quantize(call);
    if (call.op == "fully_connected") return run_fully_connected(call);
    if (call.op == "tvm.qnn.dense") return run_tvm_dense(call);
    if (call.op == "conv2d") return run_conv2d(call);
    if (call.op == "tvm.qnn.conv2d") return run_tvm_conv2d(call);
    if (call.op == "max_pool2d" || call.op == "tvm.qnn.max_pool2d") return run_max_pool2d(call);
    if (call.op == "concat") return run_concat(call);
    throw thirdparty::Unsupported("oneDNN adapter has no op '" + call.op + "'");
  }
};

}  // namespace
}  // namespace qspec::onednn_adapter

extern "C" QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version,
                                                          const qspec_backend_options* options, qspec_backend* out) {
  try {
    return qspec::thirdparty::make_backend(std::make_unique<qspec::onednn_adapter::OnednnAdapter>(),
                                           host_abi_version, options, out);
  } catch (...) {
    return 1;
  }
}
