// NEON kernels against the scalar path: requantization (every kind, tail, trap), quantize /
// dequantize, and the SMULL / SDOT matrix-product engines (every tail, signedness, K beyond int32).
#include "qspec/simd/neon_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gemm_tester.h"  // backends/simd_common/testing
#include "qspec/simd/cpu.h"
#include "requant_tester.h"  // backends/simd_common/testing

namespace qspec::simd {
namespace {

using testing::GemmTester;
using testing::RequantTester;

constexpr OutType kOuts[] = {OutType::I8, OutType::U8, OutType::I16, OutType::U16, OutType::I32};
constexpr std::size_t kLengths[] = {1, 3, 4, 5, 7, 8, 15, 16, 17, 33, 100};

RequantParams base(RequantKind k, OutType out, std::int32_t zp) {
  RequantParams p;
  p.kind = k;
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  p.zp = zp;
  return p;
}

TEST(neon_requant, Q31DoubleEveryTail) {
  std::mt19937_64 rng(31);
  for (OutType out : kOuts)
    for (std::size_t n : kLengths)
      for (int shift : {-31, -17, -5, -1, 0, 1, 3}) {
        RequantParams p = base(RequantKind::kQ31Double, out, static_cast<std::int32_t>(rng() % 64) - 32);
        p.multiplier = static_cast<std::int32_t>((1u << 30) + rng() % (1u << 30));
        p.left_shift = std::max(shift, 0);
        p.right_shift = std::max(-shift, 0);
        RequantTester().n(n).params(p).seed(rng()).Test(neon::requant);
      }
}

TEST(neon_requant, ShiftRoundEveryTail) {
  std::mt19937_64 rng(32);
  for (OutType out : kOuts)
    for (std::size_t n : kLengths)
      for (int s : {0, 1, 13, 31, 32, 45, 62, 63}) {
        RequantParams p = base(RequantKind::kShiftRound, out, static_cast<std::int32_t>(rng() % 64) - 32);
        p.multiplier = static_cast<std::int32_t>(rng() % (1u << 31));
        p.shift = s;
        p.input_offset = rng() % 2 ? static_cast<std::int32_t>(rng() % 200) - 100 : 0;
        p.round_pos = s > 0 ? std::int64_t{1} << (s - 1) : 0;
        p.round_neg = s > 0 && rng() % 2 ? p.round_pos - 1 : p.round_pos;
        RequantTester().n(n).params(p).seed(rng()).Test(neon::requant);
      }
}

TEST(neon_requant, FloatKindsEveryTail) {
  std::mt19937_64 rng(33);
  for (RequantKind k : {RequantKind::kFloatThenZp, RequantKind::kFloatInclZp})
    for (OutType out : kOuts)
      for (std::size_t n : kLengths) {
        RequantParams p = base(k, out, static_cast<std::int32_t>(rng() % 64) - 32);
        p.scale = std::ldexp(1.0f + static_cast<float>(rng() % 1000) / 1000.0f, static_cast<int>(rng() % 30) - 25);
        RequantTester().n(n).params(p).seed(rng()).Test(neon::requant);
      }
}

// SQRDMULH's saturating case, RDBPOT's negative ties (where SRSHL would round the other way),
// and |x| > 2^24 in the float kinds.
TEST(neon_requant, Traps) {
  RequantParams sat = base(RequantKind::kQ31Double, OutType::I32, 0);
  sat.multiplier = INT32_MIN;
  RequantTester().n(19).params(sat).inputs({INT32_MIN, INT32_MAX, -1, 0, 1}).Test(neon::requant);
  std::vector<std::int32_t> ties;
  for (int x = -64; x < 64; ++x) ties.push_back(x);
  for (int r = 1; r <= 6; ++r) {
    RequantParams p = base(RequantKind::kQ31Double, OutType::I32, 0);
    p.multiplier = 1 << 30;
    p.right_shift = r;
    RequantTester().n(128).params(p).inputs(ties).iterations(1).Test(neon::requant);
  }
  RequantParams f = base(RequantKind::kFloatThenZp, OutType::I16, 3);
  f.scale = 1e-3f;
  RequantTester().n(21).params(f).inputs({16777217, -16777219, INT32_MAX, INT32_MIN, 33554435}).Test(neon::requant);
}

TEST(neon_quantize, MatchesScalar) {
  std::mt19937_64 rng(34);
  for (OutType out : kOuts)
    for (std::size_t n : kLengths)
      for (int variant = 0; variant < 12; ++variant) {
        QuantizeParams p;
        p.divide = variant % 2 == 0;
        p.s = std::ldexp(1.0f + static_cast<float>(rng() % 1000) / 1000.0f, static_cast<int>(rng() % 20) - 10);
        p.pre_add = variant % 3 == 0;
        p.pre_zp = static_cast<float>(static_cast<int>(rng() % 64) - 32);
        p.round = variant % 4 < 2 ? QuantizeParams::Round::kHalfEven : QuantizeParams::Round::kHalfAway;
        p.post = static_cast<QuantizeParams::Post>(variant % 3);
        p.post_zp = static_cast<int>(rng() % 64) - 32;
        p.post_zpf = static_cast<float>(p.post_zp);
        p.out = out;
        p.qmin = out_min(out);
        p.qmax = out_max(out);
        finalize(p);
        std::vector<float> x(n);
        for (auto& v : x)
          v = rng() % 3 == 0 ? (static_cast<float>(rng() % 2001) - 1000.0f) * 0.5f * p.s
                             : static_cast<float>(static_cast<std::int64_t>(rng() % 20001) - 10000) * 0.37f;
        const std::size_t es = static_cast<std::size_t>(out_size(out));
        std::vector<std::uint8_t> got(n * es), want(n * es);
        neon::quantize(p, n, x.data(), got.data());
        quantize_scalar(p, n, x.data(), want.data());
        ASSERT_EQ(got, want) << "n=" << n << " variant=" << variant;
      }
  std::vector<std::int32_t> q = {16777217, 16777219, -5, 7, 100, -100, 3, 9, 11};
  std::vector<float> a(q.size()), b(q.size());
  neon::dequantize(q.size(), q.data(), 3, 0.5f, a.data());
  dequantize_scalar(q.size(), q.data(), 3, 0.5f, b.data());
  ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
}

std::vector<const GemmEngine*> engines() {
  std::vector<const GemmEngine*> v = {&neon::gemm_engine_smull()};
  if (detect_cpu_features().dotprod) v.push_back(&neon::gemm_engine_sdot());
  return v;
}

TEST(neon_gemm, TailsSignednessTraps) {
  std::uint64_t seed = 1;
  for (const GemmEngine* e : engines()) {
    for (std::int64_t m : {1, 3, 5})
      for (std::int64_t n : {1, 4, 7})
        for (std::int64_t k : {1, 15, 16, 17, 31, 32, 33, 64, 65})
          GemmTester().m(m).n(n).k(k).seed(++seed).za(3).zw(-2).Test(*e);
    for (bool as : {false, true})
      for (bool wu : {false, true})
        GemmTester().m(4).n(5).k(37).a_signed(as).w_unsigned(wu).za(as ? -128 : 255).zw(wu ? 0 : 127).Test(*e);
    GemmTester().m(2).n(3).k(64).a_signed(false).constant(255, 0x80).Test(*e);
    GemmTester().m(1).n(2).k(70001).a_signed(false).constant(255, 0x80).Test(*e);  // beyond int32
  }
}

}  // namespace
}  // namespace qspec::simd
