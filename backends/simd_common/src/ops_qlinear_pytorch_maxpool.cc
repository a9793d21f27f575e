// Handlers of qlinear.max_pool2d under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13): ATen's maximum over the taps inside the
// window (from the dtype's minimum); for uint8 under qnnpack, QNNPACK's maximum over all K taps at
// their border-clamped positions. Scalar code (correctness first); y keeps x's parameters.
#include <algorithm>
#include <string>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd {
namespace {

using nn::reject_if;
using qlinear::hi_of;
using qlinear::lo_of;
using qlinear::named;
using Max = cat::qlinear_max_pool2d;

template <std::size_t n>
std::vector<std::int64_t> ints(const OpCall& c, const attr::IntArray& key, std::vector<std::int64_t> d) {
  auto v = attr::get_or(c.attrs, key, d);
  reject_if(v.size() != n, "attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  return v;
}

template <bool kQnnpackEngine>
void max_pool2d(OpCall& c) {
  const qspec_tensor& xt = named(c, Max::in::x);
  const IntArray x = read_int(xt);
  reject_if(!attr::has(c.attrs, Max::attr::kernel), "qlinear.max_pool2d: kernel is required");
  const auto k = ints<2>(c, Max::attr::kernel, {1, 1});
  const auto s = ints<2>(c, Max::attr::strides, {1, 1});
  const auto d = ints<2>(c, Max::attr::dilations, {1, 1});
  const auto pads = ints<4>(c, Max::attr::pads, {0, 0, 0, 0});
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "pytorch: x must be int8 or uint8");
  reject_if(x.shape.size() != 4, "qlinear pool: x must be (N, H, W, C)");
  for (auto v : x.shape) reject_if(v < 1, "qlinear pool: x has an empty dimension");
  for (int a = 0; a < 2; ++a)
    reject_if(k[a] < 1 || s[a] < 1 || d[a] < 1, "qlinear pool: kernel, strides, dilations >= 1");
  for (auto p : pads) reject_if(p < 0, "qlinear pool: pads >= 0");
  const std::int64_t H = x.dim(1), W = x.dim(2), C = x.dim(3);
  std::int64_t o[2];
  for (int a = 0; a < 2; ++a) {
    const std::int64_t span = x.dim(a + 1) + pads[a] + pads[a + 2] - (d[a] * (k[a] - 1) + 1);
    if (span < 0) throw Unsupported("qlinear pool: the dilated kernel must fit the padded input (a REQUIRE)");
    o[a] = span / s[a] + 1;
  }
  reject_if(pads[0] != pads[2] || pads[1] != pads[3], "pytorch: max_pool2d takes one padding per dimension");
  for (int a = 0; a < 2; ++a) reject_if(k[a] / 2 < pads[a], "pytorch: padding should be at most half of kernel_size");
  const bool qnnpack = kQnnpackEngine && xt.dtype == QSPEC_DTYPE_UINT8;
  reject_if(qnnpack && k[0] * k[1] == 1, "pytorch.qnnpack: 1x1 pooling is meaningless");
  const std::int64_t lo = lo_of(xt.dtype), hi = hi_of(xt.dtype);
  for (auto v : x.data) reject_if(v < lo || v > hi, "qlinear.max_pool2d: a code outside the dtype");
  std::vector<std::int64_t> y;
  y.reserve(static_cast<std::size_t>(x.dim(0) * o[0] * o[1] * C));
  for (std::int64_t n = 0; n < x.dim(0); ++n)
    for (std::int64_t p = 0; p < o[0]; ++p)
      for (std::int64_t q = 0; q < o[1]; ++q)
        for (std::int64_t ch = 0; ch < C; ++ch) {
          std::int64_t m = lo;  // ATen: numeric_limits<T>::lowest()
          for (std::int64_t i = 0; i < k[0]; ++i)
            for (std::int64_t j = 0; j < k[1]; ++j) {
              std::int64_t h = p * s[0] - pads[0] + i * d[0], w = q * s[1] - pads[1] + j * d[1];
              if (qnnpack) {  // QNNPACK's indirection: the border-clamped element
                h = std::clamp<std::int64_t>(h, 0, H - 1);
                w = std::clamp<std::int64_t>(w, 0, W - 1);
              } else if (h < 0 || h >= H || w < 0 || w >= W) {
                continue;  // ATen skips a padded tap
              }
              m = std::max<std::int64_t>(m, x.data[static_cast<std::size_t>(((n * H + h) * W + w) * C + ch)]);
            }
          y.push_back(m);
        }
  write_int(c.output(Max::out::y, 0), {x.dim(0), o[0], o[1], C}, y);
}

}  // namespace

void add_qlinear_pytorch_maxpool_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Max>(Max::conv::pytorch_onednn, "window maximum of the taps inside, lowest code when empty",
                         max_pool2d<false>));
  t.push_back(entry<Max>(Max::conv::pytorch_qnnpack,
                         "uint8: maximum over the border-clamped taps (QNNPACK); int8: ATen's window maximum",
                         max_pool2d<true>));
}

}  // namespace qspec::simd
