// Handlers of qlinear.avg_pool2d, qlinear.global_avg_pool and qlinear.max_pool2d under onednn
// (spec/operators_qlinear_onednn_pool.md): oneDNN 2.6's s8/u8 pooling on the codes, the jit
// kernels' reciprocal multiply or ref_pooling's division in binary32: the averages on the kernel
// set's pooling kernel (qspec/simd/qlinear_pool.h, kOnednn), the maximum in scalar code.
#include <algorithm>
#include <array>
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
using qlinear::fits;
using qlinear::hi_of;
using qlinear::lo_of;
using qlinear::named;
using Avg = cat::qlinear_avg_pool2d;
using Gap = cat::qlinear_global_avg_pool;
using Max = cat::qlinear_max_pool2d;

struct Pool {
  std::array<std::int64_t, 2> k{1, 1}, s{1, 1}, d{1, 1};
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};  // top, left, bottom, right
  std::int64_t oh = 1, ow = 1;
};

template <std::size_t n>
std::array<std::int64_t, n> ints(const OpCall& c, const attr::IntArray& key, std::array<std::int64_t, n> d) {
  const auto v = attr::get_or(c.attrs, key, std::vector<std::int64_t>(d.begin(), d.end()));
  reject_if(v.size() != n, "attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  std::array<std::int64_t, n> out{};
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

// qlinear.pool.window's checks and output size (the dilated kernel must fit: a REQUIRE).
void size_pool(const std::vector<std::int64_t>& shape, Pool& p) {
  reject_if(shape.size() != 4, "qlinear pool: x must be (N, H, W, C)");
  for (auto v : shape) reject_if(v < 1, "qlinear pool: x has an empty dimension");
  for (int i = 0; i < 2; ++i)
    reject_if(p.k[i] < 1 || p.s[i] < 1 || p.d[i] < 1, "qlinear pool: kernel, strides, dilations >= 1");
  for (auto v : p.pads) reject_if(v < 0, "qlinear pool: pads >= 0");
  const std::int64_t h = shape[1] + p.pads[0] + p.pads[2] - (p.d[0] * (p.k[0] - 1) + 1);
  const std::int64_t w = shape[2] + p.pads[1] + p.pads[3] - (p.d[1] * (p.k[1] - 1) + 1);
  if (h < 0 || w < 0) throw Unsupported("qlinear pool: the dilated kernel must fit the padded input (a REQUIRE)");
  p.oh = h / p.s[0] + 1;
  p.ow = w / p.s[1] + 1;
}

// ref_pooling's loop over one output: f(code) for each tap inside, in kh, kw order.
template <class F>
void taps(const IntArray& x, const Pool& p, std::int64_t n, std::int64_t oy, std::int64_t ox, std::int64_t c, F f) {
  const std::int64_t H = x.dim(1), W = x.dim(2), C = x.dim(3);
  for (std::int64_t kh = 0; kh < p.k[0]; ++kh) {
    const std::int64_t ih = oy * p.s[0] - p.pads[0] + kh * p.d[0];
    if (ih < 0 || ih >= H) continue;
    for (std::int64_t kw = 0; kw < p.k[1]; ++kw) {
      const std::int64_t iw = ox * p.s[1] - p.pads[1] + kw * p.d[1];
      if (iw >= 0 && iw < W) f(x.data[static_cast<std::size_t>(((n * H + ih) * W + iw) * C + c)]);
    }
  }
}

// The checks of an average pooling under onednn and the kernel's parameters (the codes' sum, the jit
// kernels' reciprocal or ref_pooling's division: pool_one's kOnednn); `ambiguous` where the ISA decides
// between jit and ref (N C min(H, OH) min(W, OW) < 16 below AVX-512: the clause REQUIREs agreement).
template <class A>
PoolParams onednn_params(const OpCall& c, const qspec_tensor& xt, Pool p, bool include, bool& ambiguous) {
  const std::vector<std::int64_t> shape(xt.shape, xt.shape + xt.rank);
  size_pool(shape, p);
  const qspec_dtype t = xt.dtype;
  reject_if(t != QSPEC_DTYPE_INT8 && t != QSPEC_DTYPE_UINT8, "onednn pooling: x must be int8 or uint8");
  const std::int64_t zx = attr::get(c.attrs, A::attr::x_zero_point), zy = attr::get(c.attrs, A::attr::y_zero_point);
  reject_if(attr::get(c.attrs, A::attr::x_scale) != attr::get(c.attrs, A::attr::y_scale) || zx != zy,
            "onednn pooling: no quantization parameters, x and y must share scale and zero point");
  reject_if(!fits(zx, t), "onednn pooling: the zero point must fit the dtype");
  const std::int64_t ymin = attr::get_or(c.attrs, A::attr::y_min, lo_of(t));
  const std::int64_t ymax = attr::get_or(c.attrs, A::attr::y_max, hi_of(t));
  reject_if(!fits(ymin, t) || !fits(ymax, t), "onednn pooling: y_min and y_max must fit the dtype");
  reject_if(ymax < ymin, "onednn pooling: y_max < y_min (eltwise_clip)");
  const bool padded = std::any_of(p.pads.begin(), p.pads.end(), [](std::int64_t v) { return v != 0; });
  reject_if(include && padded && zx != 0, "onednn pooling: include-padding counts the code 0, not the real 0");
  reject_if(!include && (p.pads[0] >= p.k[0] || p.pads[2] >= p.k[0] || p.pads[1] >= p.k[1] || p.pads[3] >= p.k[1]),
            "onednn pooling: exclude-padding with a pad not below the kernel (invalid_arguments)");
  const std::int64_t K = p.k[0] * p.k[1];
  if (K > 65536) throw Unsupported("onednn pooling: KH KW <= 65536 (a REQUIRE)");
  // jit_conf: a pad (or an effective end pad) not below the kernel sends the problem to ref_pooling.
  const std::int64_t H = shape[1], W = shape[2];
  const std::int64_t pb = (p.oh - 1) * p.s[0] + p.k[0] - H - p.pads[0];
  const std::int64_t pr = (p.ow - 1) * p.s[1] + p.k[1] - W - p.pads[1];
  PoolParams q;
  q.kind = PoolParams::Kind::kOnednn;
  q.u8 = t == QSPEC_DTYPE_UINT8;
  q.g = {shape[0], H, W, shape[3], p.k[0], p.k[1], p.s[0], p.s[1], p.pads[0], p.pads[1], p.oh, p.ow};
  q.lo = static_cast<std::int32_t>(ymin), q.hi = static_cast<std::int32_t>(ymax);  // inside the dtype
  q.include = include;
  q.jit = p.pads[0] < p.k[0] && p.pads[1] < p.k[1] && pb < p.k[0] && pr < p.k[1];
  ambiguous = q.jit && shape[0] * shape[3] * std::min(H, p.oh) * std::min(W, p.ow) < 16;
  qlinear::set_pool_fast(q, 0);
  return q;
}

template <class A>
void average(OpCall& c, Pool p, bool include, const std::string& out_name) {
  const qspec_tensor& xt = named(c, A::in::x);
  bool ambiguous = false;
  const PoolParams q = onednn_params<A>(c, xt, p, include, ambiguous);
  if (!ambiguous) return qlinear::run_pool(c, q, xt, out_name);
  [[maybe_unused]] const IntArray x = read_int(xt);  // checks x's bytes
  PoolParams ref = q;
  ref.jit = false;
  std::vector<std::uint8_t> a(static_cast<std::size_t>(q.g.n * q.g.oh * q.g.ow * q.g.c)), b(a.size());
  pool_scalar(q, xt.data, a.data());
  pool_scalar(ref, xt.data, b.data());
  if (a != b) throw Unsupported("onednn pooling: the ISA-dependent band, jit and ref round differently (a REQUIRE)");
  std::vector<std::int64_t> y(a.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = q.u8 ? a[i] : static_cast<std::int8_t>(a[i]);
  write_int(c.output(out_name, 0), {q.g.n, q.g.oh, q.g.ow, q.g.c}, y);
}

void avg_pool2d(OpCall& c) {
  reject_if(!attr::has(c.attrs, Avg::attr::kernel), "qlinear.avg_pool2d: kernel is required");
  Pool p;
  p.k = ints<2>(c, Avg::attr::kernel, {0, 0});
  p.s = ints<2>(c, Avg::attr::strides, {1, 1});
  p.pads = ints<4>(c, Avg::attr::pads, {0, 0, 0, 0});
  average<Avg>(c, p, attr::get_or(c.attrs, Avg::attr::count_include_pad, false), std::string(Avg::out::y));
}

void global_avg_pool(OpCall& c) {
  const qspec_tensor& xt = named(c, Gap::in::x);
  reject_if(xt.rank != 4, "qlinear pool: x must be (N, H, W, C)");
  Pool p;
  p.k = {xt.shape[1], xt.shape[2]};
  average<Gap>(c, p, false, std::string(Gap::out::y));
}

void max_pool2d(OpCall& c) {
  const qspec_tensor& xt = named(c, Max::in::x);
  const IntArray x = read_int(xt);
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8, "qlinear pool: x must be int8 or uint8");
  reject_if(!attr::has(c.attrs, Max::attr::kernel), "qlinear.max_pool2d: kernel is required");
  Pool p;
  p.k = ints<2>(c, Max::attr::kernel, {0, 0});
  p.s = ints<2>(c, Max::attr::strides, {1, 1});
  p.d = ints<2>(c, Max::attr::dilations, {1, 1});
  p.pads = ints<4>(c, Max::attr::pads, {0, 0, 0, 0});
  size_pool(x.shape, p);
  const qspec_dtype t = xt.dtype;
  const std::int64_t ymin = attr::get_or(c.attrs, Max::attr::y_min, lo_of(t));
  const std::int64_t ymax = attr::get_or(c.attrs, Max::attr::y_max, hi_of(t));
  reject_if(!fits(ymin, t) || !fits(ymax, t), "onednn: y_min and y_max must fit the dtype");
  reject_if(ymax < ymin, "onednn max pooling: y_max < y_min (eltwise_clip)");
  for (auto v : x.data) reject_if(!fits(v, t), "qlinear.max_pool2d: a code outside the dtype");
  std::vector<std::int64_t> y;
  for (std::int64_t n = 0; n < x.dim(0); ++n)
    for (std::int64_t oy = 0; oy < p.oh; ++oy)
      for (std::int64_t ox = 0; ox < p.ow; ++ox)
        for (std::int64_t ch = 0; ch < x.dim(3); ++ch) {
          std::int64_t m = lo_of(t);  // numeric_limits<data_t>::lowest()
          taps(x, p, n, oy, ox, ch, [&](std::int64_t v) { m = std::max(m, v); });
          y.push_back(std::clamp(m, ymin, ymax));
        }
  write_int(c.output(Max::out::y, 0), {x.dim(0), p.oh, p.ow, x.dim(3)}, y);
}

}  // namespace

void add_qlinear_onednn_pool_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<Avg>(Avg::conv::onednn, "oneDNN code sums, jit reciprocal / ref division", avg_pool2d));
  t.push_back(entry<Gap>(Gap::conv::onednn, "oneDNN code sums over the image, jit reciprocal", global_avg_pool));
  t.push_back(entry<Max>(Max::conv::onednn, "clamped window maximum, lowest code when empty", max_pool2d));
}

}  // namespace qspec::simd
