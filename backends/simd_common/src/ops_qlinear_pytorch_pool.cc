// Handlers of qlinear.avg_pool2d under pytorch.onednn and pytorch.qnnpack (spec/operators_qlinear_pool.md,
// PyTorch 1.13): int32 window sums, then ATen's multiplier fl32(1 / d) or QNNPACK's
// fl32(x_s / fl32(x_s K)) (uint8 under qnnpack), one binary32 product rounded to even, + the zero
// point, saturated. Scalar code (correctness first); the output keeps x's parameters.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd {
namespace {

using nn::reject_if;
using qlinear::f32_of;
using qlinear::finite_positive;
using qlinear::fits;
using qlinear::hi_of;
using qlinear::lo_of;
using qlinear::named;
using Avg = cat::qlinear_avg_pool2d;

template <std::size_t n>
std::vector<std::int64_t> ints(const OpCall& c, const attr::IntArray& key, std::vector<std::int64_t> d) {
  auto v = attr::get_or(c.attrs, key, d);
  reject_if(v.size() != n, "attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  return v;
}

template <bool kQnnpackEngine>
void avg_pool2d(OpCall& c) {
  const qspec_tensor& xt = named(c, Avg::in::x);
  const IntArray x = read_int(xt);
  reject_if(!attr::has(c.attrs, Avg::attr::kernel), "qlinear.avg_pool2d: kernel is required");
  const auto k = ints<2>(c, Avg::attr::kernel, {1, 1});
  const auto s = ints<2>(c, Avg::attr::strides, {1, 1});
  const auto pads = ints<4>(c, Avg::attr::pads, {0, 0, 0, 0});
  const bool include = attr::get_or(c.attrs, Avg::attr::count_include_pad, false);
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "pytorch: x must be int8 or uint8");
  reject_if(x.shape.size() != 4, "qlinear pool: x must be (N, H, W, C)");
  for (auto v : x.shape) reject_if(v < 1, "qlinear pool: x has an empty dimension");
  for (int a = 0; a < 2; ++a) reject_if(k[a] < 1 || s[a] < 1, "qlinear pool: kernel and strides >= 1");
  for (auto p : pads) reject_if(p < 0, "qlinear pool: pads >= 0");
  const std::int64_t H = x.dim(1), W = x.dim(2), C = x.dim(3), K = k[0] * k[1];
  std::int64_t o[2];
  for (int a = 0; a < 2; ++a) {
    const std::int64_t span = x.dim(a + 1) + pads[a] + pads[a + 2] - k[a];
    if (span < 0) throw Unsupported("qlinear pool: the kernel must fit the padded input (a REQUIRE)");
    o[a] = span / s[a] + 1;
  }
  reject_if(pads[0] != pads[2] || pads[1] != pads[3], "pytorch: avg_pool2d takes one padding per dimension");
  for (int a = 0; a < 2; ++a) reject_if(2 * pads[a] > k[a], "pytorch: pad should be at most half of kernel size");
  const std::int64_t zx = attr::get(c.attrs, Avg::attr::x_zero_point);
  reject_if(!fits(zx, xt.dtype), "pytorch: x_zero_point must fit x's dtype");
  const float xs = f32_of(attr::get(c.attrs, Avg::attr::x_scale));
  if (!finite_positive(xs)) throw Unsupported("pytorch: x_scale finite and positive (a REQUIRE)");
  for (auto v : x.data) reject_if(!fits(v, xt.dtype), "qlinear.avg_pool2d: a code outside the dtype");
  const bool qnnpack = kQnnpackEngine && xt.dtype == QSPEC_DTYPE_UINT8;
  float S = 0.0f;
  if (qnnpack) {
    reject_if(K == 1, "pytorch.qnnpack: 1x1 pooling is meaningless");
    reject_if(K >= (1 << 24), "pytorch.qnnpack: the pooling area must be below 2**24 elements");
    S = xs / (xs * static_cast<float>(K));
    if (!(S >= 0x1.0p-32f && S < 256.0f)) throw Unsupported("pytorch.qnnpack: S outside [2^-32, 256) (a REQUIRE)");
  }
  const std::int64_t lo = lo_of(xt.dtype), hi = hi_of(xt.dtype);
  std::vector<std::int64_t> y;
  y.reserve(static_cast<std::size_t>(x.dim(0) * o[0] * o[1] * C));
  for (std::int64_t n = 0; n < x.dim(0); ++n)
    for (std::int64_t p = 0; p < o[0]; ++p)
      for (std::int64_t q = 0; q < o[1]; ++q)
        for (std::int64_t ch = 0; ch < C; ++ch) {
          const std::int64_t h0 = std::max<std::int64_t>(p * s[0] - pads[0], 0);
          const std::int64_t h1 = std::min(p * s[0] - pads[0] + k[0], H);
          const std::int64_t w0 = std::max<std::int64_t>(q * s[1] - pads[1], 0);
          const std::int64_t w1 = std::min(q * s[1] - pads[1] + k[1], W);
          std::int64_t acc = 0;
          for (std::int64_t h = h0; h < h1; ++h)
            for (std::int64_t w = w0; w < w1; ++w)
              acc += static_cast<std::int64_t>(x.data[static_cast<std::size_t>(((n * H + h) * W + w) * C + ch)]) - zx;
          if (acc < INT32_MIN || acc > INT32_MAX) throw Unsupported("pytorch: the window sum fits int32 (a REQUIRE)");
          const std::int64_t d = include ? K : std::max<std::int64_t>((h1 - h0) * (w1 - w0), 1);
          // ATen: input_scale / output_scale / divide_factor with the output keeping x's scale.
          const float m = qnnpack ? S : (xs / xs) / static_cast<float>(d);
          const float v = static_cast<float>(acc) * m;
          const std::int64_t r = static_cast<std::int64_t>(std::nearbyint(v));  // default mode: to even
          y.push_back(std::clamp(r + zx, lo, hi));
        }
  write_int(c.output(Avg::out::y, 0), {x.dim(0), o[0], o[1], C}, y);
}

}  // namespace

void add_qlinear_pytorch_pool_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Avg>(Avg::conv::pytorch_onednn, "window sums, ATen's fl32(1/d) multiplier, rne, + zero point",
                         avg_pool2d<false>));
  t.push_back(entry<Avg>(Avg::conv::pytorch_qnnpack,
                         "window sums; uint8: QNNPACK's fl32(x_s / fl32(x_s K)), int8: ATen's; rne, + zero point",
                         avg_pool2d<true>));
}

}  // namespace qspec::simd
