// Internal to the elementwise kernels: int8 stores that saturate (kSat), so that an element
// functor can leave the clamp to the store; the widths' operations are simd_lanes.h's. In an unnamed
// namespace: each including file (compiled with its own ISA flags) keeps its own copy.
#pragma once

#include <cstdint>
#include <type_traits>

#include "simd_lanes.h"

namespace qspec::simd::avx2 {
namespace {

// kSat: y's clamp is int8's own range [-128, 127], which the elementwise kernels' stores apply by
// signed saturation (the ymm packs, the zmm VPMOVSDB): an element functor then leaves its int32
// result unclamped (one clamp fewer per element), and a float result need only stay below 2^31
// (cvtps2dq gives INT32_MIN below -2^31, which saturates to -128 as it should). With a fused clamp,
// or uint8 (whose zmm store truncates), the functor clamps.
inline bool store_saturates(bool u8, std::int32_t lo, std::int32_t hi) { return !u8 && lo == -128 && hi == 127; }
template <class Run>
void with_sat(bool sat, const Run& run) {
  if (sat)
    run(std::true_type{});
  else
    run(std::false_type{});
}
template <class V, bool kSat>
typename V::I clamp_unless_saturated(typename V::I v, typename V::I lo, typename V::I hi) {
  if constexpr (kSat) return v;
  return V::clamp(v, lo, hi);
}

}  // namespace
}  // namespace qspec::simd::avx2
