// Properties of qlinear.add.tosa and qlinear.mul.tosa (spec/operators_qlinear_tosa_elementwise.md):
// TFLite int8 ADD / MUL lowered to TOSA RESCALE, ADD / MUL, RESCALE and CLAMP.
// - composition identity: the reference equals a native transliteration (int64, std::frexp,
//   std::round, float) of the legalization (tensorflow 1f35abe matchAndRewriteAddSub /
//   convertMultiplyOp, computeMultiplierAndShift) and of the TOSA pseudocode (RESCALE.tosac,
//   scale_helpers.tosac apply_scale_32, ADD.tosac / MUL.tosac with apply_broadcast, CLAMP.tosac),
//   written here independently of it; on random problems and on every int8 (a, b) pair of a
//   few parameter sets;
// - add: bit-identical to qlinear.add.tflite_double_round on every input both accept (the clause's
//   theorem); mul: the measured differences from qlinear.mul.tflite_double_round, every one of them
//   caused by the float scale;
// - the stated error bounds against the exact real results;
// - the ERROR_IFs.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "exhaustive_domain.h"
#include "ops_arrays.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::opstest;
using qspec::ref::f32_value;

namespace {

// ---- A native transliteration of the legalization and the TOSA pseudocode ----

struct Ms {
  std::int32_t multiplier;
  std::int32_t shift;
  bool ok;  // computeMultiplierAndShift's 2 <= shift <= 62
};

// llvm-project mlir/lib/Dialect/Tosa/Utils/QuantUtils.cpp computeMultiplierAndShiftTosaScale32.
Ms compute_multiplier_and_shift(double scale) {
  int shift = 0;
  const double mantissa = std::frexp(scale, &shift);
  auto shifted = static_cast<std::int64_t>(std::round(mantissa * static_cast<double>(std::int64_t{1} << 31)));
  if (shifted == (std::int64_t{1} << 31)) shifted /= 2, ++shift;
  auto multiplier = static_cast<std::int32_t>(shifted);
  shift = -shift + 31;
  if (shift > 62) multiplier >>= std::min(31, shift - 62), shift = 62;
  return {multiplier, shift, 2 <= shift && shift <= 62};
}

// scale_helpers.tosac apply_scale_32.
std::int32_t apply_scale_32(std::int32_t value, std::int32_t multiplier, std::int32_t shift, bool double_round) {
  RC_ASSERT(multiplier >= 0);
  RC_ASSERT(2 <= shift && shift <= 62);
  RC_ASSERT(value >= -(std::int64_t{1} << (shift - 1)) && value < (std::int64_t{1} << (shift - 1)));
  std::int64_t round = std::int64_t{1} << (shift - 1);
  if (double_round && shift > 31) round += value >= 0 ? (1 << 30) : -(1 << 30);
  const std::int64_t result = (static_cast<std::int64_t>(value) * multiplier + round) >> shift;
  RC_ASSERT(result >= INT32_MIN && result <= INT32_MAX);
  return static_cast<std::int32_t>(result);
}

// RESCALE.tosac for a signed input, scale32, one channel; out_lo / out_hi: out_t's range.
std::int32_t rescale(std::int32_t in, std::int32_t input_zp, std::int32_t output_zp, Ms m, bool double_round,
                     std::int64_t out_lo, std::int64_t out_hi) {
  const std::int64_t value = static_cast<std::int64_t>(in) - input_zp;
  std::int64_t result = apply_scale_32(static_cast<std::int32_t>(value), m.multiplier, m.shift, double_round);
  result += output_zp;  // apply_add_s<int32_t>
  RC_ASSERT(result >= INT32_MIN && result <= INT32_MAX);
  return static_cast<std::int32_t>(std::clamp(result, out_lo, out_hi));
}
std::int32_t rescale_to_i32(std::int32_t in, std::int32_t input_zp, Ms m) {
  return rescale(in, input_zp, 0, m, true, INT32_MIN, INT32_MAX);  // buildRescaleToInt32: DOUBLE_ROUND
}

struct Problem {
  QEwParams p;
  IntArray a, b;
};

float f(std::uint32_t bits) { return std::bit_cast<float>(bits); }

// EqualizeRanks (leading 1s) and ADD.tosac / MUL.tosac's apply_broadcast: index1[i] = 0 where
// shape1[i] == 1. Returns the output codes in row-major order; `g` is the element function.
template <class G>
std::vector<std::int64_t> broadcast_apply(const IntArray& a, const IntArray& b, G g) {
  const std::size_t rank = std::max(a.shape.size(), b.shape.size());
  Shape s1(rank - a.shape.size(), 1), s2(rank - b.shape.size(), 1);
  s1.insert(s1.end(), a.shape.begin(), a.shape.end());
  s2.insert(s2.end(), b.shape.begin(), b.shape.end());
  Shape shape(rank);
  for (std::size_t i = 0; i < rank; ++i) shape[i] = std::max(s1[i], s2[i]);
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<std::int64_t> out;
  for (std::int64_t flat = 0; flat < n; ++flat) {
    std::int64_t rem = flat, i1 = 0, i2 = 0, m1 = 1, m2 = 1;
    for (std::size_t k = rank; k-- > 0;) {
      const std::int64_t idx = rem % shape[k];
      rem /= shape[k];
      i1 += (s1[k] == 1 ? 0 : idx) * m1;
      i2 += (s2[k] == 1 ? 0 : idx) * m2;
      m1 *= s1[k];
      m2 *= s2[k];
    }
    out.push_back(g(static_cast<std::int32_t>(a.data[static_cast<std::size_t>(i1)]),
                    static_cast<std::int32_t>(b.data[static_cast<std::size_t>(i2)])));
  }
  return out;
}

std::int64_t lo_of(const QEwParams& p) { return p.y_min ? static_cast<std::int64_t>(*p.y_min) : -128; }
std::int64_t hi_of(const QEwParams& p) { return p.y_max ? static_cast<std::int64_t>(*p.y_max) : 127; }

// matchAndRewriteAddSub (int8, TFLITE_DOUBLE_ROUNDING), then ADD.tosac and CLAMP.tosac.
std::vector<std::int64_t> add_transliterated(const Problem& k) {
  const auto& p = k.p;
  const double in_lhs_scale = f(p.a_scale), in_rhs_scale = f(p.b_scale), output_scale = f(p.y_scale);
  const double max_scale_2x = 2.0 * std::max(in_lhs_scale, in_rhs_scale);
  const int input_shift = 20;
  const double lhs_rescale_scale = in_lhs_scale / max_scale_2x, rhs_rescale_scale = in_rhs_scale / max_scale_2x;
  const double output_rescale_scale = max_scale_2x / (output_scale * static_cast<double>(1 << input_shift));
  const auto za = static_cast<std::int32_t>(p.a_zero_point), zb = static_cast<std::int32_t>(p.b_zero_point);
  const auto zy = static_cast<std::int32_t>(p.y_zero_point);
  auto input = [&](std::int32_t x, double r, std::int32_t zp) {
    if (r == 0.5) return rescale_to_i32(x, zp, compute_multiplier_and_shift(r * (1 << input_shift)));
    const std::int32_t shifted = rescale_to_i32(x, zp, compute_multiplier_and_shift(1 << input_shift));
    return rescale_to_i32(shifted, 0, compute_multiplier_and_shift(r));
  };
  const Ms out = compute_multiplier_and_shift(output_rescale_scale);
  RC_ASSERT(out.ok);
  return broadcast_apply(k.a, k.b, [&](std::int32_t a, std::int32_t b) -> std::int64_t {
    const std::int64_t sum = std::int64_t{input(a, lhs_rescale_scale, za)} + input(b, rhs_rescale_scale, zb);
    RC_ASSERT(sum >= INT32_MIN && sum <= INT32_MAX);  // apply_add_s<i32_t>
    const std::int32_t v = rescale(static_cast<std::int32_t>(sum), 0, zy, out, true, -128, 127);
    return std::clamp<std::int64_t>(v, lo_of(p), hi_of(p));
  });
}

// convertMultiplyOp, then MUL.tosac (shift 0) and CLAMP.tosac; `float_scale` false: the binary64
// ratio instead (what TFLite quantizes), to attribute the differences from TFLite.
std::vector<std::int64_t> mul_transliterated(const Problem& k, bool float_scale = true) {
  const auto& p = k.p;
  const float in_lhs_scale = f(p.a_scale), in_rhs_scale = f(p.b_scale), output_scale = f(p.y_scale);
  const double output_rescale_scale =
      float_scale ? static_cast<double>(in_lhs_scale * in_rhs_scale / output_scale)
                  : static_cast<double>(in_lhs_scale) * static_cast<double>(in_rhs_scale) / output_scale;
  const Ms m = compute_multiplier_and_shift(output_rescale_scale);
  RC_ASSERT(m.ok);
  const auto za = static_cast<std::int32_t>(p.a_zero_point), zb = static_cast<std::int32_t>(p.b_zero_point);
  const auto zy = static_cast<std::int32_t>(p.y_zero_point);
  const Ms unit = compute_multiplier_and_shift(1.0f);
  return broadcast_apply(k.a, k.b, [&](std::int32_t a, std::int32_t b) -> std::int64_t {
    const std::int32_t va = rescale_to_i32(a, za, unit), vb = rescale_to_i32(b, zb, unit);
    const std::int64_t product = std::int64_t{va} * vb;  // apply_mul_s<i32_t>
    RC_ASSERT(product >= INT32_MIN && product <= INT32_MAX);
    const std::int32_t v = rescale(static_cast<std::int32_t>(product), 0, zy, m, true, -128, 127);
    return std::clamp<std::int64_t>(v, lo_of(p), hi_of(p));
  });
}

// ---- drawing ----

std::uint32_t draw_scale(int e_lo, int e_hi) {
  const auto e = *rc::gen::inRange(e_lo, e_hi + 1);
  const bool short_mantissa = *rc::gen::arbitrary<bool>();
  const std::uint32_t m = short_mantissa ? static_cast<std::uint32_t>(*rc::gen::inRange(0, 16)) << 19
                                         : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

// Broadcast-compatible int8 operands of rank 1..4 and a problem TOSA accepts (shift in [2, 62]).
Problem draw_problem(QEwOp op) {
  Problem k;
  k.p.type = k.p.b_type = DType::I8;
  const auto rank = *rc::gen::inRange<std::size_t>(1, 5);
  Shape sa, sb;
  for (std::size_t i = 0; i < rank; ++i) {
    const long long d = *rc::gen::inRange(1, 4);
    const int mode = *rc::gen::inRange(0, 3);
    sa.push_back(mode == 1 ? 1 : d);
    sb.push_back(mode == 2 ? 1 : d);
  }
  const auto drop = *rc::gen::inRange<std::size_t>(0, rank);  // b of a lower rank
  sb.erase(sb.begin(), sb.begin() + static_cast<std::ptrdiff_t>(drop));
  k.a = draw_array(sa, -128, 127);
  k.b = draw_array(sb, -128, 127);
  const int ea = *rc::gen::inRange(-12, -2);
  k.p.a_scale = draw_scale(ea, ea);
  k.p.b_scale = draw_scale(ea - 3, ea + 3);
  k.p.y_scale = op == QEwOp::Add ? draw_scale(ea - 3, ea + 3) : draw_scale(2 * ea - 2, 2 * ea + 8);
  k.p.a_zero_point = Int(*rc::gen::inRange(-128, 128));
  k.p.b_zero_point = Int(*rc::gen::inRange(-128, 128));
  k.p.y_zero_point = Int(*rc::gen::inRange(-128, 128));
  if (*rc::gen::inRange(0, 4) == 0) {
    const long long lo = *rc::gen::inRange(-128, 127);
    k.p.y_min = Int(lo);
    k.p.y_max = Int(*rc::gen::inRange<long long>(lo, 128));
  }
  return k;
}

std::vector<std::int64_t> codes(const IntArray& y) {
  std::vector<std::int64_t> v;
  for (const auto& c : y.data) v.push_back(static_cast<std::int64_t>(c));
  return v;
}

// Every int8 (a, b) pair: a column of 256 codes against a row of 256 (every domain_stride()-th code
// of the column and its last under the sanitizers' QSPEC_DOMAIN_STRIDE).
Problem every_pair(std::uint32_t sa, std::uint32_t sb, std::uint32_t sy, long long za, long long zb, long long zy) {
  Problem k;
  k.p.a_scale = sa, k.p.b_scale = sb, k.p.y_scale = sy;
  k.p.a_zero_point = Int(za), k.p.b_zero_point = Int(zb), k.p.y_zero_point = Int(zy);
  std::vector<long long> column;
  for (long long v = -128; v <= 127; v += qspec::test::domain_stride()) column.push_back(v);
  if (column.back() != 127) column.push_back(127);
  k.a = IntArray({static_cast<long long>(column.size()), 1});
  for (std::size_t i = 0; i < column.size(); ++i) k.a.data[i] = Int(column[i]);
  k.b = iota_array({1, 256}, -128);
  return k;
}

}  // namespace

RC_GTEST_PROP(qlinear_add_tosa, IsTheTransliteratedLegalizationAndPseudocode, ()) {
  const Problem k = draw_problem(QEwOp::Add);
  RC_ASSERT(codes(qlinear_elementwise(QEwOp::Add, k.a, k.b, k.p, QEwConvention::Tosa)) == add_transliterated(k));
}

RC_GTEST_PROP(qlinear_mul_tosa, IsTheTransliteratedLegalizationAndPseudocode, ()) {
  const Problem k = draw_problem(QEwOp::Mul);
  RC_ASSERT(codes(qlinear_elementwise(QEwOp::Mul, k.a, k.b, k.p, QEwConvention::Tosa)) == mul_transliterated(k));
}

// Every int8 (a, b) pair for two parameter sets each: add: s / (2 max s) = 1/2 for both inputs (one
// RESCALE each), and the constructed input tie r_a = 1/4 + 2^-21 (two RESCALEs on a, one on b);
// mul: S = 1/2 and realistic long-mantissa scales.
TEST(qlinear_add_tosa, EveryInt8PairIsTheTransliteration) {
  for (const Problem& k : {every_pair(0x3b800000u, 0x3b800000u, 0x3c000000u, -3, -3, 1),
                           every_pair(0x3e800010u, 0x3f000000u, 0x3e800000u, 0, 0, -4)}) {
    const auto ref = codes(qlinear_elementwise(QEwOp::Add, k.a, k.b, k.p, QEwConvention::Tosa));
    ASSERT_EQ(ref, add_transliterated(k)) << "a_scale " << std::hex << k.p.a_scale;
  }
}

TEST(qlinear_mul_tosa, EveryInt8PairIsTheTransliteration) {
  for (const Problem& k : {every_pair(0x3d800000u, 0x3d800000u, 0x3c000000u, -3, -3, 1),
                           every_pair(0x3b83126fu, 0x3c75c28fu, 0x3a9d4952u, 7, -100, -2)}) {
    ASSERT_EQ(codes(qlinear_elementwise(QEwOp::Mul, k.a, k.b, k.p, QEwConvention::Tosa)), mul_transliterated(k))
        << "a_scale " << std::hex << k.p.a_scale;
  }
}

// The clause's theorem: 0 differences from TFLite's double-rounding ADD wherever TFLite accepts.
RC_GTEST_PROP(qlinear_add_tosa, EqualsTfliteDoubleRoundOnEveryInputBothAccept, ()) {
  const Problem k = draw_problem(QEwOp::Add);
  const IntArray tosa = qlinear_elementwise(QEwOp::Add, k.a, k.b, k.p, QEwConvention::Tosa);
  const IntArray tflite = qlinear_elementwise(QEwOp::Add, k.a, k.b, k.p, QEwConvention::TfliteDoubleRound);
  RC_ASSERT(tosa.data == tflite.data);
}

// MUL: the measured differences from TFLite's double-rounding MUL on seeded random problems: the
// multiplier differs on most long-mantissa scales, an output rarely (only where p S lies within
// about 2^-23 |p S| of a rounding boundary); every output difference is one code and disappears when
// the transliteration quantizes the binary64 ratio instead of the float S.
TEST(qlinear_mul_tosa, DiffersFromTfliteDoubleRoundOnlyThroughTheFloatScale) {
  std::mt19937_64 rng(20261126);
  auto uniform = [&rng](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  long long outputs = 0, differing = 0, problems_differing = 0, multipliers_differing = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Problem k;
    const long long ea = uniform(-10, -3);
    const long long eb = uniform(-10, -3);
    const long long ey = ea + eb + uniform(3, 8);
    const long long ma = uniform(0, (1 << 23) - 1);
    const long long mb = uniform(0, (1 << 23) - 1);
    const long long my = uniform(0, (1 << 23) - 1);
    k.p.a_scale = static_cast<std::uint32_t>(((ea + 127) << 23) | ma);
    k.p.b_scale = static_cast<std::uint32_t>(((eb + 127) << 23) | mb);
    k.p.y_scale = static_cast<std::uint32_t>(((ey + 127) << 23) | my);
    k.p.a_zero_point = Int(uniform(-128, 127));
    k.p.b_zero_point = Int(uniform(-128, 127));
    k.p.y_zero_point = Int(uniform(-128, 127));
    k.a = IntArray({16, 1});
    k.b = IntArray({1, 16});
    for (auto& v : k.a.data) v = Int(uniform(-128, 127));
    for (auto& v : k.b.data) v = Int(uniform(-128, 127));
    const auto tosa = codes(qlinear_elementwise(QEwOp::Mul, k.a, k.b, k.p, QEwConvention::Tosa));
    const auto tflite = codes(qlinear_elementwise(QEwOp::Mul, k.a, k.b, k.p, QEwConvention::TfliteDoubleRound));
    const auto with_double = mul_transliterated(k, false);
    const double exact = static_cast<double>(f(k.p.a_scale)) * f(k.p.b_scale) / f(k.p.y_scale);
    multipliers_differing += compute_multiplier_and_shift(exact).multiplier != qlinear_mul_tosa_params(k.p).multiplier;
    ASSERT_EQ(with_double, tflite) << "trial " << trial << ": the binary64 ratio must reproduce TFLite";
    long long d = 0;
    for (std::size_t i = 0; i < tosa.size(); ++i) {
      ASSERT_LE(std::abs(tosa[i] - tflite[i]), 1) << "trial " << trial;
      d += tosa[i] != tflite[i] ? 1 : 0;
    }
    outputs += static_cast<long long>(tosa.size());
    differing += d;
    problems_differing += d > 0 ? 1 : 0;
  }
  std::printf(
      "qlinear.mul.tosa vs tflite.double_round: multipliers differ in %lld of 300 problems; %lld of %lld outputs "
      "differ (%lld problems)\n",
      multipliers_differing, differing, outputs, problems_differing);
  EXPECT_GT(multipliers_differing, 150);  // the float scale is a real difference on long-mantissa scales
}

namespace {

Rat real_of(const Problem& k, QEwOp op, std::size_t ia, std::size_t ib) {
  const Rat da = Rat(k.a.data[ia] - k.p.a_zero_point), db = Rat(k.b.data[ib] - k.p.b_zero_point);
  const Rat sa = f32_value(k.p.a_scale), sb = f32_value(k.p.b_scale), sy = f32_value(k.p.y_scale);
  return Rat(k.p.y_zero_point) + (op == QEwOp::Add ? (sa * da + sb * db) / sy : sa * sb * da * db / sy);
}

}  // namespace

// |y - r| <= 1/2 + 2^(31 - s_o) + 2 r_o + 2^-29 (1 + (|s_a da| + |s_b db|) / s_y) where not clamped
// or saturated (the multipliers' relative errors act on each term, which may cancel in r).
RC_GTEST_PROP(qlinear_add_tosa, WithinTheStatedBoundOfTheRealSum, ()) {
  Problem k = draw_problem(QEwOp::Add);
  k.p.y_min.reset(), k.p.y_max.reset();
  k.b = draw_array(k.a.shape, -128, 127);  // equal shapes: element i reads a[i], b[i]
  const IntArray y = qlinear_elementwise(QEwOp::Add, k.a, k.b, k.p, QEwConvention::Tosa);
  const QEwTosaAdd t = qlinear_add_tosa_params(k.p);
  const Rat sa = f32_value(k.p.a_scale), sb = f32_value(k.p.b_scale), sy = f32_value(k.p.y_scale);
  const Rat ro = 2 * (sa > sb ? sa : sb) / (sy * Rat(pow2(20)));
  const Rat extra = t.out.shift > 31 ? Rat(Int(1), pow2(static_cast<unsigned>(t.out.shift - 31))) : Rat(0);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    if (y.data[i] == -128 || y.data[i] == 127) continue;
    const Rat r = real_of(k, QEwOp::Add, i, i);
    const Rat terms =
        (abs(sa * Rat(k.a.data[i] - k.p.a_zero_point)) + abs(sb * Rat(k.b.data[i] - k.p.b_zero_point))) / sy;
    const Rat bound = Rat(1, 2) + extra + 2 * ro + (1 + terms) / Rat(pow2(29));
    RC_ASSERT(abs(Rat(y.data[i]) - r) <= bound);
  }
}

// |y - r| <= 1/2 + 2^(31 - s) [s > 31] + 2^-22 |r - z_y| where not clamped or saturated.
RC_GTEST_PROP(qlinear_mul_tosa, WithinTheStatedBoundOfTheRealProduct, ()) {
  Problem k = draw_problem(QEwOp::Mul);
  k.p.y_min.reset(), k.p.y_max.reset();
  k.b = draw_array(k.a.shape, -128, 127);
  const IntArray y = qlinear_elementwise(QEwOp::Mul, k.a, k.b, k.p, QEwConvention::Tosa);
  const auto m = qlinear_mul_tosa_params(k.p);
  const Rat extra = m.shift > 31 ? Rat(Int(1), pow2(static_cast<unsigned>(m.shift - 31))) : Rat(0);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    if (y.data[i] == -128 || y.data[i] == 127) continue;
    const Rat r = real_of(k, QEwOp::Mul, i, i);
    RC_ASSERT(abs(Rat(y.data[i]) - r) <= Rat(1, 2) + extra + abs(r - Rat(k.p.y_zero_point)) / Rat(pow2(22)));
  }
}

TEST(qlinear_add_tosa, RaisesTheErrorIfsOfTheGraph) {
  for (QEwOp op : {QEwOp::Add, QEwOp::Mul}) {
    QEwParams p;
    p.a_scale = p.b_scale = 0x3c000000u, p.y_scale = 0x3c800000u;
    const IntArray a = iota_array({2, 3}, -3), b = iota_array({3}, 1);
    EXPECT_NO_THROW(qlinear_elementwise(op, a, b, p, QEwConvention::Tosa));
    QEwParams u8 = p;
    u8.type = u8.b_type = DType::U8;
    EXPECT_THROW(qlinear_elementwise(op, iota_array({3}, 1), iota_array({3}, 1), u8, QEwConvention::Tosa), ErrorIf);
    EXPECT_THROW(qlinear_elementwise(op, a, iota_array({2}, 1), p, QEwConvention::Tosa), ErrorIf);  // no broadcast
    EXPECT_THROW(qlinear_elementwise(op, iota_array({1, 1, 1, 1, 1, 1, 3}, 0), b, p, QEwConvention::Tosa), ErrorIf);
    EXPECT_NO_THROW(qlinear_elementwise(op, iota_array({1, 1, 1, 1, 1, 3}, 0), b, p, QEwConvention::Tosa));
    for (int which = 0; which < 3; ++which) {
      QEwParams z = p;
      (which == 0 ? z.a_zero_point : which == 1 ? z.b_zero_point : z.y_zero_point) = Int(128);
      EXPECT_THROW(qlinear_elementwise(op, a, b, z, QEwConvention::Tosa), ErrorIf) << which;
    }
    QEwParams cl = p;
    cl.y_min = Int(3), cl.y_max = Int(2);
    EXPECT_THROW(qlinear_elementwise(op, a, b, cl, QEwConvention::Tosa), ErrorIf);
    cl.y_max = Int(3);  // min_val = max_val: allowed
    EXPECT_NO_THROW(qlinear_elementwise(op, a, b, cl, QEwConvention::Tosa));
    QEwParams lim = p;
    lim.y_scale = op == QEwOp::Add ? 0x0c800000u /* 2^-102: r_o = 2^76 */ : 0x1b800000u /* 2^-72: S = 2^58 */;
    EXPECT_THROW(qlinear_elementwise(op, a, b, lim, QEwConvention::Tosa), ErrorIf);
  }
}
