// Handlers of Glow's quantized operators (spec/operators_glow.md), convention glow: FullyConnected,
// Convolution and RowwiseQuantizedFullyConnected (exact accumulators from the 8-bit engines for
// int8, exact loops for int16, then the Interpreter's float32 bias and output steps), the fused
// row-wise SparseLengthsWeightedSum, RescaleQuantized, and the selections that keep the input's
// quantization parameters (Reshape, Slice, Gather, TopK, MaxPool). Ops, tensors and attributes are
// named through the catalogue's typed keys (qspec::cat::glow_*).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "glow_params.h"
#include "nn_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/simd/backend_core.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/qgemm.h"

namespace qspec::simd {
namespace {

using namespace nn;
using i128 = __int128;

float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

struct QP {
  float scale = 1.0f;
  std::int64_t offset = 0;
};
// One tensor's (scale, offset) attributes.
QP qparams(const Json& a, const attr::F32& scale, const attr::Int& offset) {
  return {f32_of(attr::get(a, scale)), attr::get(a, offset)};
}
template <class Op>
QP input_qparams(const Json& a) {
  return qparams(a, Op::attr::input_scale, Op::attr::input_offset);
}
template <class Op>
QP output_qparams(const Json& a) {
  return qparams(a, Op::attr::output_scale, Op::attr::output_offset);
}

const qspec_tensor& named(const OpCall& c, std::string_view name) {
  for (std::size_t i = 0; i < c.n_inputs; ++i)
    if (c.inputs[i].name && name == c.inputs[i].name) return c.inputs[i];
  throw std::invalid_argument("missing input tensor '" + std::string(name) + "'");
}

// An attribute of two entries, `d` when it is absent (Rejected: ERROR_IF another count).
std::array<std::int64_t, 2> two(const Json& a, const attr::IntArray& key, std::array<std::int64_t, 2> d) {
  const auto v = attr::get_or(a, key, std::vector<std::int64_t>{d[0], d[1]});
  reject_if(v.size() != 2, "attribute " + std::string(key.name) + " needs two entries");
  return {v[0], v[1]};
}

template <class Op>
void write_scalar_outputs(const OpCall& c, std::size_t first, const QP& q) {
  const float s = q.scale;
  const auto o = static_cast<std::int32_t>(q.offset);
  qspec_tensor& st = c.output(Op::out::scale, first);
  qspec_tensor& ot = c.output(Op::out::offset, first + 1);
  expect_dtype(st, QSPEC_DTYPE_FLOAT32, "output 'scale'");
  expect_dtype(ot, QSPEC_DTYPE_INT32, "output 'offset'");
  std::memcpy(st.data, &s, 4);
  std::memcpy(ot.data, &o, 4);
}

// glow.op.keeps_input_qparams: the input's parameters (REQUIRE a positive finite scale).
template <class Op>
QP kept_qparams(const Json& a) {
  const QP in = input_qparams<Op>(a);
  output_qparams<Op>(a);  // read (it must be present), not used
  if (!std::isfinite(in.scale) || !(in.scale > 0) || in.offset < INT32_MIN || in.offset > INT32_MAX)
    throw Unsupported("glow: input scale finite and positive, int32 offset (REQUIRE)");
  return in;
}

// ---- FullyConnected / Convolution / RowwiseQuantizedFullyConnected ----

struct Linear {
  QP input, weights, bias, output;
  qspec_dtype elem;
  std::int64_t acc_lo, acc_hi;  // Glow's AccumulatorTy: int32 for int8, int64 for int16
};

// Op's parameters (RowwiseQuantizedFullyConnected has per-row weights parameters as inputs, not
// attributes) and element types.
template <class Op>
Linear linear(const OpCall& c, const qspec_tensor& x, const qspec_tensor& w, const qspec_tensor& b) {
  using A = typename Op::attr;
  Linear l;
  l.input = qparams(c.attrs, A::input_scale, A::input_offset);
  if constexpr (requires { A::weights_scale; }) l.weights = qparams(c.attrs, A::weights_scale, A::weights_offset);
  l.bias = qparams(c.attrs, A::bias_scale, A::bias_offset);
  l.output = qparams(c.attrs, A::output_scale, A::output_offset);
  reject_if(w.dtype != x.dtype, "glow: input and weights must have one element type");
  const bool ok = (x.dtype == QSPEC_DTYPE_INT8 && (b.dtype == QSPEC_DTYPE_INT8 || b.dtype == QSPEC_DTYPE_INT32)) ||
                  (x.dtype == QSPEC_DTYPE_INT16 && (b.dtype == QSPEC_DTYPE_INT16 || b.dtype == QSPEC_DTYPE_INT32));
  reject_if(!ok, "glow: element/bias types must be int8/int8, int8/int32, int16/int16 or int16/int32");
  l.elem = x.dtype;
  l.acc_lo = l.elem == QSPEC_DTYPE_INT16 ? INT64_MIN : INT32_MIN;
  l.acc_hi = l.elem == QSPEC_DTYPE_INT16 ? INT64_MAX : INT32_MAX;
  return l;
}

// B = half_away(fl32(fl32(b - o_b) * fl32(s_b / p))).
std::int64_t bias_term(std::int64_t b, const QP& bias, float p) {
  const float ratio = bias.scale / p;
  const float scaled = static_cast<float>(b - bias.offset) * ratio;
  return static_cast<std::int64_t>(std::round(scaled));
}

// The output code from t = acc + B: fl32(fl32(t) * fl32(p / s_y)), the offset added after the
// rounding (FullyConnected) or before it (Convolution, RowwiseQuantizedFullyConnected); saturated.
std::int64_t output_code(i128 t, float p, const QP& out, qspec_dtype elem, bool offset_after) {
  const float r = p / out.scale;
  const float scaled = static_cast<float>(static_cast<std::int64_t>(t)) * r;
  double v;
  if (offset_after) {
    const float rounded = std::round(scaled);  // integer-valued: exact as a float
    v = std::trunc(static_cast<double>(rounded + static_cast<float>(out.offset)));
  } else {
    v = std::round(static_cast<double>(scaled + static_cast<float>(out.offset)));
  }
  const double lo = elem == QSPEC_DTYPE_INT8 ? -128.0 : -32768.0, hi = elem == QSPEC_DTYPE_INT8 ? 127.0 : 32767.0;
  return static_cast<std::int64_t>(std::clamp(v, lo, hi));
}

void glow_fully_connected(OpCall& c) {
  using Op = cat::glow_fully_connected;
  const qspec_tensor &xt = named(c, Op::in::x), &wt = named(c, Op::in::w), &bt = named(c, Op::in::bias);
  const Linear l = linear<Op>(c, xt, wt, bt);
  const IntArray x = read_int(xt), w = read_int(wt), b = read_int(bt);
  reject_if(x.shape.size() != 2, "glow.fully_connected: input (N,K)");
  reject_if(w.shape.size() != 2, "glow.fully_connected: weights (K,M)");
  reject_if(w.shape[0] != x.shape[1], "glow.fully_connected: weights rows != K");
  reject_if(b.shape != std::vector<std::int64_t>{w.shape[1]}, "glow.fully_connected: bias must be (M)");
  const std::int64_t N = x.dim(0), K = x.dim(1), M = w.dim(1);
  IntArray wt_rows{{M, K}, std::vector<std::int64_t>(static_cast<std::size_t>(M * K))};  // (K,M) -> rows of K
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t m = 0; m < M; ++m)
      wt_rows.data[static_cast<std::size_t>(m * K + k)] = w.data[static_cast<std::size_t>(k * M + m)];
  const std::vector<std::int64_t> acc = fc_exact(c.k, x, wt_rows, l.input.offset, l.weights.offset);
  const float p = l.weights.scale * l.input.scale;  // matMulScale, a float32 product
  std::vector<std::int64_t> y(acc.size());
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      const i128 t =
          i128{acc[static_cast<std::size_t>(n * M + m)]} + bias_term(b.data[static_cast<std::size_t>(m)], l.bias, p);
      if (t < l.acc_lo || t > l.acc_hi) throw Unsupported("glow: accumulator overflow (REQUIRE)");
      y[static_cast<std::size_t>(n * M + m)] = output_code(t, p, l.output, l.elem, true);
    }
  write_int(c.output(Op::out::y, 0), {N, M}, y);
}

void glow_convolution(OpCall& c) {
  using Op = cat::glow_convolution;
  const qspec_tensor &xt = named(c, Op::in::x), &wt = named(c, Op::in::w), &bt = named(c, Op::in::bias);
  const Linear l = linear<Op>(c, xt, wt, bt);
  const IntArray x = read_int(xt), w = read_int(wt), b = read_int(bt);
  const auto st = two(c.attrs, Op::attr::strides, {1, 1}), dl = two(c.attrs, Op::attr::dilation, {1, 1});
  const auto pads = attr::get_or(c.attrs, Op::attr::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  reject_if(pads.size() != 4, "glow.convolution: pads needs four entries");
  const std::int64_t group = attr::get_or(c.attrs, Op::attr::group, std::int64_t{1});
  reject_if(x.shape.size() != 4 || w.shape.size() != 4, "glow.convolution: rank-4 input and filter");
  positive_dims(x, "glow.convolution: input");
  positive_dims(w, "glow.convolution: filter");
  for (int i = 0; i < 2; ++i) reject_if(st[i] < 1 || dl[i] < 1, "glow.convolution: strides and dilation must be >= 1");
  for (auto v : pads) reject_if(v < 0, "glow.convolution: pads must be >= 0");
  reject_if(group < 1, "glow.convolution: group must be >= 1");
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3), O = w.dim(0), KH = w.dim(1), KW = w.dim(2),
                     Cg = w.dim(3);
  reject_if(C % group != 0 || O % group != 0 || Cg * group != C, "glow.convolution: channels and group disagree");
  reject_if(b.shape != std::vector<std::int64_t>{O}, "glow.convolution: bias must be (O)");
  const std::int64_t eh = dl[0] * (KH - 1) + 1, ew = dl[1] * (KW - 1) + 1;
  reject_if(H + pads[0] + pads[2] < eh || W + pads[1] + pads[3] < ew,
            "glow.convolution: dilated kernel larger than the padded input");
  ConvGeom g;
  g.n = N, g.h = H, g.w = W, g.c = C, g.o = O, g.kh = KH, g.kw = KW, g.sh = st[0], g.sw = st[1];
  g.ph = pads[0], g.pw = pads[1], g.ph2 = pads[2], g.pw2 = pads[3], g.dh = dl[0], g.dw = dl[1], g.groups = group;
  const std::int64_t OH = g.oh(), OW = g.ow();
  // acc over the taps inside the input: the padding is skipped, i.e. it holds the input offset.
  std::vector<std::int64_t> acc(static_cast<std::size_t>(N * OH * OW * O));
  const bool bytes = l.elem == QSPEC_DTYPE_INT8 && l.input.offset >= -128 && l.input.offset <= 127;
  if (bytes) {
    std::vector<std::uint8_t> xb(x.data.size()), wb(w.data.size());
    for (std::size_t i = 0; i < xb.size(); ++i) xb[i] = static_cast<std::uint8_t>(x.data[i]);
    for (std::int64_t o = 0; o < O; ++o)  // OHWI -> OIHW
      for (std::int64_t i = 0; i < Cg; ++i)
        for (std::int64_t t = 0; t < KH * KW; ++t)
          wb[static_cast<std::size_t>((o * Cg + i) * KH * KW + t)] =
              static_cast<std::uint8_t>(w.data[static_cast<std::size_t>((o * KH * KW + t) * Cg + i)]);
    const QConvWeights packed =
        pack_conv_weights(c.k, g, wb.data(), false, l.weights.offset, l.input.offset, l.input.offset);
    qconv2d_nhwc(c.k, packed, xb.data(), true, l.input.offset, l.input.offset, acc.data());
  } else {
    const std::int64_t opg = O / group;
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t p = 0; p < OH; ++p)
        for (std::int64_t q = 0; q < OW; ++q)
          for (std::int64_t d = 0; d < O; ++d) {
            i128 s = 0;
            const std::int64_t gi = d / opg;
            for (std::int64_t fx = 0; fx < KH; ++fx)
              for (std::int64_t fy = 0; fy < KW; ++fy) {
                const std::int64_t h = p * st[0] - pads[0] + fx * dl[0], v = q * st[1] - pads[1] + fy * dl[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                for (std::int64_t fd = 0; fd < Cg; ++fd)
                  s += i128{w.data[static_cast<std::size_t>(((d * KH + fx) * KW + fy) * Cg + fd)] - l.weights.offset} *
                       (x.data[static_cast<std::size_t>(((n * H + h) * W + v) * C + gi * Cg + fd)] - l.input.offset);
              }
            acc[static_cast<std::size_t>(((n * OH + p) * OW + q) * O + d)] = static_cast<std::int64_t>(s);
          }
  }
  const float pm = l.input.scale * l.weights.scale;  // inScale * filterScale
  std::vector<std::int64_t> y(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const i128 t = i128{acc[i]} + bias_term(b.data[i % static_cast<std::size_t>(O)], l.bias, pm);
    if (t < l.acc_lo || t > l.acc_hi) throw Unsupported("glow: accumulator overflow (REQUIRE)");
    y[i] = output_code(t, pm, l.output, l.elem, false);
  }
  write_int(c.output(Op::out::y, 0), {N, OH, OW, O}, y);
}

void glow_rowwise_fully_connected(OpCall& c) {
  using Op = cat::glow_rowwise_fully_connected;
  const qspec_tensor &xt = named(c, Op::in::x), &wt = named(c, Op::in::w), &bt = named(c, Op::in::bias);
  const qspec_tensor &st = named(c, Op::in::scales), &ot = named(c, Op::in::offsets);
  const Linear l = linear<Op>(c, xt, wt, bt);
  reject_if(st.rank != 1, "scales must be rank 1");
  reject_if(ot.rank != 1, "offsets must be rank 1");
  reject_if(st.dtype != QSPEC_DTYPE_FLOAT32, "scales must be float32");
  const IntArray x = read_int(xt), w = read_int(wt), b = read_int(bt), offs = read_int(ot);
  reject_if(x.shape.size() != 2 || w.shape.size() != 2, "glow.rowwise_fully_connected: input (N,K), weights (M,K)");
  reject_if(w.shape[1] != x.shape[1], "glow.rowwise_fully_connected: weights columns != K");
  const std::int64_t N = x.dim(0), K = x.dim(1), M = w.dim(0);
  reject_if(numel(st) != M || static_cast<std::int64_t>(offs.data.size()) != M,
            "glow.rowwise_fully_connected: one scale and offset per row");
  reject_if(b.shape != std::vector<std::int64_t>{M}, "glow.rowwise_fully_connected: bias must be (M)");
  // sum_k (w[m,k] - off_m)(x[n,k] - o_x) = sum_k w[m,k](x[n,k] - o_x) - off_m * sum_k (x[n,k] - o_x).
  const std::vector<std::int64_t> acc = fc_exact(c.k, x, w, l.input.offset, 0);
  std::vector<i128> xsum(static_cast<std::size_t>(N), 0);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t k = 0; k < K; ++k)
      xsum[static_cast<std::size_t>(n)] += x.data[static_cast<std::size_t>(n * K + k)] - l.input.offset;
  const auto* scales = static_cast<const float*>(st.data);
  std::vector<std::int64_t> y(static_cast<std::size_t>(N * M));
  for (std::int64_t m = 0; m < M; ++m) {
    const float pm = scales[m] * l.input.scale;  // scalesW[j] * inScale
    for (std::int64_t n = 0; n < N; ++n) {
      const i128 t = i128{acc[static_cast<std::size_t>(n * M + m)]} -
                     i128{offs.data[static_cast<std::size_t>(m)]} * xsum[static_cast<std::size_t>(n)] +
                     bias_term(b.data[static_cast<std::size_t>(m)], l.bias, pm);
      if (t < l.acc_lo || t > l.acc_hi) throw Unsupported("glow: accumulator overflow (REQUIRE)");
      y[static_cast<std::size_t>(n * M + m)] = output_code(t, pm, l.output, l.elem, false);
    }
  }
  write_int(c.output(Op::out::y, 0), {N, M}, y);
}

// Segment i: a = +0; a = fl32(a + fl32(fl32(fl32(q * scale) + offset) * weight)) in index order.
void glow_fused_sls(OpCall& c) {
  using Op = cat::glow_fused_rowwise_sparse_lengths_weighted_sum;
  const qspec_tensor &data = named(c, Op::in::data), &wts = named(c, Op::in::weights), &idx = named(c, Op::in::indices),
                     &len = named(c, Op::in::lengths);
  reject_if(data.dtype != QSPEC_DTYPE_UINT8, "data must be uint8 (UInt8FusedQTy)");
  reject_if(idx.dtype != QSPEC_DTYPE_INT32 && idx.dtype != QSPEC_DTYPE_INT64, "indices must be int32 or int64");
  reject_if(len.dtype != QSPEC_DTYPE_INT32, "lengths must be int32");
  reject_if(wts.rank != 1, "weights must be rank 1");
  reject_if(idx.rank != 1, "indices must be rank 1");
  reject_if(len.rank != 1, "lengths must be rank 1");
  reject_if(wts.dtype != QSPEC_DTYPE_FLOAT32, "weights must be float32");
  reject_if(data.rank != 2 || data.shape[1] <= 8 || data.shape[0] < 1, "data must be (rows, cols + 8) with cols >= 1");
  const IntArray indices = read_int(idx), lengths = read_int(len);
  reject_if(numel(wts) != static_cast<std::int64_t>(indices.data.size()),
            "weights and indices must have the same length");
  std::int64_t total = 0;
  for (auto v : lengths.data) {
    reject_if(v < 0, "lengths must be >= 0");
    total += v;
  }
  reject_if(total > static_cast<std::int64_t>(indices.data.size()), "sum(lengths) exceeds the number of indices");
  const std::int64_t R = data.shape[0], width = data.shape[1], C = width - 8;
  const auto* d = static_cast<const std::uint8_t*>(data.data);
  const auto* wv = static_cast<const float*>(wts.data);
  const auto S = static_cast<std::int64_t>(lengths.data.size());
  std::vector<float> y(static_cast<std::size_t>(S * C), 0.0f);
  std::size_t cur = 0;
  for (std::int64_t i = 0; i < S; ++i) {
    float* acc = y.data() + i * C;
    for (std::int64_t j = 0; j < lengths.data[static_cast<std::size_t>(i)]; ++j, ++cur) {
      const std::int64_t r = indices.data[cur];
      if (r < 0 || r >= R) throw Unsupported("indices lie in [0, rows) (REQUIRE)");
      float scale, offset;
      std::memcpy(&scale, d + r * width + C, 4);
      std::memcpy(&offset, d + r * width + C + 4, 4);
      for (std::int64_t k = 0; k < C; ++k)
        acc[k] = acc[k] + (static_cast<float>(d[r * width + k]) * scale + offset) * wv[cur];
    }
  }
  qspec_tensor& out = c.output(Op::out::y, 0);
  expect_dtype(out, QSPEC_DTYPE_FLOAT32, "output 'y'");
  if (numel(out) != S * C) throw std::invalid_argument("output 'y' must be (segments, cols)");
  std::memcpy(out.data, y.data(), y.size() * 4);
}

template <bool kCpu>
void glow_rescale_op(OpCall& c) {
  using Op = cat::glow_rescale;
  const qspec_tensor& x = named(c, Op::in::x);
  reject_if(x.dtype != QSPEC_DTYPE_INT8, "glow.rescale input must be int8");
  const QP in = input_qparams<Op>(c.attrs), out = output_qparams<Op>(c.attrs);
  const IntArray xa = read_int(x);
  std::vector<std::int32_t> xs(xa.data.begin(), xa.data.end());
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_INT8, "output 'y'");
  expect_same_shape(x, y, "output 'y'");
  glow::rescale_run(c.k, kCpu, xs.data(), xs.size(), in.scale, in.offset, out.scale, out.offset, y.data);
}

// ---- the selections: int8 codes moved, the input's parameters kept ----

template <class Op>
const qspec_tensor& int8_input(const OpCall& c) {
  const qspec_tensor& x = named(c, Op::in::x);
  reject_if(x.dtype != QSPEC_DTYPE_INT8, std::string(Op::op) + " input must be int8");
  return x;
}

void glow_reshape(OpCall& c) {
  using Op = cat::glow_reshape;
  const IntArray x = read_int(int8_input<Op>(c));
  const auto shape = attr::get(c.attrs, Op::attr::shape);
  std::int64_t n = 1;
  for (auto d : shape) {
    reject_if(d < 1, "glow.reshape: shape entries must be >= 1");
    n *= d;
  }
  reject_if(n != x.numel(), "glow.reshape: sizes differ");
  const QP q = kept_qparams<Op>(c.attrs);
  write_int(c.output(Op::out::y, 0), shape, x.data);
  write_scalar_outputs<Op>(c, 1, q);
}

void glow_slice(OpCall& c) {
  using Op = cat::glow_slice;
  const IntArray x = read_int(int8_input<Op>(c));
  const auto start = attr::get(c.attrs, Op::attr::start), size = attr::get(c.attrs, Op::attr::size);
  reject_if(start.size() != x.shape.size() || size.size() != x.shape.size(), "glow.slice: one start and size per axis");
  for (std::size_t i = 0; i < x.shape.size(); ++i) {
    reject_if(start[i] < 0, "glow.slice: start must be >= 0");
    reject_if(size[i] < 1, "glow.slice: size must be >= 1");
    reject_if(start[i] + size[i] > x.shape[i], "glow.slice: start + size exceeds the input");
  }
  const QP q = kept_qparams<Op>(c.attrs);
  std::int64_t total = 1;
  for (auto d : size) total *= d;
  const std::size_t r = size.size();
  std::vector<std::int64_t> y(static_cast<std::size_t>(total)), idx(r);
  for (std::int64_t off = 0; off < total; ++off) {
    std::int64_t rem = off, src = 0;
    for (std::size_t j = r; j-- > 0;) {
      idx[j] = rem % size[j];
      rem /= size[j];
    }
    for (std::size_t j = 0; j < r; ++j) src = src * x.shape[j] + start[j] + idx[j];
    y[static_cast<std::size_t>(off)] = x.data[static_cast<std::size_t>(src)];
  }
  write_int(c.output(Op::out::y, 0), size, y);
  write_scalar_outputs<Op>(c, 1, q);
}

void glow_gather(OpCall& c) {
  using Op = cat::glow_gather;
  const IntArray x = read_int(int8_input<Op>(c));
  const qspec_tensor& it = named(c, Op::in::indices);
  reject_if(it.dtype != QSPEC_DTYPE_INT32 && it.dtype != QSPEC_DTYPE_INT64, "indices must be int32 or int64");
  const IntArray ind = read_int(it);
  const std::int64_t b = attr::get_or(c.attrs, Op::attr::batch_dims, std::int64_t{0});
  reject_if(b < 0 || b >= static_cast<std::int64_t>(x.shape.size()), "glow.gather: batch_dims outside [0, rank)");
  positive_dims(x, "glow.gather: data");
  const QP q = kept_qparams<Op>(c.attrs);
  const auto bu = static_cast<std::size_t>(b);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < bu; ++k) outer *= x.shape[k];
  for (std::size_t k = bu + 1; k < x.shape.size(); ++k) inner *= x.shape[k];
  std::vector<std::int64_t> shape(x.shape.begin(), x.shape.begin() + b);
  shape.insert(shape.end(), ind.shape.begin(), ind.shape.end());
  shape.insert(shape.end(), x.shape.begin() + b + 1, x.shape.end());
  std::vector<std::int64_t> y;
  for (std::int64_t o = 0; o < outer; ++o)
    for (auto sel : ind.data) {
      if (sel < 0 || sel >= x.shape[bu]) throw Unsupported("glow.gather: index within the gathered axis (REQUIRE)");
      const auto from = x.data.begin() + (o * x.shape[bu] + sel) * inner;
      y.insert(y.end(), from, from + inner);
    }
  write_int(c.output(Op::out::y, 0), shape, y);
  write_scalar_outputs<Op>(c, 1, q);
}

void glow_topk(OpCall& c) {
  using Op = cat::glow_topk;
  const IntArray x = read_int(int8_input<Op>(c));
  const std::int64_t k = attr::get(c.attrs, Op::attr::k);
  reject_if(x.shape.empty(), "glow.topk: the input needs at least one axis");
  reject_if(k < 1 || k > x.shape.back(), "glow.topk: k outside [1, last dim]");
  const QP q = kept_qparams<Op>(c.attrs);
  const std::int64_t n = x.shape.back(), rows = n ? x.numel() / n : 0;
  std::vector<std::int64_t> shape = x.shape;
  shape.back() = k;
  std::vector<std::int64_t> values, indices;
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t* v = x.data.data() + row * n;
    std::iota(order.begin(), order.end(), 0);
    // Descending values, equal values by ascending position (fwdTopK's comparator).
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return v[a] > v[b]; });
    for (std::int64_t i = 0; i < k; ++i) {
      values.push_back(v[order[static_cast<std::size_t>(i)]]);
      indices.push_back(order[static_cast<std::size_t>(i)]);
    }
  }
  write_int(c.output(Op::out::values, 0), shape, values);
  write_int(c.output(Op::out::indices, 1), shape, indices);
  write_scalar_outputs<Op>(c, 2, q);
}

void glow_max_pool(OpCall& c) {
  using Op = cat::glow_max_pool;
  const IntArray x = read_int(int8_input<Op>(c));
  const auto k = two(c.attrs, Op::attr::kernels, {1, 1}), st = two(c.attrs, Op::attr::strides, {1, 1});
  const auto pads = attr::get_or(c.attrs, Op::attr::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  reject_if(pads.size() != 4, "glow.max_pool: pads needs four entries");
  reject_if(x.shape.size() != 4, "glow.max_pool: input (N,H,W,C)");
  positive_dims(x, "glow.max_pool: input");
  for (int i = 0; i < 2; ++i) reject_if(k[i] < 1 || st[i] < 1, "glow.max_pool: kernels and strides must be >= 1");
  for (auto v : pads) reject_if(v < 0, "glow.max_pool: pads must be >= 0");
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3);
  reject_if(H + pads[0] + pads[2] < k[0] || W + pads[1] + pads[3] < k[1],
            "glow.max_pool: kernel larger than the padded input");
  const QP q = kept_qparams<Op>(c.attrs);
  const std::int64_t OH = (H + pads[0] + pads[2] - k[0]) / st[0] + 1, OW = (W + pads[1] + pads[3] - k[1]) / st[1] + 1;
  std::vector<std::int64_t> y(static_cast<std::size_t>(N * OH * OW * C));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t p = 0; p < OH; ++p)
      for (std::int64_t qq = 0; qq < OW; ++qq)
        for (std::int64_t ch = 0; ch < C; ++ch) {
          bool any = false;
          std::int64_t best = 0;
          for (std::int64_t fx = 0; fx < k[0]; ++fx)
            for (std::int64_t fy = 0; fy < k[1]; ++fy) {
              const std::int64_t h = p * st[0] - pads[0] + fx, w = qq * st[1] - pads[1] + fy;
              if (h < 0 || h >= H || w < 0 || w >= W) continue;
              const std::int64_t v = x.data[static_cast<std::size_t>(((n * H + h) * W + w) * C + ch)];
              if (!any || best < v) best = v;
              any = true;
            }
          y[static_cast<std::size_t>(((n * OH + p) * OW + qq) * C + ch)] =
              any ? best : q.offset;  // all padding: real 0
        }
  write_int(c.output(Op::out::y, 0), {N, OH, OW, C}, y);
  write_scalar_outputs<Op>(c, 1, q);
}

}  // namespace

void add_glow_nn_ops(std::vector<OpEntry>& t) {
  // The table entry of (op, convention).
  const auto entry = [&t](std::string_view op, std::string_view convention, const char* note, OpHandler fn) {
    t.push_back({std::string(op), std::string(convention), note, fn});
  };
  const char* g = "int8: VNNI/AVX2 GEMM accumulators; float32 epilogue as Glow's Interpreter";
  entry(cat::glow_fully_connected::op, cat::glow_fully_connected::conv::glow, g, glow_fully_connected);
  entry(cat::glow_convolution::op, cat::glow_convolution::conv::glow, g, glow_convolution);
  entry(cat::glow_rowwise_fully_connected::op, cat::glow_rowwise_fully_connected::conv::glow, g,
        glow_rowwise_fully_connected);
  entry(cat::glow_fused_rowwise_sparse_lengths_weighted_sum::op,
        cat::glow_fused_rowwise_sparse_lengths_weighted_sum::conv::glow, "scalar float32, index order", glow_fused_sls);
  entry(cat::glow_rescale::op, cat::glow_rescale::conv::glow, "vectorized", glow_rescale_op<false>);
  entry(cat::glow_rescale::op, cat::glow_rescale::conv::glow_cpu, "vectorized when pre = 0", glow_rescale_op<true>);
  entry(cat::glow_reshape::op, cat::glow_reshape::conv::glow, "copy", glow_reshape);
  entry(cat::glow_slice::op, cat::glow_slice::conv::glow, "copy", glow_slice);
  entry(cat::glow_gather::op, cat::glow_gather::conv::glow, "copy", glow_gather);
  entry(cat::glow_topk::op, cat::glow_topk::conv::glow, "stable sort", glow_topk);
  entry(cat::glow_max_pool::op, cat::glow_max_pool::conv::glow, "scalar", glow_max_pool);
}

}  // namespace qspec::simd
