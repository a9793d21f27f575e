// The shared Q31 helper (qspec/backend_common/q31.h) against the reference's exact arithmetic.
//
// Domain: every binary64 exponent field (subnormals included) with random fraction bits and the
// edge fractions (zero, all ones: the carry, and the exact ties of the 22 bits below Q31), plus
// the flush edges around 2^-32; every float32 exponent of (0, 1) for gemmlowp's variant. The
// reference (reference/src/tflite_tosa.cc, tvm_qnn.cc, gemmlowp.cc) computes with exact rationals,
// not with frexp / std::round, so it is an independent implementation of the same clauses.
#include "qspec/backend_common/q31.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/ref/tvm_qnn.h"

namespace qspec::q31 {
namespace {

double from_bits(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
float from_bits32(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

Q31 as_q31(const ref::Int& m, int shift) { return {static_cast<std::int32_t>(m), shift}; }

// Bit patterns of non-negative finite doubles: each exponent field 0..2046 with the edge fractions
// and `random_per_exponent` random ones (a fixed seed: the same set on every machine). The asan
// preset samples the exponents (QSPEC_DOMAIN_STRIDE, conformance/support/exhaustive_domain.h).
std::vector<std::uint64_t> every_exponent(int random_per_exponent) {
  constexpr std::uint64_t kFraction = (std::uint64_t{1} << 52) - 1;
  const std::uint64_t edges[] = {
      0,                             // a power of two (exponent field 0: zero itself)
      1,                             // the lowest fraction bit
      kFraction,                     // all ones: rounds up to 2^31, the carry
      kFraction - (1u << 21),        // just below the carry's rounding boundary
      std::uint64_t{1} << 21,        // the 22 bits below Q31 are exactly one half: a tie
      (std::uint64_t{1} << 21) - 1,  // just below a tie
      (std::uint64_t{1} << 21) + 1,  // just above a tie
      (std::uint64_t{3} << 21),      // a tie on an odd Q31 fraction
  };
  std::mt19937_64 rng(20261126);
  std::vector<std::uint64_t> out;
  for (std::uint64_t e = 0; e <= 2046; ++e) {
    std::vector<std::uint64_t> fractions(std::begin(edges), std::end(edges));
    for (int i = 0; i < random_per_exponent; ++i) fractions.push_back(rng() & kFraction);
    if (!test::visit(static_cast<std::int64_t>(e), 2047)) continue;
    for (std::uint64_t f : fractions) out.push_back((e << 52) | f);
  }
  return out;
}

TEST(Q31, TfliteQuantizeMultiplierMatchesTheReferenceOnEveryExponent) {
  for (std::uint64_t bits : every_exponent(8)) {
    const auto r = ref::tflite_quantize_multiplier(bits, ref::TfliteBuild::Default);
    ASSERT_EQ(tflite_quantize_multiplier(from_bits(bits)), as_q31(r.multiplier, r.shift))
        << "double bits 0x" << std::hex << bits;
  }
}

TEST(Q31, FrexpQ31MatchesTvmsGetFixedPointMultiplierShiftOnEveryExponent) {
  for (std::uint64_t bits : every_exponent(8)) {
    const auto r = ref::tvm_fixed_point_multiplier_shift(bits);
    ASSERT_EQ(frexp_q31(from_bits(bits)), as_q31(r.multiplier, r.shift)) << "double bits 0x" << std::hex << bits;
  }
}

TEST(Q31, FrexpQ31MatchesGemmlowpsQuantizeMultiplierSmallerThanOne) {
  // Every float32 exponent field of (0, 1) (0 = subnormals, 126 = [1/2, 1)) with edges and random fractions.
  std::mt19937 rng(20261126);
  for (std::uint32_t e = 0; e <= 126; ++e)
    for (int i = 0; i < 40; ++i) {
      const std::uint32_t f = i == 0 ? 1u : i == 1 ? 0x7fffffu : i == 2 ? 0u : (rng() & 0x7fffffu);
      const std::uint32_t bits = (e << 23) | f;
      if (bits == 0) continue;  // 0 is outside (0, 1)
      const auto r = ref::gemmlowp_quantize_multiplier_smaller_than_one(bits);
      ASSERT_EQ(frexp_q31(static_cast<double>(from_bits32(bits))), as_q31(r.multiplier, r.shift))
          << "float bits 0x" << std::hex << bits;
    }
}

TEST(Q31, FlushEdgesAroundTwoToTheMinus32) {
  // Hand-derived (spec/tflite_tosa.md requant.tflite.quantize_multiplier): 2^-32 = 0.5 * 2^-31 is
  // kept as (2^30, -31); 2^-32 - 2^-64 rounds up to 2^31 * 2^-33, carries to shift -31, kept; the
  // next double below rounds to 2^31 - 1 at shift -32, flushed; 2^-33 flushed.
  EXPECT_EQ(tflite_quantize_multiplier(from_bits(0x3df0000000000000ull)), (Q31{1 << 30, -31}));
  EXPECT_EQ(tflite_quantize_multiplier(from_bits(0x3defffffffe00000ull)), (Q31{1 << 30, -31}));
  EXPECT_EQ(tflite_quantize_multiplier(from_bits(0x3defffffffdfffffull)), (Q31{0, 0}));
  EXPECT_EQ(tflite_quantize_multiplier(from_bits(0x3de0000000000000ull)), (Q31{0, 0}));
  // Without the flush (TVM, gemmlowp) the tiny multipliers keep their shift.
  EXPECT_EQ(frexp_q31(from_bits(0x3defffffffdfffffull)), (Q31{2147483647, -32}));
  EXPECT_EQ(frexp_q31(from_bits(0x3de0000000000000ull)), (Q31{1 << 30, -32}));
}

TEST(Q31, CarryAndZero) {
  EXPECT_EQ(frexp_q31(0.0), (Q31{0, 0}));
  EXPECT_EQ(frexp_q31(-0.0), (Q31{0, 0}));
  EXPECT_EQ(frexp_q31(1.0), (Q31{1 << 30, 1}));                               // 0.5 * 2^1
  EXPECT_EQ(frexp_q31(from_bits(0x3fefffffffffffffull)), (Q31{1 << 30, 1}));  // 1 - 2^-53 carries to 1
  EXPECT_EQ(carry(std::int64_t{1} << 31, 4), (Q31{1 << 30, 5}));
  EXPECT_EQ(carry((std::int64_t{1} << 31) - 1, 4), (Q31{2147483647, 4}));
  EXPECT_EQ(flush_tiny({5, -32}), (Q31{0, 0}));
  EXPECT_EQ(flush_tiny({5, -31}), (Q31{5, -31}));
}

TEST(Q31, NegativeMultipliersTakeTheSameStepsWithoutACarryAtMinusTwoToThe31) {
  // Only translated invalid parameters are negative (thirdparty requant_params): the fraction is
  // negated, ties still go away from zero, and -2^31 fits int32, so it is not carried.
  EXPECT_EQ(frexp_q31(-0.5), (Q31{-(1 << 30), 0}));
  EXPECT_EQ(frexp_q31(-0.75), (Q31{-1610612736, 0}));
  EXPECT_EQ(frexp_q31(-from_bits(0x3fefffffffffffffull)), (Q31{INT32_MIN, 0}));
}

}  // namespace
}  // namespace qspec::q31
