// The table of spec/bitwidth.md: each infer_prec formula's exact minimum slack over its whole
// domain, adopted and as written, and the smallest counterexample of each unsound formula, with
// its inputs materialized and checked on the real expansion.
#pragma once

#include <sstream>

#include "ops_bitwidth_levels.h"
#include "ops_bitwidth_pool_rows.h"

namespace qspec::opstest {

using I64Array = ref::ops::NdArray<std::int64_t>;

// Concrete inputs reaching exact_extreme(t) (for small K), and where to find the value.
struct Inputs {
  I64Array xq, wq;
  ref::ops::Conv2dAttrs attrs;  // Convolution: padding 1 when the worst window is all padding
};

// Lays out one output's inputs: X values per position (std::nullopt: a padded position) and the
// weight rows (the evaluated row first, then the other rows' majorizing rows). Convolution: a
// 1 x K kernel along one row, padded positions first, with left/right padding equal to their
// count, so the output at column 0 reads exactly them and then the real X.
inline Inputs lay_out(const Theta& t, const std::vector<std::optional<std::int64_t>>& xv_in,
                      const std::vector<std::int64_t>& wv_in, const std::vector<std::optional<I128>>& other_sums) {
  const auto k = static_cast<std::int64_t>(t.k);
  std::vector<std::int64_t> xv, wv;
  std::int64_t npad = 0;
  for (std::size_t i = 0; i < xv_in.size(); ++i)
    if (!xv_in[i]) ++npad, wv.push_back(wv_in[i]);
  for (std::size_t i = 0; i < xv_in.size(); ++i)
    if (xv_in[i]) xv.push_back(*xv_in[i]), wv.push_back(wv_in[i]);
  if (xv.empty()) xv.push_back(0);  // an all-padding window still needs an input column
  std::vector<std::vector<std::int64_t>> rows{wv};
  for (const auto& s : other_sums) {
    if (!s) continue;
    std::vector<std::int64_t> other;
    for (const auto& g : majorizing_row(t.k, *s, w_range(t)))
      for (I128 c = 0; c < g.count; ++c) other.push_back(static_cast<std::int64_t>(*g.value));
    rows.push_back(other);
  }
  const auto m = static_cast<std::int64_t>(rows.size());
  Inputs in;
  if (t.layer == Layer::Fc) {
    in.xq = I64Array({1, k}, xv);
    in.wq = I64Array({m, k});
  } else {
    in.xq = I64Array({1, 1, 1, static_cast<std::int64_t>(xv.size())}, xv);
    in.wq = I64Array({m, 1, 1, k});
    in.attrs.padding = {0, npad};
  }
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t i = 0; i < k; ++i)
      in.wq.data[static_cast<std::size_t>(r * k + i)] = rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
  return in;
}

// Per group of the row, the X option (and W corner, for a free row) that takes f to its max (or
// min); a pad option that is not a range endpoint means the window lies in the padding.
inline Inputs extremal_inputs(const Theta& t, const Bilinear& f, bool use_max, std::size_t row_index) {
  std::vector<std::optional<I128>> sums{t.s};
  if (t.decoy) sums.push_back(t.decoy);
  const auto xs = x_options(t);
  const Range128 wr = w_range(t);
  std::vector<std::optional<std::int64_t>> xv;
  std::vector<std::int64_t> wv;
  for (const auto& g : row_of(t, sums[row_index])) {
    const std::vector<I128> ws = g.value ? std::vector<I128>{*g.value} : std::vector<I128>{wr.lo, wr.hi};
    std::size_t bi = 0;
    I128 bw = ws[0], bv = f.at(xs[0], ws[0]);
    for (std::size_t i = 0; i < xs.size(); ++i)
      for (auto W : ws) {
        const I128 v = f.at(xs[i], W);
        if (use_max ? v > bv : v < bv) bv = v, bi = i, bw = W;
      }
    // Options 0 and 1 are the range's endpoints; a later one is the pad value.
    const std::optional<std::int64_t> x =
        bi < 2 ? std::optional<std::int64_t>(static_cast<std::int64_t>(xs[bi])) : std::nullopt;
    for (I128 c = 0; c < g.count; ++c) {
      xv.push_back(x);
      wv.push_back(static_cast<std::int64_t>(bw));
    }
  }
  std::vector<std::optional<I128>> others;
  for (std::size_t r = 0; r < sums.size(); ++r)
    if (r != row_index) others.push_back(sums[r]);
  return lay_out(t, xv, wv, others);
}

// Builds X and W that attain exact_extreme(t) (ops_bitwidth_extreme.h): the held value and
// direction that reach it, or for Convolution 2/3's recombination, inputs where Ye1 and Ye2 are
// nonzero and of one sign.
inline Inputs materialize(const Theta& t) {
  const auto hv = held_values(t);
  std::vector<std::optional<I128>> sums{t.s};
  if (t.decoy) sums.push_back(t.decoy);
  const I128 target = exact_extreme(t);
  for (std::size_t r = 0; r < sums.size(); ++r)
    for (const auto& g : hv) {
      const auto e = extreme_of(g, t, row_of(t, sums[r]));
      if (abs128(e.max) == target) return extremal_inputs(t, g, true, r);
      if (abs128(e.min) == target) return extremal_inputs(t, g, false, r);
    }
  // The recombination (Convolution 2/3): inputs where Ye1 and Ye2 are nonzero and of one sign
  // (recombined_extreme's cases), or where one of them is nonzero.
  if (t.s) {
    const I128 y2 = t.zx * *t.s;
    const auto e1 = extreme_of(hv[0], t, row_of(t, t.s));
    return extremal_inputs(t, hv[0], y2 > 0 || (y2 == 0 && e1.max != 0), 0);
  }
  const Range128 wr = w_range(t), xr = x_range(t);
  const auto k = static_cast<std::size_t>(t.k);
  const bool both = target == 2 * (p2(t.oprec - 1) - 1);
  const auto uniform = [&](std::optional<std::int64_t> x, std::int64_t w) {
    return lay_out(t, std::vector<std::optional<std::int64_t>>(k, x), std::vector<std::int64_t>(k, w), {});
  };
  const auto as_opt = [&](I128 X) {
    return X >= xr.lo && X <= xr.hi ? std::optional<std::int64_t>(static_cast<std::int64_t>(X)) : std::nullopt;
  };
  for (auto X : x_options(t))
    for (auto W : {wr.lo, wr.hi}) {
      const I128 y1 = X * W, y2 = t.kind == ExpKind::ZpX ? t.zx * W : t.zw * X;
      if ((y1 > 0 && y2 > 0) || (y1 < 0 && y2 < 0) || (!both && (y1 != 0 || y2 != 0)))
        return uniform(as_opt(X), static_cast<std::int64_t>(W));
    }
  // Both of one sign, non-uniformly (recombined_extreme): one position against the others.
  std::vector<std::optional<std::int64_t>> xv(k);
  std::vector<std::int64_t> wv(k);
  if (t.kind == ExpKind::ZpX) {  // W = sigma v: v = -1 at an option sigma x* < 0, else X = 0, v = aw
    const I128 sigma = t.zx > 0 ? 1 : -1;
    I128 xs = 0;
    for (auto X : x_options(t))
      if (sigma * X < 0) xs = X;
    xv[0] = as_opt(xs);
    wv[0] = static_cast<std::int64_t>(-sigma);
    for (std::size_t i = 1; i < k; ++i) xv[i] = 0, wv[i] = static_cast<std::int64_t>(sigma * wr.hi);
  } else {  // X = sigma y: y = -1 at W = hi > 0, else y = ax at W = 0
    const I128 sigma = t.zw > 0 ? 1 : -1;
    xv[0] = static_cast<std::int64_t>(-sigma);
    wv[0] = static_cast<std::int64_t>(wr.hi);
    for (std::size_t i = 1; i < k; ++i) xv[i] = static_cast<std::int64_t>(sigma * xr.hi), wv[i] = 0;
  }
  return lay_out(t, xv, wv, {});
}

// The widest value the real expansion (reference/…/mrt_expansion.h) holds on the inputs: every
// term, every running sum, and for Convolution 2/3 realize(Ye1) + realize(Ye2) with a multiplier
// large enough to reach the clip bound.
inline I128 real_widest(const Theta& t, const Inputs& in) {
  using namespace ref::ops;
  Expansion<std::int64_t> e;
  const auto zx = static_cast<std::int64_t>(t.zx), zw = static_cast<std::int64_t>(t.zw);
  if (t.layer == Layer::Fc) {
    e = fc_expand<std::int64_t>(t.kind, in.xq, in.wq, zx, zw);
  } else {
    const std::int64_t pad = t.kind == ExpKind::ZpXW ? -zx : static_cast<std::int64_t>(t.x_pad);
    e = conv2d_expand<std::int64_t>(t.kind, in.xq, in.wq, in.attrs, zx, zw, pad);
  }
  I128 m = 0;
  for (const auto& term : e.terms)
    for (auto v : term.value.data) m = std::max(m, abs128(v));
  for (const auto& s : e.partial_sums)
    for (auto v : s.data) m = std::max(m, abs128(v));
  if (t.layer == Layer::Conv && (t.kind == ExpKind::ZpX || t.kind == ExpKind::ZpW)) {
    auto to_int = [](const NdArray<std::int64_t>& a) {
      return map_array<ref::Int>(a, [](std::int64_t v) { return ref::Int(v); });
    };
    const ref::Int big = ref::pow2(40);
    const auto y = recombine_two(to_int(e.terms[0].value), to_int(e.terms[1].value), big, 0, big, 0, t.oprec);
    for (const auto& v : y.data) m = std::max(m, static_cast<I128>(static_cast<long long>(abs(v))));
  }
  return m;
}

inline std::string array_str(const I64Array& a) {
  std::ostringstream o;
  o << "[";
  for (std::size_t i = 0; i < a.data.size(); ++i) o << (i ? "," : "") << a.data[i];
  o << "]";
  return o.str();
}
// "X = [..], W rows [..] [..]" (and the padding of a Convolution layout).
inline std::string inputs_str(const Inputs& in) {
  std::ostringstream o;
  o << "X = " << array_str(in.xq) << ", W rows";
  const std::int64_t rows = in.wq.dim(0), per = static_cast<std::int64_t>(in.wq.data.size()) / rows;
  for (std::int64_t r = 0; r < rows; ++r) {
    o << " [";
    for (std::int64_t i = 0; i < per; ++i) o << (i ? "," : "") << in.wq.data[static_cast<std::size_t>(r * per + i)];
    o << "]";
  }
  if (in.xq.shape.size() == 4 && in.attrs.padding[1] > 0) o << ", padding " << in.attrs.padding[1];
  return o.str();
}

// Smallest counterexample of an unsound formula as written: least K, then x + w, then x, then
// |zx| + |zw|, then |zx|, then the row sums. Existence at (K, x, w) is decided by analyze() with K
// fixed (exact when its bounds agree; nullopt with `undecided` set otherwise).
struct Counterexample {
  Witness witness;
  Inputs inputs;
};

inline std::optional<Counterexample> smallest_counterexample(const Variant& f, ZeroPointReading r, bool& undecided,
                                                             int k_limit = 16) {
  undecided = false;
  for (I128 k = 1; k <= k_limit; ++k)
    for (int sum = 2; sum <= 16; ++sum)
      for (int x = std::max(1, sum - 8); x <= std::min(8, sum - 1); ++x) {
        const int w = sum - x;
        const Analysis a = analyze(f, r, {{x, w}}, k);
        if (a.lower_bound >= 0) continue;
        if (!a.best || a.best->slack() >= 0) {
          undecided = true;
          return std::nullopt;
        }
        // A counterexample exists here: the one with the least zero points.
        const Range128 wr = w_affine(f.kind) ? zp_range128(w, r) : sym_range128(w);
        const bool has_u = x_affine(f.kind), has_t = w_affine(f.kind);
        const bool has_s = f.layer == Layer::Fc && (f.kind == ExpKind::ZpX || f.kind == ExpKind::ZpXW);
        const I128 limit = abs128(a.best->theta.zx) + abs128(a.best->theta.zw);
        for (I128 n = 0; n <= limit; ++n)
          for (I128 ux = has_u ? n : 0; ux >= 0; --ux) {
            const I128 tw = n - ux;
            if (!has_t && tw != 0) continue;
            if (!has_u && ux != 0) continue;
            for (int sx : {1, -1})
              for (int sw : {1, -1}) {
                if ((ux == 0 && sx < 0) || (tw == 0 && sw < 0)) continue;
                Theta t = a.best->theta;
                t.zx = sx * ux;
                t.zw = sw * tw;
                std::vector<std::optional<I128>> ss{std::nullopt};
                if (has_s) {
                  ss.clear();
                  for (I128 s = 0; s <= k * std::max(abs128(wr.lo), abs128(wr.hi)); ++s)
                    for (I128 sg : {I128(1), I128(-1)})
                      if ((s != 0 || sg > 0) && row_sum_admissible(k, sg * s, wr)) ss.push_back(sg * s);
                }
                std::vector<std::optional<I128>> decoys{std::nullopt};
                if (has_s && f.kind == ExpKind::ZpXW)
                  for (I128 d = 0; d <= k * std::max(abs128(wr.lo), abs128(wr.hi)); ++d)
                    for (I128 sg : {I128(1), I128(-1)})
                      if ((d != 0 || sg > 0) && row_sum_admissible(k, sg * d, wr)) decoys.push_back(sg * d);
                for (const auto& s : ss)
                  for (const auto& d : decoys)
                    for (bool pad : {false, true}) {
                      if (pad && f.layer == Layer::Fc) continue;
                      t.s = s;
                      t.decoy = d;
                      t.padding = pad;
                      const auto p = reference_prec(f, t);
                      if (!p) continue;
                      const Witness wt{t, *p, exact_extreme(t)};
                      if (wt.slack() < 0) return Counterexample{wt, materialize(t)};
                    }
              }
          }
        undecided = true;  // the analysis's witness should have been reached
        return std::nullopt;
      }
  return std::nullopt;
}

// quantize_scale (broadcast_add, elemwise_add, add_n, concat), exactly: N inputs of precision at
// most m are at most N (2^(m-1) - 1) in magnitude after realize, attained with every input at the
// top; for a fixed bitlen(N - 1) = c the worst N is 2^c (the largest), so enumerating (m, c) is the
// whole domain (input precisions in [1, 32], P <= 32; as written P = m + 1 does not grow with N,
// so its domain is every N and its slack is unbounded below).
struct QuantizeScaleResult {
  int adopted_min = 1 << 20;
  std::string adopted_at;
  bool adopted_informative = false;
  int written_min_n_le_2 = 1 << 20;     // two-input adds (the seed's formula is sound there)
  std::string smallest_counterexample;  // add_n as written
};
inline QuantizeScaleResult analyze_quantize_scale(bool concat) {
  QuantizeScaleResult q;
  for (int m = 1; m <= ref::ops::kMaxInferredPrec; ++m) {
    const I128 a = p2(m - 1) - 1;
    for (int c = 0; c <= (concat ? 0 : 31); ++c) {
      const I128 n = concat ? 2 : (c == 0 ? 1 : p2(c));  // the largest N with bitlen(N - 1) = c
      // P by the reference for N <= 4096 inputs; above, its closed form m + bitlen(N - 1) (the
      // formula reads N only through bitlen(N - 1), compared with the reference up to 4096).
      int prec = m + c;
      if (concat || n <= 4096) {
        ref::ops::PrecParams pp;
        pp.in_precs.assign(static_cast<std::size_t>(n), m);
        pp.concat = concat;
        try {
          prec = ref::ops::infer_prec(ref::ops::PrecFormula::QuantizeScale, pp);
        } catch (const ref::ErrorIf&) {
          continue;
        }
      } else if (prec > ref::ops::kMaxInferredPrec) {
        continue;
      }
      const I128 e = (concat ? 1 : n) * a;
      const int slack = prec - needed128(e);
      // Ties keep the first problem with several inputs of a precision above 1 (a clearer example).
      const bool informative = m >= 2 && (concat || n >= 2);
      if (slack < q.adopted_min || (slack == q.adopted_min && informative && !q.adopted_informative)) {
        q.adopted_informative = informative;
        q.adopted_min = slack;
        q.adopted_at = (concat ? std::string("inputs") : str128(n) + " inputs") + " of precision " + std::to_string(m) +
                       " at " + str128(a) + ": P=" + std::to_string(prec) + ", a value of magnitude " + str128(e) +
                       " (" + std::to_string(needed128(e)) + " bits)";
      }
    }
  }
  if (!concat) {
    // As written m + 1: the least N, then m, with N (2^(m-1) - 1) above m + 1 bits.
    for (int n = 1; n <= 64 && q.smallest_counterexample.empty(); ++n)
      for (int m = 1; m <= ref::ops::kMaxInferredPrec; ++m) {
        ref::ops::PrecParams pp;
        pp.in_precs.assign(static_cast<std::size_t>(n), m);
        const int written = *ref::ops::infer_prec_as_written(ref::ops::PrecFormula::QuantizeScale, pp);
        const I128 e = I128(n) * (p2(m - 1) - 1);
        if (n <= 2) q.written_min_n_le_2 = std::min(q.written_min_n_le_2, written - needed128(e));
        if (written < needed128(e)) {
          q.smallest_counterexample = std::to_string(n) + " inputs of precision " + std::to_string(m) + " at " +
                                      str128(p2(m - 1) - 1) + ": sum " + str128(e) + " needs " +
                                      std::to_string(needed128(e)) + " bits, as written " + std::to_string(written);
          break;
        }
      }
  }
  return q;
}

inline const char* reading_name(ZeroPointReading r) {
  return r == ZeroPointReading::Unsigned ? "unsigned `[0, 2^p - 1]`" : "signed `[-(2^(p-1)-1), 2^(p-1)-1]`";
}

// The markdown table of spec/bitwidth.md (between its bitwidth-table markers).
inline std::string render_table() {
  std::ostringstream o;
  o << "| formula | zero-point operand | adopted: exact min slack | attained at | as written: exact min slack | "
       "smallest counterexample as written |\n";
  o << "|---|---|---|---|---|---|\n";
  for (Layer l : {Layer::Conv, Layer::Fc})
    for (ExpKind k : {ExpKind::Sym, ExpKind::ZpX, ExpKind::ZpW, ExpKind::ZpXW}) {
      const Variant adopted{l, k, false}, written{l, k, true};
      for (ZeroPointReading r : {ZeroPointReading::Unsigned, ZeroPointReading::Signed}) {
        if (!adopted.reading_matters() && r == ZeroPointReading::Signed) continue;
        const Analysis a = analyze(adopted, r, all_precision_pairs());
        o << "| `" << adopted.id() << "` | " << (adopted.reading_matters() ? reading_name(r) : "none") << " | "
          << (a.exact() ? std::to_string(a.lower_bound) : "NOT EXACT") << " | " << (a.best ? describe(*a.best) : "-")
          << " | ";
        if (!adopted.has_as_written()) {
          o << "no formula | - |\n";
          continue;
        }
        const Analysis w = analyze(written, r, all_precision_pairs());
        o << (w.exact() ? std::to_string(w.lower_bound) : "NOT EXACT") << (w.lower_bound < 0 ? " (**unsound**)" : "")
          << " | ";
        if (w.lower_bound >= 0) {
          o << "none |\n";
          continue;
        }
        bool undecided = false;
        const auto c = smallest_counterexample(written, r, undecided);
        if (!c) {
          o << (undecided ? "UNDECIDED" : "none found") << " |\n";
          continue;
        }
        o << describe(c->witness) << "; " << inputs_str(c->inputs) << " |\n";
      }
    }
  for (bool concat : {false, true}) {
    const QuantizeScaleResult q = analyze_quantize_scale(concat);
    o << "| `bitwidth.mrt.quantize_scale` (" << (concat ? "concat" : "add_n; two-input adds are N = 2") << ") | none | "
      << q.adopted_min << " | " << q.adopted_at << " | ";
    if (concat)
      o << "0 (the same formula) | none |\n";
    else
      o << "unbounded below (" << q.written_min_n_le_2 << " for N <= 2) (**unsound** for N >= 3) | "
        << q.smallest_counterexample << " |\n";
  }
  const auto row = [&o](const std::string& formula, const OperandRow& r) {
    o << "| " << formula << " | none | " << (r.exact ? std::to_string(r.adopted_min) : "NOT EXACT") << " | "
      << r.adopted_at << " | " << r.written_min << (r.written_min < 0 ? " (**unsound**)" : "") << " | none |\n";
  };
  row("`bitwidth.mrt.same_prec` (pad, relu, max Pooling, flatten, slice)", analyze_same_prec());
  row("`bitwidth.mrt.conv2d_sym` on avg Pooling's rewrite (`mrt.op.avg_pool2d`, every weight 2^(p-1) - 1)",
      analyze_avg_pool_rewrite());
  return o.str();
}

}  // namespace qspec::opstest
