// Wide convolution, fully connected and pooling shapes (qspec/vecgen/wide_shapes.h).
#include "qspec/vecgen/wide_shapes.h"

#include <algorithm>

namespace qspec::vecgen::wide {

std::pair<std::string, std::string> note() {
  return {
      "wide",
      "shapes that fill the optimized kernels' blocks: convolutions of groups 1 with 33-70 output channels and 15-31 "
      "output columns (up to 93 output pixels), depthwise with 17-70 channels, grouped with 17-20 output channels per "
      "group; fully connected with 17-70 outputs, K 25-120 and one row (GEMV) or 2-12"};
}

namespace {
// The input extent of one axis that gives `out` outputs (at least 1).
std::int64_t input_extent(std::int64_t out, std::int64_t k, std::int64_t d, std::int64_t s, std::int64_t pads) {
  return std::max<std::int64_t>(1, (out - 1) * s + d * (k - 1) + 1 - pads);
}
}  // namespace

Conv draw_conv(Rng& r, int variant) {
  const int kind = variant % 4;
  Conv c{};
  c.groups = 1;
  if (kind <= 1) {
    c.kh = c.kw = kind == 0 ? 1 : 3;
    c.C = kind == 0 ? r.uniform(5, 16) : r.uniform(5, 10), c.O = r.uniform(33, 70);
  } else if (kind == 2) {
    c.kh = r.uniform(1, 3), c.kw = r.uniform(0, 3) == 0 ? 5 : 3;
    c.C = r.uniform(17, 70), c.groups = c.C, c.O = c.C * (r.uniform(0, 3) == 0 ? 2 : 1);
  } else {
    c.kh = c.kw = r.coin() ? 1 : 3;
    c.groups = r.uniform(2, 3), c.C = c.groups * r.uniform(3, 8), c.O = c.groups * r.uniform(17, 20);
  }
  c.dh = r.uniform(0, 5) == 0 ? 2 : 1, c.dw = r.uniform(0, 5) == 0 ? 2 : 1;
  c.sh = r.uniform(0, 2) == 0 ? 2 : 1, c.sw = r.uniform(0, 2) == 0 ? 2 : 1;
  c.ph = c.kh == 1 || r.uniform(0, 2) == 0 ? 0 : 1, c.pw = c.kw == 1 || r.uniform(0, 2) == 0 ? 0 : 1;
  c.pb = c.ph, c.pr = c.pw;
  const std::int64_t oh = r.uniform(1, 3), ow = r.uniform(15, 31);
  c.H = input_extent(oh, c.kh, c.dh, c.sh, 2 * c.ph);
  c.W = input_extent(ow, c.kw, c.dw, c.sw, 2 * c.pw);
  return c;
}

Conv draw_direct_depthwise(Rng& r, bool symmetric) {
  Conv c{};
  c.C = r.coin() ? 32 : 64;
  c.O = c.groups = c.C;
  c.kh = r.uniform(0, 3) == 0 ? r.uniform(1, 2) : 3;
  c.kw = 3;
  c.sh = c.sw = c.dh = c.dw = 1;
  const bool all_ones = r.coin();
  std::array<std::int64_t, 4> p{};  // top, left, bottom, right
  for (auto& v : p) v = all_ones ? 1 : r.uniform(0, 1);
  if (symmetric) p[2] = p[0], p[3] = p[1];
  c.ph = p[0], c.pw = p[1], c.pb = p[2], c.pr = p[3];
  // With a right pad an even width: the last column pair's second output reads the pad through
  // input column W (the strips' pair_columns at v + 1 == W); without one an odd width (the last
  // pair's second output not stored), so that the few draws hold both.
  const std::int64_t oh = r.uniform(2, 3), ow = c.pr == 1 ? 2 * r.uniform(8, 15) : 2 * r.uniform(7, 15) + 1;
  c.H = input_extent(oh, c.kh, 1, 1, c.ph + c.pb);
  c.W = input_extent(ow, c.kw, 1, 1, c.pw + c.pr);
  return c;
}

std::pair<std::int64_t, std::int64_t> weight_range(bool direct, std::int64_t lo, std::int64_t hi, std::int64_t zw) {
  if (!direct) return {lo, hi};
  return {std::max(lo, zw - 128), std::min(hi, zw + 127)};
}

Fc draw_fc(Rng& r, int variant) {
  Fc f{};
  f.rows = variant % 2 == 0 ? 1 : r.uniform(2, 12);
  f.k = r.uniform(25, 120);
  f.outputs = r.uniform(17, 70);
  return f;
}

int output_exponent(std::int64_t k) {
  int e = 0;
  while ((std::int64_t{1} << (2 * e)) < 18769 * k) ++e;  // 137^2 = 18769
  return e;
}

std::pair<std::string, std::string> pool_note() {
  return {"wide",
          "17-70 channels (the optimized kernels' 8- and 16-channel blocks, their two-block steps and every tail) "
          "over a small image, outputs mostly unsaturated (no fused clamp)"};
}

Pool draw_pool(Rng& r, int variant, bool symmetric) {
  Pool p{};
  switch (variant % kPoolDraws) {
    case 0: p.C = r.uniform(17, 31); break;
    case 1: p.C = r.uniform(33, 47); break;
    case 2: p.C = r.uniform(49, 63); break;
    case 3: p.C = r.uniform(65, 70); break;
    default: p.C = 8 * r.uniform(3, 7); break;
  }
  p.N = r.uniform(0, 3) == 0 ? 2 : 1;
  p.kh = r.uniform(1, 3), p.kw = r.uniform(2, 3);
  p.sh = r.uniform(1, 2), p.sw = r.uniform(1, 2);
  for (std::size_t i = 0; i < 4; ++i) {
    const bool pad = variant % kPoolDraws == 1 || (variant % kPoolDraws > 1 && r.coin());
    p.pads[i] = pad && (i % 2 == 0 ? p.kh : p.kw) > 1 ? 1 : 0;
  }
  if (symmetric) p.pads[2] = p.pads[0], p.pads[3] = p.pads[1];
  const std::int64_t oh = r.uniform(1, 2), ow = r.uniform(1, 3);
  p.H = input_extent(oh, p.kh, 1, p.sh, p.pads[0] + p.pads[2]);
  p.W = input_extent(ow, p.kw, 1, p.sw, p.pads[1] + p.pads[3]);
  return p;
}

}  // namespace qspec::vecgen::wide
