// Properties of the MRT operators and expansions: independent formulations, the exact expansion
// identity (integers / scale == real formalization on dequantized inputs), and the error bound.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ops_arrays.h"
#include "ops_counterexample.h"
#include "qspec/ref/bits.h"
#include "qspec/ref/mrt.h"
#include "qspec/ref/ops/mrt_avg_pool.h"
#include "qspec/ref/ops/mrt_expansion.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

// A positive rational p/q with small p, q: the scales of the expansion identity.
Rat draw_scale() { return Rat(*rc::gen::inRange<long long>(1, 1000), *rc::gen::inRange<long long>(1, 1000)); }

// Convolution written independently of the reference loop: explicit pad2d, im2col, then one
// FullyConnected per group (both tested by hand tables in ops_mrt_test.cc).
IntArray conv_by_im2col(const IntArray& x, const IntArray& w, const Conv2dAttrs& a, const Int& pad) {
  const IntArray xp = pad2d(x, PadWidth{a.padding[0], a.padding[0], a.padding[1], a.padding[1]}, pad);
  const std::int64_t N = x.dim(0), G = a.groups, IC = w.dim(1), KH = w.dim(2), KW = w.dim(3), OPG = w.dim(0) / G;
  const std::int64_t OH = (xp.dim(2) - (a.dilation[0] * (KH - 1) + 1)) / a.stride[0] + 1;
  const std::int64_t OW = (xp.dim(3) - (a.dilation[1] * (KW - 1) + 1)) / a.stride[1] + 1;
  IntArray y({N, w.dim(0), OH, OW});
  for (std::int64_t g = 0; g < G; ++g) {
    IntArray cols({N * OH * OW, IC * KH * KW}), wm({OPG, IC * KH * KW});
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t p = 0; p < OH; ++p)
        for (std::int64_t q = 0; q < OW; ++q)
          for (std::int64_t i = 0; i < IC; ++i)
            for (std::int64_t ki = 0; ki < KH; ++ki)
              for (std::int64_t kj = 0; kj < KW; ++kj)
                cols.at2((n * OH + p) * OW + q, (i * KH + ki) * KW + kj) =
                    xp.at4(n, g * IC + i, p * a.stride[0] + ki * a.dilation[0], q * a.stride[1] + kj * a.dilation[1]);
    for (std::int64_t o = 0; o < OPG; ++o)
      for (std::int64_t k = 0; k < IC * KH * KW; ++k) wm.at2(o, k) = w.data[static_cast<std::size_t>((g * OPG + o) * IC * KH * KW + k)];
    const IntArray r = fully_connected(cols, wm);
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t p = 0; p < OH; ++p)
        for (std::int64_t q = 0; q < OW; ++q)
          for (std::int64_t o = 0; o < OPG; ++o) y.at4(n, g * OPG + o, p, q) = r.at2((n * OH + p) * OW + q, o);
  }
  return y;
}

RatArray scale_down(const IntArray& a, const Rat& s) { return map_array<Rat>(a, [&](const Int& v) { return Rat(v) / s; }); }

RatArray sum_scaled(const std::vector<ExpTerm<Int>>& terms, const std::vector<Rat>& scales) {
  RatArray acc(terms[0].value.shape);
  for (std::size_t k = 0; k < terms.size(); ++k)
    for (std::size_t i = 0; i < acc.data.size(); ++i) acc.data[i] += Rat(terms[k].value.data[i]) / scales[k];
  return acc;
}

}  // namespace

RC_GTEST_PROP(mrt_op_conv2d, EqualsIm2colFormulation, ()) {
  const ConvCase c = draw_conv_case();
  const IntArray x = draw_array(c.x, -50, 50), w = draw_array(c.w, -50, 50);
  const Int pad(*rc::gen::inRange(-5, 6));
  const IntArray y = conv2d(x, w, c.attrs, pad);
  QSPEC_RECORD_COUNTEREXAMPLE(rec, "mrt_op_conv2d.EqualsIm2colFormulation", "conv2d", "mrt", {"mrt.op.conv2d"},
                              conv_attrs_json(c.attrs, pad), {{"x", x}, {"w", w}}, {{"y", y}});
  RC_ASSERT(y == conv_by_im2col(x, w, c.attrs, pad));
}

// The document's Pooling: pad with INT_MIN beforehand, then windows of the padded tensor.
RC_GTEST_PROP(mrt_op_max_pool2d, EqualsPadIntMinThenPool, ()) {
  const Pool2dAttrs a = draw_pool_attrs();
  const Shape xs{*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3), a.kernel[0] + *rc::gen::inRange(0, 4),
                 a.kernel[1] + *rc::gen::inRange(0, 4)};
  const IntArray x = draw_array(xs, -(1LL << 31) + 1, (1LL << 31) - 1);
  const IntArray padded = pad2d(x, PadWidth{a.padding[0], a.padding[0], a.padding[1], a.padding[1]}, Int(-(1LL << 31)));
  Pool2dAttrs unpadded = a;
  unpadded.padding = {0, 0};
  RC_ASSERT(max_pool2d(x, a) == max_pool2d(padded, unpadded));
}

// Operators whose expansion keeps the scale: op(Xq) / sc == op(Xq / sc), exactly.
RC_GTEST_PROP(mrt_op_pad, ExpansionsOfTransformOpsKeepTheScale, ()) {
  const Rat sc = draw_scale();
  const Shape s{*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 4), *rc::gen::inRange(2, 5), *rc::gen::inRange(2, 5)};
  const IntArray x = draw_array(s, -127, 127), x2 = draw_array(s, -127, 127);
  const RatArray xr = scale_down(x, sc), x2r = scale_down(x2, sc);
  const PadWidth pw{*rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3)};
  RC_ASSERT(scale_down(pad2d(x, pw), sc) == pad2d(xr, pw));
  RC_ASSERT(scale_down(relu(x), sc) == relu(xr));
  Pool2dAttrs pa;
  pa.kernel = {2, 2};
  pa.stride = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
  pa.padding = {*rc::gen::inRange(0, 2), *rc::gen::inRange(0, 2)};
  RC_ASSERT(scale_down(max_pool2d(x, pa), sc) == max_pool2d(xr, pa));
  RC_ASSERT(scale_down(flatten(x), sc) == flatten(xr));
  const std::vector<SliceAxis> sl{SliceAxis{}, SliceAxis{0, {}, 2}, SliceAxis{{}, {}, -1}};
  RC_ASSERT(scale_down(slice(x, sl), sc) == slice(xr, sl));
  RC_ASSERT(scale_down(concat<Int>({x, x2}, 1), sc) == concat<Rat>({xr, x2r}, 1));
}

namespace {

struct ConvIdentityCase {
  ConvCase c;
  IntArray xq, wq;
  OperandQ xp, wp;
  Int x_pad{0};
};

// Integer inputs in the declared ranges (affine operands in [0, 2^p - 1]), random scales and zero points.
ConvIdentityCase draw_conv_identity(ExpKind kind) {
  ConvIdentityCase k;
  k.c = draw_conv_case();
  const bool zx = kind == ExpKind::ZpX || kind == ExpKind::ZpXW, zw = kind == ExpKind::ZpW || kind == ExpKind::ZpXW;
  k.xq = zx ? draw_array(k.c.x, 0, 255) : draw_array(k.c.x, -127, 127);
  k.wq = zw ? draw_array(k.c.w, 0, 255) : draw_array(k.c.w, -127, 127);
  k.xp.scale = draw_scale();
  k.wp.scale = draw_scale();
  if (zx) {
    k.xp.zp = *rc::gen::inRange(-300, 301);
    if (kind == ExpKind::ZpXW) {
      k.xp.zp_scale = k.xp.scale;
      k.x_pad = -k.xp.zp;
    } else {  // sc_x = j * zsc_x: the pad value -zx * sc_x / zsc_x = -zx * j is an integer
      const long long j = *rc::gen::inRange(1, 4);
      k.xp.zp_scale = draw_scale();
      k.xp.scale = k.xp.zp_scale * j;
      k.x_pad = -k.xp.zp * j;
    }
  }
  if (zw) {
    k.wp.zp = *rc::gen::inRange(-300, 301);
    k.wp.zp_scale = kind == ExpKind::ZpXW ? k.wp.scale : draw_scale();
  }
  return k;
}

void check_conv_identity(ExpKind kind) {
  const ConvIdentityCase k = draw_conv_identity(kind);
  const auto e = conv2d_expand<Int>(kind, k.xq, k.wq, k.c.attrs, k.xp.zp, k.wp.zp, k.x_pad);
  const RatArray real = conv2d(dequantize(k.xq, k.xp), dequantize(k.wq, k.wp), k.c.attrs);
  RC_ASSERT(sum_scaled(e.terms, conv2d_term_scales(kind, k.xp, k.wp)) == real);
  if (kind == ExpKind::Sym || kind == ExpKind::ZpXW) {  // one integer result: the last running sum
    const Rat s = conv2d_term_scales(kind, k.xp, k.wp)[0];
    RC_ASSERT(scale_down(e.partial_sums.back(), s) == real);
  }
}

}  // namespace

RC_GTEST_PROP(mrt_expand_conv2d_sym, IdentityExact, ()) { check_conv_identity(ExpKind::Sym); }
RC_GTEST_PROP(mrt_expand_conv2d_zpx, IdentityExact, ()) { check_conv_identity(ExpKind::ZpX); }
RC_GTEST_PROP(mrt_expand_conv2d_zpw, IdentityExact, ()) { check_conv_identity(ExpKind::ZpW); }
RC_GTEST_PROP(mrt_expand_conv2d_zpxw, IdentityExact, ()) { check_conv_identity(ExpKind::ZpXW); }

namespace {
void check_fc_identity(ExpKind kind) {
  const bool zx = kind == ExpKind::ZpX || kind == ExpKind::ZpXW, zw = kind == ExpKind::ZpW || kind == ExpKind::ZpXW;
  const Shape xs{*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 9)};
  const Shape ws{*rc::gen::inRange(1, 4), xs[1]};
  const IntArray xq = zx ? draw_array(xs, 0, 255) : draw_array(xs, -127, 127);
  const IntArray wq = zw ? draw_array(ws, 0, 255) : draw_array(ws, -127, 127);
  OperandQ xp, wp;
  xp.scale = xp.zp_scale = draw_scale();
  wp.scale = wp.zp_scale = draw_scale();
  if (zx) xp.zp = *rc::gen::inRange(-300, 301);
  if (zw) wp.zp = *rc::gen::inRange(-300, 301);
  const auto e = fc_expand<Int>(kind, xq, wq, xp.zp, wp.zp);
  const RatArray real = fully_connected(dequantize(xq, xp), dequantize(wq, wp));
  RC_ASSERT(scale_down(e.partial_sums.back(), fc_scale(kind, xp, wp)) == real);
}
}  // namespace

RC_GTEST_PROP(mrt_expand_fc_sym, IdentityExact, ()) { check_fc_identity(ExpKind::Sym); }
RC_GTEST_PROP(mrt_expand_fc_zpx, IdentityExact, ()) { check_fc_identity(ExpKind::ZpX); }
RC_GTEST_PROP(mrt_expand_fc_zpw, IdentityExact, ()) { check_fc_identity(ExpKind::ZpW); }
RC_GTEST_PROP(mrt_expand_fc_zpxw, IdentityExact, ()) { check_fc_identity(ExpKind::ZpXW); }

// The doc's formalization 4 with its "+" terms is the "+ zp" convention; under gemmlowp's
// real = s (q - zp) the cross terms change sign. A wrong sign is caught: flipping zw fails.
RC_GTEST_PROP(mrt_expand_fc_zpxw, WrongSignIsCaught, ()) {
  const Shape xs{1, *rc::gen::inRange(1, 5)}, ws{1, xs[1]};
  const IntArray xq = draw_array(xs, 0, 15), wq = draw_array(ws, 0, 15);
  OperandQ xp, wp;
  xp.zp = *rc::gen::inRange(-20, 21);
  wp.zp = *rc::gen::inRange(1, 21);
  const auto e = fc_expand<Int>(ExpKind::ZpXW, xq, wq, xp.zp, Int(-wp.zp));
  const RatArray real = fully_connected(dequantize(xq, xp), dequantize(wq, wp));
  Int sumx = 0;
  for (const auto& v : xq.data) sumx += v;
  RC_PRE(sumx + xs[1] * xp.zp != 0);  // the flipped term 2 zw sum(Xq + zx) vanishes only then
  RC_ASSERT(to_rat(e.partial_sums.back()) != real);
}

namespace {
// Symmetric quantizer of the MRT document: q = round(sc * r) (MXNet round: half away from zero).
Int quantize_sym(const Rat& r, const Rat& sc) { return round_half_away(r * sc); }

// Draw reals within a threshold, quantize, expand, realize, dequantize; check the derived bound
// sum_i (|Xr_i|/(2 sc_w) + |Wr_i|/(2 sc_x) + 1/(4 sc_x sc_w)) + 1/(2 sc_y) per output element.
template <class RealOp, class IntOp>
void check_error_bound(const Shape& xs, const Shape& ws, RealOp real_op, IntOp int_op) {
  const int xprec = *rc::gen::inRange(2, 9), wprec = *rc::gen::inRange(2, 9);
  const Rat thx(*rc::gen::inRange(1, 100), *rc::gen::inRange(1, 10)), thw(*rc::gen::inRange(1, 100), *rc::gen::inRange(1, 10));
  const Rat sx = Rat(pow2(static_cast<unsigned>(xprec - 1)) - 1) / thx, sw = Rat(pow2(static_cast<unsigned>(wprec - 1)) - 1) / thw;
  auto draw_real = [](const Shape& s, const Rat& th) {
    RatArray a(s);
    for (auto& v : a.data) v = th * Rat(*rc::gen::inRange(-1000, 1001), 1000);
    return a;
  };
  const RatArray xr = draw_real(xs, thx), wr = draw_real(ws, thw);
  const IntArray xq = map_array<Int>(xr, [&](const Rat& v) { return quantize_sym(v, sx); });
  const IntArray wq = map_array<Int>(wr, [&](const Rat& v) { return quantize_sym(v, sw); });
  const IntArray ye = int_op(xq, wq);
  const Int frac(*rc::gen::inRange(1, 256));
  const int exp = *rc::gen::inRange(-16, 1);
  const IntArray yq = realize(ye, frac, exp, 32);
  const Rat sy = sx * sw * Rat(frac) * pow2r(exp);  // MRT records the realized scale
  const RatArray yr = real_op(xr, wr);
  // Per output element: the bound of each product term (via the same operator on |.|), plus 1/(2 sc_y).
  const RatArray absx = map_array<Rat>(xr, [](const Rat& v) { return abs(v); });
  const RatArray absw = map_array<Rat>(wr, [](const Rat& v) { return abs(v); });
  const RatArray ones_x(xs, Rat(1)), ones_w(ws, Rat(1));
  const RatArray b1 = real_op(absx, ones_w), b2 = real_op(ones_x, absw), b3 = real_op(ones_x, ones_w);
  for (std::size_t i = 0; i < yr.data.size(); ++i) {
    RC_ASSERT(abs(ye.data[i] * frac * pow2r(exp)) < Rat(pow2(31) - 1));  // no saturation in realize
    const Rat bound = b1.data[i] / (2 * sw) + b2.data[i] / (2 * sx) + b3.data[i] / (4 * sx * sw) + 1 / (2 * sy);
    RC_ASSERT(abs(Rat(yq.data[i]) / sy - yr.data[i]) <= bound);
  }
}
}  // namespace

RC_GTEST_PROP(mrt_expand_error_bound, ConvolutionSymmetric, ()) {
  const ConvCase c = draw_conv_case(2);
  check_error_bound(
      c.x, c.w, [&](const RatArray& x, const RatArray& w) { return conv2d(x, w, c.attrs); },
      [&](const IntArray& x, const IntArray& w) { return conv2d_expand<Int>(ExpKind::Sym, x, w, c.attrs, Int(0), Int(0), Int(0)).partial_sums.back(); });
}
RC_GTEST_PROP(mrt_expand_error_bound, FullyConnectedSymmetric, ()) {
  const Shape xs{*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 17)}, ws{*rc::gen::inRange(1, 4), xs[1]};
  check_error_bound(
      xs, ws, [](const RatArray& x, const RatArray& w) { return fully_connected(x, w); },
      [](const IntArray& x, const IntArray& w) { return fc_expand<Int>(ExpKind::Sym, x, w, Int(0), Int(0)).partial_sums.back(); });
}

// quantize_scale: Yq_i = realize(X_i, m_i) recorded at the common scale sc_y although each m_i only
// approximates sc_y / sc_i. Bound: sum_i [1/(2 sc_y) + |X_i/sc_i| * |m_i sc_i / sc_y - 1|].
RC_GTEST_PROP(mrt_op_quantize_scale, ErrorBound, ()) {
  const int n = *rc::gen::inRange(2, 5);
  const Shape s{*rc::gen::inRange(1, 6)};
  const Rat sy = draw_scale();
  std::vector<IntArray> xs;
  std::vector<Rat> scs;
  std::vector<Int> fracs;
  std::vector<int> exps;
  for (int i = 0; i < n; ++i) {
    xs.push_back(draw_array(s, -30000, 30000));
    scs.push_back(draw_scale());
    // An approximation frac * 2^exp of sc_y / sc_i, as cvm_float would give (any rounding).
    const int e = -12;
    const Int f = round_half_even(sy / scs.back() / pow2r(e));
    RC_PRE(f >= 1);
    fracs.push_back(f);
    exps.push_back(e);
  }
  const IntArray y = quantize_scale(xs, fracs, exps, 32, CombineOp::AddN);
  for (std::size_t k = 0; k < y.data.size(); ++k) {
    Rat real = 0, bound = 0;
    for (int i = 0; i < n; ++i) {
      const Rat xr = Rat(xs[static_cast<std::size_t>(i)].data[k]) / scs[static_cast<std::size_t>(i)];
      const Rat m = Rat(fracs[static_cast<std::size_t>(i)]) * pow2r(exps[static_cast<std::size_t>(i)]);
      RC_PRE(abs(Rat(xs[static_cast<std::size_t>(i)].data[k]) * m) < Rat(pow2(31) - 1));
      real += xr;
      bound += quantize_scale_error_bound(xr, m, scs[static_cast<std::size_t>(i)], sy);
    }
    RC_ASSERT(abs(Rat(y.data[k]) / sy - real) <= bound);
  }
}

// One product term: the bound product_error_bound states, for any reals and scales.
RC_GTEST_PROP(mrt_expand_error_bound, ProductTerm, (Rat xr, Rat wr)) {
  const Rat sx = draw_scale(), sw = draw_scale();
  const Int xq = round_half_away(xr * sx), wq = round_half_away(wr * sw);
  RC_ASSERT(abs(Rat(xq * wq) / (sx * sw) - xr * wr) <= product_error_bound(xr, wr, sx, sw));
}

// ops::realize (the rational form of mrt.realize) is one rounding, half up, then the clip: checked
// against a floor division written out (no rounding function), with half of the cases exact ties
// (a tie is Ye frac = k 2^s + 2^(s-1) for a right shift s), against the CVM kernels that MRT runs
// (mrt_realize: broadcast_mul then cvm_right_shift / cvm_left_shift / cvm_clip), and the rounding
// direction is pinned: a positive tie goes up, a negative tie goes up too (toward +infinity).
RC_GTEST_PROP(mrt_realize, RationalFormIsHalfUpThenClip, ()) {
  const int prec = *rc::gen::inRange(2, 25);
  const int exp = *rc::gen::inRange(-20, 4);
  const Int frac(*rc::gen::inRange<long long>(1, 200));
  Int ye(*rc::gen::inRange<long long>(-(1LL << 22), 1LL << 22));
  if (exp < 0 && *rc::gen::arbitrary<bool>()) {
    // Make Ye frac an exact tie of the shift: frac = 1 and Ye = k 2^s + 2^(s-1) (either sign).
    const Int s = pow2(static_cast<unsigned>(-exp));
    ye = Int(*rc::gen::inRange<long long>(-1000, 1000)) * s + s / 2;
    RC_TAG("tie");
    const Int y = realize(ye, Int(1), exp, 32);
    RC_ASSERT(y == floor_div(ye, s) + 1);  // half up: the tie goes to the larger neighbour, sign or not
    RC_ASSERT(realize(-ye, Int(1), exp, 32) == -floor_div(ye, s));  // -(k + 1/2) -> -k
    RC_SUCCEED("ties checked");
  }
  const Int v = ye * frac;
  const Int direct = exp >= 0 ? v * pow2(static_cast<unsigned>(exp))
                              : floor_div(v + pow2(static_cast<unsigned>(-exp - 1)), pow2(static_cast<unsigned>(-exp)));
  const Int a = pow2(static_cast<unsigned>(prec - 1)) - 1;
  const Int clipped = direct > a ? a : (direct < -a ? -a : direct);
  RC_ASSERT(realize(ye, frac, exp, prec) == clipped);
  // The CVM kernels, where MRT's precision checks allow them (input precision of Ye, frac's bits).
  const int iprec = bit_length(abs(ye)) + 1;
  const int fprec = frac > 1 ? mrt_get_bit(Rat(frac)) : 0;
  if (iprec + fprec <= 32 && -exp <= 32 && (exp <= 0 || iprec + fprec + exp <= 32))
    RC_ASSERT(realize(ye, frac, exp, prec) == mrt_realize(ye, frac, exp, prec, std::max(iprec, 2)));
}

// Convolution 2/3 end to end: the recombination Ye = realize(Ye1) + realize(Ye2) is the sum of the
// two realized terms (written out with floor divisions), and at the common scale it approximates
// the real convolution within quantize_scale's bound (each term's multiplier m_i approximates
// sc_y / sc_i, mrt.expand.error_bound): the step after the expansion identity above.
namespace {
void check_recombination(ExpKind kind) {
  const ConvIdentityCase k = draw_conv_identity(kind);
  const auto e = conv2d_expand<Int>(kind, k.xq, k.wq, k.c.attrs, k.xp.zp, k.wp.zp, k.x_pad);
  const auto scales = conv2d_term_scales(kind, k.xp, k.wp);
  const Rat sy = draw_scale();
  const int ex = -14;
  Int fr[2];
  for (int t = 0; t < 2; ++t) {
    fr[t] = round_half_even(sy / scales[static_cast<std::size_t>(t)] / pow2r(ex));
    RC_PRE(fr[t] >= 1);
  }
  const IntArray y = recombine_two(e.terms[0].value, e.terms[1].value, fr[0], ex, fr[1], ex, 32);
  const RatArray real = conv2d(dequantize(k.xq, k.xp), dequantize(k.wq, k.wp), k.c.attrs);
  const Int half = pow2(static_cast<unsigned>(-ex - 1)), div = pow2(static_cast<unsigned>(-ex));
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    Int sum = 0;
    Rat bound = 0;
    for (int t = 0; t < 2; ++t) {
      const Int ye = e.terms[static_cast<std::size_t>(t)].value.data[i];
      RC_PRE(abs(ye * fr[t]) < pow2(31) * div);  // no clip at oprec 32
      sum += floor_div(ye * fr[t] + half, div);
      bound += quantize_scale_error_bound(Rat(ye) / scales[static_cast<std::size_t>(t)], Rat(fr[t]) * pow2r(ex),
                                          scales[static_cast<std::size_t>(t)], sy);
    }
    RC_ASSERT(y.data[i] == sum);
    RC_ASSERT(abs(Rat(y.data[i]) / sy - real.data[i]) <= bound);
  }
}
}  // namespace
RC_GTEST_PROP(mrt_expand_conv2d_zpx, RecombinedIsTheSumWithinTheBound, ()) { check_recombination(ExpKind::ZpX); }
RC_GTEST_PROP(mrt_expand_conv2d_zpw, RecombinedIsTheSumWithinTheBound, ()) { check_recombination(ExpKind::ZpW); }

// avg Pooling's rewrite is exact: the integer expansion divided by a KH KW is the mean of each
// window (padded positions counted as 0), computed here by explicit loops over the window.
RC_GTEST_PROP(mrt_op_avg_pool2d, ExpansionIsTheWindowMean, ()) {
  Pool2dAttrs a;
  a.kernel = {*rc::gen::inRange<std::int64_t>(1, 4), *rc::gen::inRange<std::int64_t>(1, 4)};
  a.stride = {*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3)};
  a.padding = {*rc::gen::inRange<std::int64_t>(0, 3), *rc::gen::inRange<std::int64_t>(0, 3)};
  const std::int64_t h = std::max<std::int64_t>(1, a.kernel[0] - 2 * a.padding[0]) + *rc::gen::inRange(0, 3);
  const std::int64_t w = std::max<std::int64_t>(1, a.kernel[1] - 2 * a.padding[1]) + *rc::gen::inRange(0, 3);
  const IntArray x = draw_array({*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 4), h, w}, -127, 127);
  const int prec = *rc::gen::element(8, 16, 2);
  const IntArray y = avg_pool2d_expand(x, a, prec);
  const Rat scale = Rat(pow2(static_cast<unsigned>(prec - 1)) - 1) * a.kernel[0] * a.kernel[1];
  for (std::int64_t n = 0; n < y.dim(0); ++n)
    for (std::int64_t c = 0; c < y.dim(1); ++c)
      for (std::int64_t p = 0; p < y.dim(2); ++p)
        for (std::int64_t q = 0; q < y.dim(3); ++q) {
          Rat sum = 0;
          for (std::int64_t i = 0; i < a.kernel[0]; ++i)
            for (std::int64_t j = 0; j < a.kernel[1]; ++j) {
              const std::int64_t r = p * a.stride[0] + i - a.padding[0], s = q * a.stride[1] + j - a.padding[1];
              if (r >= 0 && r < h && s >= 0 && s < w) sum += Rat(x.at4(n, c, r, s));
            }
          RC_ASSERT(Rat(y.at4(n, c, p, q)) / scale == sum / (a.kernel[0] * a.kernel[1]));
        }
  RC_ASSERT(avg_pool2d_real(map_array<Rat>(x, [](const Int& v) { return Rat(v); }), a) ==
            map_array<Rat>(y, [&](const Int& v) { return Rat(v) / scale; }));
}
