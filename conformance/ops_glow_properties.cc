// Properties of Glow's quantized operators (spec/operators_glow.md): the exact reference against
// a transliteration of Glow's Interpreter kernels run on this machine's IEEE float32 hardware,
// against the real formula (error bounds), and, for the selections, exact commutation with
// dequantization.
//
// The hardware transliterations keep every float32 intermediate in a volatile variable so that
// the compiler cannot contract a multiply and an add into one fused operation (errata E-GLOW-3).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops_arrays.h"
#include "ops_counterexample.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/glow_ops.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t B(float f) { return std::bit_cast<std::uint32_t>(f); }

// ---- draws ------------------------------------------------------------------------------------

// A positive normal float32 2^e (1 + m 2^-23), e in [emin, emax]. Half the draws are powers of
// two (m = 0) or have a short mantissa, so that products are exact and exact ties k + 1/2 are
// common (a random 23-bit mantissa almost never lands on a tie).
std::uint32_t draw_scale(int emin, int emax) {
  const int e = *rc::gen::inRange(emin, emax + 1);
  const int kind = *rc::gen::inRange(0, 4);
  const auto m = kind == 0 ? 0u : kind == 1 ? *rc::gen::inRange<std::uint32_t>(0, 8) << 20 : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}
int exponent_of(std::uint32_t bits) { return static_cast<int>((bits >> 23) & 0xffu) - 127; }

// Parameters of an int8 FullyConnected / Convolution with an int32 or int8 bias: the bias scale
// near the matmul scale, the output scale 2^2..2^9 above it (outputs spread over int8).
GlowLinearParams draw_linear_params(bool int32_bias) {
  GlowLinearParams p;
  p.elem = DType::I8;
  p.bias_type = int32_bias ? DType::I32 : DType::I8;
  p.input = {draw_scale(-8, 0), Int(*rc::gen::inRange(-128, 128))};
  p.weights = {draw_scale(-8, 0), Int(*rc::gen::inRange(-128, 128))};
  const int ep = exponent_of(p.input.scale) + exponent_of(p.weights.scale);
  p.bias = {draw_scale(ep - 2, ep + 2), Int(int32_bias ? 0 : *rc::gen::inRange(-8, 9))};
  p.output = {draw_scale(ep + 2, ep + 9), Int(*rc::gen::inRange(-64, 65))};
  return p;
}
IntArray draw_bias(std::int64_t m, DType t) { return t == DType::I32 ? draw_array({m}, -(1 << 20), 1 << 20) : draw_array({m}, -128, 127); }

// Runs the reference; a case outside its REQUIREs (an accumulator or float overflow) is discarded.
template <class F>
auto reference_or_discard(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const RequireViolated&) {
    RC_DISCARD("outside the clause's REQUIREs");
  }
  return f();  // unreachable: RC_DISCARD throws
}

nlohmann::ordered_json linear_attrs_json(const GlowLinearParams& p, bool with_weights) {
  nlohmann::ordered_json a;
  auto put = [&](const char* t, const GlowQParams& q) {
    a[std::string(t) + "_scale"] = counterexample_f32_hex(Int(q.scale));
    a[std::string(t) + "_offset"] = static_cast<long long>(q.offset);
  };
  put("input", p.input);
  if (with_weights) put("weights", p.weights);
  put("bias", p.bias);
  put("output", p.output);
  return a;
}

// ---- Glow's Interpreter kernels on hardware float32 (transliterations of InterpreterNodes.cpp) ----

namespace hw {
long long clip8(long long v) { return v < -128 ? -128 : v > 127 ? 127 : v; }

// AccumulatorTy B = std::round(float(bias - biasOffset) * (biasScale / matMulScale));
long long bias_term(long long b, long long bias_offset, float bias_scale, float mm) {
  volatile float ratio = bias_scale / mm;
  volatile float fb = static_cast<float>(b - bias_offset);
  volatile float prod = fb * ratio;
  return static_cast<long long>(std::round(static_cast<float>(prod)));
}
// FullyConnected: clip(std::round(float(sum) * (matMulScale / outScale)) + outOffset)
long long fc_out(long long sum, float mm, float out_scale, long long out_offset) {
  volatile float ratio = mm / out_scale;
  volatile float fs = static_cast<float>(static_cast<std::int32_t>(sum));
  volatile float scaled = fs * ratio;
  volatile float rounded = std::round(static_cast<float>(scaled));
  volatile float plus = rounded + static_cast<float>(out_offset);
  return clip8(static_cast<long long>(static_cast<std::int32_t>(plus)));
}
// Convolution / RowwiseFC: clip(std::round(float(sum) * (matMulScale / outScale) + outOffset))
long long conv_out(long long sum, float mm, float out_scale, long long out_offset) {
  volatile float ratio = mm / out_scale;
  volatile float fs = static_cast<float>(static_cast<std::int32_t>(sum));
  volatile float scaled = fs * ratio;
  volatile float plus = scaled + static_cast<float>(out_offset);
  return clip8(static_cast<long long>(std::round(static_cast<float>(plus))));
}
float f(const GlowQParams& q) { return V(q.scale); }
long long o(const GlowQParams& q) { return static_cast<long long>(q.offset); }

IntArray fully_connected(const IntArray& x, const IntArray& w, const IntArray& bias, const GlowLinearParams& p) {
  volatile float mm = f(p.weights) * f(p.input);
  IntArray y({x.dim(0), w.dim(1)});
  for (std::int64_t i = 0; i < x.dim(0); ++i)
    for (std::int64_t j = 0; j < w.dim(1); ++j) {
      std::int32_t sum = 0;
      for (std::int64_t k = 0; k < x.dim(1); ++k)
        sum += static_cast<std::int32_t>((static_cast<long long>(w.at2(k, j)) - o(p.weights)) * (static_cast<long long>(x.at2(i, k)) - o(p.input)));
      sum += static_cast<std::int32_t>(bias_term(static_cast<long long>(bias.data[static_cast<std::size_t>(j)]), o(p.bias), f(p.bias), mm));
      y.at2(i, j) = Int(fc_out(sum, mm, f(p.output), o(p.output)));
    }
  return y;
}

IntArray convolution(const IntArray& x, const IntArray& w, const IntArray& bias, const GlowConvAttrs& a, const GlowLinearParams& p) {
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3), O = w.dim(0), KH = w.dim(1), KW = w.dim(2);
  const std::int64_t inCperG = C / a.group, outCperG = O / a.group;
  const std::int64_t OH = (H + a.pads[0] + a.pads[2] - a.dilation[0] * (KH - 1) - 1) / a.stride[0] + 1;
  const std::int64_t OW = (W + a.pads[1] + a.pads[3] - a.dilation[1] * (KW - 1) - 1) / a.stride[1] + 1;
  volatile float mm = f(p.input) * f(p.weights);
  IntArray y({N, OH, OW, O});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t g = 0; g < a.group; ++g)
      for (std::int64_t d = g * outCperG; d < (g + 1) * outCperG; ++d) {
        std::int64_t x0 = -a.pads[0];
        for (std::int64_t ax = 0; ax < OH; x0 += a.stride[0], ++ax) {
          std::int64_t y0 = -a.pads[1];
          for (std::int64_t ay = 0; ay < OW; y0 += a.stride[1], ++ay) {
            std::int32_t sum = 0;
            for (std::int64_t fx = 0; fx < KH; ++fx)
              for (std::int64_t fy = 0; fy < KW; ++fy) {
                const std::int64_t ox = x0 + fx * a.dilation[0], oy = y0 + fy * a.dilation[1];
                if (ox < 0 || oy < 0 || ox >= H || oy >= W) continue;
                for (std::int64_t fd = 0; fd < inCperG; ++fd)
                  sum += static_cast<std::int32_t>((static_cast<long long>(w.at4(d, fx, fy, fd)) - o(p.weights)) *
                                                   (static_cast<long long>(x.at4(n, ox, oy, g * inCperG + fd)) - o(p.input)));
              }
            sum += static_cast<std::int32_t>(bias_term(static_cast<long long>(bias.data[static_cast<std::size_t>(d)]), o(p.bias), f(p.bias), mm));
            y.at4(n, ax, ay, d) = Int(conv_out(sum, mm, f(p.output), o(p.output)));
          }
        }
      }
  return y;
}

IntArray rowwise_fully_connected(const IntArray& x, const IntArray& w, const std::vector<std::uint32_t>& scales,
                                 const std::vector<Int>& offsets, const IntArray& bias, const GlowLinearParams& p) {
  IntArray y({x.dim(0), w.dim(0)});
  for (std::int64_t i = 0; i < x.dim(0); ++i)
    for (std::int64_t j = 0; j < w.dim(0); ++j) {
      volatile float mm = V(scales[static_cast<std::size_t>(j)]) * f(p.input);
      const long long wo = static_cast<long long>(offsets[static_cast<std::size_t>(j)]);
      std::int32_t sum = 0;
      for (std::int64_t k = 0; k < x.dim(1); ++k)
        sum += static_cast<std::int32_t>((static_cast<long long>(w.at2(j, k)) - wo) * (static_cast<long long>(x.at2(i, k)) - o(p.input)));
      sum += static_cast<std::int32_t>(bias_term(static_cast<long long>(bias.data[static_cast<std::size_t>(j)]), o(p.bias), f(p.bias), mm));
      y.at2(i, j) = Int(conv_out(sum, mm, f(p.output), o(p.output)));
    }
  return y;
}

// accum[k] += dequantizeWithFloatOffset(q, scale, offset) * weight, in float32.
std::vector<float> fused_slws(const std::vector<std::vector<int>>& codes, const std::vector<float>& scales, const std::vector<float>& offsets,
                              const std::vector<float>& weights, const std::vector<int>& indices, const std::vector<int>& lengths) {
  const std::size_t C = codes[0].size();
  std::vector<float> out;
  std::size_t cur = 0;
  for (int len : lengths) {
    std::vector<float> acc(C, 0.0f);
    for (int j = 0; j < len; ++j, ++cur) {
      const int r = indices[cur];
      for (std::size_t k = 0; k < C; ++k) {
        volatile float scaled = static_cast<float>(codes[static_cast<std::size_t>(r)][k]) * scales[static_cast<std::size_t>(r)];
        volatile float d = scaled + offsets[static_cast<std::size_t>(r)];
        volatile float prod = d * weights[cur];
        volatile float sum = acc[k] + prod;
        acc[k] = sum;
      }
    }
    out.insert(out.end(), acc.begin(), acc.end());
  }
  return out;
}

// RescaleQuantized: quantize(dequantize(x, srcQ), destQ) with nearbyintf (Base.h).
long long rescale(long long x, const GlowQParams& in, const GlowQParams& out) {
  volatile float diff = static_cast<float>(x - o(in));
  volatile float val = f(in) * diff;
  volatile float div = val / f(out);
  volatile float res = div + static_cast<float>(o(out));
  return clip8(static_cast<long long>(std::nearbyintf(static_cast<float>(res))));
}
}  // namespace hw

}  // namespace

// ---- FullyConnected ------------------------------------------------------------------------------

RC_GTEST_PROP(glow_op_fully_connected, MatchesHardwareFloat32Kernel, ()) {
  const std::int64_t n = *rc::gen::inRange(1, 4), k = *rc::gen::inRange(1, 9), m = *rc::gen::inRange(1, 4);
  const bool int32_bias = *rc::gen::arbitrary<bool>();
  const GlowLinearParams p = draw_linear_params(int32_bias);
  const IntArray x = draw_array({n, k}, -128, 127), w = draw_array({k, m}, -128, 127), b = draw_bias(m, p.bias_type);
  const IntArray y = reference_or_discard([&] { return glow_fully_connected(x, w, b, p); });
  QSPEC_RECORD_COUNTEREXAMPLE(rec, "glow_op_fully_connected.MatchesHardwareFloat32Kernel", "glow.fully_connected", "glow",
                              {"glow.op.fully_connected"}, linear_attrs_json(p, true), {{"x", x}, {"w", w}, {"bias", b}}, {{"y", y}},
                              {{"x", "int8"}, {"w", "int8"}, {"bias", int32_bias ? "int32" : "int8"}, {"y", "int8"}});
  RC_ASSERT(y == hw::fully_connected(x, w, b, p));
}

// |Y - sat(real)| <= 1/2 + 1/2 p / s_y + 16 u (|acc| P + |b - o_b| s_b + |o_y| s_y + s_y) / s_y, where
// real = o_y + (acc P + (b - o_b) s_b) / s_y is the exact output code, P = s_x s_w exactly, u = 2^-24:
// one rounding to an integer, the bias rounded to the matmul scale (half a matmul step = p / (2 s_y)
// output steps), and a few float32 relative errors. sat is 1-Lipschitz, so clipping keeps the bound.
RC_GTEST_PROP(glow_op_fully_connected, WithinBoundOfRealOutput, ()) {
  const std::int64_t k = *rc::gen::inRange(1, 9), m = *rc::gen::inRange(1, 3);
  const GlowLinearParams p = draw_linear_params(*rc::gen::arbitrary<bool>());
  const IntArray x = draw_array({1, k}, -128, 127), w = draw_array({k, m}, -128, 127), b = draw_bias(m, p.bias_type);
  const IntArray y = reference_or_discard([&] { return glow_fully_connected(x, w, b, p); });
  const Rat sx = f32_value(p.input.scale), sw = f32_value(p.weights.scale), sb = f32_value(p.bias.scale), sy = f32_value(p.output.scale);
  const Rat pr = f32_value(f32_mul(p.weights.scale, p.input.scale));
  const Rat u(1, 1 << 24);
  for (std::int64_t j = 0; j < m; ++j) {
    Int acc(0);
    for (std::int64_t i = 0; i < k; ++i) acc += (w.at2(i, j) - p.weights.offset) * (x.at2(0, i) - p.input.offset);
    const Int bb = b.data[static_cast<std::size_t>(j)] - p.bias.offset;
    const Rat real = Rat(p.output.offset) + (Rat(acc) * sx * sw + Rat(bb) * sb) / sy;
    const Rat clipped = real < -128 ? Rat(-128) : real > 127 ? Rat(127) : real;
    const Rat bound = Rat(1, 2) + pr / (2 * sy) + 16 * u * (abs(Rat(acc)) * sx * sw + abs(Rat(bb)) * sb + abs(Rat(p.output.offset)) * sy + sy) / sy;
    RC_ASSERT(abs(Rat(y.at2(0, j)) - clipped) <= bound);
  }
}

// ---- Convolution ---------------------------------------------------------------------------------

namespace {
struct ConvDraw {
  Shape x, w;
  GlowConvAttrs a;
};
ConvDraw draw_glow_conv() {
  ConvDraw c;
  const std::int64_t g = *rc::gen::inRange(1, 3), cg = *rc::gen::inRange(1, 3), opg = *rc::gen::inRange(1, 3);
  const std::int64_t kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
  c.a.group = g;
  c.a.stride = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
  c.a.dilation = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
  for (auto& pad : c.a.pads) pad = *rc::gen::inRange(0, 3);
  const std::int64_t eh = c.a.dilation[0] * (kh - 1) + 1, ew = c.a.dilation[1] * (kw - 1) + 1;
  const std::int64_t h = std::max<std::int64_t>(1, eh - c.a.pads[0] - c.a.pads[2]) + *rc::gen::inRange(0, 3);
  const std::int64_t w = std::max<std::int64_t>(1, ew - c.a.pads[1] - c.a.pads[3]) + *rc::gen::inRange(0, 3);
  c.x = {*rc::gen::inRange(1, 3), h, w, g * cg};
  c.w = {g * opg, kh, kw, cg};
  return c;
}
}  // namespace

RC_GTEST_PROP(glow_op_convolution, MatchesHardwareFloat32Kernel, ()) {
  const ConvDraw c = draw_glow_conv();
  const bool int32_bias = *rc::gen::arbitrary<bool>();
  const GlowLinearParams p = draw_linear_params(int32_bias);
  const IntArray x = draw_array(c.x, -128, 127), w = draw_array(c.w, -128, 127), b = draw_bias(c.w[0], p.bias_type);
  const IntArray y = reference_or_discard([&] { return glow_convolution(x, w, b, c.a, p); });
  nlohmann::ordered_json attrs = linear_attrs_json(p, true);
  attrs["strides"] = c.a.stride;
  attrs["pads"] = c.a.pads;
  attrs["dilation"] = c.a.dilation;
  attrs["group"] = c.a.group;
  QSPEC_RECORD_COUNTEREXAMPLE(rec, "glow_op_convolution.MatchesHardwareFloat32Kernel", "glow.convolution", "glow", {"glow.op.convolution"},
                              attrs, {{"x", x}, {"w", w}, {"bias", b}}, {{"y", y}},
                              {{"x", "int8"}, {"w", "int8"}, {"bias", int32_bias ? "int32" : "int8"}, {"y", "int8"}});
  RC_ASSERT(y == hw::convolution(x, w, b, c.a, p));
}

// A 1x1 Convolution over (N,1,1,K) is a FullyConnected with the filter transposed, and a
// RowwiseQuantizedFullyConnected whose rows all carry the weights' parameters. The Convolution and
// the RowwiseFC add the output offset before rounding: they agree exactly. The FullyConnected adds
// it after: equal when o_y = 0, within 1 otherwise (E-GLOWOP-1).
RC_GTEST_PROP(glow_op_convolution, OneByOneIsFullyConnected, ()) {
  const std::int64_t n = *rc::gen::inRange(1, 3), k = *rc::gen::inRange(1, 7), m = *rc::gen::inRange(1, 4);
  GlowLinearParams p = draw_linear_params(true);
  if (*rc::gen::arbitrary<bool>()) p.output.offset = 0;
  const IntArray x = draw_array({n, k}, -128, 127), wc = draw_array({m, 1, 1, k}, -128, 127), b = draw_bias(m, DType::I32);
  IntArray wfc({k, m}), wrow({m, k});
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < k; ++j) wfc.at2(j, i) = wrow.at2(i, j) = wc.at4(i, 0, 0, j);
  const IntArray conv = reference_or_discard([&] { return glow_convolution(IntArray({n, 1, 1, k}, x.data), wc, b, GlowConvAttrs{}, p); });
  const IntArray fc = glow_fully_connected(x, wfc, b, p);
  const IntArray row = glow_rowwise_fully_connected(x, wrow, std::vector<std::uint32_t>(static_cast<std::size_t>(m), p.weights.scale),
                                                    std::vector<Int>(static_cast<std::size_t>(m), p.weights.offset), b, p);
  RC_ASSERT(row.data == conv.data);
  for (std::size_t i = 0; i < fc.data.size(); ++i) {
    if (p.output.offset == 0) RC_ASSERT(fc.data[i] == conv.data[i]);
    RC_ASSERT(abs(fc.data[i] - conv.data[i]) <= 1);
  }
}

// ---- RowwiseQuantizedFullyConnected --------------------------------------------------------------

RC_GTEST_PROP(glow_op_rowwise_fully_connected, MatchesHardwareFloat32Kernel, ()) {
  const std::int64_t n = *rc::gen::inRange(1, 3), k = *rc::gen::inRange(1, 9), m = *rc::gen::inRange(1, 5);
  GlowLinearParams p = draw_linear_params(*rc::gen::arbitrary<bool>());
  std::vector<std::uint32_t> scales;
  std::vector<Int> offsets;
  for (std::int64_t i = 0; i < m; ++i) {
    scales.push_back(draw_scale(-8, 0));
    offsets.emplace_back(*rc::gen::inRange(-128, 128));
  }
  const int ep = exponent_of(p.input.scale) - 8;
  p.bias.scale = draw_scale(ep - 2, ep);
  p.output.scale = draw_scale(ep + 4, ep + 10);
  const IntArray x = draw_array({n, k}, -128, 127), w = draw_array({m, k}, -128, 127), b = draw_bias(m, p.bias_type);
  const IntArray y = reference_or_discard([&] { return glow_rowwise_fully_connected(x, w, scales, offsets, b, p); });
  RC_ASSERT(y == hw::rowwise_fully_connected(x, w, scales, offsets, b, p));
}

// ---- FusedRowwiseQuantizedSparseLengthsWeightedSum -----------------------------------------------

namespace {
struct SlwsDraw {
  std::vector<std::vector<int>> codes;
  std::vector<std::uint32_t> scales, offsets, weights;
  std::vector<int> indices, lengths;
  IntArray data() const {
    std::vector<Int> d;
    for (std::size_t r = 0; r < codes.size(); ++r) {
      for (int c : codes[r]) d.emplace_back(c);
      for (std::uint32_t v : {scales[r], offsets[r]})
        for (int i = 0; i < 4; ++i) d.emplace_back(static_cast<int>((v >> (8 * i)) & 0xffu));
    }
    return IntArray({static_cast<std::int64_t>(codes.size()), static_cast<std::int64_t>(codes[0].size()) + 8}, d);
  }
};
SlwsDraw draw_slws() {
  SlwsDraw s;
  const int rows = *rc::gen::inRange(1, 6), cols = *rc::gen::inRange(1, 5), segs = *rc::gen::inRange(1, 4);
  for (int r = 0; r < rows; ++r) {
    s.codes.push_back(*rc::gen::container<std::vector<int>>(static_cast<std::size_t>(cols), rc::gen::inRange(0, 256)));
    s.scales.push_back(draw_scale(-10, 0));
    s.offsets.push_back(draw_scale(-6, 4) | (*rc::gen::arbitrary<bool>() ? 0x80000000u : 0u));
  }
  int total = 0;
  for (int i = 0; i < segs; ++i) {
    s.lengths.push_back(*rc::gen::inRange(0, 5));
    total += s.lengths.back();
  }
  for (int j = 0; j < total; ++j) {
    s.indices.push_back(*rc::gen::inRange(0, rows));
    s.weights.push_back(draw_scale(-4, 3) | (*rc::gen::arbitrary<bool>() ? 0x80000000u : 0u));
  }
  return s;
}
std::vector<Int> ints(const std::vector<int>& v) { return std::vector<Int>(v.begin(), v.end()); }
}  // namespace

RC_GTEST_PROP(glow_op_fused_rowwise_sparse_lengths_weighted_sum, MatchesHardwareFloat32Kernel, ()) {
  const SlwsDraw s = draw_slws();
  const auto y = glow_fused_rowwise_sparse_lengths_weighted_sum(s.data(), s.weights, ints(s.indices), ints(s.lengths));
  std::vector<float> scales, offsets, weights;
  for (auto v : s.scales) scales.push_back(V(v));
  for (auto v : s.offsets) offsets.push_back(V(v));
  for (auto v : s.weights) weights.push_back(V(v));
  const auto hwy = hw::fused_slws(s.codes, scales, offsets, weights, s.indices, s.lengths);
  RC_ASSERT(y.data.size() == hwy.size());
  for (std::size_t i = 0; i < hwy.size(); ++i) RC_ASSERT(y.data[i] == B(hwy[i]));
}

// Against the exact sum of the exact products: each term d_j w_j carries at most three float32
// roundings (q * scale, + offset, * weight) and the running sum one per addition, so
// |Y - exact| <= (L + 3) 2^-23 sum_j (|q scale| + |offset|) |w| over the segment's L positions.
RC_GTEST_PROP(glow_op_fused_rowwise_sparse_lengths_weighted_sum, WithinFloatBoundOfExactSum, ()) {
  const SlwsDraw s = draw_slws();
  const auto y = glow_fused_rowwise_sparse_lengths_weighted_sum(s.data(), s.weights, ints(s.indices), ints(s.lengths));
  const std::size_t C = s.codes[0].size();
  std::size_t cur = 0;
  for (std::size_t i = 0; i < s.lengths.size(); ++i) {
    const auto L = static_cast<std::size_t>(s.lengths[i]);
    for (std::size_t k = 0; k < C; ++k) {
      Rat exact(0), mass(0);
      for (std::size_t j = cur; j < cur + L; ++j) {
        const auto r = static_cast<std::size_t>(s.indices[j]);
        const Rat w = f32_value(s.weights[j]), sc = f32_value(s.scales[r]), of = f32_value(s.offsets[r]);
        exact += (Rat(s.codes[r][k]) * sc + of) * w;
        mass += (abs(Rat(s.codes[r][k]) * sc) + abs(of)) * abs(w);
      }
      const Rat got = f32_value(y.data[i * C + k]);
      RC_ASSERT(abs(got - exact) <= Rat(static_cast<long long>(L) + 3, 1 << 23) * mass);
    }
    cur += L;
  }
}

// ---- RescaleQuantized ----------------------------------------------------------------------------

RC_GTEST_PROP(glow_op_rescale, InterpreterMatchesHardwareFloat32Kernel, ()) {
  const Shape shape = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 5)};
  const IntArray x = draw_array(shape, -128, 127);
  const GlowQParams in{draw_scale(-10, 0), Int(*rc::gen::inRange(-128, 128))};
  const int e = exponent_of(in.scale);
  const GlowQParams out{draw_scale(e - 6, e + 6), Int(*rc::gen::inRange(-128, 128))};
  const IntArray y = glow_rescale(x, in, out, GlowBackend::Interpreter);
  RC_ASSERT(y.shape == x.shape);
  for (std::size_t i = 0; i < x.data.size(); ++i) RC_ASSERT(y.data[i] == Int(hw::rescale(static_cast<long long>(x.data[i]), in, out)));
}

// ---- Operators that keep the input's parameters -----------------------------------------------

namespace {
RatArray dequant(const IntArray& a, const GlowQParams& q) {
  return map_array<Rat>(a, [&](const Int& v) { return glow_real_value(v, q); });
}
}  // namespace

// Every selection commutes with dequantization exactly: dequant(op(X)) = op(dequant(X)), with the
// output's parameters being the input's (the real formalization runs the same template on Rat).
RC_GTEST_PROP(glow_op_keeps_input_qparams, SelectionsCommuteWithDequantization, ()) {
  const GlowQParams q{draw_scale(-10, 2), Int(*rc::gen::inRange(-128, 128))};
  const GlowQParams requested{draw_scale(-10, 2), Int(*rc::gen::inRange(-128, 128))};
  const GlowQParams out = glow_keeps_input_qparams(q, requested);
  RC_ASSERT(out.scale == q.scale);
  RC_ASSERT(out.offset == q.offset);

  // MaxPool (with windows that may lie in the padding: real 0 there).
  const Shape xs = {1, *rc::gen::inRange(1, 5), *rc::gen::inRange(1, 5), *rc::gen::inRange(1, 3)};
  const IntArray x = draw_array(xs, -128, 127);
  GlowPoolAttrs a;
  a.kernel = {*rc::gen::inRange<std::int64_t>(1, xs[1] + 1), *rc::gen::inRange<std::int64_t>(1, xs[2] + 1)};
  a.stride = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
  for (auto& pad : a.pads) pad = *rc::gen::inRange(0, 3);
  RC_ASSERT(dequant(glow_max_pool(x, a, out.offset), out) == glow_max_pool(dequant(x, q), a, Rat(0)));

  // TopK along the last axis: the same values and the same positions.
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, xs[3] + 1);
  const auto [tv, ti] = glow_topk(x, k);
  const auto [rv, ri] = glow_topk(dequant(x, q), k);
  RC_ASSERT(dequant(tv, out) == rv);
  RC_ASSERT(ti == ri);

  // Reshape, Slice, Gather.
  RC_ASSERT(dequant(glow_reshape(x, {shape_numel(xs)}), out) == glow_reshape(dequant(x, q), {shape_numel(xs)}));
  Shape start, size;
  for (auto d : xs) {
    start.push_back(*rc::gen::inRange<std::int64_t>(0, d));
    size.push_back(*rc::gen::inRange<std::int64_t>(1, d - start.back() + 1));
  }
  RC_ASSERT(dequant(glow_slice(x, start, size), out) == glow_slice(dequant(x, q), start, size));
  const std::int64_t bd = *rc::gen::inRange(0, 4);
  const auto idx = *rc::gen::container<std::vector<std::int64_t>>(2, rc::gen::inRange<std::int64_t>(0, xs[static_cast<std::size_t>(bd)]));
  const NdArray<std::int64_t> I({2}, idx);
  RC_ASSERT(dequant(glow_gather(x, I, bd), out) == glow_gather(dequant(x, q), I, bd));
}
