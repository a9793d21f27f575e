// Quantized conv2d on NHWC bytes: weight packing, im2col tiles through qgemm_u8 (or its fused
// requantizing form), direct depthwise, and the ISA's direct convolution where the kernel set has one.
#include "qspec/simd/conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "qspec/simd/backend_core.h"

namespace qspec::simd {

void depthwise_scalar(const DepthwiseArgs& a) {
  const ConvGeom& g = *a.g;
  const std::int64_t oh = g.oh(), ow = g.ow(), c = g.c;
  auto xs = [&](std::int64_t i) -> std::int32_t {
    return static_cast<std::int32_t>(
        (a.x_signed ? std::int64_t{static_cast<std::int8_t>(a.x[i])} : std::int64_t{a.x[i]}) - a.za);
  };
  const auto ps = static_cast<std::int32_t>(a.pad - a.za);
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t p = 0; p < oh; ++p)
      for (std::int64_t q = 0; q < ow; ++q) {
        std::int32_t* yp = a.y + ((n * oh + p) * ow + q) * c;
        for (std::int64_t ch = 0; ch < c; ++ch) yp[ch] = 0;
        for (std::int64_t i = 0; i < g.kh; ++i)
          for (std::int64_t j = 0; j < g.kw; ++j) {
            const std::int64_t h = p * g.sh + i * g.dh - g.ph, v = q * g.sw + j * g.dw - g.pw;
            const bool inside = h >= 0 && h < g.h && v >= 0 && v < g.w;
            const std::int64_t base = ((n * g.h + h) * g.w + v) * c;
            const std::int16_t* wp = a.w16 + (i * g.kw + j) * c;
            for (std::int64_t ch = 0; ch < c; ++ch) yp[ch] += (inside ? xs(base + ch) : ps) * wp[ch];
          }
      }
}

QConvWeights pack_conv_weights(const KernelSet& k, const ConvGeom& g, const void* w_oihw, bool w_unsigned,
                               std::int64_t zw, std::int64_t za, std::int64_t pad) {
  QConvWeights q;
  q.g = g;
  q.zw = zw;
  const auto* w = static_cast<const std::uint8_t*>(w_oihw);
  auto wval = [&](std::int64_t idx) -> std::int64_t {
    return w_unsigned ? std::int64_t{w[idx]} : std::int64_t{static_cast<std::int8_t>(w[idx])};
  };
  const std::int64_t cg = g.c / g.groups, og = g.o / g.groups, taps = g.kh * g.kw;
  if (g.groups == g.c && g.o == g.c) {
    // Depthwise with multiplier 1: the direct kernel, if every product and sum stays in int32.
    std::int64_t amax = std::max({std::abs(-128 - za), std::abs(255 - za), std::abs(pad - za)}), wmax = 0;
    for (std::int64_t i = 0; i < g.o * taps; ++i) wmax = std::max(wmax, std::abs(wval(i) - zw));
    if (amax <= 32767 && wmax <= 32767 && taps * amax * wmax < (std::int64_t{1} << 31)) {
      q.depthwise = true;
      q.w16.resize(static_cast<std::size_t>(taps * g.c));
      for (std::int64_t ch = 0; ch < g.c; ++ch)
        for (std::int64_t t = 0; t < taps; ++t)
          q.w16[static_cast<std::size_t>(t * g.c + ch)] = static_cast<std::int16_t>(wval(ch * taps + t) - zw);
      return q;
    }
  }
  // GEMM path: group gi's weights as og rows of k = taps * cg bytes in (kh, kw, cg) order.
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(std::max<std::int64_t>(og * taps * cg, 1)));
  for (std::int64_t gi = 0; gi < g.groups; ++gi) {
    for (std::int64_t oo = 0; oo < og; ++oo)
      for (std::int64_t ci = 0; ci < cg; ++ci)
        for (std::int64_t t = 0; t < taps; ++t)
          rows[static_cast<std::size_t>((oo * taps + t) * cg + ci)] = w[((gi * og + oo) * cg + ci) * taps + t];
    q.per_group.push_back(pack_weights(*k.gemm, og, taps * cg, rows.data(), w_unsigned, taps * cg));
  }
  if (g.groups == 1 && k.direct_conv != nullptr && k.direct_conv->supports(g)) {
    // The same rows as W_s (uint8 weights - 128: the byte XOR 0x80), in the direct kernel's layout.
    std::vector<std::int8_t> ws(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) ws[i] = static_cast<std::int8_t>(rows[i] ^ (w_unsigned ? 0x80 : 0));
    k.direct_conv->pack(g, ws.data(), q.direct);
  }
  return q;
}

namespace {

// n bytes in 16-byte fixed-size copies (inlined as vector moves: the im2col rows are thousands of
// short copies, and a library memcpy call per tap costs as much as the copy).
inline void copy_bytes(std::uint8_t* dst, const std::uint8_t* src, std::int64_t n) {
  std::int64_t t = 0;
  for (; t + 16 <= n; t += 16) std::memcpy(dst + t, src + t, 16);
  if (t < n) std::memcpy(dst + t, src + t, static_cast<std::size_t>(n - t));
}

// Out = std::uint8_t: the bytes of the fused epilogue ep, in the kernel's stores.
template <class Out>
void depthwise_path(const KernelSet& k, const QConvWeights& w, const std::uint8_t* x, bool x_signed, std::int64_t za,
                    std::int64_t pad, Out* y, const FusedRequant* ep = nullptr) {
  const ConvGeom& g = w.g;
  if constexpr (std::is_same_v<Out, std::uint8_t>) {
    const FusedRequantView view = ep->view();
    k.depthwise(DepthwiseArgs{&g, x, x_signed, za, pad, w.w16.data(), nullptr, y, &view});
  } else if constexpr (sizeof(Out) == 4) {
    k.depthwise(DepthwiseArgs{&g, x, x_signed, za, pad, w.w16.data(), y});
  } else {
    thread_local std::vector<std::int32_t> y32;
    const std::int64_t outs = g.n * g.oh() * g.ow() * g.c;
    y32.resize(static_cast<std::size_t>(std::max<std::int64_t>(outs, 1)));
    k.depthwise(DepthwiseArgs{&g, x, x_signed, za, pad, w.w16.data(), y32.data()});
    for (std::int64_t i = 0; i < outs; ++i) y[i] = y32[static_cast<std::size_t>(i)];
  }
}

// The ISA's direct convolution (int32 or int64 outputs, or with Out = std::uint8_t the bytes of the
// fused epilogue ep; w.direct packed by pack_conv_weights).
template <class Out>
void direct_path(const KernelSet& k, const QConvWeights& w, const std::uint8_t* x, bool x_signed, std::int64_t za,
                 std::int64_t pad, Out* y, const FusedRequant* ep = nullptr) {
  const ConvGeom& g = w.g;
  const QWeights& qw = w.per_group[0];
  const std::uint8_t flip = x_signed ? 0x80 : 0x00;
  DirectConvArgs a{&g,
                   &w.direct,
                   qw.col_sums.data(),
                   x,
                   flip,
                   static_cast<std::uint8_t>(static_cast<std::uint8_t>(pad) ^ flip),
                   za + (x_signed ? 128 : 0),
                   w.zw - qw.w_offset,
                   nullptr,
                   nullptr,
                   nullptr,
                   nullptr};
  const FusedRequantView view = ep != nullptr ? ep->view() : FusedRequantView{};
  if constexpr (std::is_same_v<Out, std::uint8_t>) {
    a.y8 = y;
    a.ep = &view;
  } else if constexpr (sizeof(Out) == 4) {
    a.y32 = y;
  } else {
    a.y64 = y;
  }
  k.direct_conv->run(a);
}

// The im2col GEMM path; Out = std::uint8_t: the bytes of the fused epilogue ep.
template <class Out>
void gemm_path(const KernelSet& k, const QConvWeights& w, const std::uint8_t* x, bool x_signed, std::int64_t za,
               std::int64_t pad, Out* y, const FusedRequant* ep) {
  const ConvGeom& g = w.g;
  const std::int64_t oh = g.oh(), ow = g.ow(), cg = g.c / g.groups, og = g.o / g.groups;
  const std::int64_t taps = g.kh * g.kw, kk = taps * cg;
  const std::uint8_t flip = x_signed ? 0x80 : 0x00;  // int8 -> u8: + 128
  const std::int64_t za_u = za + (x_signed ? 128 : 0);
  const auto pad_raw = static_cast<std::uint8_t>(pad);  // pad is in x's range (the caller checks)
  // The input itself is the im2col matrix only without any padding (bottom / right included).
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.ph2 <= 0 &&
                         g.pw2 <= 0 && g.groups == 1 && !x_signed;
  constexpr std::int64_t kTile = 64;  // output pixels per im2col tile
  thread_local std::vector<std::uint8_t> col, xu;
  thread_local std::vector<std::int64_t> sums, pixel_sums;
  col.resize(static_cast<std::size_t>(std::max<std::int64_t>(kTile * kk, 1)));
  sums.resize(kTile);
  // Not pointwise: the input flipped to u8 once (int8 -> u8: XOR 0x80), and each input pixel's
  // sum over the group's channels, so that an im2col row is plain copies and its row sum the sum of
  // its taps' pixel sums (kh * kw adds instead of a pass over kk bytes per row).
  const std::uint8_t* xs = x;
  const auto pad_u = static_cast<std::uint8_t>(pad_raw ^ flip);
  const std::int64_t pad_sum = cg * pad_u, pixels = g.h * g.w;
  if (!pointwise) {
    if (flip != 0) {
      xu.resize(static_cast<std::size_t>(std::max<std::int64_t>(g.n * pixels * g.c, 1)));
      xs = xu.data();
    }
    pixel_sums.resize(static_cast<std::size_t>(std::max<std::int64_t>(pixels, 1)));
  }
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t gi = 0; gi < g.groups; ++gi) {
      if (!pointwise) {  // the group's channels of every pixel flipped (if signed) and summed: one vector pass
        const std::int64_t off = n * pixels * g.c + gi * cg;
        k.gemm->prepare_a(pixels, cg, x + off, g.c, flip, flip != 0 ? xu.data() + off : nullptr, g.c,
                          pixel_sums.data());
      }
      for (std::int64_t p0 = 0; p0 < oh * ow; p0 += kTile) {
        const std::int64_t tp = std::min(kTile, oh * ow - p0);
        const std::uint8_t* a = col.data();
        std::int64_t lda = kk;
        if (pointwise) {
          a = x + (n * g.h * g.w + p0) * g.c;
          lda = g.c;
          k.gemm->prepare_a(tp, kk, a, lda, 0x00, nullptr, 0, sums.data());
        } else {
          for (std::int64_t r = 0; r < tp; ++r) {
            const std::int64_t p = (p0 + r) / ow, q = (p0 + r) % ow;
            std::uint8_t* dst = col.data() + r * kk;
            std::int64_t sum = 0;
            for (std::int64_t i = 0; i < g.kh; ++i) {
              const std::int64_t h = p * g.sh + i * g.dh - g.ph, v0 = q * g.sw - g.pw;
              const std::int64_t v_last = v0 + (g.kw - 1) * g.dw;
              if (h >= 0 && h < g.h && v0 >= 0 && v_last < g.w && (g.dw == 1 || g.groups == 1) && cg == g.c) {
                // Every tap of this kernel row inside: with dilation 1 and one group, the kw taps
                // are kw * c contiguous input bytes.
                const std::uint8_t* src = xs + ((n * g.h + h) * g.w + v0) * g.c;
                if (g.dw == 1) {
                  copy_bytes(dst, src, g.kw * cg);
                } else {
                  for (std::int64_t j = 0; j < g.kw; ++j) copy_bytes(dst + j * cg, src + j * g.dw * g.c, cg);
                }
                for (std::int64_t j = 0; j < g.kw; ++j)
                  sum += pixel_sums[static_cast<std::size_t>(h * g.w + v0 + j * g.dw)];
                dst += g.kw * cg;
                continue;
              }
              for (std::int64_t j = 0; j < g.kw; ++j, dst += cg) {
                const std::int64_t v = v0 + j * g.dw;
                if (h < 0 || h >= g.h || v < 0 || v >= g.w) {
                  std::memset(dst, pad_u, static_cast<std::size_t>(cg));
                  sum += pad_sum;
                } else {
                  copy_bytes(dst, xs + ((n * g.h + h) * g.w + v) * g.c + gi * cg, cg);
                  sum += pixel_sums[static_cast<std::size_t>(h * g.w + v)];
                }
              }
            }
            sums[static_cast<std::size_t>(r)] = sum;
          }
        }
        // The group's og output channels of these tp pixels, written in place (row stride o).
        const QWeights& wg = w.per_group[static_cast<std::size_t>(gi)];
        Out* yt = y + (n * oh * ow + p0) * g.o + gi * og;
        if constexpr (std::is_same_v<Out, std::uint8_t>) {
          qgemm_u8_requant(*k.gemm, tp, a, lda, sums.data(), za_u, wg, w.zw, ep->view(gi * og), yt, g.o);
        } else {
          qgemm_u8(*k.gemm, tp, a, lda, sums.data(), za_u, wg, w.zw, yt, g.o);
        }
      }
    }
}

}  // namespace

template <class Out>
void qconv2d_nhwc(const KernelSet& k, const QConvWeights& w, const void* x_nhwc, bool x_signed, std::int64_t za,
                  std::int64_t pad, Out* y) {
  const auto* x = static_cast<const std::uint8_t*>(x_nhwc);
  if (w.depthwise) return depthwise_path(k, w, x, x_signed, za, pad, y);
  if (w.direct.size() != 0 && k.direct_conv != nullptr) return direct_path(k, w, x, x_signed, za, pad, y);
  gemm_path(k, w, x, x_signed, za, pad, y, nullptr);
}

bool conv_fuses_requant(const KernelSet& k, const QConvWeights& w) { return !w.depthwise || k.depthwise_fuses_requant; }

void qconv2d_nhwc_requant(const KernelSet& k, const QConvWeights& w, const void* x_nhwc, bool x_signed, std::int64_t za,
                          std::int64_t pad, const FusedRequant& ep, std::uint8_t* y) {
  if (!conv_fuses_requant(k, w))
    throw std::logic_error("qconv2d_nhwc_requant: this kernel set's depthwise kernel has no fused epilogue");
  const auto* x = static_cast<const std::uint8_t*>(x_nhwc);
  if (w.depthwise) return depthwise_path(k, w, x, x_signed, za, pad, y, &ep);
  if (w.direct.size() != 0 && k.direct_conv != nullptr) return direct_path(k, w, x, x_signed, za, pad, y, &ep);
  gemm_path(k, w, x, x_signed, za, pad, y, &ep);
}

template void qconv2d_nhwc<std::int32_t>(const KernelSet&, const QConvWeights&, const void*, bool, std::int64_t,
                                         std::int64_t, std::int32_t*);
template void qconv2d_nhwc<std::int64_t>(const KernelSet&, const QConvWeights&, const void*, bool, std::int64_t,
                                         std::int64_t, std::int64_t*);

}  // namespace qspec::simd
