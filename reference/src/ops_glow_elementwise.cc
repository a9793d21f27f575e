// Glow's int8 Add, Max, Relu (as lowered), AvgPool and the loader's fusions, one float32 operation
// at a time (InterpreterNodes.cpp), modelled with ieee.h.
#include <algorithm>
#include <string>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/glow_elementwise.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

constexpr std::uint32_t kTwoPowMinus15 = 0x38000000u;  // float(1) / (1 << 15), exact

std::uint32_t finite(std::uint32_t bits, const std::string& what) {
  QSPEC_REQUIRE(float_is_finite(bits, kBinary32), "glow: " + what + " is finite in float32");
  return bits;
}
void check_params(const GlowQParams& p, const char* what) {
  QSPEC_REQUIRE(float_is_finite(p.scale, kBinary32) && f32_value(p.scale) > 0,
                std::string("glow: ") + what + " scale finite, > 0");
  QSPEC_REQUIRE(p.offset >= -pow2(31) && p.offset < pow2(31), std::string("glow: ") + what + " offset is int32");
}
void check_int8(const IntArray& a, const char* what) {
  for (const auto& v : a.data) QSPEC_ERROR_IF(v < -128 || v > 127, std::string("glow: ") + what + " holds int8 codes");
}
// (int32_t) of an integer-valued float32 (std::round's result): exact, REQUIRE it fits.
Int to_int32(std::uint32_t integral) {
  const Rat v = f32_value(integral);
  QSPEC_REQUIRE(v >= -Rat(pow2(31)) && v < Rat(pow2(31)), "glow: the rounded float converts to int32");
  return numerator(v);
}
// std::round(float) of a float32: half away from zero, exact in float (an integral float).
std::uint32_t round_away32(std::uint32_t f) { return f32_round_to_integral(f, Rounding::HalfAway); }
// Convert a code to the output parameters: glow.quantize(glow.dequantize(q, in), out) to int8.
Int convert(const Int& q, const GlowQParams& in, const GlowQParams& out) {
  return glow_quantize(glow_dequantize(q, in), out, DType::I8);
}

}  // namespace

// spec: glow.op.add
IntArray glow_add(const IntArray& lhs, const GlowQParams& lq, const IntArray& rhs, const GlowQParams& rq,
                  const GlowQParams& out) {
  QSPEC_ERROR_IF(lhs.shape != rhs.shape, "glow.op.add: the shapes must be equal");
  check_int8(lhs, "lhs");
  check_int8(rhs, "rhs");
  check_params(lq, "lhs");
  check_params(rq, "rhs");
  check_params(out, "output");
  const std::uint32_t rl = finite(f32_div(lq.scale, kTwoPowMinus15), "lhsScale / largeScale");
  const std::uint32_t rr = finite(f32_div(rq.scale, kTwoPowMinus15), "rhsScale / largeScale");
  const std::uint32_t ro = finite(f32_div(kTwoPowMinus15, out.scale), "largeScale / destScale");
  IntArray y(lhs.shape);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const Int l16 = to_int32(round_away32(finite(f32_mul(f32_from_int(lhs.data[i] - lq.offset), rl), "scaled lhs")));
    const Int r16 = to_int32(round_away32(finite(f32_mul(f32_from_int(rhs.data[i] - rq.offset), rr), "scaled rhs")));
    const Int sum = l16 + r16;
    QSPEC_REQUIRE(sum >= -pow2(31) && sum < pow2(31), "glow.op.add: the int32 sum does not overflow");
    const std::uint32_t v = finite(
        f32_add(finite(f32_mul(f32_from_int(sum), ro), "sum * scale"), f32_from_int(out.offset)), "+ destOffset");
    y.data[i] = saturate(to_int32(round_away32(v)), DType::I8);
  }
  return y;
}

// spec: glow.op.max
IntArray glow_max(const IntArray& lhs, const GlowQParams& lq, const IntArray& rhs, const GlowQParams& rq,
                  const GlowQParams& out) {
  QSPEC_ERROR_IF(lhs.shape != rhs.shape, "glow.op.max: the shapes must be equal");
  check_int8(lhs, "lhs");
  check_int8(rhs, "rhs");
  IntArray y(lhs.shape);
  for (std::size_t i = 0; i < y.data.size(); ++i)
    y.data[i] = std::max(convert(lhs.data[i], lq, out), convert(rhs.data[i], rq, out));
  return y;
}

// spec: glow.op.relu
IntArray glow_relu(const IntArray& x, const GlowQParams& xq, const GlowQParams& out) {
  check_int8(x, "input");
  // The zero splat in the output type holds glow.quantize(0.0f, out); Max converts it to the
  // output parameters again (a no-op on a code already at them).
  const Int zero = convert(glow_quantize(0u, out, DType::I8), out, out);
  IntArray y(x.shape);
  for (std::size_t i = 0; i < y.data.size(); ++i) y.data[i] = std::max(zero, convert(x.data[i], xq, out));
  return y;
}

// spec: glow.op.avg_pool
IntArray glow_avg_pool(const IntArray& x, const GlowQParams& xq, const GlowQParams& out, const GlowPoolAttrs& a,
                       bool count_include_pads) {
  QSPEC_ERROR_IF(x.rank() != 4, "glow.op.avg_pool: input (N, H, W, C)");
  check_int8(x, "input");
  check_params(xq, "input");
  check_params(out, "output");
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(a.kernel[i] < 1 || a.stride[i] < 1, "glow.op.avg_pool: kernel and stride >= 1");
  }
  for (auto p : a.pads) QSPEC_ERROR_IF(p < 0, "glow.op.avg_pool: pads >= 0");
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3);
  QSPEC_ERROR_IF(H + a.pads[0] + a.pads[2] < a.kernel[0] || W + a.pads[1] + a.pads[3] < a.kernel[1],
                 "glow.op.avg_pool: kernel larger than the padded input");
  const std::int64_t OH = (H + a.pads[0] + a.pads[2] - a.kernel[0]) / a.stride[0] + 1;
  const std::int64_t OW = (W + a.pads[1] + a.pads[3] - a.kernel[1]) / a.stride[1] + 1;
  const std::uint32_t ratio = finite(f32_div(xq.scale, out.scale), "inScale / outScale");
  IntArray y({N, OH, OW, C});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t oh = 0; oh < OH; ++oh)
      for (std::int64_t ow = 0; ow < OW; ++ow)
        for (std::int64_t c = 0; c < C; ++c) {
          Int sum = 0;
          std::int64_t area = a.kernel[0] * a.kernel[1];  // float filterArea: small integers, exact
          for (std::int64_t i = 0; i < a.kernel[0]; ++i)
            for (std::int64_t j = 0; j < a.kernel[1]; ++j) {
              const std::int64_t h = oh * a.stride[0] - a.pads[0] + i, w = ow * a.stride[1] - a.pads[1] + j;
              if (h < 0 || w < 0 || h >= H || w >= W) {
                if (!count_include_pads) --area;
                continue;
              }
              sum += x.at4(n, h, w, c) - xq.offset;
            }
          if (area == 0) {
            y.at4(n, oh, ow, c) = saturate(out.offset, DType::I8);
            continue;
          }
          const std::uint32_t scale = finite(f32_div(ratio, f32_from_int(Int(area))), "scale / filterArea");
          const std::uint32_t v =
              finite(f32_add(finite(f32_mul(f32_from_int(sum), scale), "sum * scale"), f32_from_int(out.offset)),
                     "+ outOffset");
          y.at4(n, oh, ow, c) = saturate(to_int32(round_away32(v)), DType::I8);
        }
  return y;
}

// spec: glow.op.fused_relu
IntArray glow_fused_relu(const IntArray& y, const GlowQParams& out) { return glow_relu(y, out, out); }

// spec: glow.op.rescale_folding
IntArray glow_fully_connected_then_rescale(const IntArray& x, const IntArray& w, const IntArray& bias,
                                           const GlowLinearParams& p, const GlowQParams& mid) {
  GlowLinearParams first = p;
  first.output = mid;
  return glow_rescale(glow_fully_connected(x, w, bias, first), mid, p.output, GlowBackend::Interpreter);
}

}  // namespace qspec::ref::ops
