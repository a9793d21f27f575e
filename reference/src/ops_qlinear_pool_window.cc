// The window shared by the engines' quantized pooling operators (spec/operators_qlinear_pool.md,
// qlinear.pool.window): geometry checks, output size and each window's taps inside the input.
#include <string>

#include "qspec/ref/ops/qlinear_pool.h"

namespace qspec::ref::ops {

// spec: qlinear.pool.window
std::array<std::int64_t, 2> qlinear_pool_out_size(const Shape& x, const QPoolGeometry& g) {
  QSPEC_ERROR_IF(x.size() != 4, "qlinear pool: x must be (N, H, W, C), got " + shape_str(x));
  for (auto d : x) QSPEC_ERROR_IF(d < 1, "qlinear pool: x has an empty dimension " + shape_str(x));
  for (int a = 0; a < 2; ++a) {
    const auto i = static_cast<std::size_t>(a);
    QSPEC_ERROR_IF(g.kernel[i] < 1, "qlinear pool: kernel dimensions must be >= 1");
    QSPEC_ERROR_IF(g.strides[i] < 1, "qlinear pool: strides must be >= 1");
    QSPEC_ERROR_IF(g.dilations[i] < 1, "qlinear pool: dilations must be >= 1");
  }
  for (auto p : g.pads) QSPEC_ERROR_IF(p < 0, "qlinear pool: pads must be >= 0");
  std::array<std::int64_t, 2> out{};
  for (std::size_t a = 0; a < 2; ++a) {
    const std::int64_t padded = x[a + 1] + g.pads[a] + g.pads[a + 2];
    const std::int64_t effective = g.dilations[a] * (g.kernel[a] - 1) + 1;
    // Without an output position the engines differ (an error, an empty tensor, a crash).
    QSPEC_REQUIRE(padded >= effective, "qlinear pool: the dilated kernel fits the padded input");
    out[a] = (padded - effective) / g.strides[a] + 1;
  }
  return out;
}

// spec: qlinear.pool.window
std::vector<std::vector<Int>> qlinear_pool_window_codes(const IntArray& x, const QPoolGeometry& g, std::int64_t oh,
                                                        std::int64_t ow) {
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3);
  std::vector<std::vector<Int>> out;
  out.reserve(static_cast<std::size_t>(N * oh * ow * C));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t p = 0; p < oh; ++p)
      for (std::int64_t q = 0; q < ow; ++q)
        for (std::int64_t c = 0; c < C; ++c) {
          std::vector<Int> taps;
          for (std::int64_t i = 0; i < g.kernel[0]; ++i) {
            const std::int64_t h = p * g.strides[0] - g.pads[0] + i * g.dilations[0];
            if (h < 0 || h >= H) continue;
            for (std::int64_t j = 0; j < g.kernel[1]; ++j) {
              const std::int64_t w = q * g.strides[1] - g.pads[1] + j * g.dilations[1];
              if (w >= 0 && w < W) taps.push_back(x.at4(n, h, w, c));
            }
          }
          out.push_back(std::move(taps));
        }
  return out;
}

}  // namespace qspec::ref::ops
