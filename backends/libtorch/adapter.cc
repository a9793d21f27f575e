// The libtorch adapter: claims, dispatch, and the exported qspec_backend_create2 of the plugin.
#include "qspec/thirdparty/adapter.h"

#include <memory>
#include <string>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "torch_isa.h"

#ifndef QSPEC_LIBTORCH_VERSION
#define QSPEC_LIBTORCH_VERSION "unknown"
#endif

namespace qspec::libtorch_adapter {
namespace {

class LibtorchAdapter final : public thirdparty::Adapter {
 public:
  LibtorchAdapter() : engine_(select_engine()) { set_single_thread(); }
  std::string name() const override { return "libtorch"; }
  // The dispatched instruction sets are part of the version: results of CPU-dispatched kernels
  // are recorded and expected per ISA (docs/third-party.md, `isa=` in --expect files).
  std::string version() const override {
    return std::string("libtorch ") + QSPEC_LIBTORCH_VERSION + " (" + engine_ +
           "; isa: " + dispatched_isa(engine_.rfind("qengine onednn", 0) == 0) + ")";
  }

  std::vector<thirdparty::Claim> claims() const override {
    std::vector<thirdparty::Claim> c = {
        thirdparty::claim<cat::quantize>(cat::quantize::conv::pytorch_quantize_per_tensor,
                                         "at::quantize_per_tensor to qint8 / quint8 / qint32"),
        thirdparty::claim<cat::quantize_per_channel>(cat::quantize_per_channel::conv::pytorch_quantize_per_channel,
                                                     "at::quantize_per_channel to qint8 / quint8 / qint32"),
        thirdparty::claim<cat::dequantize>(cat::dequantize::conv::pytorch_dequantize,
                                           "at::dequantize of a per-tensor qint8 / quint8 / qint32 tensor"),
        thirdparty::claim<cat::requantize>(
            cat::requantize::conv::pytorch_requantize_from_int,
            "at::native::requantize_from_int<qint8 / quint8 / qint32> per element (no tensor op exists)"),
        thirdparty::claim<cat::max_pool2d>(cat::max_pool2d::conv::mrt,
                                           "at::max_pool2d on a qint8 / quint8 / qint32 tensor, exact"),
        thirdparty::claim<cat::tvm_qnn_max_pool2d>(cat::tvm_qnn_max_pool2d::conv::tvm,
                                                   "at::max_pool2d on a qint8 / quint8 tensor, exact"),
        thirdparty::claim<cat::concat>(
            cat::concat::conv::mrt,
            "at::cat of qint8 / quint8 / qint32 tensors with one scale and zero point; goes through float32, so "
            "qint32 values beyond 2^24 are rounded (errata E-LIBTORCH-1)"),
        // libtorch computes these, but requantizes its own way, never TVM's: all-conventions only.
        thirdparty::claim<cat::tvm_qnn_dense>(
            cat::tvm_qnn_dense::conv::tvm,
            "quantized::linear_prepack + quantized::linear (quint8 data, qint8 weights, no bias)", true),
        thirdparty::claim<cat::tvm_qnn_conv2d>(
            cat::tvm_qnn_conv2d::conv::tvm,
            "quantized::conv2d_prepack + quantized::conv2d.new (NCHW, quint8 data, qint8 weights)", true),
        thirdparty::claim<cat::tvm_qnn_add>(cat::tvm_qnn_add::conv::tvm,
                                            "quantized::add (libtorch's own requantization)", true),
        thirdparty::claim<cat::tvm_qnn_concatenate>(cat::tvm_qnn_concatenate::conv::tvm,
                                                    "quantized::cat with the output scale and zero point", true),
    };
    // The pytorch.qnnpack arithmetic is the qnnpack engine's, pytorch.onednn the onednn engine's.
    if (onednn()) {
      c.push_back(thirdparty::claim<cat::qlinear_fully_connected>(
          cat::qlinear_fully_connected::conv::pytorch_onednn,
          "quantized::linear_prepack + quantized::linear, onednn engine (quint8 activations, qint8 weights; the "
          "int32 bias as a float b_f with fl32(b_f c_o) = fl32(b); a batch size per zero-point set: "
          "E-LIBTORCH-QLINEAR-1)"));
      c.push_back(thirdparty::claim<cat::qlinear_conv2d>(
          cat::qlinear_conv2d::conv::pytorch_onednn,
          "quantized::conv2d_prepack + quantized::conv2d.new, onednn engine (NHWC <-> NCHW, symmetric pads; the "
          "int32 bias as a float b_f with fl32(b_f c_o) = fl32(b); a batch size per zero-point set: "
          "E-LIBTORCH-QLINEAR-1)"));
    }
    if (qnnpack()) {
      c.push_back(thirdparty::claim<cat::qlinear_fully_connected>(
          cat::qlinear_fully_connected::conv::pytorch_qnnpack,
          "quantized::linear_prepack + quantized::linear, qnnpack engine (quint8 / qint8 activations, qint8 weights; "
          "the int32 bias as a float that QuantizeBias maps back onto it)"));
      c.push_back(thirdparty::claim<cat::qlinear_conv2d>(
          cat::qlinear_conv2d::conv::pytorch_qnnpack,
          "quantized::conv2d_prepack + quantized::conv2d.new, qnnpack engine (NHWC <-> NCHW, symmetric pads; the "
          "int32 bias as a float that QuantizeBias maps back onto it)"));
    }
    add_qlinear_pool_claims(c, qnnpack());
    add_qlinear_maxpool_claims(c, qnnpack());
    add_qlinear_global_pool_claims(c, qnnpack());
    if (onednn() || qnnpack()) add_qlinear_elementwise_claims(c, qnnpack());
    if (onednn() || qnnpack()) add_qlinear_concat_claims(c, qnnpack());
    return c;
  }

  void run(const thirdparty::Call& call) override {
    if (call.op == cat::quantize::op) return run_quantize(call);
    if (call.op == cat::quantize_per_channel::op) return run_quantize_per_channel(call);
    if (call.op == cat::dequantize::op) return run_dequantize(call);
    if (call.op == cat::requantize::op) return run_requantize(call);
    if (call.op == cat::max_pool2d::op) return run_max_pool2d(call, pool_keys<cat::max_pool2d>);
    if (call.op == cat::tvm_qnn_max_pool2d::op) return run_max_pool2d(call, pool_keys<cat::tvm_qnn_max_pool2d>);
    if (call.op == cat::concat::op) return run_concat(call);
    if (call.op == cat::tvm_qnn_concatenate::op) return run_tvm_concatenate(call);
    if (call.op == cat::tvm_qnn_add::op) return run_tvm_add(call);
    if (call.op == cat::tvm_qnn_dense::op) return run_tvm_dense(call);
    if (call.op == cat::tvm_qnn_conv2d::op) return run_tvm_conv2d(call);
    const Engine engine = onednn() ? Engine::Onednn : Engine::Qnnpack;
    if (call.op == cat::qlinear_fully_connected::op && (qnnpack() || onednn()))
      return run_qlinear_fully_connected(call, engine);
    if (call.op == cat::qlinear_conv2d::op && (qnnpack() || onednn())) return run_qlinear_conv2d(call, engine);
    if (call.op == cat::qlinear_avg_pool2d::op) return run_qlinear_avg_pool2d(call);
    if (call.op == cat::qlinear_max_pool2d::op) return run_qlinear_max_pool2d(call);
    if (call.op == cat::qlinear_global_avg_pool::op) return run_qlinear_global_avg_pool(call);
    if (call.op == cat::qlinear_mul::op && (onednn() || qnnpack())) return run_qlinear_mul(call);
    if (call.op == cat::qlinear_add::op && (onednn() || qnnpack())) return run_qlinear_add(call);
    if (call.op == cat::qlinear_concat::op && (onednn() || qnnpack())) return run_qlinear_concat(call);
    if (call.op == cat::qlinear_leaky_relu::op && (onednn() || qnnpack())) return run_qlinear_leaky_relu(call);
    throw thirdparty::Unsupported("libtorch adapter has no op '" + call.op + "'");
  }

 private:
  bool qnnpack() const { return engine_.rfind("qengine qnnpack", 0) == 0; }
  bool onednn() const { return engine_.rfind("qengine onednn", 0) == 0; }
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
