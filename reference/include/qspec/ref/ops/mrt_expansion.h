// MRT's integer "expansions" of Convolution and FullyConnected (seed 000, formalizations 1-4), the
// scale of each partial result, and the realize / quantize_scale recombination.
//
// Conventions (spec/mrt_expansions.md; clause mrt.dequantize of spec/mrt_quantization.md): an operand q has the real value
// q / sc + zp / zsc (the document's requantization row "Xr = Xq/sc_x + rzp_x" with the zero point
// as an integer zp at its own scale zsc; symmetric operands have zp = 0). The expansions are
// templates over the integer type so exhaustive checks can run them on std::int64_t.
#pragma once

#include <string>
#include <vector>

#include "qspec/ref/ops/nn.h"

namespace qspec::ref::ops {

// The four formalizations of the document: symmetric/zero-point X times symmetric/zero-point W.
enum class ExpKind { Sym = 1, ZpX = 2, ZpW = 3, ZpXW = 4 };

template <class T>
struct ExpTerm {
  std::string name;  // "Ye", "Ye1", "Ye2", or the four terms of formalization 4
  NdArray<T> value;
};

template <class T>
struct Expansion {
  std::vector<ExpTerm<T>> terms;
  // Running sums in the document's order when the terms share one scale (formalizations 1 and 4
  // of Convolution, all of FullyConnected); the last one is the expansion's result Ye. Empty for
  // Convolution 2 and 3, whose two terms have different scales and meet in quantize_scale.
  std::vector<NdArray<T>> partial_sums;
};

// The exact rational value of an expansion operand (the document's requantization row).
struct OperandQ {
  Rat scale{1};     // sc: real = q / sc + zp / zp_scale
  Int zp{0};        // integer zero point in the "+ zp" convention (0: symmetric)
  Rat zp_scale{1};  // the scale the zero point is expressed in
};

// spec: mrt.dequantize
// q / sc + zp / zsc: the real value of an expansion operand (the affine input's zp_xe / sc_xe).
Rat dequantize(const Int& q, const OperandQ& p);
RatArray dequantize(const IntArray& q, const OperandQ& p);

namespace detail {
template <class T>
NdArray<T> sum_terms(const NdArray<T>& a, const NdArray<T>& b) {
  NdArray<T> y = a;
  for (std::size_t i = 0; i < y.data.size(); ++i) y.data[i] += b.data[i];
  return y;
}
template <class T>
void add_partial_sums(Expansion<T>& e) {
  NdArray<T> run = e.terms[0].value;
  e.partial_sums.push_back(run);
  for (std::size_t k = 1; k < e.terms.size(); ++k) {
    run = sum_terms(run, e.terms[k].value);
    e.partial_sums.push_back(run);
  }
}
// sum_i W[o, i, ki, kj] broadcast to the conv output shape (the document's zp_x * sum Wq term).
template <class T>
NdArray<T> conv_weight_sums(const NdArray<T>& w, const Shape& yshape, const T& factor) {
  NdArray<T> y(yshape);
  for (std::int64_t o = 0; o < w.dim(0); ++o) {
    T s(0);
    for (std::int64_t i = 0; i < w.dim(1) * w.dim(2) * w.dim(3); ++i) s += w.data[static_cast<std::size_t>(o * w.dim(1) * w.dim(2) * w.dim(3) + i)];
    for (std::int64_t n = 0; n < yshape[0]; ++n)
      for (std::int64_t p = 0; p < yshape[2]; ++p)
        for (std::int64_t q = 0; q < yshape[3]; ++q) y.at4(n, o, p, q) = factor * s;
  }
  return y;
}
}  // namespace detail

// spec: mrt.expand.conv2d_sym
// spec: mrt.expand.conv2d_zpx
// spec: mrt.expand.conv2d_zpw
// spec: mrt.expand.conv2d_zpxw
// The partial results of Convolution formalization `kind` (before any requantization):
//   Sym : Ye  = conv(Xq, Wq)                                              [pad 0]
//   ZpX : Ye1 = conv(Xq, Wq) [pad x_pad],  Ye2 = zx * sum_{i,ki,kj} Wq[o,i,ki,kj]
//   ZpW : Ye1 = conv(Xq, Wq) [pad 0],      Ye2 = zw * sum_{window} Xq    (= conv(Xq, ones) * zw)
//   ZpXW: conv(Xq,Wq) + zw * conv(Xq, ones) + zx * sum Wq + IC*KH*KW*zx*zw, all with pad x_pad
// x_pad is the integer whose real value is 0 (-zx for ZpXW; -zx*sc_x/zsc_x for ZpX).
template <class T>
Expansion<T> conv2d_expand(ExpKind kind, const NdArray<T>& xq, const NdArray<T>& wq, const Conv2dAttrs& a, const T& zx,
                           const T& zw, const T& x_pad) {
  Expansion<T> e;
  const T pad = (kind == ExpKind::ZpX || kind == ExpKind::ZpXW) ? x_pad : T(0);
  NdArray<T> t1 = conv2d(xq, wq, a, pad);
  if (kind == ExpKind::Sym) {
    e.terms.push_back({"Ye", t1});
    detail::add_partial_sums(e);
    return e;
  }
  NdArray<T> ones(wq.shape, T(1));
  if (kind == ExpKind::ZpX) {
    e.terms.push_back({"Ye1", t1});
    e.terms.push_back({"Ye2", detail::conv_weight_sums(wq, t1.shape, zx)});
    return e;
  }
  NdArray<T> xsum = conv2d(xq, ones, a, pad);
  for (auto& v : xsum.data) v = zw * v;
  if (kind == ExpKind::ZpW) {
    e.terms.push_back({"Ye1", t1});
    e.terms.push_back({"Ye2", xsum});
    return e;
  }
  const T k = T(wq.dim(1) * wq.dim(2) * wq.dim(3));
  e.terms.push_back({"conv(Xq,Wq)", t1});
  e.terms.push_back({"wzp*conv(Xq,W1)", xsum});
  e.terms.push_back({"C2=xzp*sum(Wq)", detail::conv_weight_sums(wq, t1.shape, zx)});
  e.terms.push_back({"C3=K*xzp*wzp", NdArray<T>(t1.shape, k * zx * zw)});
  detail::add_partial_sums(e);
  return e;
}

// spec: mrt.expand.fc_sym
// spec: mrt.expand.fc_zpx
// spec: mrt.expand.fc_zpw
// spec: mrt.expand.fc_zpxw
// FullyConnected formalizations (one scale sc_x*sc_w for all terms, summed in the document's order):
//   Sym : FC(Xq, Wq)
//   ZpX : FC(Xq, Wq) + C,                  C[m]  = zx * sum_i Wq[m,i]
//   ZpW : FC(Xq, Wq) + zw * sum_i Xq[n,i]
//   ZpXW: FC(Xq, Wq) + zw * sum_i Xq[n,i] + C2 + C3,  C2[m] = zx * sum_i Wq[m,i],  C3 = K*zx*zw
template <class T>
Expansion<T> fc_expand(ExpKind kind, const NdArray<T>& xq, const NdArray<T>& wq, const T& zx, const T& zw) {
  Expansion<T> e;
  NdArray<T> t1 = fully_connected(xq, wq);
  const std::int64_t N = t1.dim(0), M = t1.dim(1), K = xq.dim(1);
  auto wsum = [&](const T& factor) {
    NdArray<T> c(t1.shape);
    for (std::int64_t m = 0; m < M; ++m) {
      T s(0);
      for (std::int64_t i = 0; i < K; ++i) s += wq.at2(m, i);
      for (std::int64_t n = 0; n < N; ++n) c.at2(n, m) = factor * s;
    }
    return c;
  };
  auto xsum = [&](const T& factor) {
    NdArray<T> c(t1.shape);
    for (std::int64_t n = 0; n < N; ++n) {
      T s(0);
      for (std::int64_t i = 0; i < K; ++i) s += xq.at2(n, i);
      for (std::int64_t m = 0; m < M; ++m) c.at2(n, m) = factor * s;
    }
    return c;
  };
  e.terms.push_back({"FC(Xq,Wq)", t1});
  if (kind == ExpKind::ZpX) e.terms.push_back({"C=zp_x*sum(Wq)", wsum(zx)});
  if (kind == ExpKind::ZpW || kind == ExpKind::ZpXW) e.terms.push_back({"zp_w*sum(Xq)", xsum(zw)});
  if (kind == ExpKind::ZpXW) {
    e.terms.push_back({"C2=zp_x*sum(Wq)", wsum(zx)});
    e.terms.push_back({"C3=K*zp_x*zp_w", NdArray<T>(t1.shape, T(K) * zx * zw)});
  }
  detail::add_partial_sums(e);
  return e;
}

// spec: mrt.expand.conv2d_sym
// The scale of each term of Convolution formalization `kind`, in the order of conv2d_expand.
// ZpXW REQUIREs zsc_x = sc_x and zsc_w = sc_w (the terms are summed in one integer).
std::vector<Rat> conv2d_term_scales(ExpKind kind, const OperandQ& x, const OperandQ& w);
// spec: mrt.expand.fc_sym
// The common scale sc_x*sc_w of FullyConnected formalization `kind`; REQUIREs a zero point's scale
// to equal its operand's scale (ZpX: zsc_x = sc_x; ZpW: zsc_w = sc_w).
Rat fc_scale(ExpKind kind, const OperandQ& x, const OperandQ& w);

// spec: mrt.realize
// The rational form of mrt.realize (spec/mrt_quantization.md): Yq = clip_[-(2^(p-1)-1), 2^(p-1)-1](round_half_up(Ye * frac * 2^exp)): broadcast_mul by the integer
// frac, then cvm_right_shift(-exp) (half up) or cvm_left_shift(exp), then the symmetric clip.
// ERROR_IF frac < 1 or p outside [1, 32].
Int realize(const Int& ye, const Int& frac, int exp, int prec);
IntArray realize(const IntArray& ye, const Int& frac, int exp, int prec);

// spec: mrt.expand.conv2d_zpx
// Formalizations 2 and 3: Ye = realize(Ye1, frac1, exp1, p) + realize(Ye2, frac2, exp2, p).
IntArray recombine_two(const IntArray& ye1, const IntArray& ye2, const Int& frac1, int exp1, const Int& frac2, int exp2,
                       int prec);

// How quantize_scale combines its requantized inputs.
enum class CombineOp { BroadcastAdd, ElemwiseAdd, AddN, Concat };

// spec: mrt.op.quantize_scale
// Yq_i = realize(X_i, frac_i, exp_i, oprec); Y = combine(Yq_0, ..., Yq_{n-1}). ERROR_IF the number of
// multipliers differs from the inputs, or add/broadcast_add/elemwise_add does not get exactly 2 inputs.
IntArray quantize_scale(const std::vector<IntArray>& xs, const std::vector<Int>& fracs, const std::vector<int>& exps,
                        int oprec, CombineOp op, std::int64_t axis = 0);

// spec: mrt.expand.error_bound
// The bound on |xq wq / (sc_x sc_w) - xr wr| when |xq / sc_x - xr| <= 1/(2 sc_x) and
// |wq / sc_w - wr| <= 1/(2 sc_w): |xr| / (2 sc_w) + |wr| / (2 sc_x) + 1 / (4 sc_x sc_w).
Rat product_error_bound(const Rat& xr, const Rat& wr, const Rat& sc_x, const Rat& sc_w);
// spec: mrt.expand.error_bound
// quantize_scale's bound for one input: 1/(2 sc_y) + |xr| |m sc_i / sc_y - 1| (realize's half-up
// rounding, plus the multiplier m = frac 2^exp approximating sc_y / sc_i).
Rat quantize_scale_error_bound(const Rat& xr, const Rat& m, const Rat& sc_i, const Rat& sc_y);

}  // namespace qspec::ref::ops
