// Handlers of the MRT operators (spec/operators_mrt.md): conv2d and fully_connected through the
// 8-bit GEMM engines whenever every operand fits a byte (the usual quantized case), exact
// 128-bit loops otherwise; pad, relu, max_pool2d, the adds, concat, flatten and slice.
// Results are exact integers written as the output's dtype (int32, or int64 when they need it).
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "nn_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/backend_core.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/int_tensor.h"
#include "qspec/simd/qgemm.h"

namespace qspec::simd::nn {

using i128 = __int128;

void need_inputs(const OpCall& c, std::size_t n, std::string_view op) {
  if (c.n_inputs != n) throw Rejected(std::string(op) + " takes " + std::to_string(n) + " inputs (ERROR_IF)");
}
std::array<std::int64_t, 2> pair(const Json& a, const attr::IntArray& key, std::array<std::int64_t, 2> d) {
  const auto v = attr::get_or(a, key, Ints{d[0], d[1]});
  if (v.size() != 2) throw Rejected("attribute " + std::string(key.name) + " needs two entries (ERROR_IF)");
  return {v[0], v[1]};
}
void reject_if(bool cond, const std::string& why) {
  if (cond) throw Rejected(why + " (ERROR_IF)");
}
void positive_dims(const IntArray& a, const char* what) {
  for (auto d : a.shape) reject_if(d < 1, std::string(what) + " has an empty dimension");
}

// The byte representation of integer data: int8 if every value (and `extra`) fits, else uint8.
enum class Bytes { kNone, kInt8, kUint8 };
Bytes byte_kind(const std::vector<std::int64_t>& v, std::int64_t extra_lo, std::int64_t extra_hi) {
  const std::int64_t lo = std::min(extra_lo, v.empty() ? extra_lo : *std::min_element(v.begin(), v.end()));
  const std::int64_t hi = std::max(extra_hi, v.empty() ? extra_hi : *std::max_element(v.begin(), v.end()));
  if (lo >= -128 && hi <= 127) return Bytes::kInt8;
  if (lo >= 0 && hi <= 255) return Bytes::kUint8;
  return Bytes::kNone;
}
std::vector<std::uint8_t> to_bytes(const std::vector<std::int64_t>& v) {
  std::vector<std::uint8_t> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = static_cast<std::uint8_t>(v[i]);
  return b;
}

// ---- conv2d (NCHW, OIHW) ----

ConvGeom conv_geom(const OpCall& c, const ConvKeys& keys, const IntArray& x, const IntArray& w) {
  const auto st = pair(c.attrs, keys.strides, {1, 1}), pd = pair(c.attrs, keys.padding, {0, 0}),
             dl = pair(c.attrs, keys.dilation, {1, 1});
  const std::int64_t groups = attr::get_or(c.attrs, keys.groups, 1);
  reject_if(x.shape.size() != 4, "conv2d: input must have rank 4");
  reject_if(w.shape.size() != 4, "conv2d: weight must have rank 4");
  positive_dims(x, "conv2d: input");
  positive_dims(w, "conv2d: weight");
  for (int i = 0; i < 2; ++i) {
    reject_if(st[i] < 1, "conv2d: stride must be >= 1");
    reject_if(dl[i] < 1, "conv2d: dilation must be >= 1");
    reject_if(pd[i] < 0, "conv2d: padding must be >= 0");
  }
  reject_if(groups < 1, "conv2d: groups must be >= 1");
  const std::int64_t C = x.dim(1), H = x.dim(2), W = x.dim(3), O = w.dim(0);
  reject_if(C % groups != 0 || O % groups != 0 || w.dim(1) * groups != C, "conv2d: channels and groups disagree");
  const std::int64_t eh = dl[0] * (w.dim(2) - 1) + 1, ew = dl[1] * (w.dim(3) - 1) + 1;
  reject_if(H + 2 * pd[0] < eh || W + 2 * pd[1] < ew, "conv2d: dilated kernel larger than the padded input");
  ConvGeom g;
  g.n = x.dim(0), g.h = H, g.w = W, g.c = C, g.o = O, g.kh = w.dim(2), g.kw = w.dim(3);
  g.sh = st[0], g.sw = st[1], g.ph = pd[0], g.pw = pd[1], g.dh = dl[0], g.dw = dl[1], g.groups = groups;
  return g;
}

std::vector<std::int64_t> conv2d_exact(const KernelSet& k, const IntArray& x, const IntArray& w, const ConvGeom& g,
                                       std::int64_t za, std::int64_t zw, std::int64_t pad) {
  const std::int64_t N = g.n, C = g.c, H = g.h, W = g.w, O = g.o, OH = g.oh(), OW = g.ow();
  std::vector<std::int64_t> y(static_cast<std::size_t>(N * O * OH * OW));
  const Bytes xb = byte_kind(x.data, pad, pad), wb = byte_kind(w.data, 0, 0);
  if (xb != Bytes::kNone && wb != Bytes::kNone) {
    // NCHW -> NHWC bytes, the engines' convolution, NHWC -> NCHW.
    std::vector<std::uint8_t> xn(x.data.size());
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t ch = 0; ch < C; ++ch)
        for (std::int64_t i = 0; i < H * W; ++i)
          xn[static_cast<std::size_t>((n * H * W + i) * C + ch)] =
              static_cast<std::uint8_t>(x.data[static_cast<std::size_t>((n * C + ch) * H * W + i)]);
    const std::vector<std::uint8_t> wbytes = to_bytes(w.data);
    const QConvWeights packed = pack_conv_weights(k, g, wbytes.data(), wb == Bytes::kUint8, zw, za, pad);
    std::vector<std::int64_t> yn(y.size());
    qconv2d_nhwc(k, packed, xn.data(), xb == Bytes::kInt8, za, pad, yn.data());
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t i = 0; i < OH * OW; ++i)
        for (std::int64_t o = 0; o < O; ++o)
          y[static_cast<std::size_t>((n * O + o) * OH * OW + i)] =
              yn[static_cast<std::size_t>((n * OH * OW + i) * O + o)];
    return y;
  }
  // Operands beyond a byte: the exact window sum in 128 bits (results must fit int64).
  const std::int64_t ic = C / g.groups, opg = O / g.groups;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t p = 0; p < OH; ++p)
        for (std::int64_t q = 0; q < OW; ++q) {
          i128 acc = 0;
          const std::int64_t gi = o / opg;
          for (std::int64_t i = 0; i < ic; ++i)
            for (std::int64_t ki = 0; ki < g.kh; ++ki)
              for (std::int64_t kj = 0; kj < g.kw; ++kj) {
                const std::int64_t h = p * g.sh + ki * g.dh - g.ph, v = q * g.sw + kj * g.dw - g.pw;
                const bool inside = h >= 0 && h < H && v >= 0 && v < W;
                const std::int64_t xv =
                    inside ? x.data[static_cast<std::size_t>(((n * C + gi * ic + i) * H + h) * W + v)] : pad;
                acc += (i128{xv} - za) *
                       (i128{w.data[static_cast<std::size_t>(((o * ic + i) * g.kh + ki) * g.kw + kj)]} - zw);
              }
          if (acc < INT64_MIN || acc > INT64_MAX) throw Unsupported("conv2d: result beyond int64");
          y[static_cast<std::size_t>(((n * O + o) * OH + p) * OW + q)] = static_cast<std::int64_t>(acc);
        }
  return y;
}

void mrt_conv2d(OpCall& c) {
  using K = cat::conv2d;
  need_inputs(c, 2, K::op);
  const IntArray x = read_int(c.inputs[0]), w = read_int(c.inputs[1]);
  const ConvGeom g = conv_geom(c, conv_keys<K>, x, w);
  const auto y = conv2d_exact(c.k, x, w, g, 0, 0, attr::get_or(c.attrs, K::attr::pad_value, 0));
  write_int(c.output(K::out::y, 0), {g.n, g.o, g.oh(), g.ow()}, y);
}

// ---- fully_connected: Y = X W^T ----

std::vector<std::int64_t> fc_exact(const KernelSet& k, const IntArray& x, const IntArray& w, std::int64_t za,
                                   std::int64_t zw) {
  reject_if(x.shape.size() != 2, "fully_connected: input must have rank 2");
  reject_if(w.shape.size() != 2, "fully_connected: weight must have rank 2");
  reject_if(x.dim(1) != w.dim(1), "fully_connected: K differs");
  const std::int64_t N = x.dim(0), K = x.dim(1), M = w.dim(0);
  std::vector<std::int64_t> y(static_cast<std::size_t>(N * M));
  const Bytes xb = byte_kind(x.data, 0, 0), wb = byte_kind(w.data, 0, 0);
  if (xb != Bytes::kNone && wb != Bytes::kNone && K > 0) {
    const std::vector<std::uint8_t> xs = to_bytes(x.data), ws = to_bytes(w.data);
    const QWeights packed = pack_weights(*k.gemm, M, K, ws.data(), wb == Bytes::kUint8, K);
    qgemm(*k.gemm, N, xs.data(), xb == Bytes::kInt8, K, za, packed, zw, y.data(), M);
    return y;
  }
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      i128 acc = 0;
      for (std::int64_t t = 0; t < K; ++t)
        acc += (i128{x.data[static_cast<std::size_t>(n * K + t)]} - za) *
               (i128{w.data[static_cast<std::size_t>(m * K + t)]} - zw);
      if (acc < INT64_MIN || acc > INT64_MAX) throw Unsupported("fully_connected: result beyond int64");
      y[static_cast<std::size_t>(n * M + m)] = static_cast<std::int64_t>(acc);
    }
  return y;
}

void mrt_fully_connected(OpCall& c) {
  using K = cat::fully_connected;
  need_inputs(c, 2, K::op);
  const IntArray x = read_int(c.inputs[0]), w = read_int(c.inputs[1]);
  const auto y = fc_exact(c.k, x, w, 0, 0);
  write_int(c.output(K::out::y, 0), {x.dim(0), w.dim(0)}, y);
}

// ---- data movement and elementwise ops ----

void mrt_pad(OpCall& c) {
  using K = cat::pad;
  need_inputs(c, 1, K::op);
  const IntArray x = read_int(c.inputs[0]);
  const auto pw = attr::get_or(c.attrs, K::attr::pad_width, Ints{});
  reject_if(pw.size() != 8, "pad: pad_width must have 8 entries");
  reject_if(pw[0] || pw[1] || pw[2] || pw[3], "pad: only H and W may be padded");
  for (auto v : pw) reject_if(v < 0, "pad: pad_width entries must be >= 0");
  reject_if(x.shape.size() != 4, "pad: input must have rank 4");
  const std::int64_t value = attr::get_or(c.attrs, K::attr::constant_value, 0);
  const std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const std::int64_t OH = H + pw[4] + pw[5], OW = W + pw[6] + pw[7];
  std::vector<std::int64_t> y(static_cast<std::size_t>(N * C * OH * OW), value);
  for (std::int64_t nc = 0; nc < N * C; ++nc)
    for (std::int64_t h = 0; h < H; ++h)
      std::copy_n(x.data.begin() + (nc * H + h) * W, W, y.begin() + (nc * OH + h + pw[4]) * OW + pw[6]);
  write_int(c.output(K::out::y, 0), {N, C, OH, OW}, y);
}

void mrt_relu(OpCall& c) {
  using K = cat::relu;
  need_inputs(c, 1, K::op);
  IntArray x = read_int(c.inputs[0]);
  for (auto& v : x.data) v = std::max<std::int64_t>(v, 0);
  write_int(c.output(K::out::y, 0), x.shape, x.data);
}

void max_pool2d(OpCall& c, std::string_view op, const PoolKeys& keys, std::string_view y_name) {
  need_inputs(c, 1, op);
  const IntArray x = read_int(c.inputs[0]);
  const auto k = pair(c.attrs, keys.kernel, {1, 1}), st = pair(c.attrs, keys.strides, {1, 1}),
             pd = pair(c.attrs, keys.padding, {0, 0});
  reject_if(x.shape.size() != 4, "max_pool2d: input must have rank 4");
  positive_dims(x, "max_pool2d: input");
  for (int i = 0; i < 2; ++i) {
    reject_if(k[i] < 1, "max_pool2d: kernel must be >= 1");
    reject_if(st[i] < 1, "max_pool2d: stride must be >= 1");
    reject_if(pd[i] < 0, "max_pool2d: padding must be >= 0");
    reject_if(pd[i] >= k[i], "max_pool2d: padding must be smaller than the kernel");
  }
  const std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  reject_if(H + 2 * pd[0] < k[0] || W + 2 * pd[1] < k[1], "max_pool2d: kernel larger than the padded input");
  const std::int64_t OH = (H + 2 * pd[0] - k[0]) / st[0] + 1, OW = (W + 2 * pd[1] - k[1]) / st[1] + 1;
  std::vector<std::int64_t> y(static_cast<std::size_t>(N * C * OH * OW));
  for (std::int64_t nc = 0; nc < N * C; ++nc)
    for (std::int64_t p = 0; p < OH; ++p)
      for (std::int64_t q = 0; q < OW; ++q) {
        std::int64_t best = INT64_MIN;  // padding never wins: every window holds an input element
        for (std::int64_t h = std::max<std::int64_t>(p * st[0] - pd[0], 0); h < std::min(p * st[0] - pd[0] + k[0], H);
             ++h)
          for (std::int64_t v = std::max<std::int64_t>(q * st[1] - pd[1], 0); v < std::min(q * st[1] - pd[1] + k[1], W);
               ++v)
            best = std::max(best, x.data[static_cast<std::size_t>((nc * H + h) * W + v)]);
        y[static_cast<std::size_t>((nc * OH + p) * OW + q)] = best;
      }
  write_int(c.output(y_name, 0), {N, C, OH, OW}, y);
}

std::vector<std::int64_t> broadcast_shape(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  const std::size_t r = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(r);
  for (std::size_t j = 0; j < r; ++j) {
    const std::int64_t da = j + a.size() >= r ? a[j + a.size() - r] : 1;
    const std::int64_t db = j + b.size() >= r ? b[j + b.size() - r] : 1;
    reject_if(da != db && da != 1 && db != 1, "broadcast_add: shapes do not broadcast");
    out[j] = da == 1 ? db : da;
  }
  return out;
}

i128 checked_sum(i128 s) {
  if (s < INT64_MIN || s > INT64_MAX) throw Unsupported("sum beyond int64");
  return s;
}

void mrt_broadcast_add(OpCall& c) {
  using K = cat::broadcast_add;
  need_inputs(c, 2, K::op);
  const IntArray a = read_int(c.inputs[0]), b = read_int(c.inputs[1]);
  const auto shape = broadcast_shape(a.shape, b.shape);
  const std::size_t r = shape.size();
  std::int64_t total = 1;
  for (auto d : shape) total *= d;
  std::vector<std::int64_t> y(static_cast<std::size_t>(total)), idx(r);
  for (std::int64_t off = 0; off < total; ++off) {
    std::int64_t rem = off;
    for (std::size_t j = r; j-- > 0;) {
      idx[j] = rem % shape[j];
      rem /= shape[j];
    }
    auto at = [&](const IntArray& t) {
      std::int64_t o = 0;
      for (std::size_t j = 0; j < t.shape.size(); ++j)
        o = o * t.shape[j] + (t.shape[j] == 1 ? 0 : idx[r - t.shape.size() + j]);
      return t.data[static_cast<std::size_t>(o)];
    };
    y[static_cast<std::size_t>(off)] = static_cast<std::int64_t>(checked_sum(i128{at(a)} + at(b)));
  }
  write_int(c.output(K::out::y, 0), shape, y);
}

// The sum of every input (elemwise_add, add_n), written to output `y`.
void add_all(OpCall& c, std::size_t first_required, std::string_view y_name) {
  reject_if(c.n_inputs < first_required, "add: needs inputs");
  std::vector<IntArray> xs;
  for (std::size_t i = 0; i < c.n_inputs; ++i) xs.push_back(read_int(c.inputs[i]));
  for (const auto& x : xs) reject_if(x.shape != xs[0].shape, "add: shapes differ");
  std::vector<std::int64_t> y(xs[0].data.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    i128 s = 0;
    for (const auto& x : xs) s += x.data[i];
    y[i] = static_cast<std::int64_t>(checked_sum(s));
  }
  write_int(c.output(y_name, 0), xs[0].shape, y);
}
void mrt_elemwise_add(OpCall& c) {
  need_inputs(c, 2, cat::elemwise_add::op);
  add_all(c, 2, cat::elemwise_add::out::y);
}
void mrt_add_n(OpCall& c) { add_all(c, 1, cat::add_n::out::y); }

IntArray concat_exact(const std::vector<IntArray>& xs, std::int64_t axis) {
  reject_if(xs.empty(), "concat: needs at least one input");
  const auto r = static_cast<std::int64_t>(xs[0].shape.size());
  reject_if(r == 0, "concat: inputs must have rank >= 1");
  reject_if(axis < -r || axis >= r, "concat: axis outside [-rank, rank)");
  if (axis < 0) axis += r;
  IntArray out;
  out.shape = xs[0].shape;
  out.shape[static_cast<std::size_t>(axis)] = 0;
  for (const auto& x : xs) {
    reject_if(static_cast<std::int64_t>(x.shape.size()) != r, "concat: ranks differ");
    for (std::int64_t j = 0; j < r; ++j)
      if (j != axis)
        reject_if(x.shape[static_cast<std::size_t>(j)] != xs[0].shape[static_cast<std::size_t>(j)],
                  "concat: non-axis dimensions differ");
    out.shape[static_cast<std::size_t>(axis)] += x.shape[static_cast<std::size_t>(axis)];
  }
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t j = 0; j < axis; ++j) outer *= out.shape[static_cast<std::size_t>(j)];
  for (std::int64_t j = axis + 1; j < r; ++j) inner *= out.shape[static_cast<std::size_t>(j)];
  for (std::int64_t o = 0; o < outer; ++o)
    for (const auto& x : xs) {
      const std::int64_t run = x.shape[static_cast<std::size_t>(axis)] * inner;
      out.data.insert(out.data.end(), x.data.begin() + o * run, x.data.begin() + (o + 1) * run);
    }
  return out;
}

void mrt_concat(OpCall& c) {
  std::vector<IntArray> xs;
  for (std::size_t i = 0; i < c.n_inputs; ++i) xs.push_back(read_int(c.inputs[i]));
  const IntArray y = concat_exact(xs, attr::get_or(c.attrs, cat::concat::attr::axis, 1));
  write_int(c.output(cat::concat::out::y, 0), y.shape, y.data);
}

void mrt_flatten(OpCall& c) {
  using K = cat::flatten;
  need_inputs(c, 1, K::op);
  const IntArray x = read_int(c.inputs[0]);
  reject_if(x.shape.empty(), "flatten: input must have rank >= 1");
  std::int64_t rest = 1;
  for (std::size_t j = 1; j < x.shape.size(); ++j) rest *= x.shape[j];
  write_int(c.output(K::out::y, 0), {x.shape[0], rest}, x.data);
}

void mrt_slice(OpCall& c) {
  using K = cat::slice;
  need_inputs(c, 1, K::op);
  const IntArray x = read_int(c.inputs[0]);
  const auto b = attr::get(c.attrs, K::attr::begin);
  const auto e = attr::get(c.attrs, K::attr::end);
  const auto steps = attr::get_or(c.attrs, K::attr::step, Ints(b.size(), 1));
  reject_if(e.size() != b.size() || steps.size() != b.size(), "slice: begin/end/step lengths differ");
  reject_if(b.size() > x.shape.size(), "slice: more axes than the rank");
  const std::size_t r = x.shape.size();
  std::vector<std::int64_t> start(r), step(r), count(r);
  for (std::size_t j = 0; j < r; ++j) {
    const std::int64_t d = x.shape[j];
    std::optional<std::int64_t> bj, ej;
    std::int64_t sj = 1;
    if (j < b.size()) {
      bj = b[j];
      ej = e[j];
      sj = steps[j];
    }
    reject_if(sj == 0, "slice: step must not be 0");
    step[j] = sj;
    if (sj > 0) {
      std::int64_t bb = bj.value_or(0), ee = ej.value_or(d);
      if (bb < 0) bb += d;
      if (ee < 0) ee += d;
      bb = std::clamp<std::int64_t>(bb, 0, d);
      ee = std::clamp<std::int64_t>(ee, 0, d);
      start[j] = bb;
      count[j] = ee > bb ? (ee - bb + sj - 1) / sj : 0;
    } else {
      std::int64_t bb = bj.value_or(d - 1), ee = ej ? *ej : -1;
      if (bb < 0) bb += d;
      if (ej && ee < 0) ee += d;
      bb = std::clamp<std::int64_t>(bb, -1, d - 1);
      ee = std::clamp<std::int64_t>(ee, -1, d - 1);
      start[j] = bb;
      count[j] = bb > ee ? (bb - ee + (-sj) - 1) / (-sj) : 0;
    }
  }
  std::int64_t total = 1;
  for (auto n : count) total *= n;
  std::vector<std::int64_t> y(static_cast<std::size_t>(total)), idx(r);
  for (std::int64_t off = 0; off < total; ++off) {
    std::int64_t rem = off, src = 0;
    for (std::size_t j = r; j-- > 0;) {
      idx[j] = rem % count[j];
      rem /= count[j];
    }
    for (std::size_t j = 0; j < r; ++j) src = src * x.shape[j] + start[j] + idx[j] * step[j];
    y[static_cast<std::size_t>(off)] = x.data[static_cast<std::size_t>(src)];
  }
  write_int(c.output(K::out::y, 0), count, y);
}

}  // namespace qspec::simd::nn

namespace qspec::simd {
using namespace nn;

void add_nn_ops(std::vector<OpEntry>& t) {
  t.push_back(entry<cat::conv2d>(
      cat::conv2d::conv::mrt,
      "8-bit operands: im2col + VNNI/AVX2 GEMM (depthwise: direct kernel); else exact int128 loops", mrt_conv2d));
  t.push_back(entry<cat::fully_connected>(
      cat::fully_connected::conv::mrt, "8-bit operands: VNNI/AVX2 GEMM; else exact int128 loops", mrt_fully_connected));
  t.push_back(entry<cat::pad>(cat::pad::conv::mrt, "copy", mrt_pad));
  t.push_back(entry<cat::relu>(cat::relu::conv::mrt, "scalar", mrt_relu));
  t.push_back(entry<cat::max_pool2d>(cat::max_pool2d::conv::mrt, "scalar", max_pool2d<cat::max_pool2d>));
  t.push_back(entry<cat::broadcast_add>(cat::broadcast_add::conv::mrt, "scalar, exact", mrt_broadcast_add));
  t.push_back(entry<cat::elemwise_add>(cat::elemwise_add::conv::mrt, "scalar, exact", mrt_elemwise_add));
  t.push_back(entry<cat::add_n>(cat::add_n::conv::mrt, "scalar, exact", mrt_add_n));
  t.push_back(entry<cat::concat>(cat::concat::conv::mrt, "copy", mrt_concat));
  t.push_back(entry<cat::flatten>(cat::flatten::conv::mrt, "copy", mrt_flatten));
  t.push_back(entry<cat::slice>(cat::slice::conv::mrt, "copy", mrt_slice));
}

}  // namespace qspec::simd
