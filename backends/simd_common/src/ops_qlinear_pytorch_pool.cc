// Handlers of qlinear.avg_pool2d under pytorch.onednn and pytorch.qnnpack (spec/operators_qlinear_pool.md,
// PyTorch 1.13): int32 window sums, then ATen's multiplier fl32(1 / d) or QNNPACK's
// fl32(x_s / fl32(x_s K)) (uint8 under qnnpack), one binary32 product rounded to even, + the zero
// point, saturated, on the kernel set's pooling kernel (qspec/simd/qlinear_pool.h); the output keeps
// x's parameters.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"
#include "qspec/simd/qlinear_pool.h"

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
  // The window sums, then QNNPACK's S or ATen's fl32(1 / fl32(d)) (d = K or the taps inside; the
  // output keeps x's parameters): pool_one's kFp32 on the kernel set's pooling kernel.
  PoolParams q;
  q.kind = PoolParams::Kind::kFp32;
  q.u8 = xt.dtype == QSPEC_DTYPE_UINT8;
  q.g = {x.dim(0), H, W, C, k[0], k[1], s[0], s[1], pads[0], pads[1], o[0], o[1]};
  q.zx = q.zy = static_cast<std::int32_t>(zx);
  q.lo = static_cast<std::int32_t>(lo_of(xt.dtype)), q.hi = static_cast<std::int32_t>(hi_of(xt.dtype));
  q.scale = S;
  q.per_count = !qnnpack;  // ATen: input_scale / output_scale / divide_factor, the output keeping x's scale
  q.include = include;
  qlinear::set_pool_fast(q, 0);
  qlinear::run_pool(c, q, xt, Avg::out::y);
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
