// Bit-width soundness of MRT's infer_prec formulas (spec/bitwidth.md): worst-case constructed
// inputs over a parameter grid, exhaustive enumeration of small problems, the slack table, and the
// counterexamples of the formulas the document gets wrong (spec/errata.md E-BITS-*).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "ops_bitwidth_worst.h"

using namespace qspec::opstest;
using namespace qspec::ref;
using namespace qspec::ref::ops;

namespace {

bool full() {
  const char* f = std::getenv("QSPEC_EXHAUSTIVE_FULL");
  return f && std::string(f) == "1";
}

// Zero points in the order -0, 1, -1, 2, -2, ...: the first counterexample found is a small one.
// Never sampled (QSPEC_DOMAIN_STRIDE): the scans assert which formulas have counterexamples, and
// those sit at particular zero points.
std::vector<std::int64_t> zero_points(std::int64_t r) {
  std::vector<std::int64_t> z{0};
  for (std::int64_t i = 1; i <= r; ++i) {
    z.push_back(i);
    z.push_back(-i);
  }
  return z;
}

struct Slack {
  int min_adopted = 1 << 20, max_adopted = -(1 << 20);
  int min_written = 1 << 20;
  long cases = 0, written_defined = 0, written_unsound = 0;
  std::string first_counterexample;
  void add(int needed, int adopted, std::optional<int> written, const std::string& what) {
    ++cases;
    min_adopted = std::min(min_adopted, adopted - needed);
    max_adopted = std::max(max_adopted, adopted - needed);
    if (written) {
      ++written_defined;
      min_written = std::min(min_written, *written - needed);
      if (*written < needed) {
        ++written_unsound;
        if (first_counterexample.empty())
          first_counterexample = what + ": needs " + std::to_string(needed) + ", as written " + std::to_string(*written);
      }
    }
  }
};

std::map<std::string, Slack>& table() {
  static std::map<std::string, Slack> t;
  return t;
}

I64Array uniform(const Shape& s, std::int64_t v) { return I64Array(s, v); }
// Rows of W at their own values (so the per-row sums C[m] differ in magnitude).
I64Array rows(const Shape& s, const std::vector<std::int64_t>& vals) {
  I64Array w(s);
  const std::int64_t per = shape_numel(s) / s[0];
  for (std::int64_t m = 0; m < s[0]; ++m)
    for (std::int64_t i = 0; i < per; ++i) w.data[static_cast<std::size_t>(m * per + i)] = vals[static_cast<std::size_t>(m)];
  return w;
}

std::string desc(const char* f, std::int64_t k, int x, int w, std::int64_t zx, std::int64_t zw, std::int64_t a,
                 std::int64_t b0, std::int64_t b1) {
  std::ostringstream o;
  o << f << " K=" << k << " xprec=" << x << " wprec=" << w << " zx=" << zx << " zw=" << zw << " Xq=" << a << " Wq rows=(" << b0
    << "," << b1 << ")";
  return o.str();
}

const char* kind_name(ExpKind k) {
  switch (k) {
    case ExpKind::Sym: return "sym";
    case ExpKind::ZpX: return "zpx";
    case ExpKind::ZpW: return "zpw";
    case ExpKind::ZpXW: return "zpxw";
  }
  return "?";
}

// Operand values used to build worst cases: the corners, plus 1 for affine W rows (a small
// positive row sum next to a large one separates max(C) from max(|C|)).
std::vector<std::int64_t> w_values(int prec, bool affine) {
  auto v = corners(prec, affine);
  if (affine) v.push_back(1);
  return v;
}

void scan_fc(ExpKind kind) {
  // CI slice: the four-term formula is the expensive one (zero points squared); the full grid runs
  // with QSPEC_EXHAUSTIVE_FULL=1.
  const bool four = kind == ExpKind::ZpXW;
  const std::vector<std::int64_t> ks = full() ? std::vector<std::int64_t>{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100}
                                       : four ? std::vector<std::int64_t>{1, 2, 3, 8}
                                              : std::vector<std::int64_t>{1, 2, 3, 4, 5, 7, 8, 9, 16};
  const int pmax = full() ? 8 : (four ? 3 : 4);
  const auto zxs = affine_x(kind) ? zero_points(full() ? 64 : 20) : std::vector<std::int64_t>{0};
  const auto zws = affine_w(kind) ? zero_points(full() ? 64 : 20) : std::vector<std::int64_t>{0};
  Slack& s = table()[std::string("bitwidth.mrt.fc_") + kind_name(kind)];
  for (auto k : ks)
    for (int x = 1; x <= pmax; ++x)
      for (int w = 1; w <= pmax; ++w)
        for (auto zx : zxs)
          for (auto zw : zws)
            for (auto a : corners(x, affine_x(kind)))
              for (auto b0 : w_values(w, affine_w(kind)))
                for (auto b1 : w_values(w, affine_w(kind))) {
                  const I64Array xq = uniform({1, k}, a), wq = rows({2, k}, {b0, b1});
                  const auto e = fc_expand<std::int64_t>(kind, xq, wq, zx, zw);
                  const PrecParams p = fc_params(xq, wq, x, w, zx, zw);
                  s.add(widest(e), infer_prec(fc_formula(kind), p), infer_prec_as_written(fc_formula(kind), p),
                        desc("FullyConnected", k, x, w, zx, zw, a, b0, b1));
                }
}

// Convolution with IC*KH*KW = K over a 1x1 output, two output channels with their own weights.
void scan_conv(ExpKind kind) {
  const bool four = kind == ExpKind::ZpXW;
  const std::vector<Shape> kernels = full() ? std::vector<Shape>{{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {1, 2, 2}, {7, 1, 1}, {2, 2, 2}, {3, 3, 3}}
                                     : four ? std::vector<Shape>{{1, 1, 1}, {7, 1, 1}, {2, 2, 2}}
                                            : std::vector<Shape>{{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {1, 2, 2}, {7, 1, 1}, {2, 2, 2}};
  const int pmax = full() ? 8 : 4;
  // CI slice of the four-term formula: a sparse set of zero points that still reaches the
  // document's counterexamples (16, 36 and neighbours).
  const std::vector<std::int64_t> sparse{0, 1, -1, 2, -2, 3, -3, 5, -5, 8, -8, 13, -13, 16, -16, 17, -17, 18, -18, 21, -21, 32, -32, 34, -34, 36, -36, 40, -40};
  const auto zps = full() ? zero_points(64) : (four ? sparse : zero_points(40));
  const auto zxs = affine_x(kind) ? zps : std::vector<std::int64_t>{0};
  const auto zws = affine_w(kind) ? zps : std::vector<std::int64_t>{0};
  Slack& s = table()[std::string("bitwidth.mrt.conv2d_") + kind_name(kind)];
  const int oprec = 16;
  for (const auto& kr : kernels)
    for (int x = 1; x <= pmax; ++x)
      for (int w = 1; w <= pmax; ++w)
        for (auto zx : zxs)
          for (auto zw : zws)
            for (auto a : corners(x, affine_x(kind)))
              for (auto b0 : corners(w, affine_w(kind)))
                for (auto b1 : corners(w, affine_w(kind))) {
                  const I64Array xq = uniform({1, kr[0], kr[1], kr[2]}, a), wq = rows({2, kr[0], kr[1], kr[2]}, {b0, b1});
                  const auto e = conv2d_expand<std::int64_t>(kind, xq, wq, Conv2dAttrs{}, zx, zw, -zx);
                  const PrecParams p = conv_params(wq, x, w, zx, zw, -zx, oprec);
                  const bool two = kind == ExpKind::ZpX || kind == ExpKind::ZpW;
                  s.add(two ? conv_pipeline_widest(e, oprec) : widest(e), infer_prec(conv_formula(kind), p),
                        infer_prec_as_written(conv_formula(kind), p),
                        desc("Convolution", shape_numel(kr), x, w, zx, zw, a, b0, b1));
                }
}

}  // namespace

namespace {
// quantize_scale: N inputs of precision p each at its maximum, combined by add_n / concat.
void scan_quantize_scale() {
  Slack& add = table()["bitwidth.mrt.quantize_scale (add_n)"];
  Slack& cat = table()["bitwidth.mrt.quantize_scale (concat)"];
  for (int n = 1; n <= 16; ++n)
    for (int p = 1; p <= 16; ++p)
      for (int sign : {1, -1}) {
        std::vector<IntArray> xs;
        std::vector<Int> fr;
        std::vector<int> ex;
        for (int i = 0; i < n; ++i) {
          xs.push_back(IntArray({1}, Int(sign) * (pow2(static_cast<unsigned>(p - 1)) - 1)));
          fr.emplace_back(1);
          ex.push_back(0);
        }
        PrecParams pp;
        pp.in_precs.assign(static_cast<std::size_t>(n), p);
        const std::string what = "add_n of " + std::to_string(n) + " inputs of precision " + std::to_string(p);
        add.add(needed_prec(quantize_scale(xs, fr, ex, p, CombineOp::AddN).data[0]), infer_prec(PrecFormula::QuantizeScale, pp),
                infer_prec_as_written(PrecFormula::QuantizeScale, pp), what);
        pp.concat = true;
        cat.add(needed_prec(quantize_scale(xs, fr, ex, p, CombineOp::Concat).data[0]), infer_prec(PrecFormula::QuantizeScale, pp),
                infer_prec_as_written(PrecFormula::QuantizeScale, pp), "concat");
      }
}

}  // namespace

TEST(bitwidth_fits, HandTable) {
  EXPECT_TRUE(fits_prec(Int(127), 8));
  EXPECT_TRUE(fits_prec(Int(-127), 8));
  EXPECT_FALSE(fits_prec(Int(128), 8));
  EXPECT_FALSE(fits_prec(Int(-128), 8));  // MRT's int8 never holds -128
  EXPECT_TRUE(fits_prec(Int(0), 1));
  EXPECT_FALSE(fits_prec(Int(1), 1));
  EXPECT_EQ(needed_prec(Int(0)), 1);
  EXPECT_EQ(needed_prec(Int(127)), 8);
  EXPECT_EQ(needed_prec(Int(-128)), 9);
  for (long long v = -300; v <= 300; ++v) {
    const int n = needed_prec(Int(v));
    EXPECT_TRUE(fits_prec(Int(v), n));
    EXPECT_FALSE(fits_prec(Int(v), n - 1));
    EXPECT_EQ(n, needed64(v));
  }
}

TEST(bitwidth_mrt_fc_sym, WorstCaseScan) {
  scan_fc(ExpKind::Sym);
  const Slack& s = table()["bitwidth.mrt.fc_sym"];
  EXPECT_EQ(s.written_unsound, 0);
  EXPECT_EQ(s.min_adopted, 1);  // |Y| <= K (2^(x-1)-1)(2^(w-1)-1) < 2^(bitlen K + x + w - 2): one spare bit
}
TEST(bitwidth_mrt_fc_zpx, WorstCaseScan) {
  scan_fc(ExpKind::ZpX);
  const Slack& s = table()["bitwidth.mrt.fc_zpx"];
  EXPECT_GT(s.written_unsound, 0) << "E-BITS-2: get_bit_cnt(|C|) has no sign bit";
  EXPECT_EQ(s.min_adopted, 0);
}
TEST(bitwidth_mrt_fc_zpw, WorstCaseScan) {
  scan_fc(ExpKind::ZpW);
  const Slack& s = table()["bitwidth.mrt.fc_zpw"];
  EXPECT_EQ(s.written_unsound, 0);
  EXPECT_EQ(s.min_adopted, 0);
}
TEST(bitwidth_mrt_fc_zpxw, WorstCaseScan) {
  scan_fc(ExpKind::ZpXW);
  const Slack& s = table()["bitwidth.mrt.fc_zpxw"];
  EXPECT_GT(s.written_unsound, 0) << "E-BITS-3";
  EXPECT_GE(s.min_adopted, 0);
}
TEST(bitwidth_mrt_conv2d_sym, WorstCaseScan) {
  scan_conv(ExpKind::Sym);
  const Slack& s = table()["bitwidth.mrt.conv2d_sym"];
  EXPECT_EQ(s.written_unsound, 0);
  EXPECT_EQ(s.min_adopted, 1);
}
TEST(bitwidth_mrt_conv2d_zpx, WorstCaseScan) {
  scan_conv(ExpKind::ZpX);
  EXPECT_GE(table()["bitwidth.mrt.conv2d_zpx"].min_adopted, 0);
}
TEST(bitwidth_mrt_conv2d_zpw, WorstCaseScan) {
  scan_conv(ExpKind::ZpW);
  EXPECT_GE(table()["bitwidth.mrt.conv2d_zpw"].min_adopted, 0);
}
TEST(bitwidth_mrt_conv2d_zpxw, WorstCaseScan) {
  scan_conv(ExpKind::ZpXW);
  const Slack& s = table()["bitwidth.mrt.conv2d_zpxw"];
  EXPECT_GT(s.written_unsound, 0) << "E-BITS-4";
  EXPECT_GE(s.min_adopted, 0);
}

TEST(bitwidth_mrt_quantize_scale, WorstCaseScan) {
  scan_quantize_scale();
  Slack& add = table()["bitwidth.mrt.quantize_scale (add_n)"];
  Slack& cat = table()["bitwidth.mrt.quantize_scale (concat)"];
  EXPECT_GT(add.written_unsound, 0) << "E-BITS-1: max(xprecs)+1 for add_n with N >= 3";
  EXPECT_EQ(cat.written_unsound, 0);
  EXPECT_EQ(add.min_adopted, 0);
  EXPECT_EQ(cat.min_adopted, 0);
}

TEST(bitwidth_mrt_same_prec, PassThroughOps) {
  // pad (value 0), relu, max pool (pad never wins), flatten, slice only move or drop values.
  PrecParams p;
  p.in_precs = {8};
  EXPECT_EQ(infer_prec(PrecFormula::SamePrec, p), 8);
  EXPECT_EQ(infer_prec_as_written(PrecFormula::SamePrec, p), 8);
  const IntArray x({1, 1, 2, 2}, std::vector<Int>{127, -127, 5, -3});
  Pool2dAttrs pa;
  pa.kernel = {2, 2};
  pa.padding = {1, 1};
  for (const auto& y : {pad2d(x, PadWidth{1, 1, 1, 1}), relu(x), max_pool2d(x, pa), flatten(x)})
    for (const auto& v : y.data) EXPECT_TRUE(fits_prec(v, 8));
}

// Every input of small problems: the adopted formulas hold everywhere, and the worst case over all
// inputs equals the worst case over the constructed uniform-corner inputs.
TEST(bitwidth_mrt_fc_zpxw, ExhaustiveSmall) {
  long checked = 0;
  for (ExpKind kind : {ExpKind::Sym, ExpKind::ZpX, ExpKind::ZpW, ExpKind::ZpXW})
    for (std::int64_t k = 1; k <= 2; ++k)
      for (int x = 1; x <= 2; ++x)
        for (int w = 1; w <= 2; ++w)
          for (std::int64_t zx = affine_x(kind) ? -4 : 0; zx <= (affine_x(kind) ? 4 : 0); ++zx)
            for (std::int64_t zw = affine_w(kind) ? -4 : 0; zw <= (affine_w(kind) ? 4 : 0); ++zw) {
              const std::int64_t xlo = affine_x(kind) ? 0 : -((1 << (x - 1)) - 1), xhi = affine_x(kind) ? (1 << x) - 1 : (1 << (x - 1)) - 1;
              const std::int64_t wlo = affine_w(kind) ? 0 : -((1 << (w - 1)) - 1), whi = affine_w(kind) ? (1 << w) - 1 : (1 << (w - 1)) - 1;
              const std::int64_t nx = xhi - xlo + 1, nw = whi - wlo + 1;
              std::int64_t total = 1;
              for (std::int64_t i = 0; i < 2 * k; ++i) total *= (i < k ? nx : nw);
              int worst_all = 0, worst_uniform = 0;
              for (std::int64_t code = 0; code < total; ++code) {
                I64Array xq({1, k}), wq({1, k});
                std::int64_t c = code;
                bool uni = true;
                for (std::int64_t i = 0; i < k; ++i, c /= nx) xq.data[static_cast<std::size_t>(i)] = xlo + c % nx;
                for (std::int64_t i = 0; i < k; ++i, c /= nw) wq.data[static_cast<std::size_t>(i)] = wlo + c % nw;
                for (std::int64_t i = 1; i < k; ++i) uni = uni && xq.data[static_cast<std::size_t>(i)] == xq.data[0] && wq.data[static_cast<std::size_t>(i)] == wq.data[0];
                const auto e = fc_expand<std::int64_t>(kind, xq, wq, zx, zw);
                const int need = widest(e);
                worst_all = std::max(worst_all, need);
                if (uni) worst_uniform = std::max(worst_uniform, need);
                // W's sums enter the formula; with one row, max over inputs of need is checked against each W's bound.
                ASSERT_LE(need, infer_prec(fc_formula(kind), fc_params(xq, wq, x, w, zx, zw)))
                    << desc("FullyConnected", k, x, w, zx, zw, xq.data[0], wq.data[0], 0);
                ++checked;
              }
              ASSERT_EQ(worst_all, worst_uniform) << "uniform corner inputs are the worst case";
            }
  EXPECT_GT(checked, 10000);
}

// Convolution 4 with padding (pad value -zx) over every input of a 2x2 image and 2x2 kernel.
TEST(bitwidth_mrt_conv2d_zpxw, ExhaustiveSmallWithPadding) {
  Conv2dAttrs a;
  a.padding = {1, 1};
  long checked = 0;
  for (std::int64_t zx = -3; zx <= 3; ++zx)
    for (std::int64_t zw = -3; zw <= 3; ++zw)
      for (std::int64_t code = 0; code < 256; ++code) {
        I64Array xq({1, 1, 2, 2}), wq({1, 1, 2, 2});
        for (int i = 0; i < 4; ++i) xq.data[static_cast<std::size_t>(i)] = (code >> i) & 1;
        for (int i = 0; i < 4; ++i) wq.data[static_cast<std::size_t>(i)] = (code >> (4 + i)) & 1;
        const auto e = conv2d_expand<std::int64_t>(ExpKind::ZpXW, xq, wq, a, zx, zw, -zx);
        ASSERT_LE(widest(e), infer_prec(PrecFormula::ConvZpXW, conv_params(wq, 1, 1, zx, zw, -zx, 16)));
        ++checked;
      }
  EXPECT_EQ(checked, 49 * 256);
}

// The document's formulas on their counterexamples (spec/errata.md), checked on the real expansion.
TEST(bitwidth_mrt_conv2d_zpxw, DocumentCounterexample) {
  // K = 7 (C=7, 1x1 kernel), xprec 3, wprec 4, zx = 16, zw = 36, Xq = 7, Wq = 15 everywhere.
  const I64Array xq({1, 7, 1, 1}, std::int64_t{7}), wq({1, 7, 1, 1}, std::int64_t{15});
  const auto e = conv2d_expand<std::int64_t>(ExpKind::ZpXW, xq, wq, Conv2dAttrs{}, 16, 36, -16);
  EXPECT_EQ(e.partial_sums.back().data[0], 7 * (7 + 16) * (15 + 36));  // 8211
  const PrecParams p = conv_params(wq, 3, 4, 16, 36, -16, 16);
  EXPECT_EQ(*infer_prec_as_written(PrecFormula::ConvZpXW, p), 14);
  EXPECT_EQ(widest(e), 15);
  EXPECT_EQ(infer_prec(PrecFormula::ConvZpXW, p), 15);
}
TEST(bitwidth_mrt_fc_zpx, DocumentCounterexample) {
  // K = 1, xprec 1 (Xq in [0, 1]), wprec 2 (Wq in [-1, 1]), zp_x = 31: Y = (1 + 31) * 1 = 32.
  const I64Array xq({1, 1}, std::int64_t{1}), wq({1, 1}, std::int64_t{1});
  const auto e = fc_expand<std::int64_t>(ExpKind::ZpX, xq, wq, 31, 0);
  EXPECT_EQ(e.partial_sums.back().data[0], 32);
  const PrecParams p = fc_params(xq, wq, 1, 2, 31, 0);
  EXPECT_EQ(*infer_prec_as_written(PrecFormula::FcZpX, p), 6);  // max(1+1+2+1, get_bit_cnt(31)=5) + 1
  EXPECT_EQ(widest(e), 7);
  EXPECT_EQ(infer_prec(PrecFormula::FcZpX, p), 7);
}
TEST(bitwidth_mrt_fc_zpxw, DocumentCounterexampleSignedMax) {
  // max(C2) is the signed maximum: zp_x = -20 with weight rows summing to 1 and 3: C2 = (-20, -60),
  // max(C2) = -20 and get_bit_cnt(20) = 5 although |C2| reaches 60.
  const I64Array xq({1, 3}, std::int64_t{0});
  I64Array wq({2, 3}, std::vector<std::int64_t>{1, 0, 0, 1, 1, 1});
  const auto e = fc_expand<std::int64_t>(ExpKind::ZpXW, xq, wq, -20, 0);
  const PrecParams p = fc_params(xq, wq, 1, 1, -20, 0);
  EXPECT_EQ(infer_prec_as_written(PrecFormula::FcZpXW, p), std::nullopt);  // get_bit_cnt(0): zp_w = 0 asserts
  const auto e2 = fc_expand<std::int64_t>(ExpKind::ZpXW, xq, wq, -20, 1);
  const PrecParams p2 = fc_params(xq, wq, 1, 1, -20, 1);
  // C2 = (-20, -60) -> get_bit_cnt(20) = 5; C3 = -60 -> 6; max(2+1+1+2, 2+1+1, 5, 6) + 2 = 8.
  EXPECT_EQ(*infer_prec_as_written(PrecFormula::FcZpXW, p2), 8);
  EXPECT_LE(widest(e2), 8);
  (void)e;
}
TEST(bitwidth_mrt_quantize_scale, AddNDocumentCounterexample) {
  // Three int8 inputs at 127: 381 needs 10 bits; max(xprecs) + 1 = 9.
  PrecParams p;
  p.in_precs = {8, 8, 8};
  EXPECT_EQ(*infer_prec_as_written(PrecFormula::QuantizeScale, p), 9);
  EXPECT_EQ(needed_prec(Int(3 * 127)), 10);
  EXPECT_EQ(infer_prec(PrecFormula::QuantizeScale, p), 10);
}

// Prints the slack table of spec/bitwidth.md: QSPEC_PRINT_SLACK_TABLE=1 exhaustive_ops_bitwidth
// --gtest_filter='SlackTable.*' (CTest runs every test in its own process, so this one scans again).
TEST(SlackTable, Print) {
  const char* want = std::getenv("QSPEC_PRINT_SLACK_TABLE");
  if (!want || std::string(want) != "1") GTEST_SKIP() << "set QSPEC_PRINT_SLACK_TABLE=1 to print the table";
  for (ExpKind k : {ExpKind::Sym, ExpKind::ZpX, ExpKind::ZpW, ExpKind::ZpXW}) {
    if (!table().count(std::string("bitwidth.mrt.fc_") + kind_name(k))) scan_fc(k);
    if (!table().count(std::string("bitwidth.mrt.conv2d_") + kind_name(k))) scan_conv(k);
  }
  if (!table().count("bitwidth.mrt.quantize_scale (add_n)")) scan_quantize_scale();
  std::printf("\n| formula | cases | as written: min slack | as written: unsound cases | adopted: min slack | adopted: max slack |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const auto& [name, s] : table()) {
    std::printf("| `%s` | %ld | %s | %ld of %ld | %d | %d |\n", name.c_str(), s.cases,
                s.written_defined ? std::to_string(s.min_written).c_str() : "n/a", s.written_unsound, s.written_defined,
                s.min_adopted, s.max_adopted);
  }
  for (const auto& [name, s] : table())
    if (!s.first_counterexample.empty()) std::printf("- `%s`: %s\n", name.c_str(), s.first_counterexample.c_str());
}
