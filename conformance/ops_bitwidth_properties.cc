// Random inputs at realistic sizes: every value of each expansion fits its adopted infer_prec.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ops_arrays.h"
#include "ops_bitwidth_worst.h"
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
  const std::int64_t zx = affine_x(kind) ? *rc::gen::inRange(-(1 << 9), 1 << 9) : 0;
  const std::int64_t zw = affine_w(kind) ? *rc::gen::inRange(-(1 << 9), 1 << 9) : 0;
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
