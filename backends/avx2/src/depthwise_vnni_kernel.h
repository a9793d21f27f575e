// Internal to the VNNI depthwise kernels: the plan, ring, weight packing, strips and driver that
// depthwise_vnni.cc (ymm; also built for AVX-VNNI) and depthwise_vnni512.cc (zmm) instantiate with
// their vector type: a strip holds one 128-byte group entry (32 channels) in 4 / V::kQuarters vectors.
//
// Depthwise conv2d (NHWC, multiplier 1) with VPDPBUSD: 32 channels per block, four input bytes of
// one channel per int32 lane. The instructions AVX-VNNI spells differently are in vnni_isa.h.
//
// Exactness. With off = 128 for int8 input (the byte XOR 0x80) and 0 for uint8, x_u = x + off
// and p_u = pad + off are bytes in [0, 255], za_u = za + off, and the weights ws = w - zw fit
// int8 (checked per call; otherwise the VPMADDWD kernel runs). Then, exactly over Z,
//   y = sum_taps (x - za) * ws = sum_taps x_u * ws  -  za_u * sum_taps ws,
// a padded tap reading p_u (p_u - za_u = pad - za). VPDPBUSD forms four u8 x s8 products per
// int32 lane and adds them without saturation, so the first sum is exact modulo 2^32 (the lanes'
// fourth bytes that are not taps meet zero weights); the second is a per-channel constant
// computed modulo 2^32 and used as the accumulators' initial value. The packer guarantees
// |y| < 2^31, so the int32 result modulo 2^32 is y itself.
//
// Layout. The input columns a strip of outputs reads are flipped to u8 and permuted once each;
// a byte transpose (8 unpacks) then forms, per channel, groups of four input bytes of one row,
// kept for kernel-height rows in a ring small enough for L1. Two group layouts:
//  - pairs (stride 1, no horizontal dilation, kw <= 3): group j holds input columns 2j..2j+3 of
//    the strip, which serve output column 2j (weights w0 w1 w2 0) and 2j+1 (0 w0 w1 w2): one
//    group formed per two outputs;
//  - general: group g of output column q holds kernel taps 4g..4g+3 of its row (p_u for the
//    taps past the row's end).
// Each output row then costs kh (x ceil(kw / 4)) VPDPBUSD per 8 channels (per 16 on zmm), the
// weights held in registers, and where the stride allows two output rows share every group vector
// loaded. A V with direct strips (V::kDirect: zmm with AVX512-VBMI, depthwise_direct_vbmi.h) runs
// the pair layout's full blocks at stride 1 without the ring.
//
// Outputs. int32 accumulators, or (DepthwiseArgs::y8) the bytes of the fused requantizing epilogue:
// V::Ep (Epilogue16 of epilogue_vnni512.h on zmm, Epilogue8 of epilogue_vnni.h on ymm, the texts the
// GEMM engines' stores use) holds one vector's channel parameters, loaded once per strip and channel
// block, and is applied to the accumulators in registers before a byte store.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "local_vector.h"
#include "qspec/simd/avx2_kernels.h"
#include "vnni_isa.h"

namespace qspec::simd::avx2 {
namespace {

constexpr std::int64_t kCb = 32;      // channels per block (one ymm of bytes)
constexpr std::int64_t kEntry = 128;  // bytes per block of one group (32 channels x 4 bytes)

// The per-call plan: geometry, layout, packed weights and the per-channel corrections.
struct Plan {
  const ConvGeom* g = nullptr;
  std::int64_t oh = 0, ow = 0, c = 0, nb = 0;
  bool pairs = false;       // the pair layout (see the top of the file)
  std::int64_t groups = 1;  // general layout: groups per kernel row, ceil(kw / 4); pairs: 1
  std::int64_t ring_rows = 0;
  std::uint8_t flip = 0, pad_u = 0;
  // pairs:   [shift 0/1][kh][nb][4 quarters][8 channels][4 bytes]
  // general: [kh][groups][nb][4 quarters][8 channels][4 bytes]
  const std::int8_t* wq = nullptr;
  const std::int32_t* corr = nullptr;  // [nb * 32]: -za_u * sum_taps ws, modulo 2^32
};

// VPUNPCK{L,H}{BW,WD} work inside 128-bit lanes; with the dwords of each input vector first put
// in this order, the transpose below yields channels 0-7, 8-15, 16-23, 24-31 in its four vectors.
inline __m256i lane_order(__m256i v) {
  return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}

// out[32k + 4d + j] = t_j[channel 8k + d] for four lane-ordered vectors t0..t3.
inline void transpose4(__m256i t0, __m256i t1, __m256i t2, __m256i t3, std::uint8_t* out) {
  const __m256i ab_lo = _mm256_unpacklo_epi8(t0, t1), ab_hi = _mm256_unpackhi_epi8(t0, t1);
  const __m256i cd_lo = _mm256_unpacklo_epi8(t2, t3), cd_hi = _mm256_unpackhi_epi8(t2, t3);
  _mm256_store_si256(reinterpret_cast<__m256i*>(out), _mm256_unpacklo_epi16(ab_lo, cd_lo));
  _mm256_store_si256(reinterpret_cast<__m256i*>(out + 32), _mm256_unpackhi_epi16(ab_lo, cd_lo));
  _mm256_store_si256(reinterpret_cast<__m256i*>(out + 64), _mm256_unpacklo_epi16(ab_hi, cd_hi));
  _mm256_store_si256(reinterpret_cast<__m256i*>(out + 96), _mm256_unpackhi_epi16(ab_hi, cd_hi));
}

// Input columns a strip of nq outputs reads, relative to its first one.
std::int64_t strip_columns(const Plan& pl, std::int64_t nq) {
  const ConvGeom& g = *pl.g;
  if (pl.pairs) return 2 * ((nq + 1) / 2) + 2;  // groups 2j..2j+3 for j < ceil(nq / 2)
  return (nq - 1) * g.sw + (g.kw - 1) * g.dw + 1;
}

// The strip's input row two rows down, fetched while this one's groups are formed (the rows are
// built in increasing order, and a strip's columns are not contiguous in memory, so the hardware
// prefetcher does not see them coming): columns lo..hi-1 from v0 on, row h + 2 dh.
inline void prefetch_row(const Plan& pl, const std::uint8_t* x, std::int64_t n, std::int64_t h, std::int64_t v0,
                         std::int64_t lo, std::int64_t hi) {
  const ConvGeom& g = *pl.g;
  if (const std::int64_t h2 = h + 2 * g.dh; lo < hi && h2 >= 0 && h2 < g.h) {
    const auto* p0 = reinterpret_cast<const char*>(x + ((n * g.h + h2) * g.w + v0 + lo) * pl.c);
    for (std::int64_t off = 0; off < (hi - lo) * pl.c; off += 64) _mm_prefetch(p0 + off, _MM_HINT_T0);
  }
}

// The pair layout's ring row: the groups of padded input row r (image n) for the strip that starts
// at output column q0, group j gathering the strip's input columns 2j..2j+3 (p_u outside the
// input). Each column is flipped to u8 and lane-ordered once and carried in registers to the next
// group, which shares two of them: a column buffer's stores (this file's general layout keeps one)
// would queue behind the outputs' in the store commit (docs/benchmarks.md: -11 % on the int32 row).
void build_pair_groups(const Plan& pl, const std::uint8_t* x, std::int64_t n, std::int64_t r, std::int64_t q0,
                       std::int64_t nq, std::uint8_t* dst) {
  const ConvGeom& g = *pl.g;
  const std::int64_t h = r - g.ph, nb = pl.nb, c = pl.c, nj = (nq + 1) / 2;
  const bool row_inside = h >= 0 && h < g.h;
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(pl.flip));
  const __m256i padv = _mm256_set1_epi8(static_cast<char>(pl.pad_u));
  const std::int64_t v0 = q0 - g.pw;  // the input column of the strip's column 0 (stride 1)
  const std::uint8_t* xrow = x + (n * g.h + (row_inside ? h : 0)) * g.w * c;
  for (std::int64_t b = 0; b < nb; ++b) {
    const bool full = c - b * kCb >= kCb;
    const ByteLanes part = first_bytes(c - b * kCb);
    auto col = [&](std::int64_t u) {
      const std::int64_t v = v0 + u;
      if (!row_inside || v < 0 || v >= g.w) return padv;  // uniform: no lane order
      const std::uint8_t* p = xrow + v * c + b * kCb;
      const __m256i raw = full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)) : load_z8(part, p);
      return lane_order(_mm256_xor_si256(raw, flip));
    };
    __m256i t0 = col(0), t1 = col(1);
    for (std::int64_t j = 0; j < nj; ++j) {
      const __m256i t2 = col(2 * j + 2), t3 = col(2 * j + 3);
      transpose4(t0, t1, t2, t3, dst + (j * nb + b) * kEntry);
      t0 = t2;
      t1 = t3;
    }
  }
  if (row_inside) prefetch_row(pl, x, n, h, v0, std::max<std::int64_t>(0, -v0), std::min(2 * nj + 2, g.w - v0));
}

// One ring row: the groups of padded input row r (image n) for output columns q0..q0+nq. The
// general layout: first the columns the strip reads are flipped to u8 and lane-ordered once each
// (p_u outside the input) into `cols` ([column][block] vectors); the groups are gathered from
// there.
void build_row(const Plan& pl, const std::uint8_t* x, std::int64_t n, std::int64_t r, std::int64_t q0, std::int64_t nq,
               std::uint8_t* cols, std::uint8_t* dst) {
  if (pl.pairs) return build_pair_groups(pl, x, n, r, q0, nq, dst);
  const ConvGeom& g = *pl.g;
  const std::int64_t h = r - g.ph, nb = pl.nb;
  const bool row_inside = h >= 0 && h < g.h;
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(pl.flip));
  const __m256i padv = _mm256_set1_epi8(static_cast<char>(pl.pad_u));
  const std::int64_t v0 = q0 * g.sw - g.pw, nv = strip_columns(pl, nq);  // input columns v0 .. v0 + nv - 1
  // Columns [0, lo) and [hi, nv) of the strip are padding, [lo, hi) are inside the input.
  const std::int64_t lo = row_inside ? std::clamp<std::int64_t>(-v0, 0, nv) : nv;
  const std::int64_t hi = row_inside ? std::clamp<std::int64_t>(g.w - v0, lo, nv) : nv;
  const ByteLanes last = first_bytes(pl.c - (nb - 1) * kCb);
  auto* cv = reinterpret_cast<__m256i*>(cols);
  for (std::int64_t u = 0; u < lo; ++u)
    for (std::int64_t b = 0; b < nb; ++b) _mm256_store_si256(cv + u * nb + b, padv);  // uniform: no lane order
  auto flipped = [&](const std::uint8_t* p) {  // 32 input bytes flipped to u8, lane-ordered
    return lane_order(_mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), flip));
  };
  if (lo < hi && pl.c == kCb) {  // one full block per column (MobileNet's first layers): no inner loop
    const std::uint8_t* xp = x + ((n * g.h + h) * g.w + v0 + lo) * kCb;
    for (std::int64_t u = lo; u < hi; ++u, xp += kCb) _mm256_store_si256(cv + u, flipped(xp));
  } else if (lo < hi) {
    const std::uint8_t* xp = x + ((n * g.h + h) * g.w + v0 + lo) * pl.c;
    for (std::int64_t u = lo; u < hi; ++u, xp += pl.c) {
      for (std::int64_t b = 0; b + 1 < nb; ++b) _mm256_store_si256(cv + u * nb + b, flipped(xp + b * kCb));
      _mm256_store_si256(cv + u * nb + nb - 1, lane_order(_mm256_xor_si256(load_z8(last, xp + (nb - 1) * kCb), flip)));
    }
  }
  for (std::int64_t u = hi; u < nv; ++u)
    for (std::int64_t b = 0; b < nb; ++b) _mm256_store_si256(cv + u * nb + b, padv);
  prefetch_row(pl, x, n, h, v0, lo, hi);

  for (std::int64_t gi = 0; gi < pl.groups; ++gi) {
    // Taps of this group past the row's end have a zero weight: any byte will do, p_u is at hand.
    const int real = static_cast<int>(std::min<std::int64_t>(4, g.kw - 4 * gi));
    const std::int64_t d = g.dw * nb;  // vectors from one tap to the next
    const __m256i* c0 = cv + 4 * gi * d;
    std::uint8_t* out = dst + gi * nb * kEntry;
    const std::int64_t qstep = g.sw * nb, ostep = pl.groups * nb * kEntry;
    auto gather = [&](auto taps) {
      constexpr int kReal = decltype(taps)::value;
      for (std::int64_t q = 0; q < nq; ++q, c0 += qstep, out += ostep)
        for (std::int64_t b = 0; b < nb; ++b) {
          const __m256i t0 = _mm256_load_si256(c0 + b);
          const __m256i t1 = kReal > 1 ? _mm256_load_si256(c0 + d + b) : padv;
          const __m256i t2 = kReal > 2 ? _mm256_load_si256(c0 + 2 * d + b) : padv;
          const __m256i t3 = kReal > 3 ? _mm256_load_si256(c0 + 3 * d + b) : padv;
          transpose4(t0, t1, t2, t3, out + b * kEntry);
        }
    };
    switch (real) {
      case 1: gather(std::integral_constant<int, 1>{}); break;
      case 2: gather(std::integral_constant<int, 2>{}); break;
      case 3: gather(std::integral_constant<int, 3>{}); break;
      default: gather(std::integral_constant<int, 4>{}); break;
    }
  }
}

// ---- the strips, over a vector type V ----
// V (VnniYmm in depthwise_vnni.cc, VnniZmm in depthwise_vnni512.cc) holds kQuarters quarters of a
// group entry (8 channels x 4 bytes each): a VnniVector with Mask, dpbusd, mask(n) for its first n
// (clamped) int32 lanes, load32(mask, p), store(y, mask, v), the epilogue type Ep (constructed from
// a FusedRequantView, its first column and a mask; applied by operator(); float_then_zp<kBias>(ep, v)
// is the same for kFloatThenZp with an int32 bias, without the dispatch on the kind, and without
// adding the bias where kBias is false), add32(a, b) (int32 lanes) and store_bytes(y, mask, n, v) for
// the low bytes of the first n (>= 1) lanes; kOneSweep: whether strip_pairs may hold all four
// quarters in one sweep, and then V::PairPack and V::ShiftPack, the Sinks of those strips' bytes, whose
// pair(y, a, b, second, c) stores the bytes of a pixel
// pair (a: pixel 2j, b: pixel 2j + 1, two vectors each, all 32 channels) and whose static
// applies(view) says whether it implements the view's epilogue. (The vector types are named through VecOf:
// as a template argument one would lose its may_alias attribute.)
template <int kBytes>
struct VecOf;
template <>
struct VecOf<32> {
  using type = __m256i;
};
template <>
struct VecOf<64> {
  using type = __m512i;
};
template <int kBytes>
struct VnniVector {
  using Vec = typename VecOf<kBytes>::type;
  static constexpr int kQuarters = kBytes / 32;
  static Vec load(const void* p) { return *static_cast<const Vec*>(p); }  // aligned (the vector types may alias)
  static Vec loadu(const void* p) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
};

// Where a strip's N vectors of results go: int32 lanes (T = std::int32_t), or (T = std::uint8_t) the
// bytes of the epilogues of the channels they hold, vector k holding channels j + k * step onward
// (`valid` of the block's channels from the first vector on exist).
template <class V, class T, int N>
struct Sink {
  Sink(const FusedRequantView*, std::int64_t, std::int64_t, std::int64_t) {}
  __attribute__((always_inline)) typename V::Vec init(int, typename V::Vec c) const { return c; }
  __attribute__((always_inline)) void operator()(int, std::int32_t* y, typename V::Mask m, typename V::Vec v) const {
    V::store(y, m, v);
  }
};
template <class V, int N>
struct Sink<V, std::uint8_t, N> {
  std::array<typename V::Ep, N> ep;
  int n[N];     // valid lanes of each vector
  bool common;  // kFloatThenZp with an int32 bias (XNNPACK, ONNX Runtime, qnnpack): V::float_then_zp

  template <std::size_t... I>
  __attribute__((always_inline)) static std::array<typename V::Ep, N> make(const FusedRequantView& e, std::int64_t j, std::int64_t step,
                                            std::int64_t valid, std::index_sequence<I...>) {
    return {typename V::Ep(e, j + step * static_cast<std::int64_t>(I),
                           V::mask(valid - step * static_cast<std::int64_t>(I)))...};
  }
  __attribute__((always_inline)) Sink(const FusedRequantView* e, std::int64_t j, std::int64_t step, std::int64_t valid)
      : ep(make(*e, j, step, valid, std::make_index_sequence<N>{})),
        common(e->kind == RequantKind::kFloatThenZp && !e->float_bias) {
    for (int k = 0; k < N; ++k) n[k] = static_cast<int>(std::clamp<std::int64_t>(valid - step * k, 0, step));
  }
  // The accumulators' initial value for vector k from the corrections c: with common, c + bias, and
  // the epilogue then adds no bias (one operation of its eight): (c + bias) + sum and (c + sum) + bias
  // are the same int32 modulo 2^32, as the epilogue's own addition is.
  __attribute__((always_inline)) typename V::Vec init(int k, typename V::Vec c) const {
    return common ? V::add32(c, ep[k].bias) : c;
  }
  // Inlined: a call would spill the strip's accumulators and weights (every vector register is
  // caller-saved) for each store. v started from init(k, ...).
  __attribute__((always_inline)) void operator()(int k, std::uint8_t* y, typename V::Mask m, typename V::Vec v) const {
    if (n[k] > 0) V::store_bytes(y, m, n[k], common ? V::template float_then_zp<false>(ep[k], v) : ep[k](v));
  }
};

// strip_pairs' sink: V::PairPack for bytes in one sweep (named only then: the ymm vector types have none).
// kSweep: 0 two sweeps; 1 one sweep (bytes: V::PairPack); 2 one sweep, bytes through V::ShiftPack.
template <class V, class T, int N, int kSweep>
struct SinkOf {
  using type = Sink<V, T, N>;
};
template <class V, int N>
struct SinkOf<V, std::uint8_t, N, 1> {
  using type = typename V::PairPack;
};
template <class V, int N>
struct SinkOf<V, std::uint8_t, N, 2> {
  using type = typename V::ShiftPack;
};

// Source row sr's group vector e (quarter kk) into the accumulators of the pixel pair of each output
// row that reads it (row `row` through kernel row sr - row): weights of shift 0 for the pair's first
// pixel, of shift 1 for its second. Shared by strip_pairs and the direct strips.
template <class V, int KH, int ROWS, int KV>
__attribute__((always_inline)) inline void accumulate_source_row(typename V::Vec (&acc)[ROWS][2][KV],
                                                                 typename V::Vec e,
                                                                 const typename V::Vec (&wr)[2][KH][KV], int sr,
                                                                 int kk) {
#pragma GCC unroll 4
  for (int row = 0; row < ROWS; ++row) {
    const int i = sr - row;
    if (i < 0 || i >= KH) continue;
    acc[row][0][kk] = V::dpbusd(acc[row][0][kk], e, wr[0][i][kk]);
    acc[row][1][kk] = V::dpbusd(acc[row][1][kk], e, wr[1][i][kk]);
  }
}

// The pixel pair j of ROWS output rows from their accumulators: through sink.pair (kPairPack: V::PairPack,
// bytes of all four quarters) or per vector through sink (int32 stores or a byte epilogue), vector kk
// holding quarters k0 + kk * kQ onward; the pair's second pixel only where 2j + 1 < nq. kForm: the
// PairPack form the caller fixed (V::PairPack::kRuntime: read its flags per pair).
template <bool kPairPack, int ROWS, int KV, int kQ, int kForm = 0, class S, class T, class Vec, class Mask>
__attribute__((always_inline)) inline void store_pair_rows(const S& sink, T* y, std::int64_t yrow, std::int64_t j,
                                                           std::int64_t c, std::int64_t nq, int k0,
                                                           Vec (&acc)[ROWS][2][KV], const Mask (&m)[KV]) {
  const bool second = 2 * j + 1 < nq;
  if constexpr (kPairPack) {
#pragma GCC unroll 4
    for (int row = 0; row < ROWS; ++row)
      sink.template pair<kForm>(y + row * yrow + 2 * j * c, acc[row][0], acc[row][1], second, c);
  } else {
#pragma GCC unroll 4
    for (int row = 0; row < ROWS; ++row) {
      T* yp = y + row * yrow + 2 * j * c + 8 * k0;
#pragma GCC unroll 2
      for (int kk = 0; kk < KV; ++kk) {
        sink(kk, yp + 8 * kk * kQ, m[kk], acc[row][0][kk]);
        if (second) sink(kk, yp + c + 8 * kk * kQ, m[kk], acc[row][1][kk]);
      }
    }
  }
}

// One channel block, nq output columns of ROWS output rows (ROWS = 2: consecutive rows, ring rows
// src[0..KH]; ROWS = 1: ring rows src[0..KH-1]). Output row `row` reads src[row + i] through
// kernel row i. Two sweeps of two quarters each keep the weights of both shifts (2 * KH * kV
// vectors), the accumulators (ROWS x 2 columns x kV) and the corrections in registers.
// w points at shift 0, kernel row 0 of this block (kernel row stride wrow, shift stride wshift).
// T = std::uint8_t: y holds bytes, ep's columns ch0 + ... are the block's channels.
// kSweep != 0 (zmm, a full block; bytes only where V::PairPack or V::ShiftPack applies): one sweep
// of all four quarters (the 32 registers hold twice the weights and accumulators). int32 outputs then
// write a pixel's two lines together rather than in two sweeps of alternate lines (measured faster:
// docs/benchmarks.md); bytes go through V::PairPack (kSweep 1) or V::ShiftPack (2), which narrow a
// pixel pair's four vectors together.
template <class V, int KH, int ROWS, class T, int kSweep = 0>
void strip_pairs(const std::uint8_t* const* src, std::int64_t gstride, const std::int8_t* w, std::int64_t wrow,
                 std::int64_t wshift, const std::int32_t* corr, std::int64_t nq, T* y, std::int64_t yrow,
                 std::int64_t c, std::int64_t valid, const FusedRequantView* ep, std::int64_t ch0) {
  using Vec = typename V::Vec;
  constexpr bool kOneSweep = kSweep != 0;
  constexpr int kSweepQ = kOneSweep ? 4 : 2;  // quarters per sweep
  constexpr int kSrc = KH + ROWS - 1, kQ = V::kQuarters, kV = kSweepQ / kQ;  // kV vectors per sweep
  using S = typename SinkOf<V, T, kV, kSweep>::type;
  for (int half = 0; half < 4 / kSweepQ; ++half) {
    if (valid <= 16 * half) break;  // a channel tail without these quarters
    const int k0 = 2 * half;
    const S sink(ep, ch0 + 8 * k0, 8 * kQ, valid - 8 * k0);
    Vec wr[2][KH][kV], cr[kV];
    typename V::Mask m[kV];
#pragma GCC unroll 4
    for (int s = 0; s < 2; ++s)
#pragma GCC unroll 8
      for (int i = 0; i < KH; ++i)
#pragma GCC unroll 2
        for (int kk = 0; kk < kV; ++kk) wr[s][i][kk] = V::load(w + s * wshift + i * wrow + (k0 + kk * kQ) * 32);
#pragma GCC unroll 2
    for (int kk = 0; kk < kV; ++kk) {
      cr[kk] = sink.init(kk, V::loadu(corr + 8 * (k0 + kk * kQ)));
      m[kk] = V::mask(valid - 8 * (k0 + kk * kQ));
    }
    for (std::int64_t j = 0; 2 * j < nq; ++j) {
      Vec acc[ROWS][2][kV];
#pragma GCC unroll 4
      for (int row = 0; row < ROWS; ++row)
#pragma GCC unroll 2
        for (int px = 0; px < 2; ++px)
#pragma GCC unroll 2
          for (int kk = 0; kk < kV; ++kk) acc[row][px][kk] = cr[kk];
#pragma GCC unroll 8
      for (int sr = 0; sr < kSrc; ++sr)
#pragma GCC unroll 2
        for (int kk = 0; kk < kV; ++kk) {
          Vec e = V::load(src[sr] + j * gstride + (k0 + kk * kQ) * 32);
          // Opaque to the compiler, so that it is loaded once for its up to four uses (under this
          // register pressure GCC otherwise loads it again for each).
          asm("" : "+v"(e));
          accumulate_source_row<V, KH, ROWS, kV>(acc, e, wr, sr, kk);
        }
      store_pair_rows<kOneSweep && std::is_same_v<T, std::uint8_t>, ROWS, kV, kQ>(sink, y, yrow, j, c, nq, k0, acc, m);
    }
  }
}

template <class T>
using PairsFn = void (*)(const std::uint8_t* const*, std::int64_t, const std::int8_t*, std::int64_t, std::int64_t,
                         const std::int32_t*, std::int64_t, T*, std::int64_t, std::int64_t, std::int64_t,
                         const FusedRequantView*, std::int64_t);

template <class V, class T, int kSweep = 0>
PairsFn<T> pairs_fn(std::int64_t kh, int rows) {
  switch (kh * 2 + rows - 1) {
    case 2: return strip_pairs<V, 1, 1, T, kSweep>;
    case 3: return strip_pairs<V, 1, 2, T, kSweep>;
    case 4: return strip_pairs<V, 2, 1, T, kSweep>;
    case 5: return strip_pairs<V, 2, 2, T, kSweep>;
    case 6: return strip_pairs<V, 3, 1, T, kSweep>;
    case 7: return strip_pairs<V, 3, 2, T, kSweep>;
    case 8: return strip_pairs<V, 4, 1, T, kSweep>;
    case 9: return strip_pairs<V, 4, 2, T, kSweep>;
    default: return nullptr;
  }
}

// nq output columns of one output row and channel block (the general layout): y[q] = corr + sum
// over the NR (kernel row, group) pairs of VPDPBUSD(groups at src[r] + q * stride, weights w[r]).
// NR > 0: the weights live in registers; NR == 0: `nr` pairs, weights reloaded (large kernels).
// T = std::uint8_t: y holds bytes, ep's columns ch0 + ... are the block's channels.
template <class V, int NR, class T>
void strip(const std::uint8_t* const* src, std::int64_t stride, const std::int8_t* const* w, int nr,
           const std::int32_t* corr, std::int64_t nq, T* y, std::int64_t ystride, std::int64_t valid,
           const FusedRequantView* ep, std::int64_t ch0) {
  using Vec = typename V::Vec;
  constexpr int kQ = V::kQuarters, kN = 4 / kQ;  // vectors per entry
  constexpr int kStep = 8 * kQ;                  // channels (int32) per vector; bytes per vector: 4 * kStep
  const Sink<V, T, kN> sink(ep, ch0, kStep, valid);
  Vec c0[kN];
  typename V::Mask m[kN];
  for (int k = 0; k < kN; ++k) c0[k] = sink.init(k, V::loadu(corr + kStep * k)), m[k] = V::mask(valid - kStep * k);
  Vec wr[NR > 0 ? NR : 1][kN];
  if constexpr (NR > 0) {
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r)
#pragma GCC unroll 4
      for (int k = 0; k < kN; ++k) wr[r][k] = V::load(w[r] + 4 * kStep * k);
  }
  for (std::int64_t q = 0; q < nq; ++q) {
    Vec acc[kN];
#pragma GCC unroll 4
    for (int k = 0; k < kN; ++k) acc[k] = c0[k];
    if constexpr (NR > 0) {
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const std::uint8_t* s = src[r] + q * stride;
#pragma GCC unroll 4
        for (int k = 0; k < kN; ++k) acc[k] = V::dpbusd(acc[k], V::load(s + 4 * kStep * k), wr[r][k]);
      }
    } else {
      for (int r = 0; r < nr; ++r) {
        const std::uint8_t* s = src[r] + q * stride;
#pragma GCC unroll 4
        for (int k = 0; k < kN; ++k)
          acc[k] = V::dpbusd(acc[k], V::load(s + 4 * kStep * k), V::load(w[r] + 4 * kStep * k));
      }
    }
#pragma GCC unroll 4
    for (int k = 0; k < kN; ++k) sink(k, y + q * ystride + kStep * k, m[k], acc[k]);
  }
}

template <class T>
using StripFn = void (*)(const std::uint8_t* const*, std::int64_t, const std::int8_t* const*, int, const std::int32_t*,
                         std::int64_t, T*, std::int64_t, std::int64_t, const FusedRequantView*, std::int64_t);

template <class V, class T>
StripFn<T> strip_fn(std::int64_t nr) {
  switch (nr) {
    case 1: return strip<V, 1, T>;
    case 2: return strip<V, 2, T>;
    case 3: return strip<V, 3, T>;
    case 4: return strip<V, 4, T>;
    case 5: return strip<V, 5, T>;
    case 6: return strip<V, 6, T>;
    default: return strip<V, 0, T>;
  }
}

// Tap t's weights of channel block b as 32 bytes in lane order (zero past the channels): they
// fit int8 (checked), so the narrowing keeps them exactly.
inline __m256i weight_vector(const Plan& pl, const std::int16_t* w16, std::int64_t t, std::int64_t b) {
  const std::int64_t valid = std::min<std::int64_t>(kCb, pl.c - b * kCb);
  return lane_order(words_to_bytes(w16 + t * pl.c + b * kCb, valid));
}

// Packs the weights for the plan's layout (the same transpose as the input groups, so that
// weight byte j of a lane meets input byte j) and the per-channel corrections.
void pack(const Plan& pl, const std::int16_t* w16, std::int64_t za_u, std::int8_t* wq, std::int32_t* corr) {
  const ConvGeom& g = *pl.g;
  const std::int64_t kh = g.kh, kw = g.kw, nb = pl.nb;
  const __m256i zero = _mm256_setzero_si256();
  for (std::int64_t i = 0; i < kh; ++i)
    for (std::int64_t b = 0; b < nb; ++b) {
      auto tap = [&](std::int64_t jj) { return jj >= 0 && jj < kw ? weight_vector(pl, w16, i * kw + jj, b) : zero; };
      auto* out = reinterpret_cast<std::uint8_t*>(wq);
      if (pl.pairs) {  // shift s: tap jj at byte jj + s
        for (std::int64_t sh = 0; sh < 2; ++sh)
          transpose4(tap(-sh), tap(1 - sh), tap(2 - sh), tap(3 - sh), out + ((sh * kh + i) * nb + b) * kEntry);
      } else {
        for (std::int64_t gi = 0; gi < pl.groups; ++gi)
          transpose4(tap(4 * gi), tap(4 * gi + 1), tap(4 * gi + 2), tap(4 * gi + 3),
                     out + ((i * pl.groups + gi) * nb + b) * kEntry);
      }
    }
  // corr[ch] = -za_u * sum_taps ws, modulo 2^32 (unsigned arithmetic: never undefined).
  const std::int64_t taps = kh * kw;
  for (std::int64_t ch = 0; ch < pl.c; ++ch) {
    std::uint32_t sum = 0;
    for (std::int64_t t = 0; t < taps; ++t) sum += static_cast<std::uint32_t>(std::int32_t{w16[t * pl.c + ch]});
    corr[ch] = static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(za_u) * sum);
  }
}

// Whether every weight fits int8 (w16 holds taps * c of them).
bool weights_fit_int8(const std::int16_t* w16, std::int64_t count) {
  __m256i lo = _mm256_setzero_si256(), hi = lo;
  std::int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w16 + i));
    lo = _mm256_min_epi16(lo, v);
    hi = _mm256_max_epi16(hi, v);
  }
  const __m256i out =
      _mm256_or_si256(_mm256_cmpgt_epi16(_mm256_set1_epi16(-128), lo), _mm256_cmpgt_epi16(hi, _mm256_set1_epi16(127)));
  bool fits = _mm256_testz_si256(out, out) != 0;
  for (; i < count; ++i) fits = fits && w16[i] >= -128 && w16[i] <= 127;
  return fits;
}

// The VPMADDWD kernel (`depthwise`: int32 results only), for the cases the u8 x s8 form cannot
// take; for byte outputs its results in a scratch buffer, then V's epilogue over them.
template <class V>
void fallback(const DepthwiseArgs& a) {
  if (a.y8 == nullptr) return depthwise(a);
  const ConvGeom& g = *a.g;
  const std::int64_t pixels = g.n * g.oh() * g.ow(), c = g.c;
  thread_local LocalVector<std::int32_t> y32;
  y32.resize(static_cast<std::size_t>(std::max<std::int64_t>(pixels * c, 1)));
  DepthwiseArgs b = a;
  b.y = y32.data();
  b.y8 = nullptr;
  b.ep = nullptr;
  depthwise(b);
  constexpr std::int64_t kStep = 8 * V::kQuarters;  // channels per vector
  for (std::int64_t j = 0; j < c; j += kStep) {
    const Sink<V, std::uint8_t, 1> sink(a.ep, j, kStep, c - j);
    const auto m = V::mask(c - j);
    for (std::int64_t i = 0; i < pixels; ++i)
      sink(0, a.y8 + i * c + j, m, sink.init(0, V::load32(m, y32.data() + i * c + j)));
  }
}

// The whole convolution with V's strips, int32 results (T = std::int32_t, a.y) or the epilogue's
// bytes (T = std::uint8_t, a.y8).
template <class V, class T>
void depthwise_vnni_run(const DepthwiseArgs& a) {
  const ConvGeom& g = *a.g;
  const std::int64_t c = g.c, taps = g.kh * g.kw, off = a.x_signed ? 128 : 0;
  const std::int64_t pad_u = a.pad + off, za_u = a.za + off;
  // The u8 x s8 form needs the padding as a byte and every weight as a signed byte.
  if (pad_u < 0 || pad_u > 255 || !weights_fit_int8(a.w16, taps * c)) return fallback<V>(a);
  T* const y = [&] {
    if constexpr (std::is_same_v<T, std::uint8_t>) return a.y8;
    else return a.y;
  }();

  Plan pl;
  pl.g = &g;
  pl.oh = g.oh();
  pl.ow = g.ow();
  pl.c = c;
  pl.nb = (c + kCb - 1) / kCb;
  pl.flip = static_cast<std::uint8_t>(off);
  pl.pad_u = static_cast<std::uint8_t>(pad_u);
  if (pl.oh <= 0 || pl.ow <= 0 || g.n <= 0) return;
  const bool two_rows = g.sh == 1 && g.dh == 1;  // consecutive output rows share kh - 1 input rows
  pl.pairs = g.sw == 1 && g.dw == 1 && g.kw <= 3 && g.kh <= 4;
  pl.groups = pl.pairs ? 1 : (g.kw + 3) / 4;
  const std::int64_t nr = g.kh * pl.groups;  // general layout: (kernel row, group) pairs
  const PairsFn<T> pairs2 = pl.pairs && two_rows ? pairs_fn<V, T>(g.kh, 2) : nullptr;
  const PairsFn<T> pairs1 = pl.pairs ? pairs_fn<V, T>(g.kh, 1) : nullptr;
  // The full blocks' strips in one sweep where V allows it (bytes: where V::PairPack or
  // V::ShiftPack applies).
  PairsFn<T> full2 = pairs2, full1 = pairs1;
  if constexpr (V::kOneSweep) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
      if (pl.pairs) full2 = two_rows ? pairs_fn<V, T, 1>(g.kh, 2) : nullptr, full1 = pairs_fn<V, T, 1>(g.kh, 1);
    } else if (pl.pairs && V::PairPack::applies(*a.ep)) {
      full2 = two_rows ? pairs_fn<V, T, 1>(g.kh, 2) : nullptr, full1 = pairs_fn<V, T, 1>(g.kh, 1);
    } else if (pl.pairs && V::ShiftPack::applies(*a.ep)) {
      full2 = two_rows ? pairs_fn<V, T, 2>(g.kh, 2) : nullptr, full1 = pairs_fn<V, T, 2>(g.kh, 1);
    }
  }
  const StripFn<T> strip1 = strip_fn<V, T>(nr);
  // The ring holds every padded input row one pass reads, each in a slot of its own (the rows of
  // a pass span ring_rows consecutive indices, so index mod ring_rows is a free slot).
  pl.ring_rows = (g.kh - 1) * g.dh + 1 + (pairs2 ? 1 : 0);

  const std::int64_t wbytes = (pl.pairs ? 2 * g.kh : nr) * pl.nb * kEntry;
  thread_local AlignedBuffer wbuf;  // 64-byte aligned: the strips load whole vectors
  thread_local LocalVector<std::int32_t> corr;
  wbuf.resize(static_cast<std::size_t>(wbytes));
  auto* wq = reinterpret_cast<std::int8_t*>(wbuf.data());
  corr.assign(static_cast<std::size_t>(pl.nb * kCb), 0);
  pack(pl, a.w16, za_u, wq, corr.data());
  pl.wq = wq;
  pl.corr = corr.data();
  // V's direct strips (depthwise_direct_vbmi.h), where V has them: the pair layout, full blocks,
  // stride 1 both ways, every epilogue.
  if constexpr (requires { V::kDirect; }) {
    if (pl.pairs && two_rows && c % kCb == 0) return V::direct(pl, a, y);
  }

  // Output strips narrow enough that the ring stays about 16 KiB, in L1 with room for the
  // input rows being read (measured best on Zen 4 among 8, 16 and 24 KiB); an even width.
  const std::int64_t gbytes = pl.groups * pl.nb * kEntry;  // one output column's groups
  const std::int64_t per_col = pl.ring_rows * (pl.pairs ? gbytes / 2 : gbytes);
  const std::int64_t max_q = std::clamp<std::int64_t>(16384 / std::max<std::int64_t>(per_col, 1), 4, pl.ow);
  const std::int64_t strips = (pl.ow + max_q - 1) / max_q;
  const std::int64_t tq = ((pl.ow + strips - 1) / strips + 1) / 2 * 2;
  const std::int64_t row_bytes = (pl.pairs ? (tq + 1) / 2 : tq) * gbytes;
  thread_local AlignedBuffer ring, cols;
  ring.resize(static_cast<std::size_t>(pl.ring_rows * row_bytes));
  if (!pl.pairs) cols.resize(static_cast<std::size_t>(strip_columns(pl, tq) * pl.nb * kCb));  // the general layout's column pass
  thread_local LocalVector<std::int64_t> slot_row;  // the padded row each ring slot holds
  thread_local LocalVector<const std::uint8_t*> src, sb;
  thread_local LocalVector<const std::int8_t*> wp;
  slot_row.resize(static_cast<std::size_t>(pl.ring_rows));
  src.resize(static_cast<std::size_t>(nr + 1));
  sb.resize(static_cast<std::size_t>(nr + 1));
  wp.resize(static_cast<std::size_t>(nr));
  // Bytes from one group to the next along the strip (pairs: per two output columns).
  const std::int64_t gstride = pl.pairs ? pl.nb * kEntry : gbytes;
  const std::int64_t yrow = pl.ow * c;  // from one output row to the next

  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t q0 = 0; q0 < pl.ow; q0 += tq) {
      const std::int64_t nq = std::min(tq, pl.ow - q0);
      std::fill(slot_row.begin(), slot_row.end(), -1);
      auto row = [&](std::int64_t r) {  // the ring slot of padded row r, built on first use
        const std::int64_t sl = r % pl.ring_rows;
        std::uint8_t* slot = ring.data() + sl * row_bytes;
        if (slot_row[static_cast<std::size_t>(sl)] != r) {
          build_row(pl, a.x, n, r, q0, nq, cols.data(), slot);
          slot_row[static_cast<std::size_t>(sl)] = r;
        }
        return slot;
      };
      for (std::int64_t p = 0; p < pl.oh;) {
        T* yp = y + ((n * pl.oh + p) * pl.ow + q0) * c;
        if (pl.pairs) {
          const bool two = pairs2 != nullptr && p + 1 < pl.oh;
          const std::int64_t ns = two ? g.kh + 1 : g.kh;
          for (std::int64_t i = 0; i < ns; ++i)
            src[static_cast<std::size_t>(i)] = two ? row(p + i) : row(p * g.sh + i * g.dh);
          for (std::int64_t b = 0; b < pl.nb; ++b) {
            for (std::int64_t i = 0; i < ns; ++i)
              sb[static_cast<std::size_t>(i)] = src[static_cast<std::size_t>(i)] + b * kEntry;
            const bool full = c - b * kCb >= kCb;
            (two ? (full ? full2 : pairs2) : (full ? full1 : pairs1))(sb.data(), gstride, pl.wq + b * kEntry, pl.nb * kEntry, g.kh * pl.nb * kEntry,
                                    pl.corr + b * kCb, nq, yp + b * kCb, yrow, c, c - b * kCb, a.ep, b * kCb);
          }
          p += two ? 2 : 1;
          continue;
        }
        for (std::int64_t i = 0; i < g.kh; ++i) {
          std::uint8_t* slot = row(p * g.sh + i * g.dh);
          for (std::int64_t gi = 0; gi < pl.groups; ++gi)
            src[static_cast<std::size_t>(i * pl.groups + gi)] = slot + gi * pl.nb * kEntry;
        }
        for (std::int64_t b = 0; b < pl.nb; ++b) {
          for (std::int64_t r = 0; r < nr; ++r) {
            sb[static_cast<std::size_t>(r)] = src[static_cast<std::size_t>(r)] + b * kEntry;
            wp[static_cast<std::size_t>(r)] = pl.wq + (r * pl.nb + b) * kEntry;
          }
          strip1(sb.data(), gstride, wp.data(), static_cast<int>(nr), pl.corr + b * kCb, nq, yp + b * kCb, c,
                 c - b * kCb, a.ep, b * kCb);
        }
        ++p;
      }
    }
}

// Int32 results or, with a.y8, the epilogue's bytes.
template <class V>
void depthwise_vnni_any(const DepthwiseArgs& a) {
  if (a.y8 != nullptr) return depthwise_vnni_run<V, std::uint8_t>(a);
  depthwise_vnni_run<V, std::int32_t>(a);
}

}  // namespace
}  // namespace qspec::simd::avx2
