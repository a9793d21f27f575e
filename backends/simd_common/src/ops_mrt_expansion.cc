// Handlers of MRT's integer expansions of Convolution / FullyConnected (spec/mrt_expansions.md), their
// recombination, quantize_scale and the channel-wise granularity ops (spec/granularity.md). The
// convolutions and products run on the 8-bit engines when operands fit a byte (nn_common.h).
#include <algorithm>
#include <string>
#include <vector>

#include "nn_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/backend_core.h"

namespace qspec::simd {
namespace {

using namespace nn;
using i128 = __int128;

enum class Kind { kSym, kZpX, kZpW, kZpXW };

void write_named(const OpCall& c, std::string_view name, std::size_t pos, const std::vector<std::int64_t>& shape,
                 const std::vector<std::int64_t>& v) {
  write_int(c.output(name, pos), shape, v);
}

// realize on exact integers: clip_p(half_up(ye * frac * 2^exp)) (ERROR_IF frac < 1 or p outside [1, 32]).
std::int64_t realize_exact(std::int64_t ye, std::int64_t frac, std::int64_t exp, std::int64_t alpha) {
  const i128 v = i128{ye} * frac;  // |v| < 2^95
  i128 r;
  if (exp >= 0) {
    if (v == 0) return 0;
    r = exp >= 40 ? (v > 0 ? i128{alpha} + 1 : -i128{alpha} - 1) : v * (i128{1} << exp);  // 2^40 * |v| >= 2^40 > alpha
  } else {
    const std::int64_t s = -exp;
    r = s > 100 ? i128{0}
                : (v + (i128{1} << (s - 1))) >> s;  // floor((v + 2^(s-1)) / 2^s); |v| < 2^99 for s > 100 gives 0
  }
  return static_cast<std::int64_t>(std::clamp<i128>(r, -i128{alpha}, i128{alpha}));
}

std::int64_t realize_alpha(std::int64_t frac, std::int64_t prec) {
  reject_if(frac < 1, "realize: frac must be >= 1");
  reject_if(prec < 1 || prec > 32, "realize: precision must be in [1, 32]");
  return (std::int64_t{1} << (prec - 1)) - 1;
}

IntArray realize_array(const IntArray& x, std::int64_t frac, std::int64_t exp, std::int64_t prec) {
  IntArray y = x;
  if (x.data.empty()) return y;  // the reference checks per element
  const std::int64_t alpha = realize_alpha(frac, prec);
  for (auto& v : y.data) v = realize_exact(v, frac, exp, alpha);
  return y;
}

template <Kind kKind>
void conv2d_expansion(OpCall& c) {
  using K = cat::mrt_conv2d_expansion;
  using O = K::out;
  need_inputs(c, 2, K::op);
  const IntArray x = read_int(c.inputs[0]), w = read_int(c.inputs[1]);
  const std::int64_t zx = attr::get_or(c.attrs, K::attr::zx, 0), zw = attr::get_or(c.attrs, K::attr::zw, 0),
                     x_pad = attr::get_or(c.attrs, K::attr::x_pad, 0);
  const ConvGeom g = conv_geom(c, conv_keys<K>, x, w);
  const std::int64_t pad = (kKind == Kind::kZpX || kKind == Kind::kZpXW) ? x_pad : 0;
  const std::vector<std::int64_t> shape = {g.n, g.o, g.oh(), g.ow()};
  const std::vector<std::int64_t> t1 = conv2d_exact(c.k, x, w, g, 0, 0, pad);
  if constexpr (kKind == Kind::kSym) {
    write_named(c, O::term0, 0, shape, t1);
    write_named(c, O::ye, 1, shape, t1);
    return;
  }
  const std::int64_t spatial = g.oh() * g.ow(), per_o = w.dim(1) * w.dim(2) * w.dim(3);
  auto weight_sums = [&](std::int64_t factor) {  // factor * sum_{i,ki,kj} W[o] broadcast
    std::vector<std::int64_t> y(t1.size());
    for (std::int64_t o = 0; o < g.o; ++o) {
      i128 s = 0;
      for (std::int64_t i = 0; i < per_o; ++i) s += w.data[static_cast<std::size_t>(o * per_o + i)];
      for (std::int64_t n = 0; n < g.n; ++n)
        std::fill_n(y.begin() + (n * g.o + o) * spatial, spatial, static_cast<std::int64_t>(s * factor));
    }
    return y;
  };
  auto window_sums = [&](std::int64_t factor) {  // factor * conv(Xq, ones)
    IntArray ones{w.shape, std::vector<std::int64_t>(w.data.size(), 1)};
    std::vector<std::int64_t> y = conv2d_exact(c.k, x, ones, g, 0, 0, pad);
    for (auto& v : y) v = static_cast<std::int64_t>(i128{v} * factor);
    return y;
  };
  if constexpr (kKind == Kind::kZpX) {
    write_named(c, O::term0, 0, shape, t1);
    write_named(c, O::term1, 1, shape, weight_sums(zx));
  } else if constexpr (kKind == Kind::kZpW) {
    write_named(c, O::term0, 0, shape, t1);
    write_named(c, O::term1, 1, shape, window_sums(zw));
  } else {
    const std::vector<std::int64_t> t2 = window_sums(zw), t3 = weight_sums(zx);
    const std::int64_t k4 = static_cast<std::int64_t>(i128{per_o} * zx * zw);
    std::vector<std::int64_t> t4(t1.size(), k4), ye(t1.size());
    for (std::size_t i = 0; i < ye.size(); ++i) ye[i] = static_cast<std::int64_t>(i128{t1[i]} + t2[i] + t3[i] + t4[i]);
    write_named(c, O::term0, 0, shape, t1);
    write_named(c, O::term1, 1, shape, t2);
    write_named(c, O::term2, 2, shape, t3);
    write_named(c, O::term3, 3, shape, t4);
    write_named(c, O::ye, 4, shape, ye);
  }
}

template <Kind kKind>
void fc_expansion(OpCall& c) {
  using Op = cat::mrt_fc_expansion;
  using O = Op::out;
  need_inputs(c, 2, Op::op);
  const IntArray x = read_int(c.inputs[0]), w = read_int(c.inputs[1]);
  const std::int64_t zx = attr::get_or(c.attrs, Op::attr::zx, 0), zw = attr::get_or(c.attrs, Op::attr::zw, 0);
  const std::vector<std::int64_t> t1 = fc_exact(c.k, x, w, 0, 0);
  const std::int64_t N = x.dim(0), K = x.dim(1), M = w.dim(0);
  const std::vector<std::int64_t> shape = {N, M};
  auto wsum = [&](std::int64_t factor) {
    std::vector<std::int64_t> y(t1.size());
    for (std::int64_t m = 0; m < M; ++m) {
      i128 s = 0;
      for (std::int64_t i = 0; i < K; ++i) s += w.data[static_cast<std::size_t>(m * K + i)];
      for (std::int64_t n = 0; n < N; ++n)
        y[static_cast<std::size_t>(n * M + m)] = static_cast<std::int64_t>(s * factor);
    }
    return y;
  };
  auto xsum = [&](std::int64_t factor) {
    std::vector<std::int64_t> y(t1.size());
    for (std::int64_t n = 0; n < N; ++n) {
      i128 s = 0;
      for (std::int64_t i = 0; i < K; ++i) s += x.data[static_cast<std::size_t>(n * K + i)];
      for (std::int64_t m = 0; m < M; ++m)
        y[static_cast<std::size_t>(n * M + m)] = static_cast<std::int64_t>(s * factor);
    }
    return y;
  };
  std::vector<std::vector<std::int64_t>> terms = {t1};
  if (kKind == Kind::kZpX) terms.push_back(wsum(zx));
  if (kKind == Kind::kZpW || kKind == Kind::kZpXW) terms.push_back(xsum(zw));
  if (kKind == Kind::kZpXW) {
    terms.push_back(wsum(zx));
    terms.push_back(std::vector<std::int64_t>(t1.size(), static_cast<std::int64_t>(i128{K} * zx * zw)));
  }
  const std::string_view term_names[] = {O::term0, O::term1, O::term2, O::term3};
  std::vector<std::int64_t> ye(t1.size(), 0);
  for (std::size_t k = 0; k < terms.size(); ++k) {
    write_named(c, term_names[k], k, shape, terms[k]);
    for (std::size_t i = 0; i < ye.size(); ++i) ye[i] = static_cast<std::int64_t>(i128{ye[i]} + terms[k][i]);
  }
  write_named(c, O::ye, terms.size(), shape, ye);
}

void conv2d_recombine(OpCall& c) {
  using K = cat::mrt_conv2d_recombine;
  using A = K::attr;
  need_inputs(c, 2, K::op);
  const IntArray a = read_int(c.inputs[0]), b = read_int(c.inputs[1]);
  reject_if(a.shape != b.shape, "quantize_scale: shapes differ");
  const IntArray ra =
      realize_array(a, attr::get(c.attrs, A::frac1), attr::get(c.attrs, A::exp1), attr::get(c.attrs, A::oprec));
  const IntArray rb =
      realize_array(b, attr::get(c.attrs, A::frac2), attr::get(c.attrs, A::exp2), attr::get(c.attrs, A::oprec));
  std::vector<std::int64_t> y(ra.data.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = ra.data[i] + rb.data[i];
  write_int(c.output(K::out::ye, 0), a.shape, y);
}

void quantize_scale(OpCall& c) {
  using K = cat::quantize_scale;
  using A = K::attr;
  using Is = A::op__is;
  const std::string_view op = attr::get(c.attrs, A::op_);  // one of the four (the key's domain)
  const auto fracs = attr::get_or(c.attrs, A::fracs, Ints{}), exps = attr::get_or(c.attrs, A::exps, Ints{});
  const std::int64_t oprec = attr::get(c.attrs, A::oprec);
  reject_if(c.n_inputs == 0, "quantize_scale: needs at least one input");
  reject_if(fracs.size() != c.n_inputs || exps.size() != c.n_inputs, "quantize_scale: one (frac, exp) per input");
  std::vector<IntArray> q;
  for (std::size_t i = 0; i < c.n_inputs; ++i)
    q.push_back(realize_array(read_int(c.inputs[i]), fracs[i], exps[i], oprec));
  if (op == Is::concat) {
    const IntArray y = concat_exact(q, attr::get_or(c.attrs, A::axis, 0));
    write_int(c.output(K::out::y, 0), y.shape, y.data);
    return;
  }
  if (op == Is::broadcast_add || op == Is::elemwise_add) reject_if(q.size() != 2, "add: exactly 2 inputs");
  std::vector<std::int64_t> shape = q[0].shape;
  if (op == Is::broadcast_add) {
    shape = broadcast_shape(q[0].shape, q[1].shape);
  } else {
    for (const auto& t : q) reject_if(t.shape != q[0].shape, "add: shapes differ");
  }
  std::int64_t total = 1;
  for (auto d : shape) total *= d;
  const std::size_t r = shape.size();
  std::vector<std::int64_t> y(static_cast<std::size_t>(total)), idx(r);
  for (std::int64_t off = 0; off < total; ++off) {
    std::int64_t rem = off;
    for (std::size_t j = r; j-- > 0;) {
      idx[j] = rem % shape[j];
      rem /= shape[j];
    }
    std::int64_t s = 0;
    for (const auto& t : q) {
      std::int64_t o = 0;
      for (std::size_t j = 0; j < t.shape.size(); ++j)
        o = o * t.shape[j] + (t.shape[j] == 1 ? 0 : idx[r - t.shape.size() + j]);
      s += t.data[static_cast<std::size_t>(o)];  // each |realized| < 2^31: no overflow for any sane count
    }
    y[static_cast<std::size_t>(off)] = s;
  }
  write_int(c.output(K::out::y, 0), shape, y);
}

// Contiguous groups of `step` channels along `axis`, as y0, y1, ...
void channel_split(OpCall& c) {
  using K = cat::mrt_channel_split;
  need_inputs(c, 1, K::op);
  const IntArray x = read_int(c.inputs[0]);
  const std::int64_t axis = attr::get_or(c.attrs, K::attr::axis, 1), step = attr::get_or(c.attrs, K::attr::step, 1);
  reject_if(step < 1, "channel split: step must be >= 1");
  reject_if(axis < 0 || axis >= static_cast<std::int64_t>(x.shape.size()), "channel split: axis outside [0, rank)");
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t j = 0; j < axis; ++j) outer *= x.shape[static_cast<std::size_t>(j)];
  for (std::size_t j = static_cast<std::size_t>(axis) + 1; j < x.shape.size(); ++j) inner *= x.shape[j];
  const std::int64_t C = x.shape[static_cast<std::size_t>(axis)];
  std::size_t part = 0;
  for (std::int64_t c0 = 0; c0 < C; c0 += step, ++part) {
    const std::int64_t cn = std::min(step, C - c0);
    std::vector<std::int64_t> shape = x.shape, y;
    shape[static_cast<std::size_t>(axis)] = cn;
    for (std::int64_t o = 0; o < outer; ++o)
      y.insert(y.end(), x.data.begin() + (o * C + c0) * inner, x.data.begin() + (o * C + c0 + cn) * inner);
    write_named(c, cat::indexed(K::out::y, part), part, shape, y);
  }
}

// Split, per-slice conv, merge: equal to the whole convolution on exact integers.
void conv2d_channelwise(OpCall& c) {
  using K = cat::mrt_conv2d_channelwise;
  need_inputs(c, 2, K::op);
  const IntArray x = read_int(c.inputs[0]), w = read_int(c.inputs[1]);
  const ConvGeom g = conv_geom(c, conv_keys<K>, x, w);
  reject_if(attr::get_or(c.attrs, K::attr::step, 1) < 1, "channel split: step must be >= 1");
  write_int(c.output(K::out::y, 0), {g.n, g.o, g.oh(), g.ow()}, conv2d_exact(c.k, x, w, g, 0, 0, 0));
}

}  // namespace

void add_expansion_ops(std::vector<OpEntry>& t) {
  const char* e = "8-bit engines for the products, exact 128-bit term arithmetic";
  using ConvExp = cat::mrt_conv2d_expansion;
  using FcExp = cat::mrt_fc_expansion;
  t.push_back(entry<ConvExp>(ConvExp::conv::mrt_sym, e, conv2d_expansion<Kind::kSym>));
  t.push_back(entry<ConvExp>(ConvExp::conv::mrt_zpx, e, conv2d_expansion<Kind::kZpX>));
  t.push_back(entry<ConvExp>(ConvExp::conv::mrt_zpw, e, conv2d_expansion<Kind::kZpW>));
  t.push_back(entry<ConvExp>(ConvExp::conv::mrt_zpxw, e, conv2d_expansion<Kind::kZpXW>));
  t.push_back(entry<FcExp>(FcExp::conv::mrt_sym, e, fc_expansion<Kind::kSym>));
  t.push_back(entry<FcExp>(FcExp::conv::mrt_zpx, e, fc_expansion<Kind::kZpX>));
  t.push_back(entry<FcExp>(FcExp::conv::mrt_zpw, e, fc_expansion<Kind::kZpW>));
  t.push_back(entry<FcExp>(FcExp::conv::mrt_zpxw, e, fc_expansion<Kind::kZpXW>));
  t.push_back(entry<cat::mrt_conv2d_recombine>(cat::mrt_conv2d_recombine::conv::mrt, "scalar", conv2d_recombine));
  t.push_back(entry<cat::quantize_scale>(cat::quantize_scale::conv::mrt, "scalar", quantize_scale));
  t.push_back(entry<cat::mrt_channel_split>(cat::mrt_channel_split::conv::mrt, "copy", channel_split));
  t.push_back(entry<cat::mrt_conv2d_channelwise>(cat::mrt_conv2d_channelwise::conv::mrt, e, conv2d_channelwise));
}

}  // namespace qspec::simd
