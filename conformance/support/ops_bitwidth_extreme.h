// The exact extreme of every value an MRT expansion holds, for given parameters, over every input
// in the declared ranges: constructed, not sampled (spec/bitwidth.md "How soundness is checked").
//
// Why a construction is exact. Every value an expansion of Convolution or FullyConnected holds
// (each term and each running sum, for one output element) is a separable sum
//     H = sum_{i < K} f(X_i, W_i),   f(X, W) = a X W + b X + c W + d   (bilinear),
// over the K positions of one output element's window / row, and no variable appears at two
// positions. So max H = sum_i max f(X_i, W_i) and likewise for the minimum, and |H| is at most
// max(|max H|, |min H|), attained.
//  - Free W (no constraint on the row): f is linear in X for fixed W and in W for fixed X, so the
//    maximum over the box [lo_x, hi_x] x [lo_w, hi_w] is at one of its four corners (a linear
//    function on an interval peaks at an endpoint). Every position takes the same corner:
//    max H = K * max over corners of f (the uniform-corner tensors).
//  - A fixed row sum s = sum_i W_i (the formulas that read C = zx * sum W): psi(W) = max over X of
//    f(X, W) is a maximum of linear functions of W, hence convex, and sum_i psi(W_i) over integer
//    rows with sum s and entries in [lo_w, hi_w] is Schur-convex, so it peaks at the row that
//    majorizes all others: M(s) = (hi_w x j, r, lo_w x (K - j - 1)) (j entries at the top, one
//    remainder, the rest at the bottom). The minimum of the concave chi(W) = min over X of f is at
//    the same row. So the extremes of H over rows with sum s are at M(s) with X at a corner per
//    position.
//  - Padding (Convolution): a padded position holds X = x_pad, a constant, so each position's
//    options are {lo_x, hi_x, x_pad}. Any number of padded positions in a window is realizable
//    (a 1 x K kernel along a row with padding K: the windows slide from all padding to none), and
//    the weights can be permuted onto them, so each position takes its best option.
//  - Convolution 2/3 recombine: Ye = realize(Ye1) + realize(Ye2), each clipped to
//    [-(2^(p-1)-1), 2^(p-1)-1]; realize's multiplier frac * 2^exp is a free parameter, so a large
//    one maps any nonzero value to the clip bound: |Ye| reaches 2 (2^(p-1)-1) exactly when inputs
//    exist with Ye1, Ye2 nonzero and of one sign (constructed below), 2^(p-1)-1 when only one of
//    them can be nonzero.
// conformance/exhaustive_ops_bitwidth.cc enumerates every input of small problems and checks these
// maxima equal the brute-force ones, and evaluates the real expansion on the constructed inputs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qspec/ref/ops/bitwidth.h"
#include "qspec/ref/ops/mrt_expansion.h"

namespace qspec::opstest {

using I128 = __int128;
using ref::ops::ExpKind;
using ref::ops::ZeroPointReading;

inline I128 p2(int e) { return I128(1) << e; }
inline I128 abs128(I128 v) { return v < 0 ? -v : v; }
inline int bitlen128(I128 v) {
  v = abs128(v);
  int n = 0;
  while (v != 0) {
    v >>= 1;
    ++n;
  }
  return n;
}
// Bits a value needs in MRT's sense (|v| <= 2^(P-1) - 1): bitlen(|v|) + 1.
inline int needed128(I128 v) { return bitlen128(v) + 1; }
inline std::string str128(I128 v) {
  if (v == 0) return "0";
  std::string s;
  const bool neg = v < 0;
  v = abs128(v);
  while (v != 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return neg ? "-" + s : s;
}

struct Range128 {
  I128 lo, hi;
};
// A symmetric operand of precision p: |q| <= 2^(p-1) - 1.
inline Range128 sym_range128(int p) { return {-(p2(p - 1) - 1), p2(p - 1) - 1}; }
// A zero-point operand of precision p under a reading.
inline Range128 zp_range128(int p, ZeroPointReading r) {
  return r == ZeroPointReading::Unsigned ? Range128{0, p2(p) - 1} : sym_range128(p);
}

enum class Layer { Fc, Conv };

// One problem: the parameters a formula sees plus the shape of the worst inputs.
struct Theta {
  Layer layer = Layer::Fc;
  ExpKind kind = ExpKind::Sym;
  ZeroPointReading reading = ZeroPointReading::Unsigned;
  int x = 8, w = 8;
  I128 k = 1, zx = 0, zw = 0;
  std::optional<I128> s;      // the evaluated row's sum (formulas reading C = zx sum W); nullopt: free
  std::optional<I128> decoy;  // a second row's sum (seen by max(C2) of FullyConnected 4 as written)
  I128 x_pad = 0;             // Convolution 2's pad value (Convolution 4 pads with -zx)
  bool padding = false;       // Convolution: windows may read padding
  int oprec = 16;             // Convolution 2/3: quantize_scale's precision
};

inline bool x_affine(ExpKind k) { return k == ExpKind::ZpX || k == ExpKind::ZpXW; }
inline bool w_affine(ExpKind k) { return k == ExpKind::ZpW || k == ExpKind::ZpXW; }
inline Range128 x_range(const Theta& t) { return x_affine(t.kind) ? zp_range128(t.x, t.reading) : sym_range128(t.x); }
inline Range128 w_range(const Theta& t) { return w_affine(t.kind) ? zp_range128(t.w, t.reading) : sym_range128(t.w); }

// f(X, W) = a X W + b X + c W + d at one position.
struct Bilinear {
  I128 a = 0, b = 0, c = 0, d = 0;
  I128 at(I128 X, I128 W) const { return a * X * W + b * X + c * W + d; }
};

// The values an expansion holds at one output element, as per-position bilinear forms (the
// order of mrt_expansion.h: every term, then every running sum). Convolution 2/3 have two terms
// at different scales and no running sum.
inline std::vector<Bilinear> held_values(const Theta& t) {
  const I128 zx = t.zx, zw = t.zw;
  switch (t.kind) {
    case ExpKind::Sym: return {{1, 0, 0, 0}};
    case ExpKind::ZpX:  // T1 = XW, C = zx W, (FullyConnected) Y = (X + zx) W
      if (t.layer == Layer::Conv) return {{1, 0, 0, 0}, {0, 0, zx, 0}};
      return {{1, 0, 0, 0}, {0, 0, zx, 0}, {1, 0, zx, 0}};
    case ExpKind::ZpW:  // T1 = XW, T2 = zw X, (FullyConnected) Y = X (W + zw)
      if (t.layer == Layer::Conv) return {{1, 0, 0, 0}, {0, zw, 0, 0}};
      return {{1, 0, 0, 0}, {0, zw, 0, 0}, {1, zw, 0, 0}};
    case ExpKind::ZpXW:  // T1..T4, then T1+T2, T1+T2+T3, Y = (X + zx)(W + zw)
      return {{1, 0, 0, 0},  {0, zw, 0, 0},  {0, 0, zx, 0},       {0, 0, 0, zx * zw},
              {1, zw, 0, 0}, {1, zw, zx, 0}, {1, zw, zx, zx * zw}};
  }
  return {};
}

// The X values one position can take: the range's endpoints, and the pad value if padded.
inline std::vector<I128> x_options(const Theta& t) {
  const Range128 r = x_range(t);
  std::vector<I128> v{r.lo, r.hi};
  if (t.layer == Layer::Conv && t.padding) {
    if (t.kind == ExpKind::ZpXW) v.push_back(-t.zx);
    if (t.kind == ExpKind::ZpX) v.push_back(t.x_pad);
  }
  return v;
}

// A row of W as groups (count, value); nullopt entries mean "free in [lo, hi]".
struct RowGroup {
  I128 count;
  std::optional<I128> value;
};
// M(s): the integer row with sum s and entries in [lo, hi] that majorizes every other one.
inline std::vector<RowGroup> majorizing_row(I128 k, I128 s, Range128 r) {
  const I128 span = r.hi - r.lo;
  if (span == 0) return {{k, r.lo}};
  const I128 above = s - k * r.lo;  // in [0, k * span]
  const I128 j = std::min<I128>(above / span, k);
  std::vector<RowGroup> g;
  if (j > 0) g.push_back({j, r.hi});
  if (j < k) {
    g.push_back({1, r.lo + (above - j * span)});
    if (k - j - 1 > 0) g.push_back({k - j - 1, r.lo});
  }
  return g;
}
inline bool row_sum_admissible(I128 k, I128 s, Range128 r) { return s >= k * r.lo && s <= k * r.hi; }

struct HeldExtreme {
  I128 max = 0, min = 0;  // max and min of the held value over all inputs
  I128 magnitude() const { return std::max(abs128(max), abs128(min)); }
};

inline std::vector<RowGroup> row_of(const Theta& t, std::optional<I128> s) {
  if (!s) return {{t.k, std::nullopt}};
  return majorizing_row(t.k, *s, w_range(t));
}

inline HeldExtreme extreme_of(const Bilinear& f, const Theta& t, const std::vector<RowGroup>& row) {
  const auto xs = x_options(t);
  const Range128 wr = w_range(t);
  HeldExtreme e;
  for (const auto& g : row) {
    const std::vector<I128> ws = g.value ? std::vector<I128>{*g.value} : std::vector<I128>{wr.lo, wr.hi};
    I128 mx = f.at(xs[0], ws[0]), mn = mx;
    for (auto X : xs)
      for (auto W : ws) {
        mx = std::max(mx, f.at(X, W));
        mn = std::min(mn, f.at(X, W));
      }
    e.max += g.count * mx;
    e.min += g.count * mn;
  }
  return e;
}

// Convolution 2/3: the largest |realize(Ye1) + realize(Ye2)| over all inputs. It is 2a
// (a = 2^(oprec-1) - 1) when inputs exist with Ye1, Ye2 nonzero and of one sign, a when only
// one can be nonzero, else 0. Deciding "of one sign" (both ranges of the free operand are
// symmetric or flip together, so "both positive" suffices; sigma = sign of the zero point):
//  - Convolution 2 (Ye1 = sum X W, Ye2 = zx sum W, W symmetric): W = sigma v gives
//    sigma sum X v > 0 and sum v > 0. An X option x0 with sigma x0 > 0 and v = aw everywhere does
//    it. Otherwise every option has sigma X <= 0: one position needs sigma X v > 0 (an option
//    x* with sigma x* < 0 and v = -1) and the others X = 0, v = aw for sum v > 0: possible iff
//    (K - 1) aw >= 2.
//  - Convolution 3 (Ye1 = sum X W, Ye2 = zw sum X, X symmetric): X = sigma y gives
//    sigma sum y W > 0 and sum y > 0. A W value w0 with sigma w0 > 0 and y = ax everywhere does
//    it. Otherwise (unsigned W, zw < 0) one position y = -1 at W > 0, the others y = ax at W = 0:
//    possible iff (K - 1) ax >= 2.
//  - A fixed row sum s (Convolution 2): Ye2 = zx s; Ye1 reaches a sign iff its extreme over the
//    rows with sum s (the majorizing row) does.
inline I128 recombined_extreme(const Theta& t, const std::vector<RowGroup>& row) {
  const I128 a = p2(t.oprec - 1) - 1;
  const auto hv = held_values(t);
  const HeldExtreme e1 = extreme_of(hv[0], t, row), e2 = extreme_of(hv[1], t, row);
  const bool nz1 = e1.max != 0 || e1.min != 0, nz2 = e2.max != 0 || e2.min != 0;
  if (!nz1 && !nz2) return 0;
  if (!(nz1 && nz2)) return a;
  if (t.s) {
    const I128 y2 = t.zx * *t.s;
    return (y2 > 0 && e1.max > 0) || (y2 < 0 && e1.min < 0) ? 2 * a : a;
  }
  const Range128 wr = w_range(t), xr = x_range(t);
  if (t.kind == ExpKind::ZpX) {
    const I128 sigma = t.zx > 0 ? 1 : -1, aw = wr.hi;
    bool pos = false, neg = false;
    for (auto X : x_options(t)) pos = pos || sigma * X > 0, neg = neg || sigma * X < 0;
    if (pos) return 2 * a;
    const bool zero_ok = xr.lo <= 0 && xr.hi >= 0;
    return neg && zero_ok && (t.k - 1) * aw >= 2 ? 2 * a : a;
  }
  const I128 sigma = t.zw > 0 ? 1 : -1, ax = xr.hi;
  if (sigma * wr.hi > 0 || sigma * wr.lo > 0) return 2 * a;
  const bool w_nonzero_other_sign = wr.lo < 0 || wr.hi > 0;
  return w_nonzero_other_sign && wr.lo <= 0 && wr.hi >= 0 && (t.k - 1) * ax >= 2 ? 2 * a : a;
}

// The largest magnitude any value of the expansion holds (for the rows of t), exactly.
inline I128 exact_extreme(const Theta& t) {
  I128 m = 0;
  std::vector<std::optional<I128>> sums{t.s};
  if (t.decoy) sums.push_back(t.decoy);
  for (const auto& s : sums) {
    const auto row = row_of(t, s);
    for (const auto& f : held_values(t)) m = std::max(m, extreme_of(f, t, row).magnitude());
    if (t.layer == Layer::Conv && (t.kind == ExpKind::ZpX || t.kind == ExpKind::ZpW))
      m = std::max(m, recombined_extreme(t, row));
  }
  return m;
}

// The PrecParams a formula reads for the problem (the row sums for C, C2).
inline ref::ops::PrecParams prec_params(const Theta& t) {
  ref::ops::PrecParams p;
  p.k = ref::Int(static_cast<long long>(t.k));
  p.xprec = t.x;
  p.wprec = t.w;
  p.zx = ref::Int(static_cast<long long>(t.zx));
  p.zw = ref::Int(static_cast<long long>(t.zw));
  p.x_pad = ref::Int(static_cast<long long>(t.kind == ExpKind::ZpXW ? -t.zx : t.x_pad));
  p.oprec = t.oprec;
  if (t.s) p.wsums.emplace_back(static_cast<long long>(*t.s));
  if (t.decoy) p.wsums.emplace_back(static_cast<long long>(*t.decoy));
  if (p.wsums.empty()) p.wsums.emplace_back(0);
  return p;
}

inline ref::ops::PrecFormula formula_of(Layer l, ExpKind k) {
  using ref::ops::PrecFormula;
  const bool fc = l == Layer::Fc;
  switch (k) {
    case ExpKind::Sym: return fc ? PrecFormula::FcSym : PrecFormula::ConvSym;
    case ExpKind::ZpX: return fc ? PrecFormula::FcZpX : PrecFormula::ConvZpX;
    case ExpKind::ZpW: return fc ? PrecFormula::FcZpW : PrecFormula::ConvZpW;
    case ExpKind::ZpXW: return fc ? PrecFormula::FcZpXW : PrecFormula::ConvZpXW;
  }
  return PrecFormula::FcSym;
}

}  // namespace qspec::opstest
