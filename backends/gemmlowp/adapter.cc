// The gemmlowp adapter: claims, dispatch, and the exported qspec_backend_create2 of the plugin.
#include "qspec/thirdparty/adapter.h"

#include <memory>
#include <string>

#include "ops.h"
#include "qspec/catalogue/keys.h"

#ifndef QSPEC_GEMMLOWP_VERSION
#define QSPEC_GEMMLOWP_VERSION "unknown"
#endif

namespace qspec::gemmlowp_adapter {
namespace {

class GemmlowpAdapter final : public thirdparty::Adapter {
 public:
  std::string name() const override { return "gemmlowp"; }
  std::string version() const override {
#if defined(__SSE4_1__)
    return std::string("gemmlowp ") + QSPEC_GEMMLOWP_VERSION + " (SSE4 kernels)";
#else
    return std::string("gemmlowp ") + QSPEC_GEMMLOWP_VERSION + " (portable kernels)";
#endif
  }

  std::vector<thirdparty::Claim> claims() const override {
    using thirdparty::claim;
    using Requantize = cat::requantize;
    using PerChannel = cat::requantize_per_channel;
    return {
        claim<Requantize>(
            Requantize::conv::gemmlowp_double_round,
            "1xn GemmWithOutputPipeline: BiasAddition(x) -> QuantizeDownInt32ByFixedPoint (shift <= 0) or "
            "ScaleInt32ByFixedPointAndExponent (shift > 0) -> Clamp; shift in [-31, 31]"),
        claim<PerChannel>(PerChannel::conv::gemmlowp_double_round, "ScaleInt32ByFixedPointAndExponentPC<Row> -> Clamp"),
        claim<Requantize>(
            Requantize::conv::gemmlowp_legacy_uint8_scale,
            "QuantizeDownInt32ToUint8Scale -> SaturatingCastToUint8/Int16 (int8: Clamp, no SSE cast stage)"),
        claim<PerChannel>(PerChannel::conv::gemmlowp_legacy_uint8_scale,
                          "QuantizeDownInt32ToUint8ScalePC<Row> -> cast"),
        claim<cat::gemmlowp_matmul>(cat::gemmlowp_matmul::conv::gemmlowp,
                                    "GemmWithOutputPipeline<uint8,uint8,L8R8> with offsets -zero_point, "
                                    "QuantizeDownInt32ByFixedPoint -> SaturatingCastToUint8"),
        claim<cat::srdhm>(cat::srdhm::conv::gemmlowp,
                          "fixedpoint.h SaturatingRoundingDoublingHighMul (SSE registers on x86)"),
        claim<cat::rdbpot>(cat::rdbpot::conv::gemmlowp,
                           "fixedpoint.h RoundingDivideByPOT (SSE registers on x86); exponent 0..31"),
    };
  }

  void run(const thirdparty::Call& call) override {
    // The legacy stage is the one requantize convention with other attributes (both ops name it alike).
    static_assert(cat::requantize::conv::gemmlowp_legacy_uint8_scale ==
                  cat::requantize_per_channel::conv::gemmlowp_legacy_uint8_scale);
    const bool legacy = call.native == cat::requantize::conv::gemmlowp_legacy_uint8_scale;
    if (call.op == cat::requantize::op) return legacy ? run_legacy_scale(call) : run_requantize(call);
    if (call.op == cat::requantize_per_channel::op)
      return legacy ? run_legacy_scale_per_channel(call) : run_requantize_per_channel(call);
    if (call.op == cat::gemmlowp_matmul::op) return run_matmul(call);
    if (call.op == cat::srdhm::op) return run_srdhm(call);
    if (call.op == cat::rdbpot::op) return run_rdbpot(call);
    throw thirdparty::Unsupported("gemmlowp adapter has no op '" + call.op + "'");
  }
};

}  // namespace
}  // namespace qspec::gemmlowp_adapter

extern "C" QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version,
                                                          const qspec_backend_options* options, qspec_backend* out) {
  try {
    return qspec::thirdparty::make_backend(std::make_unique<qspec::gemmlowp_adapter::GemmlowpAdapter>(),
                                           host_abi_version, options, out);
  } catch (...) {
    return 1;
  }
}
