// Internal to the qlinear.add kernels: the element arithmetic of the conventions whose steps are int32
// or IEEE float (XNNPACK, ONNX Runtime, oneDNN, ATen), written once over a vector width (store_saturation.h):
// Ymm (8 int32 lanes; AVX2 + FMA, qlinear_add_avx2.cc) or Zmm (16; AVX512F + BW + VL + FMA,
// qlinear_add_avx512.cc).
// In an unnamed namespace: each including file (compiled with its own ISA flags) keeps its own copy.
// The widths' steps are simd_lanes.h's.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "store_saturation.h"
#include "qspec/simd/qlinear_add.h"
#include "simd_lanes.h"

namespace qspec::simd::avx2 {
namespace {

// XNNPACK: clamp(((bias + a ma + b mb) >> shift) + zy); exact in int32 (the handler's bound), so
// VPMULLD's low halves are the products.
template <class V, bool kSat>
struct XnnpackAdd {
  typename V::I ma, mb, bias, zy, lo, hi;
  __m128i shift;
  explicit XnnpackAdd(const AddParams& p)
      : ma(V::set1(p.ma)), mb(V::set1(p.mb)), bias(V::set1(p.bias)), zy(V::set1(p.zy)), lo(V::set1(p.lo)),
        hi(V::set1(p.hi)), shift(_mm_cvtsi32_si128(p.shift)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto acc = V::add(V::add(bias, V::mullo(a, ma)), V::mullo(b, mb));
    return clamp_unless_saturated<V, kSat>(V::add(V::sra(acc, shift), zy), lo, hi);
  }
};

// ONNX Runtime: its two fused multiply-adds (B's first, or A's with kSwap), rne; |v| < 2^31 (the
// handler's bound), codes exact in binary32.
template <class V, bool kSat, bool kSwap>
struct OrtAdd {
  typename V::F fa, fb, fk;
  typename V::I lo, hi;
  explicit OrtAdd(const AddParams& p)
      : fa(V::set1(p.fa)), fb(V::set1(p.fb)), fk(V::set1(p.fk)), lo(V::set1(p.lo)), hi(V::set1(p.hi)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto va = V::to_float(a), vb = V::to_float(b);
    const auto v = kSwap ? V::fmadd(vb, fb, V::fmadd(va, fa, fk)) : V::fmadd(va, fa, V::fmadd(vb, fb, fk));
    return clamp_unless_saturated<V, kSat>(V::rne(v), lo, hi);
  }
};

// oneDNN: binary32 products and sums, + z_y, the clamp in float, then rne (kSat: only the upper
// bound, which keeps the conversion in int32; below -128 the store saturates, as oneDNN's does).
template <class V, bool kSat>
struct OnednnAdd {
  typename V::F fa, fb, fk, flo, fhi;
  explicit OnednnAdd(const AddParams& p)
      : fa(V::set1(p.fa)), fb(V::set1(p.fb)), fk(V::set1(p.fk)), flo(V::set1(static_cast<float>(p.lo))),
        fhi(V::set1(static_cast<float>(p.hi))) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto w = V::add(V::add(V::mul(V::to_float(a), fa), V::mul(V::to_float(b), fb)), fk);
    if constexpr (kSat) return V::rne(V::min(w, fhi));
    return V::rne(V::clamp(w, flo, fhi));
  }
};

// ATen's qadd_kernel: each dequantized value fl32((q - z) s), the float sum times fl32(1 / s_y), rne
// after a clamp to +-1024 (beyond the dtype either way), + z_y, the clamp. ATen (and add_one) form
// fl32((q - z) s) as a binary64 product rounded to binary32; that product is exact (9 + 24 bits), so
// it is the exact product rounded once, which is what one binary32 VMULPS of the exact fl32(q - z)
// and s gives: the same value in half the instructions.
template <class V, bool kSat>
struct PytorchAdd {
  typename V::F sa, sb, inv, lim, nlim;
  typename V::I za, zb, zy, lo, hi;
  explicit PytorchAdd(const AddParams& p)
      : sa(V::set1(p.fa)), sb(V::set1(p.fb)), inv(V::set1(p.fk)),
        lim(V::set1(1024.0f)), nlim(V::set1(-1024.0f)), za(V::set1(p.za)), zb(V::set1(p.zb)), zy(V::set1(p.zy)),
        lo(V::set1(p.lo)), hi(V::set1(p.hi)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto v = V::mul(V::add(V::mul(V::to_float(V::sub(a, za)), sa), V::mul(V::to_float(V::sub(b, zb)), sb)), inv);
    return clamp_unless_saturated<V, kSat>(V::add(V::rne(V::clamp(v, nlim, lim)), zy), lo, hi);
  }
};

// Calls run(f) with the functor of p's kind on width V; false for TFLite's kinds (ymm only).
template <class V, class Run>
bool run_float_kind(const AddParams& p, const Run& run) {
  using K = AddParams::Kind;
  if (p.kind == K::kTfliteDouble || p.kind == K::kTfliteSingle) return false;
  with_sat(store_saturates(p.u8, p.lo, p.hi), [&](auto sat) {
    constexpr bool kSat = decltype(sat)::value;
    switch (p.kind) {
      case K::kXnnpack: return run(XnnpackAdd<V, kSat>(p));
      case K::kOrt: return p.swap ? run(OrtAdd<V, kSat, true>(p)) : run(OrtAdd<V, kSat, false>(p));
      case K::kOnednn: return run(OnednnAdd<V, kSat>(p));
      case K::kPytorch: return run(PytorchAdd<V, kSat>(p));
      case K::kTfliteDouble:
      case K::kTfliteSingle: return;
    }
  });
  return true;
}

}  // namespace
}  // namespace qspec::simd::avx2
