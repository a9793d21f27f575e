// Internal to the qlinear.mul kernels: the element arithmetic of the conventions whose steps are int32
// or IEEE float (XNNPACK and ATen, ONNX Runtime, oneDNN), written once over a vector width
// (store_saturation.h): Ymm (8 int32 lanes; AVX2, qlinear_mul_avx2.cc) or Zmm (16; AVX512F + BW + VL,
// qlinear_mul_avx512.cc). No step is fused: the spec names no fmaf for a multiplication.
// In an unnamed namespace: each including file (compiled with its own ISA flags) keeps its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "store_saturation.h"
#include "qspec/simd/qlinear_mul.h"

namespace qspec::simd::avx2 {
namespace {

// p = (a - za)(b - zb): |p| <= 255^2, so VPMULLD's low half is the exact product.
template <class V>
struct Product {
  typename V::I za, zb;
  explicit Product(const MulParams& p) : za(V::set1(p.za)), zb(V::set1(p.zb)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const { return V::mullo(V::sub(a, za), V::sub(b, zb)); }
};

// XNNPACK's fp32 kernels and ATen's qmul_kernel: rne(fl32(p) s) + zy, clamped. fl32(p) is exact
// (|p| < 2^24) and |fl32(p) s| < 2^30 (the handler's bound), so VCVTPS2DQ and VPADDD are exact.
template <class V, bool kSat>
struct XnnpackMul {
  Product<V> prod;
  typename V::F s;
  typename V::I zy, lo, hi;
  explicit XnnpackMul(const MulParams& p)
      : prod(p), s(V::set1(p.s)), zy(V::set1(p.zy)), lo(V::set1(p.lo)), hi(V::set1(p.hi)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    return clamp_unless_saturated<V, kSat>(V::add(V::rne(V::mul(V::to_float(prod(a, b)), s)), zy), lo, hi);
  }
};

// ONNX Runtime: fl32(p) s, + fl32(zy) in binary32 (the zero point before the rounding), rne, the
// dtype's saturation.
template <class V, bool kSat>
struct OrtMul {
  Product<V> prod;
  typename V::F s, zy;
  typename V::I lo, hi;
  explicit OrtMul(const MulParams& p)
      : prod(p), s(V::set1(p.s)), zy(V::set1(static_cast<float>(p.zy))), lo(V::set1(p.lo)), hi(V::set1(p.hi)) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    return clamp_unless_saturated<V, kSat>(V::rne(V::add(V::mul(V::to_float(prod(a, b)), s), zy)), lo, hi);
  }
};

// oneDNN: fl32(a s) times fl32(b) (src1's scale 1 is not multiplied), + fl32(zy), the clamp in
// float, then rne (no zero points on the sources; kSat: the upper bound alone, as OnednnAdd).
template <class V, bool kSat>
struct OnednnMul {
  typename V::F s, zy, flo, fhi;
  explicit OnednnMul(const MulParams& p)
      : s(V::set1(p.s)), zy(V::set1(static_cast<float>(p.zy))), flo(V::set1(static_cast<float>(p.lo))),
        fhi(V::set1(static_cast<float>(p.hi))) {}
  typename V::I operator()(typename V::I a, typename V::I b) const {
    const auto w = V::add(V::mul(V::mul(V::to_float(a), s), V::to_float(b)), zy);
    if constexpr (kSat) return V::rne(V::min(w, fhi));
    return V::rne(V::clamp(w, flo, fhi));
  }
};

// Calls run(f) with the functor of p's kind on width V; false for TFLite's kinds (ymm only).
template <class V, class Run>
bool run_float_mul(const MulParams& p, const Run& run) {
  using K = MulParams::Kind;
  if (p.kind == K::kTfliteDouble || p.kind == K::kTfliteSingle) return false;
  with_sat(store_saturates(p.u8, p.lo, p.hi), [&](auto sat) {
    constexpr bool kSat = decltype(sat)::value;
    switch (p.kind) {
      case K::kXnnpack: return run(XnnpackMul<V, kSat>(p));
      case K::kOrt: return run(OrtMul<V, kSat>(p));
      case K::kOnednn: return run(OnednnMul<V, kSat>(p));
      case K::kTfliteDouble:
      case K::kTfliteSingle: return;
    }
  });
  return true;
}

}  // namespace
}  // namespace qspec::simd::avx2
