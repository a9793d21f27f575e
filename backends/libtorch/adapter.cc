// The libtorch adapter: claims, dispatch, and the exported qspec_backend_create2 of the plugin.
#include <memory>
#include <string>

#include "ops.h"
#include "qspec/thirdparty/adapter.h"

#ifndef QSPEC_LIBTORCH_VERSION
#define QSPEC_LIBTORCH_VERSION "unknown"
#endif

namespace qspec::libtorch_adapter {
namespace {

class LibtorchAdapter final : public thirdparty::Adapter {
 public:
  LibtorchAdapter() : engine_(select_engine()) { set_single_thread(); }
  std::string name() const override { return "libtorch"; }
  std::string version() const override { return std::string("libtorch ") + QSPEC_LIBTORCH_VERSION + " (" + engine_ + ")"; }

  std::vector<thirdparty::Claim> claims() const override {
    return {
        {"quantize", "pytorch.quantize_per_tensor", "at::quantize_per_tensor to qint8 / quint8 / qint32"},
        {"quantize_per_channel", "pytorch.quantize_per_channel", "at::quantize_per_channel to qint8 / quint8 / qint32"},
        {"dequantize", "pytorch.dequantize", "at::dequantize of a per-tensor qint8 / quint8 / qint32 tensor"},
        {"requantize", "pytorch.requantize_from_int",
         "at::native::requantize_from_int<qint8 / quint8 / qint32> per element (no tensor op exists)"},
        {"max_pool2d", "mrt", "at::max_pool2d on a qint8 / quint8 / qint32 tensor, exact"},
        {"tvm.qnn.max_pool2d", "tvm", "at::max_pool2d on a qint8 / quint8 tensor, exact"},
        {"concat", "mrt",
         "at::cat of qint8 / quint8 / qint32 tensors with one scale and zero point; goes through float32, so "
         "qint32 values beyond 2^24 are rounded (errata E-LIBTORCH-1)"},
        // libtorch computes these, but requantizes its own way, never TVM's: all-conventions only.
        {"tvm.qnn.dense", "tvm", "quantized::linear_prepack + quantized::linear (quint8 data, qint8 weights, no bias)", true},
        {"tvm.qnn.conv2d", "tvm", "quantized::conv2d_prepack + quantized::conv2d.new (NCHW, quint8 data, qint8 weights)", true},
        {"tvm.qnn.add", "tvm", "quantized::add (libtorch's own requantization)", true},
        {"tvm.qnn.concatenate", "tvm", "quantized::cat with the output scale and zero point", true},
    };
  }

  void run(const thirdparty::Call& call) override {
    if (call.op == "quantize") return run_quantize(call);
    if (call.op == "quantize_per_channel") return run_quantize_per_channel(call);
    if (call.op == "dequantize") return run_dequantize(call);
    if (call.op == "requantize") return run_requantize(call);
    if (call.op == "max_pool2d" || call.op == "tvm.qnn.max_pool2d") return run_max_pool2d(call);
    if (call.op == "concat") return run_concat(call);
    if (call.op == "tvm.qnn.concatenate") return run_tvm_concatenate(call);
    if (call.op == "tvm.qnn.add") return run_tvm_add(call);
    if (call.op == "tvm.qnn.dense") return run_tvm_dense(call);
    if (call.op == "tvm.qnn.conv2d") return run_tvm_conv2d(call);
    throw thirdparty::Unsupported("libtorch adapter has no op '" + call.op + "'");
  }

 private:
  std::string engine_;
};

}  // namespace
}  // namespace qspec::libtorch_adapter

extern "C" QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version,
                                                          const qspec_backend_options* options, qspec_backend* out) {
  try {
    return qspec::thirdparty::make_backend(std::make_unique<qspec::libtorch_adapter::LibtorchAdapter>(),
                                           host_abi_version, options, out);
  } catch (...) {
    return 1;
  }
}
