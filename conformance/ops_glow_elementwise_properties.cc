// Properties of Glow's int8 Add, Max, Relu, AvgPool, the loader's fusions, rescale folding and the
// non-fused row-wise SLWS: the exact reference against Glow's Interpreter statements run on this
// machine's float32 (each intermediate in a volatile, so nothing is contracted), and relations
// between the operators.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/glow_elementwise.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

float fl(std::uint32_t b) { return std::bit_cast<float>(b); }

// A scale 2^e (1 + k 2^-3), short mantissas so exact ties occur.
GlowQParams draw_params(int emin, int emax) {
  const auto e = static_cast<std::uint32_t>(*rc::gen::inRange(emin, emax + 1) + 127);
  const auto k = static_cast<std::uint32_t>(*rc::gen::inRange(0, 8));
  return {(e << 23) | (k << 20), Int(*rc::gen::inRange(-128, 128))};
}
std::int64_t clip8(float v) {
  return std::min<std::int64_t>(127, std::max<std::int64_t>(-128, static_cast<std::int64_t>(v)));
}
std::int64_t code(const Int& v) { return static_cast<std::int64_t>(v); }

}  // namespace

RC_GTEST_PROP(glow_op_add, MatchesTheInterpreterOnTheHost, ()) {
  const GlowQParams lq = draw_params(-8, 0), rq = draw_params(-8, 0), out = draw_params(-7, 1);
  const IntArray l = draw_array({6}, -128, 127), r = draw_array({6}, -128, 127);
  const IntArray y = glow_add(l, lq, r, rq, out);
  const volatile float large = 1.0f / (1 << 15);
  for (std::size_t i = 0; i < 6; ++i) {
    const volatile float rl = fl(lq.scale) / large, rr = fl(rq.scale) / large, ro = large / fl(out.scale);
    const volatile float pl = static_cast<float>(code(l.data[i]) - code(lq.offset)) * rl;
    const volatile float pr = static_cast<float>(code(r.data[i]) - code(rq.offset)) * rr;
    const std::int32_t sum = static_cast<std::int32_t>(std::round(pl)) + static_cast<std::int32_t>(std::round(pr));
    const volatile float s = static_cast<float>(sum) * ro;
    const volatile float v = s + static_cast<float>(code(out.offset));
    RC_ASSERT(code(y.data[i]) == clip8(std::round(v)));
  }
}

// Max converts both sides to the output parameters; at equal parameters that is the identity, so
// the result is the plain integer max.
RC_GTEST_PROP(glow_op_max, EqualParametersGiveTheIntegerMax, ()) {
  const GlowQParams q = draw_params(-8, 0);
  const IntArray l = draw_array({8}, -128, 127), r = draw_array({8}, -128, 127);
  const IntArray y = glow_max(l, q, r, q, q);
  for (std::size_t i = 0; i < 8; ++i) RC_ASSERT(y.data[i] == std::max(l.data[i], r.data[i]));
}
RC_GTEST_PROP(glow_op_max, ConvertsBothSidesToTheOutput, ()) {
  const GlowQParams lq = draw_params(-8, 0), rq = draw_params(-8, 0), out = draw_params(-8, 0);
  const IntArray l = draw_array({6}, -128, 127), r = draw_array({6}, -128, 127);
  const IntArray y = glow_max(l, lq, r, rq, out);
  for (std::size_t i = 0; i < 6; ++i) {
    // quantize(dequantize(q)) on the host: scale * (q - offset), then q / scale + offset, nearbyint, clip.
    auto cv = [&](const Int& q, const GlowQParams& p) {
      const volatile float d = fl(p.scale) * static_cast<float>(code(q) - code(p.offset));
      const volatile float t = d / fl(out.scale);
      const volatile float u = t + static_cast<float>(code(out.offset));
      return clip8(std::nearbyint(u));
    };
    RC_ASSERT(code(y.data[i]) == std::max(cv(l.data[i], lq), cv(r.data[i], rq)));
  }
}

// Relu with equal parameters (the fused form) is max(x, offset); the real value is max(0, x).
RC_GTEST_PROP(glow_op_relu, EqualParametersIsMaxWithTheOffset, ()) {
  const GlowQParams q = draw_params(-8, 0);
  const IntArray x = draw_array({10}, -128, 127);
  const IntArray y = glow_relu(x, q, q);
  const Int z = std::min<Int>(Int(127), std::max<Int>(Int(-128), q.offset));
  for (std::size_t i = 0; i < 10; ++i) {
    RC_ASSERT(y.data[i] == std::max(x.data[i], z));
    // In real terms: (y - o) s = max(0, (x - o) s) whenever the offset is an int8 code.
    if (q.offset >= -128 && q.offset <= 127)
      RC_ASSERT(Rat(y.data[i] - q.offset) == std::max(Rat(0), Rat(x.data[i] - q.offset)));
  }
}

RC_GTEST_PROP(glow_op_avg_pool, MatchesTheInterpreterOnTheHost, ()) {
  const GlowQParams xq = draw_params(-8, 0), out = draw_params(-8, 0);
  GlowPoolAttrs a;
  a.kernel = {*rc::gen::inRange<std::int64_t>(1, 4), *rc::gen::inRange<std::int64_t>(1, 4)};
  a.stride = {*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3)};
  for (auto& p : a.pads) p = *rc::gen::inRange<std::int64_t>(0, 3);
  const bool include = *rc::gen::arbitrary<bool>();
  const std::int64_t h = std::max<std::int64_t>(1, a.kernel[0] - a.pads[0] - a.pads[2]) + *rc::gen::inRange(0, 3);
  const std::int64_t w = std::max<std::int64_t>(1, a.kernel[1] - a.pads[1] - a.pads[3]) + *rc::gen::inRange(0, 3);
  const IntArray x = draw_array({1, h, w, 2}, -128, 127);
  const IntArray y = glow_avg_pool(x, xq, out, a, include);
  for (std::int64_t oh = 0; oh < y.dim(1); ++oh)
    for (std::int64_t ow = 0; ow < y.dim(2); ++ow)
      for (std::int64_t c = 0; c < 2; ++c) {
        std::int32_t sum = 0;
        float area = static_cast<float>(a.kernel[0] * a.kernel[1]);
        for (std::int64_t i = 0; i < a.kernel[0]; ++i)
          for (std::int64_t j = 0; j < a.kernel[1]; ++j) {
            const std::int64_t hh = oh * a.stride[0] - a.pads[0] + i, ww = ow * a.stride[1] - a.pads[1] + j;
            if (hh < 0 || ww < 0 || hh >= h || ww >= w) {
              if (!include) area--;
              continue;
            }
            sum += static_cast<std::int32_t>(code(x.at4(0, hh, ww, c)) - code(xq.offset));
          }
        std::int64_t expect;
        if (area == 0) {
          expect = std::min<std::int64_t>(127, std::max<std::int64_t>(-128, code(out.offset)));
        } else {
          const volatile float ratio = fl(xq.scale) / fl(out.scale);
          const volatile float scale = ratio / area;
          const volatile float p = static_cast<float>(sum) * scale;
          const volatile float v = p + static_cast<float>(code(out.offset));
          expect = clip8(std::round(v));
        }
        RC_ASSERT(code(y.at4(0, oh, ow, c)) == expect);
      }
}

// The loader's fusions add nothing but a Relu with the operator's output parameters.
RC_GTEST_PROP(glow_op_fused_relu, IsTheRelueOfTheOperatorsOutput, ()) {
  const GlowQParams lq = draw_params(-8, 0), rq = draw_params(-8, 0), out = draw_params(-7, 1);
  const IntArray l = draw_array({5}, -128, 127), r = draw_array({5}, -128, 127);
  const IntArray sum = glow_add(l, lq, r, rq, out);
  const IntArray fused = glow_fused_relu(sum, out);
  for (std::size_t i = 0; i < 5; ++i)
    RC_ASSERT(fused.data[i] == glow_relu(IntArray({1}, sum.data[i]), out, out).data[0]);
}

// Folding a rescale: with the intermediate parameters equal to the output's the pair is the folded
// node; otherwise they differ by at most s_mid / (2 s_out) + 2 codes (the first rounding's half
// code seen at the output scale, the second rounding, and the float steps) where neither clips.
RC_GTEST_PROP(glow_op_rescale_folding, DifferenceIsBoundedAndZeroAtEqualParams, ()) {
  GlowLinearParams p;
  p.input = draw_params(-6, -2);
  p.weights = draw_params(-6, -2);
  p.bias = {0x3f800000u, Int(0)};
  p.output = {draw_params(-9, -4).scale, Int(*rc::gen::inRange(-20, 21))};
  const GlowQParams mid =
      *rc::gen::arbitrary<bool>() ? p.output : GlowQParams{draw_params(-9, -4).scale, Int(*rc::gen::inRange(-20, 21))};
  const IntArray x = draw_array({2, 3}, -20, 20), w = draw_array({3, 2}, -20, 20), b({2}, Int(0));
  IntArray folded, pair, at_mid;
  GlowLinearParams pm = p;
  pm.output = mid;
  try {
    folded = glow_fully_connected(x, w, b, p);
    pair = glow_fully_connected_then_rescale(x, w, b, p, mid);
    at_mid = glow_fully_connected(x, w, b, pm);
  } catch (const RequireViolated&) {
    RC_DISCARD("outside the accumulator or float range");
  }
  const Rat bound = f32_value(mid.scale) / (2 * f32_value(p.output.scale)) + 2;
  for (std::size_t i = 0; i < folded.data.size(); ++i) {
    // A clip anywhere (at mid, or either result at the int8 ends) is outside the bound's premise.
    const bool clipped = abs(folded.data[i]) >= 127 || abs(pair.data[i]) >= 127 || abs(at_mid.data[i]) >= 127;
    if (mid.scale == p.output.scale && mid.offset == p.output.offset) RC_ASSERT(folded.data[i] == pair.data[i]);
    if (!clipped) RC_ASSERT(Rat(abs(folded.data[i] - pair.data[i])) <= bound);
  }
}

// The non-fused row-wise SLWS is the fused one with each row's scale and offset stored in the
// row's last 8 bytes instead of in tensors of their own.
RC_GTEST_PROP(glow_op_rowwise_sparse_lengths_weighted_sum, EqualsTheFusedLayout, ()) {
  const std::int64_t rows = *rc::gen::inRange(1, 4), cols = *rc::gen::inRange(1, 4);
  const IntArray data = draw_array({rows, cols}, 0, 255);
  std::vector<std::uint32_t> scales, offsets;
  for (std::int64_t r = 0; r < rows; ++r) {
    scales.push_back(draw_params(-8, 0).scale);
    offsets.push_back(draw_params(-4, 3).scale | (*rc::gen::arbitrary<bool>() ? 0x80000000u : 0u));
  }
  IntArray fused({rows, cols + 8});
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = 0; k < cols; ++k) fused.at2(r, k) = data.at2(r, k);
    for (int byte = 0; byte < 4; ++byte) {  // little-endian float32 scale, then offset
      fused.at2(r, cols + byte) = Int((scales[static_cast<std::size_t>(r)] >> (8 * byte)) & 0xffu);
      fused.at2(r, cols + 4 + byte) = Int((offsets[static_cast<std::size_t>(r)] >> (8 * byte)) & 0xffu);
    }
  }
  const int n = *rc::gen::inRange(0, 6);
  std::vector<std::uint32_t> weights;
  std::vector<Int> indices;
  for (int j = 0; j < n; ++j) {
    weights.push_back(draw_params(-3, 2).scale);
    indices.emplace_back(*rc::gen::inRange<std::int64_t>(0, rows));
  }
  const std::vector<Int> lengths{Int(n / 2), Int(n - n / 2)};
  const auto a = glow_rowwise_sparse_lengths_weighted_sum(data, scales, offsets, weights, indices, lengths);
  const auto b = glow_fused_rowwise_sparse_lengths_weighted_sum(fused, weights, indices, lengths);
  RC_ASSERT(a.data == b.data);
}
