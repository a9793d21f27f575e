// Wide convolution and fully connected shapes for the MRT, TVM and Glow vector families, and wide
// pooling shapes for the qlinear pooling families.
//
// Those families' small draws stay inside one block of every optimized kernel that runs their
// 8-bit operands (the avx2 backend's im2col + GEMM engines: 16-column panels, a GEMV for one row,
// 64-pixel im2col tiles; its depthwise kernels: 32-channel blocks). These shapes cross each boundary
// once, as the qlinear files' wide draws (vectors/gen/src/ops_qlinear.cc), and stay small (the
// vector files' size): tens of channels, one to three output rows.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qspec/vecgen.h"

namespace qspec::vecgen::wide {

// The note of the flag "wide" in these families (a function: families register during static
// initialization, before another file's globals are sure to be initialized).
std::pair<std::string, std::string> note();

// Wide draws per file: each convolution kind once.
constexpr int kDraws = 4;

// One convolution, batch 1, symmetric pads: variant % 4 is 0 groups 1 and 1x1 (5-16 input
// channels), 1 groups 1 and 3x3 (5-10), both with 33-70 output channels; 2 depthwise with 17-70
// channels (a multiplier 2 sometimes, kernel width 5 sometimes); 3 grouped, 17-20 outputs per group.
// 1-3 output rows of 15-31 columns; strides and dilations 1 or 2. Pads: ph, pw top and left, pb, pr
// bottom and right (equal to ph, pw here).
struct Conv {
  std::int64_t C, H, W, O, kh, kw, groups, sh, sw, dh, dw, ph, pw, pb, pr;
};
Conv draw_conv(Rng& r, int variant);

// The draw after the kDraws above in the convolution families whose backends' convolution yields
// the accumulator (MRT's conv2d, channel-wise and expansions, TVM's qnn.conv2d, Glow's Convolution:
// the avx2 backend's depthwise kernel with int32 results): a MobileNet depthwise layer inside the
// conditions of that kernel's direct strips (depthwise_direct_vbmi.h), which kind 2's 17-70
// channels and random strides hardly ever meet. 32 or 64 channels, multiplier 1, a kh x 3 kernel
// (kh 3, sometimes 1 or 2), stride and dilation 1, pads 1 all round or 0 / 1 per side (symmetric:
// bottom = top, right = left), 2-3 output rows (one call of the two-row strip, or that and the
// one-row strip), 15-31 columns: even where there is a right pad (the last column pair's second
// output then reads that pad through input column W: the strips' edge case), else odd. The caller draws
// weights whose difference from their zero point fits int8 (the strips' VPDPBUSD operand).
Conv draw_direct_depthwise(Rng& r, bool symmetric);
// The variant number of that draw in the families' loops (after the kDraws others).
constexpr int kDirectDepthwise = kDraws;

// The weights' code range [lo, hi] of a draw, narrowed for the direct depthwise layer (direct) to
// [zw - 128, zw + 127], where every w - zw fits int8.
std::pair<std::int64_t, std::int64_t> weight_range(bool direct, std::int64_t lo, std::int64_t hi, std::int64_t zw);

// One fully connected layer: one row (the GEMV) for even variants, else 2-12; K 25-120; 17-70 outputs.
struct Fc {
  std::int64_t rows, k, outputs;
};
Fc draw_fc(Rng& r, int variant);

// The smallest e with 2^e >= 137 sqrt(k): an accumulator of k products of codes near their zero
// points (typically 74^2 sqrt(k) in magnitude, uniform 8-bit codes) divided by 2^e is about 40
// output steps, so that an output scale of 2^e times the accumulator's scale saturates few outputs.
int output_exponent(std::int64_t k);

// ---- pooling: the avx2 backend's average-pooling kernels (one int32 lane per channel, NHWC) run
// 8 (ymm) / 16 (zmm) channels per block, two blocks per step, then whole blocks and a partial one;
// the qlinear pooling families' small draws (1-4 channels, 16 in a few hand cases) stay in the tail.

// The note of the flag "wide" in the qlinear pooling families.
std::pair<std::string, std::string> pool_note();

// Wide pooling draws per file: each channel class once.
constexpr int kPoolDraws = 5;

// One pooling window over a small NHWC image (N 1-2, 1-2 output rows, 1-3 output columns): variant
// % 5 picks the channels, 17-31 (ymm: one step and tails; zmm: a whole block and a partial one),
// 33-47 (zmm: one step and a partial block), 49-63 (zmm: a step, a whole and a partial block),
// 65-70 (zmm: two steps; ymm: four) or a multiple of 8 in 24-56 (no partial block); and the pads,
// none (variant 0), 1 on every side (1) or 1 on each side at random (else), 0 beside a kernel
// dimension of 1 (a pad below the kernel: ONNX Runtime's, TOSA's and oneDNN's exclude-padding
// rule). symmetric: top = bottom, left = right (PyTorch's one padding per dimension). Kernels
// KH 1-3 by KW 2-3 (KH KW > 1: XNNPACK's rule), strides 1-2; a pad is at most half its kernel.
struct Pool {
  std::int64_t N, H, W, C, kh, kw, sh, sw;
  std::array<std::int64_t, 4> pads;  // top, left, bottom, right
};
Pool draw_pool(Rng& r, int variant, bool symmetric);

// The wide draws of a family whose builder checks validity itself: add(draw(variant)) for each of the
// kPoolDraws variants, drawing again while !valid (the reference rejects it); `what` names the family
// in the error after 200 attempts.
template <class Draw, class Valid, class Add>
void add_pool_draws(const std::string& what, const Draw& draw, const Valid& valid, const Add& add) {
  for (int variant = 0; variant < kPoolDraws; ++variant)
    for (int attempt = 0;; ++attempt) {
      const auto pr = draw(variant);
      if (valid(pr)) {
        add(pr);
        break;
      }
      if (attempt > 200) throw std::logic_error(what + ": cannot draw a valid wide problem");
    }
}

}  // namespace qspec::vecgen::wide
