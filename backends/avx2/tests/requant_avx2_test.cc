// Requantization kernels: the scalar path against independent definitions, and each x86 level (AVX2
// on ymm, AVX-512 on zmm) against scalar on every tail length, output type, and the traps
// (INT32_MIN^2, negative ties, |x| > 2^24, INT32_MIN / INT32_MAX).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "qspec/simd/avx2_kernels.h"
#include "qspec/simd/cpu.h"
#include "requant_tester.h"  // backends/simd_common/testing

namespace qspec::simd {
namespace {

using testing::RequantTester;
using i128 = __int128;

// ---- independent definitions on 128-bit integers (no nudges, masks or shifts tricks) ----

i128 floor_div(i128 n, i128 d) { return n >= 0 ? n / d : -((-n + d - 1) / d); }
i128 half_up(i128 n, int s) { return floor_div(2 * n + (i128{1} << s), i128{1} << (s + 1)); }
i128 half_away(i128 n, int s) { return n >= 0 ? half_up(n, s) : -half_up(-n, s); }
std::int64_t sat(i128 v, OutType t) {
  return static_cast<std::int64_t>(v < out_min(t) ? out_min(t) : v > out_max(t) ? out_max(t) : v);
}

std::int64_t def_q31_double(std::int32_t x, const RequantParams& p) {
  const auto a = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << p.left_shift);
  const i128 v = (a == INT32_MIN && p.multiplier == INT32_MIN) ? i128{INT32_MAX} : half_up(i128{a} * p.multiplier, 31);
  return sat(half_away(v, p.right_shift) + p.zp, p.out);
}

double rne(double v) {  // ties to even, written out
  const double f = std::floor(v), d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

std::int64_t def_float(std::int32_t x, const RequantParams& p) {
  // fl32(x) * scale is exact in binary64 (24 + 24 bits), then rounded once to binary32.
  const float f = static_cast<float>(static_cast<double>(static_cast<float>(x)) * static_cast<double>(p.scale));
  if (p.kind == RequantKind::kFloatThenZp) return sat(static_cast<i128>(rne(f)) + p.zp, p.out);
  const float g = f + static_cast<float>(p.zp);
  return sat(static_cast<i128>(rne(g)), p.out);
}

RequantParams q31(std::int32_t m, int shift, std::int32_t zp, OutType out) {
  RequantParams p;
  p.kind = RequantKind::kQ31Double;
  p.multiplier = m;
  p.left_shift = std::max(shift, 0);
  p.right_shift = std::max(-shift, 0);
  p.zp = zp;
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  return p;
}

enum class Round { HalfUp, HalfAway, TosaDouble };
RequantParams shift_round(std::int32_t m, int s, Round r, std::int32_t zp, OutType out, std::int32_t offset = 0) {
  RequantParams p;
  p.kind = RequantKind::kShiftRound;
  p.multiplier = m;
  p.shift = s;
  p.input_offset = offset;
  p.round_pos = p.round_neg = s > 0 ? std::int64_t{1} << (s - 1) : 0;
  if (r == Round::HalfAway && s > 0) p.round_neg -= 1;
  if (r == Round::TosaDouble && s > 31) {
    p.round_pos += std::int64_t{1} << 30;
    p.round_neg -= std::int64_t{1} << 30;
  }
  p.zp = zp;
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  return p;
}

RequantParams float_kind(RequantKind k, float scale, std::int32_t zp, OutType out) {
  RequantParams p;
  p.kind = k;
  p.scale = scale;
  p.zp = zp;
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  return p;
}

constexpr OutType kOuts[] = {OutType::I8, OutType::U8, OutType::I16, OutType::U16, OutType::I32};

std::int32_t random_zp(std::mt19937_64& rng, OutType out) {
  if (rng() % 4 == 0) return static_cast<std::int32_t>(rng());  // far outside: saturates everything
  const std::int64_t lo = out_min(out), hi = out_max(out);
  return static_cast<std::int32_t>(lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1)));
}
std::int32_t random_multiplier(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return 1 << 30;
    case 1: return INT32_MAX;
    case 2: return static_cast<std::int32_t>(rng() % 16);
    default: return static_cast<std::int32_t>((1u << 30) + rng() % (1u << 30));
  }
}
float random_scale(std::mt19937_64& rng) {
  const int e = static_cast<int>(rng() % 40) - 32;
  return std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) / 8388608.0f, e);
}

// ---- the scalar path against the definitions ----

TEST(requant_scalar, Q31DoubleMatchesDefinition) {
  std::mt19937_64 rng(7);
  for (int it = 0; it < 20000; ++it) {
    const OutType out = kOuts[rng() % 5];
    const int shift =
        static_cast<int>(rng() % 40) - 31 > 4 ? static_cast<int>(rng() % 4) : -static_cast<int>(rng() % 32);
    RequantParams p = q31(random_multiplier(rng), shift, random_zp(rng, out), out);
    ASSERT_TRUE(finalize(p));
    const auto x = static_cast<std::int32_t>(rng() % 3 == 0 ? rng() : rng() % 4096 - 2048);
    ASSERT_EQ(requant_one(p, x), def_q31_double(x, p)) << "x=" << x << " M=" << p.multiplier << " shift=" << shift;
  }
}

TEST(requant_scalar, ShiftRoundMatchesDefinition) {
  std::mt19937_64 rng(8);
  for (int it = 0; it < 20000; ++it) {
    const OutType out = kOuts[rng() % 5];
    const int s = static_cast<int>(rng() % 62) + 1;
    const Round r = static_cast<Round>(rng() % 3);
    const std::int32_t off = rng() % 4 == 0 ? static_cast<std::int32_t>(rng() % 1000) - 500 : 0;
    RequantParams p = shift_round(random_multiplier(rng), s, r, random_zp(rng, out), out, off);
    ASSERT_TRUE(finalize(p));
    const auto x =
        static_cast<std::int32_t>(rng() % 3 == 0 ? rng() % (1u << 30) : rng() % 4096) - (rng() % 2 ? 2048 : 0);
    const std::int64_t xv = static_cast<std::int64_t>(x) + off;  // no wrap for these x
    const i128 prod = i128{xv} * p.multiplier;
    i128 v = r == Round::HalfAway ? half_away(prod, s) : half_up(prod, s);
    // TOSA DOUBLE_ROUND with s > 31 is gemmlowp's two roundings (requant.tosa.apply_scale_32).
    if (r == Round::TosaDouble && s > 31) v = half_away(half_up(prod, 31), s - 31);
    ASSERT_EQ(requant_one(p, x), sat(v + p.zp, out)) << "x=" << x << " M=" << p.multiplier << " s=" << s;
  }
}

TEST(requant_scalar, FloatKindsMatchDefinition) {
  std::mt19937_64 rng(9);
  for (int it = 0; it < 20000; ++it) {
    const OutType out = kOuts[rng() % 5];
    const RequantKind k = rng() % 2 ? RequantKind::kFloatThenZp : RequantKind::kFloatInclZp;
    RequantParams p = float_kind(k, random_scale(rng), random_zp(rng, out), out);
    ASSERT_TRUE(finalize(p));
    const auto x = static_cast<std::int32_t>(rng());
    ASSERT_EQ(requant_one(p, x), def_float(x, p)) << "x=" << x << " scale=" << p.scale << " zp=" << p.zp;
  }
}

// Hand-derived values at the ties (spec/primitives.md tables): x / 2 for x = -5..5.
TEST(requant_scalar, NegativeTiesByHand) {
  const std::int32_t xs[] = {-5, -3, -1, 1, 3, 5};
  const std::int32_t up[] = {-2, -1, 0, 1, 2, 3};     // half up: -2.5 -> -2, -1.5 -> -1, -0.5 -> 0
  const std::int32_t away[] = {-3, -2, -1, 1, 2, 3};  // half away: -2.5 -> -3
  for (int i = 0; i < 6; ++i) {
    RequantParams a = shift_round(1 << 30, 31, Round::HalfUp, 0, OutType::I32);  // x * 2^30 / 2^31 = x / 2
    RequantParams b = shift_round(1 << 30, 31, Round::HalfAway, 0, OutType::I32);
    RequantParams g = q31(1 << 30, 0, 0, OutType::I32);  // SRDHM(x, 2^30) = half_up(x / 2)
    RequantParams d = q31(INT32_MAX, -1, 0, OutType::I32);
    ASSERT_TRUE(finalize(a) && finalize(b) && finalize(g) && finalize(d));
    EXPECT_EQ(requant_one(a, xs[i]), up[i]);
    EXPECT_EQ(requant_one(b, xs[i]), away[i]);
    EXPECT_EQ(requant_one(g, xs[i]), up[i]);
  }
  // gemmlowp's documented SRDHM examples: SRDHM(7, 2^30) = 4, SRDHM(-7, 2^30) = -3.
  RequantParams g = q31(1 << 30, 0, 0, OutType::I32);
  ASSERT_TRUE(finalize(g));
  EXPECT_EQ(requant_one(g, 7), 4);
  EXPECT_EQ(requant_one(g, -7), -3);
  // Double rounding: 132 * 0.29896... (M = 1284042223, shift -1) is 39.46, but SRDHM gives 79
  // and RDBPOT(79, 1) = 40 (spec requant.double_round_vs_single).
  RequantParams dr = q31(1284042223, -1, 0, OutType::I32);
  RequantParams sr = shift_round(1284042223, 32, Round::HalfUp, 0, OutType::I32);
  ASSERT_TRUE(finalize(dr) && finalize(sr));
  EXPECT_EQ(requant_one(dr, 132), 40);
  EXPECT_EQ(requant_one(sr, 132), 39);
}

TEST(requant_scalar, Int32MinSquared) {
  RequantParams p = q31(INT32_MIN, 0, 0, OutType::I32);
  ASSERT_TRUE(finalize(p));
  EXPECT_EQ(requant_one(p, INT32_MIN), INT32_MAX);  // the one saturating case of SRDHM
  EXPECT_EQ(requant_one(p, INT32_MAX), -INT32_MAX);
  EXPECT_EQ(requant_one(p, 1), -1);
}

TEST(requant_scalar, FloatAbove2To24) {
  // fl32(16777217) = 16777216 and fl32(2^31 - 1) = 2^31: the float conventions specify the rounding.
  RequantParams p = float_kind(RequantKind::kFloatThenZp, 1.0f, 0, OutType::I32);
  ASSERT_TRUE(finalize(p));
  EXPECT_EQ(requant_one(p, 16777217), 16777216);
  EXPECT_EQ(requant_one(p, INT32_MAX), INT32_MAX);  // 2^31 saturates
  EXPECT_EQ(requant_one(p, INT32_MIN), INT32_MIN);
  RequantParams q = float_kind(RequantKind::kFloatInclZp, 1.0f, 3, OutType::I32);
  ASSERT_TRUE(finalize(q));
  // fl32(2^24 + 3): a tie between 2^24 + 2 (odd significand) and 2^24 + 4 (even) -> 2^24 + 4.
  EXPECT_EQ(requant_one(q, 16777217), 16777220);
}

// An unsigned output with zp = INT32_MIN: v + zp <= INT32_MAX + INT32_MIN = -1 for every int32 v,
// so every output is qmin = 0, though qmin - zp = 2^31 is no int32 (finalize's empty intersection).
TEST(requant_scalar, ZeroPointBelowEveryInt32Sum) {
  for (OutType out : {OutType::U8, OutType::U16}) {
    RequantParams a = q31(INT32_MAX, 0, INT32_MIN, out);
    RequantParams b = shift_round(1 << 30, 31, Round::HalfAway, INT32_MIN, out);
    ASSERT_TRUE(finalize(a) && finalize(b));
    for (std::int32_t x : {INT32_MIN, -1, 0, 1, 1000, INT32_MAX}) {
      EXPECT_EQ(requant_one(a, x), 0) << "x=" << x;
      EXPECT_EQ(requant_one(b, x), 0) << "x=" << x;
    }
  }
}

// ---- each SIMD level against scalar: every tail, every output type ----

struct Level {
  const char* name;
  RequantFn kernel;
  bool (*available)(const CpuFeatures&);
};
const Level kLevels[] = {
    {"avx2", avx2::requant, [](const CpuFeatures& f) { return f.avx2; }},
    // kernel_set's zmm level (AVX512F + BW + VL + VNNI); the kernel itself needs AVX512F only.
    {"avx512", avx2::requant_avx512, [](const CpuFeatures& f) { return f.zmm; }},
};

class SimdRequant : public ::testing::TestWithParam<Level> {
 protected:
  void SetUp() override {
    if (!GetParam().available(detect_cpu_features()))
      GTEST_SKIP() << "this CPU lacks the " << GetParam().name << " level";
  }
  static RequantFn kernel() { return GetParam().kernel; }
};

INSTANTIATE_TEST_SUITE_P(Levels, SimdRequant, ::testing::ValuesIn(kLevels),
                         [](const ::testing::TestParamInfo<Level>& i) { return std::string(i.param.name); });

// Every tail of both widths (0..33: empty, partial ymm and zmm steps, one past a 32-byte store),
// and around the zmm kernel's 64-element step.
const std::vector<std::size_t> kLengths = [] {
  std::vector<std::size_t> v;
  for (std::size_t n = 0; n <= 33; ++n) v.push_back(n);
  for (std::size_t n : {40, 47, 48, 63, 64, 65, 79, 80, 97, 127, 128, 1000}) v.push_back(n);
  return v;
}();

TEST_P(SimdRequant, Q31DoubleEveryTail) {
  std::mt19937_64 rng(11);
  for (OutType out : kOuts)
    for (std::size_t n : kLengths) {
      const int shift = rng() % 5 == 0 ? static_cast<int>(rng() % 3) : -static_cast<int>(rng() % 32);
      RequantTester()
          .n(n)
          .params(q31(random_multiplier(rng), shift, random_zp(rng, out), out))
          .seed(rng())
          .Test(kernel());
    }
}

TEST_P(SimdRequant, ShiftRoundEveryTail) {
  std::mt19937_64 rng(12);
  for (OutType out : kOuts)
    for (std::size_t n : kLengths)
      for (int s : {0, 1, 5, 20, 31, 32, 33, 40, 62}) {
        const Round r = static_cast<Round>(rng() % 3);
        const std::int32_t off = rng() % 3 == 0 ? static_cast<std::int32_t>(rng()) : 0;
        RequantTester()
            .n(n)
            .params(shift_round(random_multiplier(rng), s, r, random_zp(rng, out), out, off))
            .seed(rng())
            .Test(kernel());
      }
}

TEST_P(SimdRequant, FloatKindsEveryTail) {
  std::mt19937_64 rng(13);
  for (RequantKind k : {RequantKind::kFloatThenZp, RequantKind::kFloatInclZp})
    for (OutType out : kOuts)
      for (std::size_t n : kLengths)
        RequantTester()
            .n(n)
            .params(float_kind(k, random_scale(rng), random_zp(rng, out), out))
            .seed(rng())
            .Test(kernel());
}

TEST_P(SimdRequant, Int32MinSquaredTrap) {
  for (OutType out : kOuts)
    RequantTester()
        .n(37)
        .params(q31(INT32_MIN, 0, 0, out))
        .inputs({INT32_MIN, INT32_MAX, 0, -1, 1, INT32_MIN + 1})
        .Test(kernel());
  // With a left shift, x * 2^L wraps to INT32_MIN for x = 2^30 (L = 1).
  RequantTester().n(33).params(q31(INT32_MIN, 1, 0, OutType::I32)).inputs({1 << 30, -(1 << 30), 3}).Test(kernel());
}

TEST_P(SimdRequant, NegativeTiesTrap) {
  // Every x in [-64, 64) at shifts where x * M / 2^S has exact ties.
  std::vector<std::int32_t> xs;
  for (int x = -64; x < 64; ++x) xs.push_back(x);
  for (int s = 1; s <= 6; ++s)
    for (Round r : {Round::HalfUp, Round::HalfAway, Round::TosaDouble}) {
      RequantTester()
          .n(128)
          .params(shift_round(1 << 30, 30 + s, r, 0, OutType::I32))
          .inputs(xs)
          .iterations(1)
          .Test(kernel());
      RequantTester().n(128).params(q31(1 << 30, -s, 0, OutType::I8)).inputs(xs).iterations(1).Test(kernel());
    }
}

TEST_P(SimdRequant, FloatAbove2To24Trap) {
  const std::vector<std::int32_t> xs = {16777217, -16777217, 16777219, INT32_MAX, INT32_MIN, (1 << 30) + 65, 33554435};
  for (OutType out : kOuts)
    for (RequantKind k : {RequantKind::kFloatThenZp, RequantKind::kFloatInclZp})
      for (float scale : {1.0f, 0.5f, 1e-6f, 3.0f})
        RequantTester().n(41).params(float_kind(k, scale, 7, out)).inputs(xs).Test(kernel());
}

TEST_P(SimdRequant, WideShiftRound) {
  // S small: floor(x*M / 2^S) leaves int32 (kernel's 64-bit clamp path).
  std::mt19937_64 rng(14);
  for (OutType out : kOuts)
    for (int s : {0, 1, 3, 10}) {
      RequantParams p = shift_round(random_multiplier(rng) | 1 << 30, s, Round::HalfUp, random_zp(rng, out), out);
      ASSERT_TRUE(finalize(p));
      EXPECT_TRUE(p.wide);
      RequantTester().n(77).params(p).seed(rng()).Test(kernel());
    }
}

// INT32_MIN, INT32_MAX and their neighbours through every kind and output type, with zero points
// inside and far outside the range (saturating everything).
TEST_P(SimdRequant, Int32ExtremesEveryKind) {
  const std::vector<std::int32_t> xs = {INT32_MIN,     INT32_MIN + 1,     INT32_MAX,      INT32_MAX - 1, 0, -1, 1,
                                        INT32_MIN / 2, INT32_MAX / 2 + 1, -(1 << 24) - 1, (1 << 24) + 1};
  for (OutType out : kOuts)
    for (std::int32_t zp : {0, out_max(out), INT32_MIN, INT32_MAX}) {
      for (std::int32_t m : {INT32_MIN, INT32_MAX, 1 << 30, 1, 0})
        for (int shift : {0, 1, -1, -31, 30}) {
          RequantTester().n(45).params(q31(m, shift, zp, out)).inputs(xs).iterations(2).Test(kernel());
          if (shift > 0) continue;
          for (Round r : {Round::HalfUp, Round::HalfAway, Round::TosaDouble})
            for (std::int32_t off : {0, INT32_MIN, -1})
              RequantTester().n(45).params(shift_round(m, 31 - shift, r, zp, out, off)).inputs(xs).Test(kernel());
        }
      for (RequantKind k : {RequantKind::kFloatThenZp, RequantKind::kFloatInclZp})
        for (float scale : {1.0f, -1.0f, 0.0f, 1e-9f, 65536.0f, std::numeric_limits<float>::infinity()})
          RequantTester().n(45).params(float_kind(k, scale, zp, out)).inputs(xs).Test(kernel());
    }
}

// The zmm kernel's byte outputs from 64-element steps (n >= 65) leave the int32 clamp and the zero point
// to saturating packs and a 16-bit addition, or fold the zero point into the rounding constant: zero
// points at and past that addition's bound (|zp| <= 32512), a clamp inside the type's range, the
// int32 extremes among the inputs, every integer kind.
TEST_P(SimdRequant, BytePacksZeroPointBoundAndClamp) {
  std::mt19937_64 rng(15);
  const std::vector<std::int32_t> extremes = {INT32_MIN, INT32_MAX, 0, -1, 1, INT32_MIN + 1, INT32_MAX - 1, 1 << 24};
  for (OutType out : {OutType::I8, OutType::U8})
    for (std::int32_t zp : {-32513, -32512, -200, 0, 3, 200, 32512, 32513})
      for (bool clamp : {false, true}) {
        std::vector<RequantParams> ps;
        for (int shift : {2, 0, -1, -9, -31}) ps.push_back(q31(random_multiplier(rng), shift, zp, out));
        for (int s : {20, 31, 32, 40, 62})
          for (Round r : {Round::HalfUp, Round::HalfAway, Round::TosaDouble})
            ps.push_back(
                shift_round(random_multiplier(rng), s, r, zp, out, rng() % 2 ? static_cast<std::int32_t>(rng()) : 0));
        for (RequantParams& p : ps) {
          if (clamp) p.qmin = out_min(out) + 10, p.qmax = out_max(out) - 20;
          RequantTester().n(200).params(p).seed(rng()).Test(kernel());
          RequantTester().n(131).params(p).inputs(extremes).iterations(2).Test(kernel());
        }
      }
}

}  // namespace
}  // namespace qspec::simd
