// Internal to the zmm VNNI depthwise kernels' pair packs (VnniZmm::PairPack in depthwise_zmm_vector.h,
// ShiftPairPack in depthwise_zmm_shift_pack.h): what both do once their arithmetic has given int16
// lanes, the byte pack of a pixel pair and its stores, written once.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "qspec/simd/gemm.h"

namespace qspec::simd::avx2 {
namespace {

// qmin >= 0: the unsigned byte pack (VPACKUSWB), else the signed one.
inline bool unsigned_bytes(const FusedRequantView& e) { return std::int64_t{e.lo_nozp} + e.zp >= 0; }

// p, q: the int16 lanes of pixels 2j and 2j + 1 (VPACKSSDW of their channels 0-15 and 16-31), already
// inside the byte range or to be saturated into it by the pack; y: pixel 2j's first byte, pixel
// 2j + 1's c bytes on (absent without second).
__attribute__((always_inline)) inline void store_pair_bytes(std::uint8_t* y, __m512i p, __m512i q, bool u8, bool second,
                                                            std::int64_t c) {
  // Lane L of the packed bytes holds dword L of a[0], a[1], b[0], b[1]: dword 4i + L of the
  // output comes from dword 4L + i.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i r = _mm512_permutexvar_epi32(order, u8 ? _mm512_packus_epi16(p, q) : _mm512_packs_epi16(p, q));
  if (second && c == 32) return _mm512_storeu_si512(y, r);  // the pair is 64 contiguous bytes
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), _mm512_castsi512_si256(r));
  if (second) _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + c), _mm512_extracti64x4_epi64(r, 1));
}

}  // namespace
}  // namespace qspec::simd::avx2
