// Helpers for the bit-width tests on real tensors (std::int64_t): the bits a value needs, the
// widest value an expansion holds, and the parameters a formula reads from concrete weights.
// Which inputs are the worst, and why, is ops_bitwidth_extreme.h.
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

}  // namespace qspec::opstest
