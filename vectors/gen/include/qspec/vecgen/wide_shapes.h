// Wide convolution and fully connected shapes for the MRT, TVM and Glow vector families.
//
// Those families' small draws stay inside one block of every optimized kernel that runs their
// 8-bit operands (the avx2 backend's im2col + GEMM engines: 16-column panels, a GEMV for one row,
// 64-pixel im2col tiles; its depthwise kernels: 32-channel blocks). These shapes cross each boundary
// once, as the qlinear files' wide draws (vectors/gen/src/ops_qlinear.cc), and stay small (the
// vector files' size): tens of channels, one to three output rows.
#pragma once

#include <cstdint>
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
// 1-3 output rows of 15-31 columns; strides and dilations 1 or 2.
struct Conv {
  std::int64_t C, H, W, O, kh, kw, groups, sh, sw, dh, dw, ph, pw;
};
Conv draw_conv(Rng& r, int variant);

// One fully connected layer: one row (the GEMV) for even variants, else 2-12; K 25-120; 17-70 outputs.
struct Fc {
  std::int64_t rows, k, outputs;
};
Fc draw_fc(Rng& r, int variant);

// The smallest e with 2^e >= 137 sqrt(k): an accumulator of k products of codes near their zero
// points (typically 74^2 sqrt(k) in magnitude, uniform 8-bit codes) divided by 2^e is about 40
// output steps, so that an output scale of 2^e times the accumulator's scale saturates few outputs.
int output_exponent(std::int64_t k);

}  // namespace qspec::vecgen::wide
