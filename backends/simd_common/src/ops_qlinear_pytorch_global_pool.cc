// Handlers of qlinear.global_avg_pool under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13 adaptive_avg_pool2d(x, 1)): int32 image
// sums, ATen's multiplier fl32(1 / HW) or, for uint8 under qnnpack with HW > 1, QNNPACK's
// fl32(x_s / fl32(x_s HW)); one binary32 product rounded to even, + the zero point, saturated, on the
// kernel set's pooling kernel (qspec/simd/qlinear_pool.h); the output keeps x's parameters.
#include <algorithm>
#include <cmath>
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
using Gap = cat::qlinear_global_avg_pool;

template <bool kQnnpackEngine>
void global_avg_pool(OpCall& c) {
  const qspec_tensor& xt = named(c, Gap::in::x);
  const IntArray x = read_int(xt);
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "pytorch: x must be int8 or uint8");
  reject_if(x.shape.size() != 4, "qlinear pool: x must be (N, H, W, C)");
  for (auto v : x.shape) reject_if(v < 1, "qlinear pool: x has an empty dimension");
  const std::int64_t zx = attr::get(c.attrs, Gap::attr::x_zero_point);
  reject_if(!fits(zx, xt.dtype), "pytorch: x_zero_point must fit x's dtype");
  const float xs = f32_of(attr::get(c.attrs, Gap::attr::x_scale));
  if (!finite_positive(xs)) throw Unsupported("pytorch: x_scale finite and positive (a REQUIRE)");
  for (auto v : x.data) reject_if(!fits(v, xt.dtype), "qlinear.global_avg_pool: a code outside the dtype");
  const std::int64_t N = x.dim(0), K = x.dim(1) * x.dim(2), C = x.dim(3);
  const bool qnnpack = kQnnpackEngine && xt.dtype == QSPEC_DTYPE_UINT8 && K > 1;
  float m = (xs / xs) / static_cast<float>(K);  // ATen: input_scale / output_scale / size
  if (qnnpack) {
    reject_if(K >= (1 << 24), "pytorch.qnnpack: the pooling area must be below 2**24 elements");
    m = xs / (xs * static_cast<float>(K));
    if (!(m >= 0x1.0p-32f && m < 256.0f)) throw Unsupported("pytorch.qnnpack: S outside [2^-32, 256) (a REQUIRE)");
  }
  // The image sums times m, rne, + z_x, saturated: pool_one's kFp32 over one window of H W taps.
  PoolParams q;
  q.kind = PoolParams::Kind::kFp32;
  q.u8 = xt.dtype == QSPEC_DTYPE_UINT8;
  q.g = {N, x.dim(1), x.dim(2), C, x.dim(1), x.dim(2), 1, 1, 0, 0, 1, 1};
  q.zx = q.zy = static_cast<std::int32_t>(zx);
  q.lo = static_cast<std::int32_t>(lo_of(xt.dtype)), q.hi = static_cast<std::int32_t>(hi_of(xt.dtype));
  q.scale = m;
  qlinear::set_pool_fast(q, 0);
  qlinear::run_pool(c, q, xt, Gap::out::y);
}

}  // namespace

void add_qlinear_pytorch_global_pool_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Gap>(Gap::conv::pytorch_onednn, "image sums, ATen's fl32(1/HW) multiplier, rne, + zero point",
                         global_avg_pool<false>));
  t.push_back(entry<Gap>(Gap::conv::pytorch_qnnpack,
                         "image sums; uint8: QNNPACK's fl32(x_s / fl32(x_s HW)), int8: ATen's; rne, + zero point",
                         global_avg_pool<true>));
}

}  // namespace qspec::simd
