// Properties of the engines' quantized operators (spec/operators_qlinear.md):
// - the shared accumulations equal the real-valued formula divided by the scales, exactly, and
//   agree with the existing formalizations where they overlap (mrt.op.conv2d, tvm.qnn.conv2d,
//   tvm.qnn.dense, gemmlowp.matmul);
// - composition identity per (op, convention): the operator is the accumulation followed by the
//   convention's epilogue, per element, and that epilogue matches a transliteration run on this
//   machine's binary32 hardware;
// - ONNX Runtime equals XNNPACK wherever XNNPACK accepts the parameters;
// - error bound per (op, convention) against the exact real result.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <vector>

#include "ops_arrays.h"
#include "qlinear_hw.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/quantized.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::opstest;
namespace hw = qspec::qlinear_hw;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

enum class Kind { Conv, Fc, Matmul };

// One operator problem of any of the three ops.
struct Problem {
  Kind kind = Kind::Conv;
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

// A positive normal float32 2^e (1 + m 2^-23), often with a short mantissa (exact products, ties).
std::uint32_t draw_scale(int emin, int emax) {
  const int e = *rc::gen::inRange(emin, emax + 1);
  const int kind = *rc::gen::inRange(0, 3);
  const auto m = kind == 0   ? 0u
                 : kind == 1 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                             : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}
int exponent_of(std::uint32_t bits) { return static_cast<int>((bits >> 23) & 0xffu) - 127; }

long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

// Types a convention accepts: XNNPACK int8 x int8 (per channel allowed) or uint8 x uint8; ONNX
// Runtime also uint8 x int8.
void draw_types(QLinearParams& p, QLinearConvention c) {
  const int k = *rc::gen::inRange(0, c == QLinearConvention::XnnpackFp32 ? 2 : 3);
  p.x_type = k == 1 ? DType::U8 : DType::I8;
  p.w_type = k == 0 ? DType::I8 : k == 1 ? DType::U8 : DType::I8;
  if (k == 2) p.x_type = DType::U8;
}

// Geometry of a small convolution: regular, grouped or depthwise with a multiplier; asymmetric
// pads; the dilated kernel fits the padded input (else ONNX Runtime rejects it, XNNPACK REQUIREs it).
void draw_conv_shapes(Problem& pr, Shape& xs, Shape& ws) {
  auto& g = pr.g;
  const int kind = *rc::gen::inRange(0, 3);
  long long C, O;
  if (kind == 0) {
    g.groups = 1, C = *rc::gen::inRange(1, 5), O = *rc::gen::inRange(1, 5);
  } else if (kind == 1) {
    g.groups = *rc::gen::inRange(2, 4);
    C = g.groups * *rc::gen::inRange(1, 3), O = g.groups * *rc::gen::inRange(1, 3);
  } else {
    C = *rc::gen::inRange(1, 5), g.groups = C, O = C * *rc::gen::inRange(1, 4);
  }
  const long long kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
  g.strides = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
  g.dilations = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
  for (auto& v : g.pads) v = *rc::gen::inRange(0, 3);
  const long long eh = g.dilations[0] * (kh - 1) + 1, ew = g.dilations[1] * (kw - 1) + 1;
  const long long h = std::max<long long>(1, eh - g.pads[0] - g.pads[2]) + *rc::gen::inRange(0, 3);
  const long long w = std::max<long long>(1, ew - g.pads[1] - g.pads[3]) + *rc::gen::inRange(0, 3);
  xs = {*rc::gen::inRange(1, 3), h, w, C};
  ws = {O, kh, kw, C / g.groups};
}

// A valid problem of `kind` for convention c with scales that keep S_o in [2^-20, 2^4] (XNNPACK's
// limits and normal intermediates) unless `wide` (ONNX Runtime: S_o from 2^-40 to 2^12).
Problem draw_problem(Kind kind, QLinearConvention c, bool wide = false) {
  Problem pr;
  pr.kind = kind;
  auto& p = pr.p;
  draw_types(p, c);
  Shape xs, ws;
  long long channels = 1;
  if (kind == Kind::Conv) {
    draw_conv_shapes(pr, xs, ws);
    channels = ws[0];
  } else if (kind == Kind::Fc) {
    const long long k = *rc::gen::inRange(1, 20), o = *rc::gen::inRange(1, 6);
    xs = {*rc::gen::inRange(1, 4), k}, ws = {o, k}, channels = o;
  } else {
    const long long m = *rc::gen::inRange(1, 4), k = *rc::gen::inRange(1, 12), n = *rc::gen::inRange(1, 5);
    const long long b1 = *rc::gen::inRange(1, 3), b2 = *rc::gen::inRange(1, 3);
    switch (*rc::gen::inRange(0, 3)) {
      case 0: xs = {m, k}, ws = {k, n}; break;
      case 1: xs = {b1, m, k}, ws = {k, n}; break;
      default: xs = {b1, 1, m, k}, ws = {b2, k, n}; break;
    }
    channels = n;
  }
  pr.x = draw_array(xs, lo_of(p.x_type), hi_of(p.x_type));
  pr.w = draw_array(ws, lo_of(p.w_type), hi_of(p.w_type));
  p.x_zero_point = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type) + 1);
  const bool xnn_s8 = c == QLinearConvention::XnnpackFp32 && p.w_type == DType::I8;
  p.w_zero_point = xnn_s8 ? 0 : *rc::gen::inRange(lo_of(p.w_type), hi_of(p.w_type) + 1);
  p.y_zero_point = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type) + 1);
  if (kind != Kind::Matmul && *rc::gen::arbitrary<bool>()) pr.b = draw_array({channels}, -(1 << 16), 1 << 16);
  const bool per_channel =
      channels > 1 && *rc::gen::arbitrary<bool>() && (c == QLinearConvention::OnnxRuntime || p.x_type == DType::I8);
  p.x_scale = draw_scale(-10, 0);
  p.w_scales.clear();
  const int ew = *rc::gen::inRange(-10, 1);
  for (long long o = 0; o < (per_channel ? channels : 1); ++o) p.w_scales.push_back(draw_scale(ew - 2, ew + 2));
  const int es = wide ? *rc::gen::inRange(-40, 13) : *rc::gen::inRange(-16, 1);  // log2 of the target S
  p.y_scale = draw_scale(exponent_of(p.x_scale) + ew - es, exponent_of(p.x_scale) + ew - es);
  if (c == QLinearConvention::XnnpackFp32 && *rc::gen::inRange(0, 3) == 0) {
    const long long lo = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type));
    p.y_min = Int(lo);
    p.y_max = Int(*rc::gen::inRange(lo + 1, hi_of(p.x_type) + 1));
  }
  return pr;
}

// The output size, stated independently of the reference's helpers (the same for both
// conventions: a kernel larger than the padded input is ONNX Runtime's ERROR_IF, XNNPACK's REQUIRE).
std::array<long long, 2> out_size(const Problem& pr, QLinearConvention) {
  std::array<long long, 2> out{};
  for (int a = 0; a < 2; ++a) {
    const auto i = static_cast<std::size_t>(a);
    const long long span =
        pr.x.dim(a + 1) + pr.g.pads[i] + pr.g.pads[i + 2] - (pr.g.dilations[i] * (pr.w.dim(a + 1) - 1) + 1);
    // None when the span is negative (C's division truncates toward 0: -1 / 2 + 1 would give one).
    out[i] = span < 0 ? 0 : span / pr.g.strides[i] + 1;
  }
  return out;
}

IntArray accumulate(const Problem& pr, QLinearConvention c) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  if (pr.kind == Kind::Conv) {
    const auto [oh, ow] = out_size(pr, c);
    return qlinear_acc_conv2d(pr.x, pr.w, b, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, oh, ow);
  }
  if (pr.kind == Kind::Fc) return qlinear_acc_fully_connected(pr.x, pr.w, b, pr.p.x_zero_point, pr.p.w_zero_point);
  return qlinear_acc_matmul(pr.x, pr.w, pr.p.x_zero_point, pr.p.w_zero_point);
}

// The operator through the reference; a case outside its REQUIREs is discarded.
IntArray run(const Problem& pr, QLinearConvention c) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  try {
    if (pr.kind == Kind::Conv) return qlinear_conv2d(pr.x, pr.w, b, pr.g, pr.p, c);
    if (pr.kind == Kind::Fc) return qlinear_fully_connected(pr.x, pr.w, b, pr.p, c);
    return qlinear_matmul(pr.x, pr.w, pr.p, c);
  } catch (const RequireViolated&) {
    RC_DISCARD("outside a REQUIRE");
  }
}

std::uint32_t w_scale_of(const QLinearParams& p, std::size_t o) { return p.w_scales[p.w_scales.size() == 1 ? 0 : o]; }

Kind draw_kind() { return static_cast<Kind>(*rc::gen::inRange(0, 3)); }

// ---- the accumulations ----

// The real convolution: dequantized tensors, the input materialized with zero padding on every
// side (enough at the bottom / right for every output position), summed over the window.
RatArray real_conv(const Problem& pr, long long oh, long long ow) {
  const auto& g = pr.g;
  const long long N = pr.x.dim(0), H = pr.x.dim(1), W = pr.x.dim(2), C = pr.x.dim(3);
  const long long O = pr.w.dim(0), KH = pr.w.dim(1), KW = pr.w.dim(2), Cg = pr.w.dim(3);
  const long long HP = std::max(H + g.pads[0], (oh - 1) * g.strides[0] + g.dilations[0] * (KH - 1) + 1);
  const long long WP = std::max(W + g.pads[1], (ow - 1) * g.strides[1] + g.dilations[1] * (KW - 1) + 1);
  const Rat sx = f32_value(pr.p.x_scale);
  RatArray xp({N, HP, WP, C}, Rat(0));
  for (long long n = 0; n < N; ++n)
    for (long long h = 0; h < H; ++h)
      for (long long v = 0; v < W; ++v)
        for (long long ch = 0; ch < C; ++ch)
          xp.at4(n, h + g.pads[0], v + g.pads[1], ch) = sx * Rat(pr.x.at4(n, h, v, ch) - pr.p.x_zero_point);
  RatArray y({N, oh, ow, O});
  for (long long n = 0; n < N; ++n)
    for (long long p = 0; p < oh; ++p)
      for (long long q = 0; q < ow; ++q)
        for (long long o = 0; o < O; ++o) {
          const Rat sw = f32_value(w_scale_of(pr.p, static_cast<std::size_t>(o)));
          Rat sum = pr.b ? sx * sw * Rat(pr.b->data[static_cast<std::size_t>(o)]) : Rat(0);
          const long long grp = o / (O / g.groups);
          for (long long i = 0; i < KH; ++i)
            for (long long j = 0; j < KW; ++j)
              for (long long c = 0; c < Cg; ++c)
                sum += xp.at4(n, p * g.strides[0] + i * g.dilations[0], q * g.strides[1] + j * g.dilations[1],
                              grp * Cg + c) *
                       (sw * Rat(pr.w.at4(o, i, j, c) - pr.p.w_zero_point));
          y.at4(n, p, q, o) = sum;
        }
  return y;
}

RC_GTEST_PROP(qlinear_acc_conv2d, EqualsTheRealConvolutionOverTheScales, ()) {
  const auto c = *rc::gen::element(QLinearConvention::XnnpackFp32, QLinearConvention::OnnxRuntime);
  const Problem pr = draw_problem(Kind::Conv, c);
  const auto [oh, ow] = out_size(pr, c);
  const IntArray acc = accumulate(pr, c);
  const RatArray real = real_conv(pr, oh, ow);
  const auto O = static_cast<std::size_t>(pr.w.dim(0));
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const Rat scale = f32_value(pr.p.x_scale) * f32_value(w_scale_of(pr.p, i % O));
    RC_ASSERT(real.data[i] / scale == Rat(acc.data[i]));
  }
}

IntArray transpose(const IntArray& a, const std::array<int, 4>& perm) {
  Shape s(4);
  for (int i = 0; i < 4; ++i)
    s[static_cast<std::size_t>(i)] = a.shape[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])];
  IntArray y(s);
  for (long long off = 0; off < y.numel(); ++off) {
    const Shape idx = unravel(off, s);
    Shape src(4);
    for (int i = 0; i < 4; ++i)
      src[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = idx[static_cast<std::size_t>(i)];
    y.data[static_cast<std::size_t>(off)] = a.at(src);
  }
  return y;
}

RC_GTEST_PROP(qlinear_acc_conv2d, AgreesWithMrtConv2dAndTvmQnnConv2d, ()) {
  Problem pr = draw_problem(Kind::Conv, QLinearConvention::OnnxRuntime);
  pr.g.pads[2] = pr.g.pads[0], pr.g.pads[3] = pr.g.pads[1];  // the MRT / TVM operators pad symmetrically
  pr.b.reset();
  const auto [oh, ow] = out_size(pr, QLinearConvention::OnnxRuntime);
  RC_PRE(oh >= 1 && ow >= 1);
  const IntArray acc = accumulate(pr, QLinearConvention::OnnxRuntime);
  // mrt.op.conv2d (NCHW, OIHW) of the zero-point-shifted codes, padded with 0.
  Conv2dAttrs a;
  a.stride = {pr.g.strides[0], pr.g.strides[1]};
  a.dilation = {pr.g.dilations[0], pr.g.dilations[1]};
  a.padding = {pr.g.pads[0], pr.g.pads[1]};
  a.groups = pr.g.groups;
  const IntArray xs =
      map_array<Int>(transpose(pr.x, {0, 3, 1, 2}), [&](const Int& v) { return Int(v - pr.p.x_zero_point); });
  const IntArray ws =
      map_array<Int>(transpose(pr.w, {0, 3, 1, 2}), [&](const Int& v) { return Int(v - pr.p.w_zero_point); });
  RC_ASSERT(transpose(conv2d(xs, ws, a, Int(0)), {0, 2, 3, 1}) == acc);
  // tvm.qnn.conv2d with out_dtype int32 is the accumulator (no bias).
  TvmQnnParams t;
  t.input_zero_point = pr.p.x_zero_point, t.kernel_zero_point = pr.p.w_zero_point, t.out_dtype = DType::I32;
  const IntArray tv =
      tvm_qnn_conv2d(transpose(pr.x, {0, 3, 1, 2}), transpose(pr.w, {0, 3, 1, 2}), a, TvmLayout::NCHW_OIHW, t);
  RC_ASSERT(transpose(tv, {0, 2, 3, 1}) == acc);
}

RC_GTEST_PROP(qlinear_acc_fully_connected, AgreesWithConv1x1AndTvmDense, ()) {
  const Problem pr = draw_problem(Kind::Fc, QLinearConvention::OnnxRuntime);
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  const IntArray acc = accumulate(pr, QLinearConvention::OnnxRuntime);
  const long long N = pr.x.dim(0), K = pr.x.dim(1), O = pr.w.dim(0);
  const IntArray conv = qlinear_acc_conv2d(IntArray({N, 1, 1, K}, pr.x.data), IntArray({O, 1, 1, K}, pr.w.data), b,
                                           QConvGeometry{}, pr.p.x_zero_point, pr.p.w_zero_point, 1, 1);
  RC_ASSERT(conv.data == acc.data);
  TvmQnnParams t;
  t.input_zero_point = pr.p.x_zero_point, t.kernel_zero_point = pr.p.w_zero_point, t.out_dtype = DType::I32;
  IntArray dense = tvm_qnn_dense(pr.x, pr.w, t);
  if (b)
    for (std::size_t i = 0; i < dense.data.size(); ++i) dense.data[i] += b->data[i % static_cast<std::size_t>(O)];
  RC_ASSERT(dense == acc);
}

RC_GTEST_PROP(qlinear_acc_matmul, AgreesWithGemmlowpAndFullyConnectedPerBatch, ()) {
  const Problem pr = draw_problem(Kind::Matmul, QLinearConvention::OnnxRuntime);
  const IntArray acc = accumulate(pr, QLinearConvention::OnnxRuntime);
  const std::size_t ra = pr.x.shape.size() - 2, rb = pr.w.shape.size() - 2, r = acc.shape.size() - 2;
  const long long M = pr.x.shape[ra], K = pr.x.shape[ra + 1], N = pr.w.shape[rb + 1];
  const Shape batch(acc.shape.begin(), acc.shape.end() - 2);
  for (long long bi = 0; bi < shape_numel(batch); ++bi) {
    const Shape idx = unravel(bi, batch);
    IntArray a({M, K}), bt({N, K}), b({K, N}), y({M, N});
    Shape ia(pr.x.shape.size()), ib(pr.w.shape.size()), iy(idx);
    for (std::size_t k = 0; k < ra; ++k) ia[k] = pr.x.shape[k] == 1 ? 0 : idx[k + r - ra];
    for (std::size_t k = 0; k < rb; ++k) ib[k] = pr.w.shape[k] == 1 ? 0 : idx[k + r - rb];
    iy.resize(r + 2);
    for (long long m = 0; m < M; ++m)
      for (long long k = 0; k < K; ++k) ia[ra] = m, ia[ra + 1] = k, a.at2(m, k) = pr.x.at(ia);
    for (long long k = 0; k < K; ++k)
      for (long long n = 0; n < N; ++n) ib[rb] = k, ib[rb + 1] = n, b.at2(k, n) = bt.at2(n, k) = pr.w.at(ib);
    for (long long m = 0; m < M; ++m)
      for (long long n = 0; n < N; ++n) iy[r] = m, iy[r + 1] = n, y.at2(m, n) = acc.at(iy);
    RC_ASSERT(qlinear_acc_fully_connected(a, bt, nullptr, pr.p.x_zero_point, pr.p.w_zero_point) == y);
    if (pr.p.x_type == DType::U8 && pr.p.w_type == DType::U8)  // gemmlowp's offset trick, uint8 only
      RC_ASSERT(gemmlowp_matmul_accumulator(a, b, pr.p.x_zero_point, pr.p.w_zero_point) == y);
  }
}

// ---- composition identities ----

// The convention's epilogue of one accumulator, from the clauses it composes (float.xnnpack_fp32
// and the clamp; MLAS's clamp-then-round), with the scale derived in the test.
Int epilogue(const Int& acc, std::uint32_t s, const QLinearParams& p, QLinearConvention c) {
  const Range r = int_range(p.x_type);
  if (c == QLinearConvention::XnnpackFp32)
    return saturate(xnnpack_fp32_requantize(acc, s, p.y_zero_point, p.x_type),
                    Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)});
  return qlinear_onnxruntime_output(acc, s, p);
}

// The same on the hardware.
long long hw_epilogue(const Int& acc, std::uint32_t s, const QLinearParams& p, QLinearConvention c) {
  const auto a = static_cast<std::int32_t>(static_cast<long long>(acc));
  const auto zp = static_cast<std::int32_t>(static_cast<long long>(p.y_zero_point));
  const Range r = int_range(p.x_type);
  const auto lo = static_cast<std::int32_t>(static_cast<long long>(p.y_min.value_or(r.lo)));
  const auto hi = static_cast<std::int32_t>(static_cast<long long>(p.y_max.value_or(r.hi)));
  if (c == QLinearConvention::XnnpackFp32) return hw::xnnpack_fp32(a, V(s), zp, lo, hi);
  return hw::onnxruntime(a, V(s), zp, lo, hi);
}

void check_composition(QLinearConvention c, bool wide) {
  const Problem pr = draw_problem(draw_kind(), c, wide);
  const IntArray y = run(pr, c);
  const IntArray acc = accumulate(pr, c);
  RC_ASSERT(y.shape == acc.shape);
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::size_t o = i % channels;
    const std::uint32_t s = f32_div(f32_mul(pr.p.x_scale, w_scale_of(pr.p, o)), pr.p.y_scale);
    RC_ASSERT(std::bit_cast<std::uint32_t>(hw::scale(V(pr.p.x_scale), V(w_scale_of(pr.p, o)), V(pr.p.y_scale))) == s);
    const Int e = epilogue(acc.data[i], s, pr.p, c);
    RC_ASSERT(y.data[i] == e);
    RC_ASSERT(static_cast<long long>(e) == hw_epilogue(acc.data[i], s, pr.p, c));
  }
}

RC_GTEST_PROP(qlinear_xnnpack_fp32, IsTheAccumulatorThenTheFp32EpilogueOnTheHardware, ()) {
  check_composition(QLinearConvention::XnnpackFp32, false);
}

RC_GTEST_PROP(qlinear_onnxruntime, IsTheAccumulatorThenTheMlasEpilogueOnTheHardware, ()) {
  check_composition(QLinearConvention::OnnxRuntime, *rc::gen::arbitrary<bool>());
}

RC_GTEST_PROP(qlinear_onnxruntime, EqualsXnnpackWithinItsScaleLimits, ()) {
  Problem pr = draw_problem(draw_kind(), QLinearConvention::XnnpackFp32);
  pr.p.y_min.reset(), pr.p.y_max.reset();  // ONNX Runtime has no fused clamp
  if (pr.kind == Kind::Conv) {
    const auto [oh, ow] = out_size(pr, QLinearConvention::OnnxRuntime);
    RC_PRE(oh >= 1 && ow >= 1);
  }
  RC_ASSERT(run(pr, QLinearConvention::OnnxRuntime) == run(pr, QLinearConvention::XnnpackFp32));
}

// ---- error bounds ----

// |y - (zp + r)| <= 1/2 + ((1 + u)^4 - 1) |r| where y is not clamped; at a clamp bound, zp + r is
// beyond it or within that margin of it. r = acc s_x s_w / s_y exactly.
void check_bound(QLinearConvention c) {
  const Problem pr = draw_problem(draw_kind(), c);
  const IntArray y = run(pr, c);
  const IntArray acc = accumulate(pr, c);
  const Rat u = pow2r(-24), one(1);
  const Rat growth = (one + u) * (one + u) * (one + u) * (one + u) - one;
  const Range t = int_range(pr.p.x_type);
  const Int lo = pr.p.y_min.value_or(t.lo), hi = pr.p.y_max.value_or(t.hi);
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const Rat r = Rat(acc.data[i]) * f32_value(pr.p.x_scale) * f32_value(w_scale_of(pr.p, i % channels)) /
                  f32_value(pr.p.y_scale);
    const Rat target = Rat(pr.p.y_zero_point) + r;
    const Rat margin = Rat(1, 2) + growth * abs(r);
    const Rat yv(y.data[i]);
    if (y.data[i] > lo && y.data[i] < hi) RC_ASSERT(abs(yv - target) <= margin);
    if (y.data[i] == lo) RC_ASSERT(target <= yv + margin);
    if (y.data[i] == hi) RC_ASSERT(target >= yv - margin);
  }
}

RC_GTEST_PROP(qlinear_xnnpack_fp32, WithinHalfAStepPlusTheFloatErrorOfTheRealResult, ()) {
  check_bound(QLinearConvention::XnnpackFp32);
}

RC_GTEST_PROP(qlinear_onnxruntime, WithinHalfAStepPlusTheFloatErrorOfTheRealResult, ()) {
  check_bound(QLinearConvention::OnnxRuntime);
}

// ---- hand examples of the clauses' edge rules ----

TEST(qlinear_xnnpack_fp32, OverhangingKernelIsOutsideXnnpackAndRejectedByOnnxRuntime) {
  // A 3x3 kernel over a 1x2 input without padding: XNNPACK's doz rule would give 1x1, but its run
  // reads out of bounds (a REQUIRE); ONNX Runtime fails ("Invalid input shape").
  const IntArray x = ia({1, 1, 2, 1}, {11, 12}), w = ia({1, 3, 3, 1}, {120, 121, 122, 123, 124, 125, 126, 127, 128});
  QLinearParams p;
  p.x_type = p.w_type = DType::U8;
  p.x_zero_point = 10, p.w_zero_point = 128, p.y_zero_point = 100;
  EXPECT_THROW(qlinear_conv2d(x, w, nullptr, QConvGeometry{}, p, QLinearConvention::XnnpackFp32), RequireViolated);
  EXPECT_THROW(qlinear_conv2d(x, w, nullptr, QConvGeometry{}, p, QLinearConvention::OnnxRuntime), ErrorIf);
}

TEST(qlinear_onnxruntime, ScaleLimitsAreXnnpacksAlone) {
  // S = 16 * 16 / 1 = 256: XNNPACK rejects the operator, ONNX Runtime saturates.
  QLinearParams p;
  p.x_scale = 0x41800000u, p.w_scales = {0x41800000u}, p.y_scale = 0x3f800000u;
  const IntArray x = ia({2, 1}, {1, -1}), w = ia({1, 1}, {1});
  EXPECT_THROW(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::XnnpackFp32), ErrorIf);
  EXPECT_EQ(qlinear_fully_connected(x, w, nullptr, p, QLinearConvention::OnnxRuntime), ia({2, 1}, {127, -128}));
}

}  // namespace
