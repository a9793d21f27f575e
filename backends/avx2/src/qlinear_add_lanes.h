// Internal to the qlinear.add kernels: the element arithmetic of the conventions whose steps are int32
// or IEEE float (XNNPACK, ONNX Runtime, oneDNN, ATen), written once over a vector width (lane_widths.h):
// Ymm (8 int32 lanes; AVX2 + FMA, qlinear_add_avx2.cc) or Zmm (16; AVX512F + BW + VL + FMA,
// qlinear_add_avx512.cc).
// In an unnamed namespace: each including file (compiled with its own ISA flags) keeps its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "lane_widths.h"
#include "qspec/simd/qlinear_add.h"

namespace qspec::simd::avx2 {
namespace {

// XNNPACK: clamp(((bias + a ma + b mb) >> shift) + zy); exact in int32 (the handler's bound), so
// VPMULLD's low halves are the products.
template <class V>
struct XnnpackAdd {
  typename V::I ma, mb, bias, zy, lo, hi;
  __m128i shift;
  explicit XnnpackAdd(const AddParams& p)
      : ma(V::set1(p.ma)), mb(V::set1(p.mb)), bias(V::set1(p.bias)), zy(V::set1(p.zy)), lo(V::set1(p.lo)),
        hi(V::set1(p.hi)), shift(_mm_cvtsi32_si128(p.shift)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto acc = V::add(V::add(bias, V::mullo(a, ma)), V::mullo(b, mb));
    return V::clamp(V::add(V::sra(acc, shift), zy), lo, hi);
  }
};

// ONNX Runtime: its two fused multiply-adds (B's first, or A's with kSwap), rne; |v| < 2^31 (the
// handler's bound), codes exact in binary32.
template <class V, bool kSwap>
struct OrtAdd {
  typename V::F fa, fb, fk;
  typename V::I lo, hi;
  explicit OrtAdd(const AddParams& p)
      : fa(V::set1(p.fa)), fb(V::set1(p.fb)), fk(V::set1(p.fk)), lo(V::set1(p.lo)), hi(V::set1(p.hi)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto va = V::to_float(a), vb = V::to_float(b);
    const auto v = kSwap ? V::fmadd(vb, fb, V::fmadd(va, fa, fk)) : V::fmadd(va, fa, V::fmadd(vb, fb, fk));
    return V::clamp(V::rne(v), lo, hi);
  }
};

// oneDNN: binary32 products and sums, + z_y, the clamp in float, then rne.
template <class V>
struct OnednnAdd {
  typename V::F fa, fb, fk, flo, fhi;
  explicit OnednnAdd(const AddParams& p)
      : fa(V::set1(p.fa)), fb(V::set1(p.fb)), fk(V::set1(p.fk)), flo(V::set1(static_cast<float>(p.lo))),
        fhi(V::set1(static_cast<float>(p.hi))) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto w = V::add(V::add(V::mul(V::to_float(a), fa), V::mul(V::to_float(b), fb)), fk);
    return V::rne(V::clamp(w, flo, fhi));
  }
};

// ATen's qadd_kernel: each dequantized value fl32((q - z) s), the float sum times fl32(1 / s_y), rne
// after a clamp to +-1024 (beyond the dtype either way), + z_y, the clamp. ATen (and add_one) form
// fl32((q - z) s) as a binary64 product rounded to binary32; that product is exact (9 + 24 bits), so
// it is the exact product rounded once, which is what one binary32 VMULPS of the exact fl32(q - z)
// and s gives: the same value in half the instructions.
template <class V>
struct PytorchAdd {
  typename V::F sa, sb, inv, lim, nlim;
  typename V::I za, zb, zy, lo, hi;
  explicit PytorchAdd(const AddParams& p)
      : sa(V::set1(p.fa)), sb(V::set1(p.fb)), inv(V::set1(p.fk)),
        lim(V::set1(1024.0f)), nlim(V::set1(-1024.0f)), za(V::set1(p.za)), zb(V::set1(p.zb)), zy(V::set1(p.zy)),
        lo(V::set1(p.lo)), hi(V::set1(p.hi)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto v = V::mul(V::add(V::mul(V::to_float(V::sub(a, za)), sa), V::mul(V::to_float(V::sub(b, zb)), sb)), inv);
    return V::clamp(V::add(V::rne(V::clamp(v, nlim, lim)), zy), lo, hi);
  }
};

// Calls run(f) with the functor of p's kind on width V; false for TFLite's kinds (ymm only).
template <class V, class Run>
bool run_float_kind(const AddParams& p, const Run& run) {
  using K = AddParams::Kind;
  switch (p.kind) {
    case K::kXnnpack: run(XnnpackAdd<V>(p)); return true;
    case K::kOrt:
      if (p.swap)
        run(OrtAdd<V, true>(p));
      else
        run(OrtAdd<V, false>(p));
      return true;
    case K::kOnednn: run(OnednnAdd<V>(p)); return true;
    case K::kPytorch: run(PytorchAdd<V>(p)); return true;
    case K::kTfliteDouble:
    case K::kTfliteSingle: return false;
  }
  return false;
}

}  // namespace
}  // namespace qspec::simd::avx2
