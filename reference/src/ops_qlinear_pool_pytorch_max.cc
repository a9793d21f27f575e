// PyTorch 1.13's quantized max_pool2d (spec/operators_qlinear_pytorch_pool.md): at::max_pool2d's
// checks, then ATen's maximum over the taps inside the window or, for uint8 under the qnnpack
// engine, QNNPACK's maximum over the border-clamped taps of its indirection buffer.
#include <algorithm>
#include <string>

#include "qspec/ref/exact.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_max.h"

namespace qspec::ref::ops {

// spec: qlinear.max_pool2d.pytorch_onednn
// spec: qlinear.max_pool2d.pytorch_qnnpack
void qlinear_pytorch_maxpool_check(const QPoolGeometry& g, DType t, QPoolTorchEngine engine) {
  const std::string op = "qlinear.max_pool2d (pytorch)";
  QSPEC_ERROR_IF(t != DType::I8 && t != DType::U8, op + ": x must be int8 or uint8");
  QSPEC_ERROR_IF(g.pads[0] != g.pads[2] || g.pads[1] != g.pads[3],
                 op + ": max_pool2d takes one padding per dimension (top = bottom, left = right)");
  // q_maxpool_2d: TORCH_CHECK(kH / 2 >= pH && kW / 2 >= pW, "padding should be smaller than half of
  // kernel_size."); QNNPACK's path: pooling_output_shape's "pad should be at most half of kernel size".
  for (std::size_t a = 0; a < 2; ++a)
    QSPEC_ERROR_IF(g.kernel[a] / 2 < g.pads[a], op + ": padding should be at most half of kernel_size");
  QSPEC_ERROR_IF(engine == QPoolTorchEngine::Qnnpack && t == DType::U8 && g.kernel[0] * g.kernel[1] == 1,
                 op + ": QNNPACK's 1x1 pooling is meaningless (failed to create QNNPACK MaxPool operator)");
}

// spec: qlinear.pool.window
// spec: qlinear.max_pool2d.pytorch_onednn
// spec: qlinear.max_pool2d.pytorch_qnnpack
IntArray qlinear_max_pool2d_pytorch(const IntArray& x, const QPoolGeometry& g, DType t, QPoolTorchEngine engine) {
  const std::string op = "qlinear.max_pool2d (pytorch)";
  const auto [oh, ow] = qlinear_pool_out_size(x.shape, g);
  qlinear_pytorch_maxpool_check(g, t, engine);
  const Range r = int_range(t);
  for (const auto& v : x.data) QSPEC_REQUIRE(v >= r.lo && v <= r.hi, op + ": x codes lie in x's dtype");
  IntArray y(Shape{x.dim(0), oh, ow, x.dim(3)});
  if (engine == QPoolTorchEngine::Qnnpack && t == DType::U8) {
    // pytorch_qnnp_indirection_init_maxpool2d: input_y = doz(p SH + i DH, pt), then
    // min(input_y, H - 1); every one of the K taps is read, padded or not.
    const std::int64_t H = x.dim(1), W = x.dim(2), C = x.dim(3);
    std::size_t o = 0;
    for (std::int64_t n = 0; n < x.dim(0); ++n)
      for (std::int64_t p = 0; p < oh; ++p)
        for (std::int64_t q = 0; q < ow; ++q)
          for (std::int64_t c = 0; c < C; ++c) {
            Int m = r.lo;
            for (std::int64_t i = 0; i < g.kernel[0]; ++i)
              for (std::int64_t j = 0; j < g.kernel[1]; ++j) {
                const std::int64_t h =
                    std::clamp<std::int64_t>(p * g.strides[0] - g.pads[0] + i * g.dilations[0], 0, H - 1);
                const std::int64_t w =
                    std::clamp<std::int64_t>(q * g.strides[1] - g.pads[1] + j * g.dilations[1], 0, W - 1);
                const Int& v = x.data[static_cast<std::size_t>(((n * H + h) * W + w) * C + c)];
                if (v > m) m = v;
              }
            y.data[o++] = m;
          }
    return y;
  }
  const auto windows = qlinear_pool_window_codes(x, g, oh, ow);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    Int m = r.lo;  // std::numeric_limits<T>::lowest(): the result of a window without a tap inside
    for (const auto& v : windows[i])
      if (v > m) m = v;
    y.data[i] = m;
  }
  return y;
}

}  // namespace qspec::ref::ops
