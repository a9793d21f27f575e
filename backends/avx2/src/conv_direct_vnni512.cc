// Direct (implicit-GEMM) conv2d on NHWC bytes with VPDPBUSD on zmm registers (AVX512F + BW + VNNI).
//
// The blocking of oneDNN's jit_avx512_core_x8s8s32x_fwd_kernel: a zmm holds 16 output channels of
// one output pixel, kNb blocks of 16 channels side by side and kUr consecutive output pixels of one
// output row make kNb * kUr accumulators; for each tap and group of 4 input channels the kernel
// loads kNb weight vectors ([16 oc][4 ic] bytes each) and broadcasts each pixel's 4 input bytes
// (VPBROADCASTD) into kNb VPDPBUSD. The window is read from the input rows themselves: no im2col
// buffer. The input is read in place when it is uint8 without padding; otherwise it is copied once,
// XOR 0x80 for int8 (the engine's u8 operand) and surrounded by the padding byte, so that the kernel
// never branches on borders. The zero-point corrections are qgemm_u8's, fused into the store, and so
// is, for byte outputs, the qlinear operators' requantization (epilogue_vnni512.h, the GEMM engine's
// text): each channel block's parameters loaded once, applied to every pixel's accumulators.
// GCC 12 reports its own _mm*_undefined_* placeholders as (maybe-)uninitialized once inlined
// (bug 105593, as gemm_vnni512.cc).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "epilogue_vnni512.h"
#include "local_vector.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

constexpr int kLanes = 16;  // int32 output channels per zmm
// 2 blocks of 16 output channels x 14 output pixels: 28 accumulators, 2 weight loads and 14
// broadcasts per 28 VPDPBUSD, and one block's weights (kh*kw*c*32 bytes: 18 KB for 3x3x64) stay in
// L1 while it walks the whole image. (4 x 7 halves the broadcasts but streams 36 KB of weights
// through L1 on every block; measured slower here.)
constexpr int kNb = 2;
constexpr int kUr = 14;
constexpr int kBlock = kNb * kLanes;
static_assert(kLanes == kEpilogueLanes && kNb == 2);  // two Epilogue16 per channel block

using U = std::uint64_t;

inline __m512i bcast4(const std::uint8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// The geometry of one run in the (possibly padded) source image.
struct Walk {
  std::int64_t c4;         // groups of 4 input channels
  std::int64_t row_bytes;  // bytes per source row
  std::int64_t tap_row;    // bytes between kernel rows (dh rows)
  std::int64_t tap_col;    // bytes between kernel columns (dw pixels)
  std::int64_t pix_step;   // bytes between consecutive output pixels (sw pixels)
  std::int64_t kh, kw;
};

// The corrections of one output row: row_add (int32) or row64 per pixel, col32 / col64 per channel;
// for byte outputs the requantization of the channel block's two 16-channel groups.
// For int32 and byte outputs the accumulators start from col32 (every term constant along a
// column folded into it), so that the store adds at most the row term: the epilogue is the
// bound of a 1x1 convolution, where a third of the operations are there.
struct Epilogue {
  const std::int32_t* row32;  // null when the row term is constant (then inside col32)
  const U* row64;
  const std::int32_t* col32;  // padded with zeros to a multiple of kBlock
  const std::int64_t* col_sums;
  U za;
  const Epilogue16* ep;  // [kNb], byte outputs only
  bool bias_in_acc;      // byte outputs: ep's int32 bias is inside col32 too
};

// UR output pixels x kNb*16 output channels (ncols of them real) starting at source byte `in`.
template <int UR, class Out>
void block(const Walk& k, const std::uint8_t* in, const std::int8_t* wb, Out* y, std::int64_t ldy, int ncols,
           std::int64_t j0, std::int64_t q0, const Epilogue& e) {
  constexpr bool kInt64 = sizeof(Out) > 4;  // qgemm_u8's formula on the bare dot products
  __m512i ct[kNb], acc[UR][kNb];
#pragma GCC unroll 4
  for (int q = 0; q < kNb; ++q)
    ct[q] = kInt64 ? _mm512_setzero_si512() : _mm512_loadu_si512(e.col32 + j0 + q * kLanes);
#pragma GCC unroll 16
  for (int u = 0; u < UR; ++u)
#pragma GCC unroll 4
    for (int q = 0; q < kNb; ++q) acc[u][q] = ct[q];
  for (std::int64_t i = 0; i < k.kh; ++i)
    for (std::int64_t j = 0; j < k.kw; ++j) {
      const std::uint8_t* a = in + i * k.tap_row + j * k.tap_col;
      for (std::int64_t c4 = 0; c4 < k.c4; ++c4, a += 4, wb += kNb * 64) {
        __m512i b[kNb];
#pragma GCC unroll 4
        for (int q = 0; q < kNb; ++q) b[q] = _mm512_load_si512(wb + q * 64);
        const std::uint8_t* pu = a;
#pragma GCC unroll 16
        for (int u = 0; u < UR; ++u, pu += k.pix_step) {
          const __m512i av = bcast4(pu);
#pragma GCC unroll 4
          for (int q = 0; q < kNb; ++q) acc[u][q] = _mm512_dpbusd_epi32(acc[u][q], av, b[q]);
        }
      }
    }
  if constexpr (!kInt64) {  // int32 results, stored or requantized to bytes
    // The row terms added to every accumulator before the first store: a pixel's row term read
    // between byte stores (which may alias it) cost 20% of a 1x1 convolution's time.
    if (e.row32 != nullptr) {
#pragma GCC unroll 16
      for (int u = 0; u < UR; ++u) {
        const __m512i rv = _mm512_set1_epi32(e.row32[q0 + u]);
#pragma GCC unroll 4
        for (int q = 0; q < kNb; ++q) acc[u][q] = _mm512_add_epi32(acc[u][q], rv);
      }
    }
#pragma GCC unroll 4
    for (int q = 0; q < kNb; ++q) {
      const int nc = ncols - q * kLanes;
      if (nc <= 0) break;
      if constexpr (std::is_same_v<Out, std::uint8_t>) {
        auto v = [&](int u) __attribute__((always_inline)) { return acc[u][q]; };
        if (e.bias_in_acc) {
          requant_rows<UR, true>(e.ep[q], nc, y + q * kLanes, ldy, v);
        } else {
          requant_rows<UR, false>(e.ep[q], nc, y + q * kLanes, ldy, v);
        }
      } else {
#pragma GCC unroll 16
        for (int u = 0; u < UR; ++u) {
          std::int32_t* dst = y + u * ldy + q * kLanes;
          if (nc >= kLanes) {
            _mm512_storeu_si512(dst, acc[u][q]);
          } else {
            _mm512_mask_storeu_epi32(dst, lanes(nc), acc[u][q]);
          }
        }
      }
    }
  } else {  // int64: qgemm_u8's exact formula on the int32 dot products
    alignas(64) std::int32_t dot[kBlock];
    for (int u = 0; u < UR; ++u) {
#pragma GCC unroll 4
      for (int q = 0; q < kNb; ++q) _mm512_store_si512(dot + q * kLanes, acc[u][q]);
      for (int t = 0; t < ncols; ++t)
        y[u * ldy + t] = static_cast<Out>(static_cast<U>(std::int64_t{dot[t]}) + e.row64[q0 + u] -
                                          e.za * static_cast<U>(e.col_sums[j0 + t]));
    }
  }
}

// One output row of one channel block: blocks of kUr pixels, the last one shifted back to end at
// ow (recomputing a few pixels) or, in rows shorter than kUr, the widest smaller block that fits.
template <class Out>
void output_row(const Walk& k, const std::uint8_t* in, const std::int8_t* wb, Out* y, std::int64_t ldy, std::int64_t ow,
                int ncols, std::int64_t j0, const Epilogue& e) {
  auto run = [&](auto kernel, std::int64_t ur) {
    for (std::int64_t q0 = 0; q0 < ow; q0 += ur) {
      const std::int64_t q = std::min(q0, ow - ur);
      kernel(k, in + q * k.pix_step, wb, y + q * ldy, ldy, ncols, j0, q, e);
    }
  };
  if (ow >= kUr) return run(block<kUr, Out>, kUr);
  if (ow >= 7) return run(block<7, Out>, 7);
  if (ow >= 4) return run(block<4, Out>, 4);
  if (ow >= 2) return run(block<2, Out>, 2);
  run(block<1, Out>, 1);
}

class DirectConvVnni512 final : public DirectConv {
 public:
  bool supports(const ConvGeom& g) const override {
    return g.groups == 1 && g.kh * g.kw * g.c <= kMaxExactK && g.oh() > 0 && g.ow() > 0;
  }

  // [o / 32][kh][kw][c / 4][2][16 oc][4 ic], zero-padded in o and c.
  void pack(const ConvGeom& g, const std::int8_t* w_s, AlignedBuffer& out) const override {
    const std::int64_t c4 = (g.c + 3) / 4, taps = g.kh * g.kw, blocks = (g.o + kBlock - 1) / kBlock, k = taps * g.c;
    const auto size = static_cast<std::size_t>(blocks * taps * c4 * kBlock * 4);
    out.resize(size);
    auto* d = reinterpret_cast<std::int8_t*>(out.data());
    std::memset(d, 0, size);
    for (std::int64_t oc = 0; oc < g.o; ++oc) {
      const std::int64_t ob = oc / kBlock, lane = oc % kBlock;
      for (std::int64_t t = 0; t < taps; ++t)
        for (std::int64_t ci = 0; ci < g.c; ++ci)
          d[(((ob * taps + t) * c4 + ci / 4) * kBlock + lane) * 4 + ci % 4] = w_s[oc * k + t * g.c + ci];
    }
  }

  void run(const DirectConvArgs& a) const override {
    if (a.y32 != nullptr) {
      run_impl(a, a.y32);
    } else if (a.y8 != nullptr) {
      run_impl(a, a.y8);
    } else {
      run_impl(a, a.y64);
    }
  }

 private:
  template <class Out>
  static void run_impl(const DirectConvArgs& a, Out* y) {
    const ConvGeom& g = *a.g;
    const std::int64_t oh = g.oh(), ow = g.ow(), c = g.c, taps = g.kh * g.kw, c4 = (c + 3) / 4;
    const std::int64_t blocks = (g.o + kBlock - 1) / kBlock;
    // The source rows and columns the windows reach, from the top-left padding corner.
    const std::int64_t hp = (oh - 1) * g.sh + (g.kh - 1) * g.dh + 1, wp = (ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
    const bool padded = g.ph > 0 || g.pw > 0 || hp > g.ph + g.h || wp > g.pw + g.w;
    const bool copy = a.flip != 0 || padded || c % 4 != 0;  // in place: uint8, no padding, 4-byte groups
    const std::int64_t width = copy ? wp : g.w;             // pixels per source row
    const bool need_rows = a.zw_s != 0;                     // rowsum(A_u) enters only through zw_s
    const U za = static_cast<U>(a.za_u), zw = static_cast<U>(a.zw_s);
    const U kzz = static_cast<U>(taps * c) * za * zw;

    thread_local AlignedBuffer src;
    thread_local LocalVector<std::int64_t> pix_sums;
    thread_local LocalVector<std::int32_t> col32, row32;
    thread_local LocalVector<U> row64;
    // The accumulators' start per column, modulo 2^32 as every int32 sum here: the column term,
    // the row term when it is the same for every pixel (no weight zero point), and the byte
    // output's int32 bias (the fused epilogue adds it first, and wrapping sums commute; oneDNN's
    // bias is added in binary32 and stays there).
    const bool bias_in_acc = std::is_same_v<Out, std::uint8_t> && !a.ep->float_bias;
    col32.assign(static_cast<std::size_t>(blocks * kBlock), 0);
    for (std::int64_t j = 0; j < g.o; ++j) {
      U start = U{0} - za * static_cast<U>(a.col_sums[j]);
      if (!need_rows) start += kzz;
      if (bias_in_acc) start += static_cast<U>(std::int64_t{a.ep->bias[j]});
      col32[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(start);
    }
    row32.assign(static_cast<std::size_t>(oh * ow), static_cast<std::int32_t>(kzz));
    row64.assign(static_cast<std::size_t>(oh * ow), kzz);
    if (copy) src.resize(static_cast<std::size_t>(hp * wp * c + 64));  // + 64: 4-byte reads past a c % 4 row
    if (need_rows) pix_sums.resize(static_cast<std::size_t>((copy ? hp * wp : g.h * g.w)));

    const Walk k{c4, width * c, g.dh * width * c, g.dw * c, g.sw * c, g.kh, g.kw};
    const auto* w = reinterpret_cast<const std::int8_t*>(a.w->data());
    for (std::int64_t n = 0; n < g.n; ++n) {
      const std::uint8_t* x = a.x + n * g.h * g.w * c;
      const std::uint8_t* s = x;
      if (copy) {  // the padded source: rows of wp pixels, the input XOR flip inside, pad_u around it
        std::uint8_t* d = src.data();
        const std::int64_t v_lo = std::min(g.pw, wp), v_hi = std::clamp(g.pw + g.w, v_lo, wp);
        const std::int64_t pad_sum = c * a.pad_u;
        for (std::int64_t r = 0; r < hp; ++r) {
          std::uint8_t* dr = d + r * wp * c;
          std::int64_t* sr = need_rows ? pix_sums.data() + r * wp : nullptr;
          const std::int64_t h = r - g.ph;
          const bool inside = h >= 0 && h < g.h;
          const std::int64_t lo = inside ? v_lo : wp, hi = inside ? v_hi : wp;
          std::memset(dr, a.pad_u, static_cast<std::size_t>(lo * c));
          std::memset(dr + hi * c, a.pad_u, static_cast<std::size_t>((wp - hi) * c));
          if (hi > lo) {  // per-pixel sums only when the corrections need them; else one run of bytes
            const std::uint8_t* xr = x + (h * g.w + lo - g.pw) * c;
            std::int64_t run_sum = 0;
            if (sr != nullptr) {
              prepare_a_avx2(hi - lo, c, xr, c, a.flip, dr + lo * c, c, sr + lo);
            } else {
              prepare_a_avx2(1, (hi - lo) * c, xr, (hi - lo) * c, a.flip, dr + lo * c, (hi - lo) * c, &run_sum);
            }
          }
          if (sr != nullptr) {
            std::fill(sr, sr + lo, pad_sum);
            std::fill(sr + hi, sr + wp, pad_sum);
          }
        }
        s = d;
      } else if (need_rows) {
        prepare_a_avx2(g.h * g.w, c, x, c, 0x00, nullptr, 0, pix_sums.data());
      }
      if (need_rows) {  // rowsum(A_u) of each window: the sums of its taps' pixels
        for (std::int64_t p = 0; p < oh; ++p)
          for (std::int64_t q = 0; q < ow; ++q) {
            U sum = 0;
            for (std::int64_t i = 0; i < g.kh; ++i)
              for (std::int64_t j = 0; j < g.kw; ++j)
                sum += static_cast<U>(
                    pix_sums[static_cast<std::size_t>((p * g.sh + i * g.dh) * width + q * g.sw + j * g.dw)]);
            const auto at = static_cast<std::size_t>(p * ow + q);
            row64[at] = kzz - zw * sum;
            row32[at] = static_cast<std::int32_t>(row64[at]);
          }
      }
      Out* yn = y + n * oh * ow * g.o;
      for (std::int64_t ob = 0; ob < blocks; ++ob) {
        const int ncols = static_cast<int>(std::min<std::int64_t>(kBlock, g.o - ob * kBlock));
        const std::int8_t* wb = w + ob * taps * c4 * kBlock * 4;
        auto rows = [&](const Epilogue16* ep) {
          for (std::int64_t p = 0; p < oh; ++p) {
            const Epilogue e{need_rows ? row32.data() + p * ow : nullptr,
                             row64.data() + p * ow,
                             col32.data(),
                             a.col_sums,
                             za,
                             ep,
                             bias_in_acc};
            output_row(k, s + p * g.sh * k.row_bytes, wb, yn + p * ow * g.o + ob * kBlock, g.o, ow, ncols, ob * kBlock,
                       e);
          }
        };
        if constexpr (std::is_same_v<Out, std::uint8_t>) {  // the block's requantization, loaded once
          // (A second group without channels loads nothing, from an address inside the arrays.)
          const std::int64_t j0 = ob * kBlock, j1 = ncols > kLanes ? j0 + kLanes : j0;
          const Epilogue16 ep[kNb] = {Epilogue16(*a.ep, j0, lanes(ncols)),
                                      Epilogue16(*a.ep, j1, lanes(ncols - kLanes))};
          rows(ep);
        } else {
          rows(nullptr);
        }
      }
    }
  }
};

}  // namespace

const DirectConv& direct_conv_vnni512() {
  static const DirectConvVnni512 d;
  return d;
}

}  // namespace qspec::simd::avx2
