// The Arm NN adapter (CpuRef backend): claims, dispatch, and the exported qspec_backend_create2.
#include "qspec/thirdparty/adapter.h"

#include <cstring>
#include <memory>
#include <string>

#include "network.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"

#ifndef QSPEC_ARMNN_VERSION
#define QSPEC_ARMNN_VERSION "unknown"
#endif

namespace qspec::armnn_adapter {
namespace {

class ArmnnAdapter final : public thirdparty::Adapter {
 public:
  std::string name() const override { return "armnn"; }
  std::string version() const override {
    return std::string("Arm NN ") + QSPEC_ARMNN_VERSION + " (" + library_version() + "), backend CpuRef";
  }

  std::vector<thirdparty::Claim> claims() const override {
    using thirdparty::claim;
    return {
        claim<cat::qlinear_conv2d>(cat::qlinear_conv2d::conv::armnn_cpuref,
                                   "Convolution2d (groups 1) / DepthwiseConvolution2d (groups C), NHWC, "
                                   "QAsymmS8/QAsymmU8, one weight scale, Signed32 bias of scale x_scale * w_scale"),
        claim<cat::qlinear_fully_connected>(cat::qlinear_fully_connected::conv::armnn_cpuref,
                                            "FullyConnected (TransposeWeightMatrix), QAsymmS8/QAsymmU8, one weight "
                                            "scale, Signed32 bias of scale x_scale * w_scale"),
        claim<cat::qlinear_add>(cat::qlinear_add::conv::armnn_cpuref,
                                "Addition, QAsymmS8/QAsymmU8 with their own scales and offsets; operands reshaped "
                                "to the output's rank"),
        claim<cat::qlinear_mul>(cat::qlinear_mul::conv::armnn_cpuref,
                                "Multiplication, QAsymmS8/QAsymmU8 with their own scales and offsets; operands "
                                "reshaped to the output's rank"),
        claim<cat::qlinear_avg_pool2d>(cat::qlinear_avg_pool2d::conv::armnn_cpuref,
                                       "Pooling2d Average, NHWC, Floor; count_include_pad = IgnoreValue, else Exclude"),
        claim<cat::qlinear_global_avg_pool>(cat::qlinear_global_avg_pool::conv::armnn_cpuref,
                                            "Pooling2d Average with the kernel (H, W)"),
        claim<cat::qlinear_max_pool2d>(cat::qlinear_max_pool2d::conv::armnn_cpuref,
                                       "Pooling2d Max, NHWC, Floor; input and output of scale 1, offset 0"),
        claim<cat::quantize>(cat::quantize::conv::armnn_cpuref,
                             "Quantize, Float32 to QAsymmS8/QAsymmU8 of any int32 offset, run flat"),
        claim<cat::dequantize>(cat::dequantize::conv::armnn_cpuref,
                               "Dequantize, QAsymmS8/QAsymmU8 of any int32 offset to Float32, run flat"),
        claim<cat::qlinear_concat>(cat::qlinear_concat::conv::armnn_cpuref,
                                   "Concat (CreateDescriptorForConcatenation along the axis), QAsymmS8/QAsymmU8 inputs "
                                   "with their own scales and offsets"),
        claim<cat::qlinear_leaky_relu>(cat::qlinear_leaky_relu::conv::armnn_cpuref,
                                       "Activation (LeakyReLu, m_A = alpha), QAsymmS8/QAsymmU8 in and out with their "
                                       "own scales and offsets, run flat"),
    };
  }

  void run(const thirdparty::Call& call) override {
    if (call.op == cat::qlinear_conv2d::op) return run_conv2d(call);
    if (call.op == cat::qlinear_fully_connected::op) return run_fully_connected(call);
    if (call.op == cat::qlinear_add::op) return run_add(call);
    if (call.op == cat::qlinear_mul::op) return run_mul(call);
    if (call.op == cat::qlinear_avg_pool2d::op) return run_avg_pool2d(call);
    if (call.op == cat::qlinear_global_avg_pool::op) return run_global_avg_pool(call);
    if (call.op == cat::qlinear_max_pool2d::op) return run_max_pool2d(call);
    if (call.op == cat::quantize::op) return run_quantize(call);
    if (call.op == cat::dequantize::op) return run_dequantize(call);
    if (call.op == cat::qlinear_concat::op) return run_concat(call);
    if (call.op == cat::qlinear_leaky_relu::op) return run_leaky_relu(call);
    throw thirdparty::Unsupported("Arm NN adapter has no op '" + call.op + "'");
  }
};

}  // namespace

float f32(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

armnn::DataType data_type(qspec_dtype t) {
  if (t == QSPEC_DTYPE_INT8) return armnn::DataType::QAsymmS8;
  if (t == QSPEC_DTYPE_UINT8) return armnn::DataType::QAsymmU8;
  throw thirdparty::Unsupported("Arm NN's quantized layers take 8-bit tensors (QAsymmS8 / QAsymmU8)");
}
}  // namespace qspec::armnn_adapter

extern "C" QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version,
                                                          const qspec_backend_options* options, qspec_backend* out) {
  try {
    return qspec::thirdparty::make_backend(std::make_unique<qspec::armnn_adapter::ArmnnAdapter>(), host_abi_version,
                                           options, out);
  } catch (...) {
    return 1;
  }
}
