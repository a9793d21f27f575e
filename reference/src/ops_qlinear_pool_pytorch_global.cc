// PyTorch 1.13's quantized global average pooling (spec/operators_qlinear_pytorch_pool.md):
// adaptive_avg_pool2d(x, 1) on a channels-last tensor; the epilogues of qlinear.avg_pool2d.pytorch_*
// (ops_qlinear_pool_pytorch.cc) with one window of H W taps.
#include <string>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_global.h"

namespace qspec::ref::ops {

// spec: qlinear.pool.window
// spec: qlinear.global_avg_pool.pytorch_onednn
// spec: qlinear.global_avg_pool.pytorch_qnnpack
IntArray qlinear_global_avg_pool_pytorch(const IntArray& x, const QPoolParams& p, QPoolTorchEngine engine) {
  const std::string op = "qlinear.global_avg_pool (pytorch)";
  QSPEC_ERROR_IF(x.shape.size() != 4, op + ": x must be (N, H, W, C)");
  for (auto d : x.shape) QSPEC_ERROR_IF(d < 1, op + ": x has an empty dimension");
  QSPEC_ERROR_IF(p.type != DType::I8 && p.type != DType::U8, op + ": x must be int8 or uint8");
  const Range r = int_range(p.type);
  QSPEC_ERROR_IF(p.x_zero_point < r.lo || p.x_zero_point > r.hi, op + ": x_zero_point must fit x's dtype");
  QSPEC_REQUIRE(float_is_finite(p.x_scale, kBinary32) && f32_value(p.x_scale) > 0,
                op + ": x_scale finite and positive");
  for (const auto& v : x.data) QSPEC_REQUIRE(v >= r.lo && v <= r.hi, op + ": x codes lie in x's dtype");
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3), K = H * W;
  // adaptive_avg_pool2d_quantized_cpu: quint8 under qnnpack goes to QNNPACK's average pooling with
  // kernel = stride = (H, W), unless H = W = 1 (enable_qnnpack_for_ada_avgpool); ATen's kernel otherwise.
  const bool qnnpack = engine == QPoolTorchEngine::Qnnpack && p.type == DType::U8 && K > 1;
  const std::uint32_t m = qnnpack ? qlinear_pytorch_qnnpack_avgpool_scale(p.x_scale, K)
                                  : qlinear_pytorch_aten_avgpool_multiplier(p.x_scale, K);
  IntArray y(Shape{N, 1, 1, C});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c) {
      Int acc(0);
      for (std::int64_t i = 0; i < K; ++i)
        acc += x.data[static_cast<std::size_t>((n * K + i) * C + c)] - p.x_zero_point;
      QSPEC_REQUIRE(acc >= int_range(DType::I32).lo && acc <= int_range(DType::I32).hi,
                    op + ": the window sum fits int32");
      y.data[static_cast<std::size_t>(n * C + c)] = qlinear_pytorch_avgpool_output(acc, m, p.x_zero_point, p.type);
    }
  return y;
}

}  // namespace qspec::ref::ops
