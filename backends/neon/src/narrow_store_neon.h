// Internal to the NEON kernels: turns 4-lane int32 results (already inside the output range) into
// int8/uint8/int16/uint16/int32 stores, 16/8/4 elements per step, with a scalar tail.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "qspec/simd/requant.h"

namespace qspec::simd::neon {

// f(i) returns the clamped int32 lanes of elements i..i+3; tail(i) handles elements i..n-1.
template <OutType T, class F, class Tail>
inline void narrow_loop(std::size_t n, void* yv, const F& f, const Tail& tail) {
  auto* y = static_cast<unsigned char*>(yv);
  std::size_t i = 0;
  if constexpr (T == OutType::I8 || T == OutType::U8) {
    for (; i + 16 <= n; i += 16) {
      // Lanes are inside the output range: the saturating narrows only narrow.
      const int16x8_t ab = vcombine_s16(vqmovn_s32(f(i)), vqmovn_s32(f(i + 4)));
      const int16x8_t cd = vcombine_s16(vqmovn_s32(f(i + 8)), vqmovn_s32(f(i + 12)));
      if constexpr (T == OutType::I8) {
        vst1q_s8(reinterpret_cast<std::int8_t*>(y + i), vcombine_s8(vqmovn_s16(ab), vqmovn_s16(cd)));
      } else {
        vst1q_u8(y + i, vcombine_u8(vqmovun_s16(ab), vqmovun_s16(cd)));
      }
    }
  } else if constexpr (T == OutType::I16) {
    for (; i + 8 <= n; i += 8)
      vst1q_s16(reinterpret_cast<std::int16_t*>(y + 2 * i), vcombine_s16(vqmovn_s32(f(i)), vqmovn_s32(f(i + 4))));
  } else if constexpr (T == OutType::U16) {
    for (; i + 8 <= n; i += 8)
      vst1q_u16(reinterpret_cast<std::uint16_t*>(y + 2 * i), vcombine_u16(vqmovun_s32(f(i)), vqmovun_s32(f(i + 4))));
  } else {
    for (; i + 4 <= n; i += 4) vst1q_s32(reinterpret_cast<std::int32_t*>(y + 4 * i), f(i));
  }
  if (i < n) tail(i);
}

template <class F, class Tail>
inline void narrow_loop_any(OutType t, std::size_t n, void* y, const F& f, const Tail& tail) {
  switch (t) {
    case OutType::I8: return narrow_loop<OutType::I8>(n, y, f, tail);
    case OutType::U8: return narrow_loop<OutType::U8>(n, y, f, tail);
    case OutType::I16: return narrow_loop<OutType::I16>(n, y, f, tail);
    case OutType::U16: return narrow_loop<OutType::U16>(n, y, f, tail);
    case OutType::I32: return narrow_loop<OutType::I32>(n, y, f, tail);
  }
}

}  // namespace qspec::simd::neon
