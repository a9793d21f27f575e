// Internal to depthwise_vnni512_vbmi.cc: the direct strips of the zmm VNNI depthwise kernel on
// CPUs with AVX512-VBMI, for the pair layout's common case (stride 1 both ways, kw <= 3, kh <= 4,
// channels a multiple of 32: MobileNet's layers). Included after depthwise_vnni_kernel.h.
//
// Why no ring. depthwise_vnni_kernel.h forms each input row's groups once, stores them in an L1
// ring and loads them back for each output row that reads them. On a store-bound layer (int32
// outputs: four output bytes per input byte) those ring stores queue in the same in-order store
// commit as the output lines, which wait for their reads for ownership; measured on Zen 5, the
// ring version spends 27 us where its arithmetic alone takes 22 and the store stream alone 18
// (docs/benchmarks.md). Here a group is formed in registers where it is used and never stored:
// two VPERMT2B per source row and column pair, against the ring's eight unpacks, a permute and
// four stores, and nothing is stored but the outputs. A source row's groups are formed again for
// each output row pair that reads it (kh + 1 rows per two output rows instead of one), which
// costs less than the ring's stores did.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace qspec::simd::avx2 {
namespace {

// The strips' byte epilogue: kSink, Sink's per vector (int32 outputs, and the kinds without a pair
// pack: oneDNN's); kFloatPack, V::PairPack (xnnpack.fp32's kind); kShiftPack, V::ShiftPack (the
// folded shift kinds: TFLite's, TOSA's, TVM's).
enum PackKind { kSink, kFloatPack, kShiftPack };
template <class V, class T, int kPack>
struct DirectSink {
  using type = Sink<V, T, 2>;
};
template <class V>
struct DirectSink<V, std::uint8_t, kFloatPack> {
  using type = typename V::PairPack;
};
template <class V>
struct DirectSink<V, std::uint8_t, kShiftPack> {
  using type = typename V::ShiftPack;
};

// The groups of each source row are formed in registers as the strip goes, two VPERMT2B each
// (entry byte 4ch + t, tap t of channel ch, from the flipped columns 2j, 2j + 1 for t < 2 and
// 2j + 2, 2j + 3 for t >= 2), and fed straight to VPDPBUSD: nothing is stored but the outputs.
struct PairIdx {
  alignas(64) std::uint8_t b[2][64];
};
inline constexpr PairIdx kPairIdx = [] {
  PairIdx ib{};
  for (int hh = 0; hh < 2; ++hh)
    for (int ch = 0; ch < 16; ++ch)
      for (int t = 0; t < 4; ++t)
        ib.b[hh][4 * ch + t] = static_cast<std::uint8_t>((t >= 2 ? 64 : 0) + 32 * (t & 1) + 16 * hh + ch);
  return ib;
}();

// Columns v, v + 1 of a source row (its block's first byte; a padding row is a row of p_u ^ flip
// bytes), flipped; kEdge: either may lie outside the input (p_u); kC32: c == 32, the two columns
// one 64-byte load (a run-time test there cost the int32 row 5 %, docs/benchmarks.md).
template <bool kEdge, bool kC32>
__attribute__((always_inline)) inline __m512i pair_columns(const std::uint8_t* row, std::int64_t v, std::int64_t w,
                                                           std::int64_t c, __m512i flip, std::uint8_t pad_u) {
  if (!kEdge || (v >= 0 && v + 1 < w)) {
    const std::uint8_t* p = row + v * c;
    const __m512i raw = kC32 ? _mm512_loadu_si512(p)
        : _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))),
                             _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + c)), 1);
    return _mm512_xor_si512(raw, flip);
  }
  auto col = [&](std::int64_t vv) {
    if (vv < 0 || vv >= w) return _mm256_set1_epi8(static_cast<char>(pad_u));
    return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + vv * c)), _mm512_castsi512_si256(flip));
  };
  return _mm512_inserti64x4(_mm512_castsi256_si512(col(v)), col(v + 1), 1);
}

// ROWS output rows (1 or 2) of block b, the whole output width, from the kh + ROWS - 1 source rows
// rows[] (each at its block's first byte): strip_pairs' arithmetic and stores with the groups
// formed in registers. Output row `row` reads source row row + i through kernel row i. The loop
// body is a lambda for its two forms (edge columns or not), inlined by force: GCC otherwise called
// it out of line in some instantiations (measured: the int8 row 8 % slower).
template <class V, int KH, int ROWS, class T, bool kC32, int kPack, int kForm>
void strip_direct(const Plan& pl, const std::uint8_t* const* rows, std::int64_t b, T* y, std::int64_t yrow,
                  const FusedRequantView* ep) {
  using Vec = typename V::Vec;
  constexpr int kSrc = KH + ROWS - 1;
  using S = typename DirectSink<V, T, kPack>::type;
  const ConvGeom& g = *pl.g;
  const std::int64_t c = pl.c, nq = pl.ow, ch0 = b * kCb, v0 = -g.pw;
  const S sink(ep, ch0, 16, c - ch0);
  const std::int8_t* w = pl.wq + b * kEntry;
  const std::int64_t wrow = pl.nb * kEntry, wshift = g.kh * pl.nb * kEntry;
  Vec wr[2][KH][2], cr[2];
  typename V::Mask m[2];
#pragma GCC unroll 4
  for (int s = 0; s < 2; ++s)
#pragma GCC unroll 8
    for (int i = 0; i < KH; ++i)
#pragma GCC unroll 2
      for (int kk = 0; kk < 2; ++kk) wr[s][i][kk] = V::load(w + s * wshift + i * wrow + kk * 64);
#pragma GCC unroll 2
  for (int kk = 0; kk < 2; ++kk) {
    cr[kk] = sink.init(kk, V::loadu(pl.corr + ch0 + 16 * kk));
    m[kk] = V::mask(16);
  }
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(pl.flip));
  const __m512i idx_lo = _mm512_load_si512(kPairIdx.b[0]), idx_hi = _mm512_load_si512(kPairIdx.b[1]);
  __m512i carry[kSrc];
#pragma GCC unroll 8
  for (int sr = 0; sr < kSrc; ++sr) carry[sr] = pair_columns<true, kC32>(rows[sr], v0, g.w, c, flip, pl.pad_u);
  auto body = [&](std::int64_t j, auto edge) __attribute__((always_inline)) {
    constexpr bool kEdge = decltype(edge)::value;
    Vec acc[ROWS][2][2];
#pragma GCC unroll 4
    for (int row = 0; row < ROWS; ++row)
#pragma GCC unroll 2
      for (int px = 0; px < 2; ++px)
#pragma GCC unroll 2
        for (int kk = 0; kk < 2; ++kk) acc[row][px][kk] = cr[kk];
#pragma GCC unroll 8
    for (int sr = 0; sr < kSrc; ++sr) {
      const __m512i nx = pair_columns<kEdge, kC32>(rows[sr], v0 + 2 * j + 2, g.w, c, flip, pl.pad_u);
      const Vec e[2] = {_mm512_permutex2var_epi8(carry[sr], idx_lo, nx), _mm512_permutex2var_epi8(carry[sr], idx_hi, nx)};
      carry[sr] = nx;
#pragma GCC unroll 2
      for (int kk = 0; kk < 2; ++kk) accumulate_source_row<V, KH, ROWS, 2>(acc, e[kk], wr, sr, kk);
    }
    store_pair_rows<kPack != kSink && std::is_same_v<T, std::uint8_t>, ROWS, 2, 2, kForm>(sink, y, yrow, j, c, nq, 0, acc,
                                                                                         m);
  };
  for (std::int64_t j = 0; 2 * j < nq; ++j) {
    const std::int64_t v = v0 + 2 * j + 2;  // the new pair's first column
    if (v >= 0 && v + 1 < g.w) body(j, std::false_type{});
    else body(j, std::true_type{});
  }
}

template <class T>
using DirectFn = void (*)(const Plan&, const std::uint8_t* const*, std::int64_t, T*, std::int64_t, const FusedRequantView*);

template <class V, class T, int KH, int kPack, int kForm>
DirectFn<T> direct_rows(int rows, bool c32) {
  if (c32) return rows == 1 ? strip_direct<V, KH, 1, T, true, kPack, kForm> : strip_direct<V, KH, 2, T, true, kPack, kForm>;
  return rows == 1 ? strip_direct<V, KH, 1, T, false, kPack, kForm> : strip_direct<V, KH, 2, T, false, kPack, kForm>;
}
// kPack: the byte epilogue (PackKind), a pair pack's in form kForm (its kRuntime, kS8Full, kU8Full).
template <class V, class T, int kPack, int kForm = 0>
DirectFn<T> direct_fn(std::int64_t kh, int rows, bool c32) {
  switch (kh) {
    case 1: return direct_rows<V, T, 1, kPack, kForm>(rows, c32);
    case 2: return direct_rows<V, T, 2, kPack, kForm>(rows, c32);
    case 3: return direct_rows<V, T, 3, kPack, kForm>(rows, c32);
    case 4: return direct_rows<V, T, 4, kPack, kForm>(rows, c32);
    default: return nullptr;
  }
}

// A pair pack's strip in its form (the forms' values are PairPack's and ShiftPack's alike).
template <class V, class T, int kPack>
DirectFn<T> pack_fn(int form, std::int64_t kh, int rows, bool c32) {
  using P = typename V::PairPack;
  static_assert(V::ShiftPack::kS8Full == P::kS8Full && V::ShiftPack::kU8Full == P::kU8Full);
  if (form == P::kS8Full) return direct_fn<V, T, kPack, P::kS8Full>(kh, rows, c32);
  if (form == P::kU8Full) return direct_fn<V, T, kPack, P::kU8Full>(kh, rows, c32);
  return direct_fn<V, T, kPack>(kh, rows, c32);
}

// The whole convolution with the direct strips (the caller checked the layout's conditions):
// two output rows per call (one for an odd last row), every block of channels; a padding row is a
// row of bytes that flip to p_u, so the strips never test for one.
template <class V, class T>
void depthwise_direct(const Plan& pl, const DepthwiseArgs& a, T* y) {
  const ConvGeom& g = *pl.g;
  const std::int64_t c = pl.c;
  int pack = kSink, form = 0;  // the pair pack that implements the epilogue, and its form
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (V::PairPack::applies(*a.ep)) {
      pack = kFloatPack, form = V::PairPack::form(*a.ep);
    } else if (V::ShiftPack::applies(*a.ep)) {
      pack = kShiftPack, form = V::ShiftPack::form(*a.ep);
    }
  }
  thread_local LocalVector<std::uint8_t> pad_row;
  pad_row.assign(static_cast<std::size_t>(g.w * c), static_cast<std::uint8_t>(pl.pad_u ^ pl.flip));
  const std::uint8_t* rb[5];  // kh + 1 <= 5 source rows
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t p = 0; p < pl.oh;) {
      const int rows = static_cast<int>(std::min<std::int64_t>(2, pl.oh - p));
      DirectFn<T> fn = direct_fn<V, T, kSink>(g.kh, rows, c == kCb);
      if constexpr (std::is_same_v<T, std::uint8_t>) {
        if (pack != kSink) fn = pack == kFloatPack ? pack_fn<V, T, kFloatPack>(form, g.kh, rows, c == kCb)
                                                   : pack_fn<V, T, kShiftPack>(form, g.kh, rows, c == kCb);
      }
      const std::int64_t ns = g.kh + rows - 1;
      for (std::int64_t b = 0; b < pl.nb; ++b) {
        for (std::int64_t i = 0; i < ns; ++i) {
          const std::int64_t hh = p + i - g.ph;  // stride 1, no dilation: padded row p + i
          rb[i] = hh >= 0 && hh < g.h ? a.x + ((n * g.h + hh) * g.w) * c + b * kCb : pad_row.data();
        }
        fn(pl, rb, b, y + (n * pl.oh + p) * pl.ow * c + b * kCb, pl.ow * c, a.ep);
      }
      p += rows;
    }
}

}  // namespace
}  // namespace qspec::simd::avx2
