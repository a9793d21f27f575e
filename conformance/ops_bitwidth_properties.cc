// Random inputs at realistic sizes: every value of each expansion (and of the Convolution 2/3
// recombination) fits its adopted infer_prec; MRT's post-op clip.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ops_arrays.h"
#include "ops_bitwidth_worst.h"
#include "qspec/ref/bits.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {
void check_fc(ExpKind kind) {
  const int x = *rc::gen::inRange(1, 9), w = *rc::gen::inRange(1, 9);
  const std::int64_t k = *rc::gen::inRange(1, 2049);
  auto draw = [&](Shape s, int p, bool affine) {
    I64Array a(s);
    const std::int64_t lo = affine ? 0 : -((std::int64_t{1} << (p - 1)) - 1), hi = affine ? (std::int64_t{1} << p) - 1 : (std::int64_t{1} << (p - 1)) - 1;
    // Mostly extremes: random inputs rarely approach the worst case otherwise.
    for (auto& v : a.data) v = *rc::gen::element(lo, hi, lo, hi, *rc::gen::inRange(lo, hi + 1));
    return a;
  };
  const I64Array xq = draw({1, k}, x, affine_x(kind)), wq = draw({2, k}, w, affine_w(kind));
  // Zero points up to 2^8 keep P <= 32 (above it the formula is an ERROR_IF, checked elsewhere).
  const std::int64_t zx = affine_x(kind) ? *rc::gen::inRange(-(1 << 8), 1 << 8) : 0;
  const std::int64_t zw = affine_w(kind) ? *rc::gen::inRange(-(1 << 8), 1 << 8) : 0;
  const auto e = fc_expand<std::int64_t>(kind, xq, wq, zx, zw);
  RC_ASSERT(widest(e) <= infer_prec(fc_formula(kind), fc_params(xq, wq, x, w, zx, zw)));
}
}  // namespace

RC_GTEST_PROP(bitwidth_mrt_fc_sym, RandomRealisticSizes, ()) { check_fc(ExpKind::Sym); }
RC_GTEST_PROP(bitwidth_mrt_fc_zpx, RandomRealisticSizes, ()) { check_fc(ExpKind::ZpX); }
RC_GTEST_PROP(bitwidth_mrt_fc_zpw, RandomRealisticSizes, ()) { check_fc(ExpKind::ZpW); }
RC_GTEST_PROP(bitwidth_mrt_fc_zpxw, RandomRealisticSizes, ()) { check_fc(ExpKind::ZpXW); }

RC_GTEST_PROP(bitwidth_mrt_conv2d_zpxw, RandomWithPadding, ()) {
  const ConvCase c = draw_conv_case();
  const int x = *rc::gen::inRange(1, 9), w = *rc::gen::inRange(1, 9);
  const IntArray xi = draw_array(c.x, 0, (1LL << x) - 1), wi = draw_array(c.w, 0, (1LL << w) - 1);
  const std::int64_t zx = *rc::gen::inRange(-600, 600), zw = *rc::gen::inRange(-600, 600);
  const I64Array xq = to_i64(xi), wq = to_i64(wi);
  const auto e = conv2d_expand<std::int64_t>(ExpKind::ZpXW, xq, wq, c.attrs, zx, zw, -zx);
  RC_ASSERT(widest(e) <= infer_prec(PrecFormula::ConvZpXW, conv_params(wq, x, w, zx, zw, -zx, 16)));
}

RC_GTEST_PROP(bitwidth_mrt_conv2d_sym, RandomWithPadding, ()) {
  const ConvCase c = draw_conv_case();
  const int x = *rc::gen::inRange(2, 9), w = *rc::gen::inRange(2, 9);
  const std::int64_t mx = (1LL << (x - 1)) - 1, mw = (1LL << (w - 1)) - 1;
  const I64Array xq = to_i64(draw_array(c.x, -mx, mx)), wq = to_i64(draw_array(c.w, -mw, mw));
  const auto e = conv2d_expand<std::int64_t>(ExpKind::Sym, xq, wq, c.attrs, 0, 0, 0);
  RC_ASSERT(widest(e) <= infer_prec(PrecFormula::ConvSym, conv_params(wq, x, w, 0, 0, 0, 16)));
}

// Convolution 2/3: every value the pipeline holds (both partial results and the recombined
// realize(Ye1) + realize(Ye2), with a random multiplier) fits the adopted formula, at sizes and
// oprecs where the partial results, not oprec + 1, decide it.
RC_GTEST_PROP(bitwidth_mrt_conv2d_zpx, RandomPipelineFits, ()) {
  const ConvCase c = draw_conv_case();
  const int x = *rc::gen::inRange(1, 9), w = *rc::gen::inRange(2, 9), oprec = *rc::gen::inRange(1, 12);
  const std::int64_t mw = (1LL << (w - 1)) - 1;
  const I64Array xq = to_i64(draw_array(c.x, 0, (1LL << x) - 1)), wq = to_i64(draw_array(c.w, -mw, mw));
  const std::int64_t zx = *rc::gen::inRange(-5000, 5000), x_pad = *rc::gen::inRange(-5000, 5000);
  const auto e = conv2d_expand<std::int64_t>(ExpKind::ZpX, xq, wq, c.attrs, zx, 0, x_pad);
  const int frac1 = *rc::gen::inRange(1, 1 << 20), frac2 = *rc::gen::inRange(1, 1 << 20);
  const int exp1 = *rc::gen::inRange(-30, 3), exp2 = *rc::gen::inRange(-30, 3);
  const auto y =
      recombine_two(from_i64(e.terms[0].value), from_i64(e.terms[1].value), Int(frac1), exp1, Int(frac2), exp2, oprec);
  int widest_y = widest(e);
  for (const auto& v : y.data) widest_y = std::max(widest_y, needed_prec(v));
  RC_ASSERT(widest_y <= infer_prec(PrecFormula::ConvZpX, conv_params(wq, x, w, zx, 0, x_pad, oprec)));
}
RC_GTEST_PROP(bitwidth_mrt_conv2d_zpw, RandomPipelineFits, ()) {
  const ConvCase c = draw_conv_case();
  const int x = *rc::gen::inRange(2, 9), w = *rc::gen::inRange(1, 9), oprec = *rc::gen::inRange(1, 12);
  const std::int64_t mx = (1LL << (x - 1)) - 1;
  const I64Array xq = to_i64(draw_array(c.x, -mx, mx)), wq = to_i64(draw_array(c.w, 0, (1LL << w) - 1));
  const std::int64_t zw = *rc::gen::inRange(-5000, 5000);
  const auto e = conv2d_expand<std::int64_t>(ExpKind::ZpW, xq, wq, c.attrs, 0, zw, 0);
  const int frac1 = *rc::gen::inRange(1, 1 << 20), frac2 = *rc::gen::inRange(1, 1 << 20);
  const auto y =
      recombine_two(from_i64(e.terms[0].value), from_i64(e.terms[1].value), Int(frac1), 0, Int(frac2), -3, oprec);
  int widest_y = widest(e);
  for (const auto& v : y.data) widest_y = std::max(widest_y, needed_prec(v));
  RC_ASSERT(widest_y <= infer_prec(PrecFormula::ConvZpW, conv_params(wq, x, w, 0, zw, 0, oprec)));
}

// MRT's post-op clip: the next op sees min(inferred, tight) bits, values within the calibrated
// range pass unchanged and the rest saturate (cvm_clip), and nothing changes when the inferred
// precision is already tight.
RC_GTEST_PROP(bitwidth_mrt_effective_prec, ClipToTheTightPrecision, ()) {
  const int inferred = *rc::gen::inRange(1, 33), tight = *rc::gen::inRange(1, 33);
  const Int v(*rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 32), std::int64_t{1} << 32));
  const int eff = effective_prec(inferred, tight);
  RC_ASSERT(eff == std::min(inferred, tight));
  const Int y = post_op_clip(v, inferred, tight);
  if (inferred <= tight) {
    RC_ASSERT(y == v);
  } else {
    const Int a = pow2(static_cast<unsigned>(tight - 1)) - 1;
    RC_ASSERT(y == (v > a ? a : (v < -a ? -a : v)));
    RC_ASSERT(fits_prec(y, tight));
  }
}
TEST(bitwidth_mrt_effective_prec, ErrorIfOutOfRange) {
  EXPECT_THROW(effective_prec(33, 8), ErrorIf);
  EXPECT_THROW(effective_prec(8, 0), ErrorIf);
  EXPECT_EQ(post_op_clip(Int(1000), 20, 8), Int(127));  // an int8-calibrated output of a 20-bit op
  EXPECT_EQ(post_op_clip(Int(-1000), 20, 8), Int(-127));
  EXPECT_EQ(post_op_clip(Int(-100), 8, 20), Int(-100));  // inferred 8 <= tight 20: no clip inserted
}

// The seed's FullyConnected 3 term bitlen(|zw| K) + x and MRT's Convolution code for symmetric X
// and zero-point W, get_bit_cnt(K) + xprec + get_bit(wzint) (research §8e), differ, and both
// bound |zw sum Xq|: its largest value |zw| K (2^(x-1) - 1) fits either (the code's is never the
// smaller by more than one bit's rounding: bitlen(a b) <= bitlen(a) + bitlen(b)).
RC_GTEST_PROP(bitwidth_mrt_fc_zpw, MrtConvolutionCodeTermIsAlsoSound, ()) {
  const Int k(*rc::gen::inRange<long long>(1, 1 << 20));
  const int x = *rc::gen::inRange(1, 9);
  const Int zw(*rc::gen::inRange<long long>(-(1 << 20), 1 << 20));
  const Int worst = abs(zw) * k * (pow2(static_cast<unsigned>(x - 1)) - 1);
  const int seed_term = bit_length(abs(zw) * k) + x;
  const int code_term = mrt_get_bit_cnt(k) + x + mrt_get_bit(Rat(zw));
  RC_ASSERT(needed_prec(worst) <= seed_term);
  RC_ASSERT(needed_prec(worst) <= code_term);
  RC_ASSERT(code_term >= seed_term);  // bitlen(|zw| K) <= bitlen(K) + bitlen(|zw|) < the code's
}
