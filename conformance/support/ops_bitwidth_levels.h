// The exact minimum slack of each infer_prec formula over its whole domain, by level sets.
//
// Domain: operand precisions x, w in [1, 8] (CVM), every K >= 1 and every integer zero point,
// weight row and pad value whose formula value P is defined and <= 32 (CVM's register). Both
// P(theta) and the exact extreme E(theta) (ops_bitwidth_extreme.h) are monotone in |K|, |zx|,
// |zw|, |sum W| after the sign reductions below, and:
//     min_theta [P(theta) - needed(E(theta))] = min_v [v - needed(M(v))],  M(v) = max{E : P <= v},
// because a point with P = u lies in {P <= u} (so its slack is >= u - needed(M(u))) and the point
// attaining M(v) has P <= v. So the exact minimum needs, per level v, needed(M(v)) exactly:
//  - an upper bound UB(v) >= M(v): {P <= v} is a set of monomial caps (K <= c_k, K|zw| <= c_kt,
//    ...), read off each term of the formula ("bitlen(m) + d <= v" iff m <= 2^(v-d) - 1; with
//    get_bit, one bit less), and E is a sum of the same monomials with nonnegative coefficients,
//    so UB(v) is that sum at the caps (each derivation is at its formula below);
//  - a lower bound: explicit problems (witnesses) with P <= v, P computed by the reference
//    infer_prec, E by the exact construction.
// min_v [v - needed(UB(v))] is a proved lower bound of the slack; the least slack a witness has is
// attained; when the two agree the minimum is exact, and analyze() reports whether they do.
//
// Sign reductions (why zero points and row sums are taken >= 0 for the adopted formulas): P
// depends on |zx|, |zw|, |zx sum W| only. Under the Signed reading every range is symmetric, so
// (X, zx) -> (-X, -zx) and (W, zw) -> (-W, -zw) negate or keep every held value. Under the
// Unsigned reading max |X + zx| over [0, 2^x - 1] is |zx| + 2^x - 1 for zx >= 0 and smaller for
// zx < 0, and likewise for W, so nonnegative zero points are the worst. Negative choices stay in
// the witness search anyway where a formula as written is not symmetric (FullyConnected 4's
// signed max(C2)).
#pragma once

#include <array>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include "ops_bitwidth_extreme.h"

namespace qspec::opstest {

// One infer_prec formula, adopted or as the source writes it.
struct Variant {
  Layer layer;
  ExpKind kind;
  bool as_written = false;
  std::string id() const {
    static const char* names[] = {"", "sym", "zpx", "zpw", "zpxw"};
    return std::string("bitwidth.mrt.") + (layer == Layer::Fc ? "fc_" : "conv2d_") + names[static_cast<int>(kind)];
  }
  // The source gives no formula for Convolution 2 and 3.
  bool has_as_written() const { return !(layer == Layer::Conv && (kind == ExpKind::ZpX || kind == ExpKind::ZpW)); }
  // The reading matters only where an operand has a zero point.
  bool reading_matters() const { return kind != ExpKind::Sym; }
};

inline constexpr I128 kUnbounded = I128(1) << 100;

// The monomial caps of {P <= v} (kUnbounded where the formula puts none).
struct Caps {
  I128 k = kUnbounded, kt = kUnbounded, ku = kUnbounded, kut = kUnbounded, us = kUnbounded;
  I128 ye1 = kUnbounded;         // Convolution 2: K max(2^x - 1, |x_pad|) (2^(w-1) - 1)
  int oprec = 32;                // Convolution 2/3: oprec <= v - 1
  bool zp_nonzero = false;       // as written: get_bit_cnt(0) asserts, so zero points (and C) are nonzero
  I128 us_visible = kUnbounded;  // FullyConnected 4 as written: |zx s| of a row max(C2) sees
  bool empty = false;            // no problem has P <= v
};

inline I128 cap(int bits) { return bits <= 0 ? I128(0) : p2(bits) - 1; }  // m <= 2^bits - 1 iff bitlen(m) <= bits

// {P <= v} of each formula: "bitlen(m) + d <= v" gives m <= 2^(v-d) - 1; "get_bit(m) + d <= v"
// (get_bit = bitlen + 1) gives m <= 2^(v-d-1) - 1.
inline Caps caps_at(const Variant& f, int x, int w, int v, ZeroPointReading r) {
  Caps c;
  const bool aw = f.as_written;
  switch (f.kind) {
    case ExpKind::Sym:  // P = bitlen(K) + x + w
      c.k = cap(v - x - w);
      break;
    case ExpKind::ZpW:
      if (f.layer == Layer::Fc) {  // max(bitlen(K) + x + w + 1, bitlen(|zw| K) + x) + 1
        c.k = cap(v - x - w - 2);
        c.kt = cap(v - x - 1);
      } else {  // max(bitlen(K) + x + w, bitlen(|zw| K) + x, oprec + 1)
        c.k = cap(v - x - w);
        c.kt = cap(v - x);
        c.oprec = v - 1;
      }
      break;
    case ExpKind::ZpX:
      if (f.layer == Layer::Fc) {  // max(bitlen(K) + x + w + 1, get_bit(|zx s|)) + 1 (as written: bitlen)
        c.k = cap(v - x - w - 2);
        c.us = aw ? cap(v - 1) : cap(v - 2);
      } else {  // max(get_bit(K max(2^x-1, |x_pad|) a_w), get_bit(|zx s|), oprec + 1)
        c.ye1 = cap(v - 1);
        c.us = cap(v - 1);
        c.oprec = v - 1;
      }
      break;
    case ExpKind::ZpXW:
      c.k = cap(v - x - w - 4);
      c.kt = cap(v - x - 3);
      if (f.layer == Layer::Conv) c.ku = cap(v - w - 3);
      // get_bit(K zx zw) + 2 <= v; as written get_bit_cnt(|C3|) + 2 <= v.
      c.kut = aw ? cap(v - 2) : cap(v - 3);
      // FullyConnected: get_bit(max |zx s|) + 2 <= v. As written the signed max(C2) of another
      // row can hide this row's C2, so no cap (analyze() adds that row).
      if (f.layer == Layer::Fc && !aw) c.us = cap(v - 3);
      if (f.layer == Layer::Fc && aw) c.us_visible = cap(v - 2);  // get_bit_cnt(|max(C2)|) + 2 <= v
      break;
  }
  c.zp_nonzero = aw;
  c.empty = c.k < 1 || c.oprec < 1 || (f.layer == Layer::Conv && f.kind == ExpKind::ZpX && c.ye1 < 0);
  // As written, FullyConnected 2/4 need a nonzero constant C = zx sum W; a W range of {0}
  // (precision 1 read symmetrically) leaves the formula undefined everywhere.
  const Range128 wr = w_affine(f.kind) ? zp_range128(w, r) : sym_range128(w);
  if (aw && f.layer == Layer::Fc && (f.kind == ExpKind::ZpX || f.kind == ExpKind::ZpXW) && wr.lo == 0 && wr.hi == 0)
    c.empty = true;
  return c;
}

// Convolution 4: E = K (u + A)(t + B) (u = |zx|, t = |zw|, A, B the operand ranges) under
// K <= c1, Kt <= c2, Ku <= c3, Kut <= c4. Relaxed to reals, with p = Ku, q = Kt:
// E = pq/K + A q + B p + A B K. For fixed K it grows in p and q; if c2 c3 <= c4 K the box corner
// p = c3, q = c2 is feasible, else the optimum lies on pq = c4 K, where
// E = c4 + A q + B c4 K / q + A B K is convex in q, so it peaks at an end: q = c2 or p = c3.
// Over K: below K0 = c2 c3 / c4 that expression grows in K; above K0, E = c2 c3 / K + A c2 +
// B c3 + A B K is convex in K. So the real maximum is at K = min(c1, K0) or K = c1; the floor of
// the real maximum bounds the integer one.
inline I128 conv4_upper_bound(I128 A, I128 B, const Caps& c) {
  const I128 c1 = c.k, c2 = c.kt, c3 = c.ku, c4 = c.kut;
  if (c2 == 0 || c3 == 0 || c4 == 0) return c4 + A * c2 + B * c3 + A * B * c1;  // degenerate caps: the monomial sum
  I128 best = 0;
  if (c2 * c3 <= c4 * c1) {
    // K = K0 = c2 c3 / c4 (real): c4 + A c2 + B c3 + A B c2 c3 / c4.
    best = std::max(best, c4 + A * c2 + B * c3 + (A * B * c2 * c3) / c4);
    // K = c1 >= K0, on the box corner: c2 c3 / c1 + A c2 + B c3 + A B c1.
    best = std::max(best, (c2 * c3) / c1 + A * c2 + B * c3 + A * B * c1);
  } else {
    // K = c1 < K0, on the curve: c4 + A B c1 + max(A c2 + B c4 c1 / c2, A c4 c1 / c3 + B c3).
    best = std::max(best, c4 + A * B * c1 + std::max(A * c2 + (B * c4 * c1) / c2, (A * c4 * c1) / c3 + B * c3));
  }
  return best;
}

// UB(v) >= M(v): E written as a sum of the capped monomials (zero points and sums taken >= 0).
// RX, RW: the largest |X|, |W| of the operand ranges; h = 2^x - 1 etc.
inline I128 upper_bound(const Variant& f, ZeroPointReading r, int x, int w, const Caps& c) {
  const I128 ax = p2(x - 1) - 1, aw = p2(w - 1) - 1;
  const I128 rx = x_affine(f.kind) ? (r == ZeroPointReading::Unsigned ? p2(x) - 1 : ax) : ax;
  const I128 rw = w_affine(f.kind) ? (r == ZeroPointReading::Unsigned ? p2(w) - 1 : aw) : aw;
  switch (f.kind) {
    case ExpKind::Sym:  // |sum X W| <= K ax aw
      return c.k * ax * aw;
    case ExpKind::ZpW:
      if (f.layer == Layer::Fc)  // |sum X (W + zw)| <= K ax (|zw| + RW) = ax (K|zw| + K RW)
        return ax * (c.kt + rw * c.k);
      // Ye1 <= K ax RW, Ye2 <= |zw| K ax, |realize + realize| <= 2 (2^(oprec-1) - 1)
      return std::max({ax * rw * c.k, ax * c.kt, 2 * (p2(c.oprec - 1) - 1)});
    case ExpKind::ZpX:
      if (f.layer == Layer::Fc)  // |Y| <= |zx s| + RX sum |W| <= c_us + RX K aw (T1, C <= that too)
        return c.us + rx * aw * c.k;
      // Ye1 <= K max(RX, |x_pad|) aw <= its cap; |Ye2| = |zx s| <= its cap; recombined <= 2^(v-1) - 2.
      return std::max({c.ye1, c.us, 2 * (p2(c.oprec - 1) - 1)});
    case ExpKind::ZpXW:
      if (f.layer == Layer::Conv) return conv4_upper_bound(rx, rw, c);
      {
        // FullyConnected 4, per row with sum s (|s| <= K RW): every held value is at most
        // |zx| |s| + K|zx zw| + RX (K RW + K |zw|) (the running sums and terms are parts of it).
        // Adopted: |zx s| <= c_us.
        const I128 rest = rx * (rw * c.k + c.kt);
        if (!f.as_written) return c.us + c.kut + rest;
        // As written, a row whose C2 = zx s the signed max(C2) sees obeys |zx s| <= 2^(v-2) - 1;
        // a hidden row (its C2 below another row's) has no cap on |zx s| but zw != 0, so
        // |zx| |s| <= |zx| K RW <= K |zx zw| RW. Hidden rows: Signed, the same sum; Unsigned
        // (W >= 0, so hidden means zx < 0 and X + zx in [-|zx|, RX - |zx|]): |Y| <= max(|zx|, RX)
        // (s + K|zw|) <= max(K|zx zw| (RW + 1), RX (K RW + K|zw|)), the running sum T1+T2+T3 <=
        // |zx| s + RX (s + K|zw|), the terms less.
        const I128 visible = c.us_visible + c.kut + rest;
        if (r == ZeroPointReading::Signed) return std::max(visible, c.kut * rw + c.kut + rest);
        return std::max(visible, c.kut * rw + std::max(c.kut, rest));
      }
  }
  return 0;
}

// A problem at level v: the witness and what it attains.
struct Witness {
  Theta theta;
  int prec = 0;      // P by the reference (adopted or as written)
  I128 extreme = 0;  // E by the construction
  int slack() const { return prec - needed128(extreme); }
};

// P by the reference; nullopt where the formula is undefined (as written) or rejects the problem.
inline std::optional<int> reference_prec(const Variant& f, const Theta& t) {
  const auto pf = formula_of(f.layer, f.kind);
  const auto pp = prec_params(t);
  if (f.as_written) {
    if (t.x < 1 || t.x > 8 || t.w < 1 || t.w > 8) return std::nullopt;
    const auto p = ref::ops::infer_prec_as_written(pf, pp);
    if (!p || *p > ref::ops::kMaxInferredPrec) return std::nullopt;
    return p;
  }
  try {
    return ref::ops::infer_prec(pf, pp);
  } catch (const ref::ErrorIf&) {
    return std::nullopt;
  }
}

inline I128 div_floor(I128 a, I128 b) { return b == 0 ? kUnbounded : a / b; }

// Candidate problems at level v: K from a list of extremes and powers of two, then the other
// parameters set greedily to their largest value under the caps, in every order (the extremes of
// E on the caps' frontier; see the file comment of ops_bitwidth_extreme.h for why corners).
inline void for_each_candidate(const Variant& f, ZeroPointReading r, int x, int w, int v, std::optional<I128> k_fixed,
                               const std::function<void(const Theta&)>& visit) {
  const Caps c = caps_at(f, x, w, v, r);
  if (c.empty) return;
  const I128 aw = p2(w - 1) - 1;
  Theta base;
  base.layer = f.layer;
  base.kind = f.kind;
  base.reading = r;
  base.x = x;
  base.w = w;
  base.oprec = std::max(1, std::min(c.oprec, 32));
  const Range128 wr = w_affine(f.kind) ? zp_range128(w, r) : sym_range128(w);
  // K: the caps bound K only through monomials for Convolution 2 (K max(2^x - 1, |x_pad|) aw).
  I128 kmax = c.k;
  if (f.layer == Layer::Conv && f.kind == ExpKind::ZpX) kmax = aw > 0 ? div_floor(c.ye1, (p2(x) - 1) * aw) : p2(40);
  kmax = std::min<I128>(kmax, p2(40));
  std::vector<I128> ks;
  if (k_fixed) {
    if (*k_fixed > kmax) return;
    ks = {*k_fixed};
  } else {
    for (I128 k : {I128(1), I128(2), I128(3), kmax, kmax - 1, kmax / 2, kmax / 3})
      if (k >= 1 && k <= kmax) ks.push_back(k);
    for (int j = 1; p2(j) - 1 <= kmax; ++j) ks.push_back(p2(j) - 1);
    for (int j = 1; p2(j) <= kmax; ++j) ks.push_back(p2(j));
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  }
  const bool has_u = x_affine(f.kind), has_t = w_affine(f.kind);
  const bool has_s = (f.layer == Layer::Fc && (f.kind == ExpKind::ZpX || f.kind == ExpKind::ZpXW)) ||
                     (f.layer == Layer::Conv && f.kind == ExpKind::ZpX);
  const I128 lo = c.zp_nonzero ? 1 : 0;
  for (I128 k : ks) {
    // u, t, s: the greedy maximum of one given the others (kUnbounded -> a large finite value).
    // A zero point still unset counts at its least value (1 where the formula needs it nonzero).
    auto max_u = [&](I128 t, I128 s) {
      I128 m = p2(34);
      m = std::min(m, div_floor(c.ku, k));
      t = has_t ? std::max(t, lo) : t;
      if (t > 0) m = std::min(m, div_floor(c.kut, k * t));
      if (s > 0) m = std::min(m, div_floor(c.us, s));
      return m;
    };
    auto max_t = [&](I128 u) {
      I128 m = p2(34);
      m = std::min(m, div_floor(c.kt, k));
      u = has_u ? std::max(u, lo) : u;
      if (u > 0) m = std::min(m, div_floor(c.kut, k * u));
      return m;
    };
    auto max_s = [&](I128 u) {
      I128 m = k * wr.hi;
      if (u > 0) m = std::min(m, div_floor(c.us, u));
      return m;
    };
    std::vector<std::array<I128, 3>> uts;  // (u, t, s)
    const std::vector<std::string> orders{"uts", "ust", "tus", "tsu", "sut", "stu"};
    for (const auto& ord : orders)
      for (int frac : {1, 2}) {
        I128 u = has_u ? 0 : 0, t = 0, s = 0;
        bool first = true;
        for (char ch : ord) {
          if (ch == 'u' && has_u) u = std::max(lo, max_u(t, s) / (first ? frac : 1)), first = false;
          if (ch == 't' && has_t) t = std::max(lo, max_t(u) / (first ? frac : 1)), first = false;
          if (ch == 's' && has_s)
            s = std::max<I128>(has_u && c.zp_nonzero ? 1 : 0, max_s(u) / (first ? frac : 1)), first = false;
        }
        uts.push_back({u, t, s});
        // Balanced: s equal to K|zw| (FullyConnected 4 gains |zx| (s + K|zw|) with us and Kut at their caps).
        if (has_s && has_t && has_u) {
          const I128 sb = std::min(k * wr.hi, std::max<I128>(1, k * t));
          uts.push_back({std::max(lo, max_u(t, sb)), t, sb});
        }
      }
    std::sort(uts.begin(), uts.end());
    uts.erase(std::unique(uts.begin(), uts.end()), uts.end());
    for (auto [u, t, s] : uts) {
      if (u < lo && has_u) continue;
      Theta th = base;
      th.k = k;
      th.zx = has_u ? u : 0;
      th.zw = has_t ? t : 0;
      if (has_s) {
        if (s > k * wr.hi) s = k * wr.hi;
        th.s = s;
      }
      if (f.layer == Layer::Conv && (f.kind == ExpKind::ZpXW || f.kind == ExpKind::ZpX)) {
        for (bool pad : {false, true}) {
          th.padding = pad;
          if (f.kind == ExpKind::ZpX && pad) {
            // The pad value as large as Ye1's cap allows.
            const I128 xp = aw > 0 ? div_floor(c.ye1, k * aw) : 0;
            for (I128 v2 : {xp, -xp}) {
              th.x_pad = v2;
              visit(th);
            }
            th.x_pad = 0;
          } else {
            visit(th);
          }
        }
        continue;
      }
      visit(th);
      // As written, FullyConnected 4's signed max(C2): negative zx or s, and a second row whose
      // sum makes max(C2) small (the first row's C2 then goes unseen).
      if (f.as_written && f.layer == Layer::Fc && f.kind == ExpKind::ZpXW) {
        for (int sx : {1, -1})
          for (int ss : {1, -1})
            for (I128 d : {I128(1), I128(-1)}) {
              Theta t2 = th;
              t2.zx = sx * th.zx;
              if (!th.s) continue;
              t2.s = ss * *th.s;
              if (t2.zx * *t2.s >= 0) continue;  // a row with C2 >= 0 is not hidden by a smaller one
              if (!row_sum_admissible(k, *t2.s, wr) || !row_sum_admissible(k, d, wr)) continue;
              t2.decoy = d;
              visit(t2);
            }
      }
    }
  }
}

// The analysis of one formula under one reading over a set of precision pairs.
struct Analysis {
  int lower_bound = std::numeric_limits<int>::max();  // min_v [v - needed(UB(v))]
  std::optional<Witness> best;                        // the least slack attained
  long cells = 0, witnesses = 0;
  bool exact() const { return best && best->slack() == lower_bound; }
};

// True if the problem satisfies the caps (the monomial form of P <= v; only a filter: every
// witness's P is then computed by the reference).
inline bool within_caps(const Caps& c, const Theta& t) {
  const I128 ax = abs128(t.zx), at = abs128(t.zw);
  if (t.k > c.k || t.k * at > c.kt || t.k * ax > c.ku || t.k * ax * at > c.kut) return false;
  for (auto s : {t.s, t.decoy})
    if (s && ax * abs128(*s) > c.us) return false;
  if (c.us_visible != kUnbounded && t.s) {  // FullyConnected 4 as written: |max(C2)| (signed max), nonzero
    I128 m = t.zx * *t.s;
    if (t.decoy) m = std::max(m, t.zx * *t.decoy);
    if (m == 0 || abs128(m) > c.us_visible) return false;
  }
  if (c.zp_nonzero) {  // as written, get_bit_cnt(0) is undefined: every zero point the formula reads, and C
    if ((x_affine(t.kind) && t.zx == 0) || (w_affine(t.kind) && t.zw == 0)) return false;
    if (t.layer == Layer::Fc && t.kind == ExpKind::ZpX && (!t.s || *t.s == 0)) return false;
  }
  if (t.layer == Layer::Conv && t.kind == ExpKind::ZpX) {
    const I128 ex = std::max(p2(t.x) - 1, abs128(t.x_pad));  // the formula reads x_pad, padded or not
    if (t.k * ex * (p2(t.w - 1) - 1) > c.ye1) return false;
  }
  return t.oprec <= c.oprec;
}

inline Analysis analyze(const Variant& f, ZeroPointReading r, const std::vector<std::pair<int, int>>& precs,
                        std::optional<I128> k_fixed = std::nullopt) {
  Analysis a;
  for (auto [x, w] : precs)
    for (int v = 1; v <= ref::ops::kMaxInferredPrec; ++v) {
      Caps c = caps_at(f, x, w, v, r);
      if (c.empty) continue;
      if (k_fixed) {
        // K fixed: each cap on a monomial K m becomes K floor(cap / K).
        if (*k_fixed > c.k) continue;
        const I128 k = *k_fixed;
        c.k = k;
        for (I128* m : {&c.kt, &c.ku, &c.kut})
          if (*m != kUnbounded) *m = k * (*m / k);
      }
      ++a.cells;
      a.lower_bound = std::min(a.lower_bound, v - needed128(upper_bound(f, r, x, w, c)));
      // The candidates with the largest E; the reference decides P (the caps only filter).
      std::vector<std::pair<I128, Theta>> top;
      for_each_candidate(f, r, x, w, v, k_fixed, [&](const Theta& t) {
        if (!within_caps(c, t)) return;
        top.emplace_back(exact_extreme(t), t);
      });
      std::stable_sort(top.begin(), top.end(), [](const auto& p, const auto& q) { return p.first > q.first; });
      int tried = 0;
      for (const auto& [e, t] : top) {
        if (++tried > 8) break;
        const auto p = reference_prec(f, t);
        if (!p || *p > v) continue;
        ++a.witnesses;
        Witness wit{t, *p, e};
        if (!a.best || wit.slack() < a.best->slack()) a.best = wit;
        break;
      }
    }
  return a;
}

inline std::vector<std::pair<int, int>> all_precision_pairs() {
  std::vector<std::pair<int, int>> v;
  for (int x = 1; x <= ref::ops::kMaxConvFcOperandPrec; ++x)
    for (int w = 1; w <= ref::ops::kMaxConvFcOperandPrec; ++w) v.emplace_back(x, w);
  return v;
}

inline std::string describe(const Witness& wt) {
  const Theta& t = wt.theta;
  std::ostringstream o;
  o << "x=" << t.x << " w=" << t.w << " K=" << str128(t.k);
  if (x_affine(t.kind)) o << " zx=" << str128(t.zx);
  if (w_affine(t.kind)) o << " zw=" << str128(t.zw);
  if (t.s) o << " sum(W)=" << str128(*t.s);
  if (t.decoy) o << " (second row sum " << str128(*t.decoy) << ")";
  if (t.layer == Layer::Conv && t.padding) o << " padded";
  if (t.layer == Layer::Conv && t.kind == ExpKind::ZpX && t.padding) o << " x_pad=" << str128(t.x_pad);
  if (t.layer == Layer::Conv && (t.kind == ExpKind::ZpX || t.kind == ExpKind::ZpW)) o << " oprec=" << t.oprec;
  o << ": P=" << wt.prec << ", a value of magnitude " << str128(wt.extreme) << " (" << needed128(wt.extreme)
    << " bits)";
  return o.str();
}

}  // namespace qspec::opstest
