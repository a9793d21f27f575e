// Worst-case inputs for MRT's bit-width formulas: evaluates the real expansion on constructed
// extreme tensors (std::int64_t) and reports the bits its widest intermediate needs.
//
// Every partial sum of an expansion is sum_i g(Xq_i, Wq_i) (+ a constant), bilinear in each pair,
// so its extreme over the input box is reached with every pair at the same corner: uniform tensors
// at the corners of the declared ranges are the worst case. exhaustive_ops_bitwidth.cc checks that
// claim by enumerating every input of small problems.
#pragma once

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "qspec/ref/ops/bitwidth.h"
#include "qspec/ref/ops/mrt_expansion.h"

namespace qspec::opstest {

using I64Array = ref::ops::NdArray<std::int64_t>;

// Bits needed for v in MRT's sense: |v| <= 2^(p-1) - 1.
inline int needed64(std::int64_t v) {
  return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(v < 0 ? -v : v))) + 1;
}

// The corners of an operand's declared range: symmetric {-(2^(p-1)-1), 0, 2^(p-1)-1}; affine {0, 2^p - 1}.
inline std::vector<std::int64_t> corners(int prec, bool affine) {
  if (affine) return {0, (std::int64_t{1} << prec) - 1};
  const std::int64_t m = (std::int64_t{1} << (prec - 1)) - 1;
  return {-m, 0, m};
}

// The widest intermediate (every term and running sum) of an expansion, in bits.
inline int widest(const ref::ops::Expansion<std::int64_t>& e) {
  int w = 1;
  for (const auto& t : e.terms)
    for (auto v : t.value.data) w = std::max(w, needed64(v));
  for (const auto& s : e.partial_sums)
    for (auto v : s.data) w = std::max(w, needed64(v));
  return w;
}

inline bool affine_x(ref::ops::ExpKind k) { return k == ref::ops::ExpKind::ZpX || k == ref::ops::ExpKind::ZpXW; }
inline bool affine_w(ref::ops::ExpKind k) { return k == ref::ops::ExpKind::ZpW || k == ref::ops::ExpKind::ZpXW; }

inline ref::ops::PrecFormula fc_formula(ref::ops::ExpKind k) {
  using ref::ops::PrecFormula;
  switch (k) {
    case ref::ops::ExpKind::Sym: return PrecFormula::FcSym;
    case ref::ops::ExpKind::ZpX: return PrecFormula::FcZpX;
    case ref::ops::ExpKind::ZpW: return PrecFormula::FcZpW;
    case ref::ops::ExpKind::ZpXW: return PrecFormula::FcZpXW;
  }
  return PrecFormula::FcSym;
}
inline ref::ops::PrecFormula conv_formula(ref::ops::ExpKind k) {
  using ref::ops::PrecFormula;
  switch (k) {
    case ref::ops::ExpKind::Sym: return PrecFormula::ConvSym;
    case ref::ops::ExpKind::ZpX: return PrecFormula::ConvZpX;
    case ref::ops::ExpKind::ZpW: return PrecFormula::ConvZpW;
    case ref::ops::ExpKind::ZpXW: return PrecFormula::ConvZpXW;
  }
  return PrecFormula::ConvSym;
}

// The parameters a formula reads for one FullyConnected problem (weights give the sums C uses).
inline ref::ops::PrecParams fc_params(const I64Array& xq, const I64Array& wq, int xprec, int wprec, std::int64_t zx,
                                      std::int64_t zw) {
  ref::ops::PrecParams p;
  p.k = xq.dim(1);
  p.xprec = xprec;
  p.wprec = wprec;
  p.zx = zx;
  p.zw = zw;
  for (std::int64_t m = 0; m < wq.dim(0); ++m) {
    std::int64_t s = 0;
    for (std::int64_t i = 0; i < wq.dim(1); ++i) s += wq.at2(m, i);
    p.wsums.emplace_back(s);
  }
  return p;
}

// Same for a Convolution (K = IC*KH*KW, per output channel weight sums, the pad value of formalization 2).
inline ref::ops::PrecParams conv_params(const I64Array& wq, int xprec, int wprec, std::int64_t zx, std::int64_t zw,
                                        std::int64_t x_pad, int oprec) {
  ref::ops::PrecParams p;
  const std::int64_t k = wq.dim(1) * wq.dim(2) * wq.dim(3);
  p.k = k;
  p.xprec = xprec;
  p.wprec = wprec;
  p.zx = zx;
  p.zw = zw;
  p.x_pad = x_pad;
  p.oprec = oprec;
  for (std::int64_t o = 0; o < wq.dim(0); ++o) {
    std::int64_t s = 0;
    for (std::int64_t i = 0; i < k; ++i) s += wq.data[static_cast<std::size_t>(o * k + i)];
    p.wsums.emplace_back(s);
  }
  return p;
}

// Widest value of a Convolution 2/3 pipeline: both partial results, and the recombined output
// after realize(., 1, 0, oprec) of each (the identity multiplier keeps the worst case).
inline int conv_pipeline_widest(const ref::ops::Expansion<std::int64_t>& e, int oprec) {
  int w = widest(e);
  const std::int64_t lim = (std::int64_t{1} << (oprec - 1)) - 1;
  for (std::size_t i = 0; i < e.terms[0].value.data.size(); ++i) {
    const std::int64_t a = std::clamp(e.terms[0].value.data[i], -lim, lim), b = std::clamp(e.terms[1].value.data[i], -lim, lim);
    w = std::max(w, needed64(a + b));
  }
  return w;
}

}  // namespace qspec::opstest
