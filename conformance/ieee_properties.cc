// The exact IEEE model against the machine's own IEEE arithmetic (an independent oracle).
//
// x86-64 SSE and AArch64 both implement binary32/binary64 with round-to-nearest-even by
// default, so for finite operands each modelled operation must match the hardware bit for bit.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "qspec/ref/ieee.h"
#include "qspec_rc.h"

using namespace qspec::ref;

namespace {
rc::Gen<std::uint32_t> finite_f32() {
  return rc::gen::suchThat(rc::gen::arbitrary<std::uint32_t>(),
                           [](std::uint32_t b) { return std::isfinite(std::bit_cast<float>(b)); });
}
std::uint32_t hw(float f) { return std::bit_cast<std::uint32_t>(f); }
}  // namespace

RC_GTEST_PROP(float_decode, MatchesHardwareValue, ()) {
  const std::uint32_t b = *finite_f32();
  const float f = std::bit_cast<float>(b);
  // Compare via the exact binary64 widening (exact for every binary32).
  const Rat v = f32_value(b);
  const double d = static_cast<double>(f);
  RC_ASSERT(v == f64_value(std::bit_cast<std::uint64_t>(d)));
}

RC_GTEST_PROP(float_round_rne, MulMatchesHardware, ()) {
  const std::uint32_t a = *finite_f32(), b = *finite_f32();
  RC_ASSERT(f32_mul(a, b) == hw(std::bit_cast<float>(a) * std::bit_cast<float>(b)));
}
RC_GTEST_PROP(float_round_rne, AddMatchesHardware, ()) {
  const std::uint32_t a = *finite_f32(), b = *finite_f32();
  RC_ASSERT(f32_add(a, b) == hw(std::bit_cast<float>(a) + std::bit_cast<float>(b)));
}
RC_GTEST_PROP(float_round_rne, DivMatchesHardware, ()) {
  const std::uint32_t a = *finite_f32();
  const std::uint32_t b = *rc::gen::suchThat(finite_f32(), [](std::uint32_t x) { return (x & 0x7fffffffu) != 0; });
  RC_ASSERT(f32_div(a, b) == hw(std::bit_cast<float>(a) / std::bit_cast<float>(b)));
}
RC_GTEST_PROP(float_round_rne, IntConversionMatchesHardware, (std::int64_t x)) {
  RC_ASSERT(f32_from_int(Int(x)) == hw(static_cast<float>(x)));
}
RC_GTEST_PROP(float_round_rne, NarrowingMatchesHardware, (std::uint64_t bits)) {
  const double d = std::bit_cast<double>(bits);
  RC_PRE(std::isfinite(d));
  RC_ASSERT(f32_from_f64(bits) == hw(static_cast<float>(d)));
}

TEST(float_round_rne, HandTable) {
  EXPECT_EQ(f32_round(Rat(1)), 0x3f800000u);
  EXPECT_EQ(f32_round(Rat(-1, 4)), 0xbe800000u);
  // 2^24 + 1 is halfway between 2^24 and 2^24 + 2: ties to even -> 2^24.
  EXPECT_EQ(f32_from_int(Int((1 << 24) + 1)), 0x4b800000u);
  // 2^24 + 3 is halfway between 2^24 + 2 and 2^24 + 4: ties to even -> 2^24 + 4.
  EXPECT_EQ(f32_from_int(Int((1 << 24) + 3)), 0x4b800002u);
  // Smallest subnormal and half of it (a tie with 0: rounds to even, i.e. 0).
  EXPECT_EQ(f32_round(pow2r(-149)), 0x00000001u);
  EXPECT_EQ(f32_round(pow2r(-150)), 0x00000000u);
  // Largest finite float and overflow to infinity.
  EXPECT_EQ(f32_round((pow2r(24) - 1) * pow2r(104)), 0x7f7fffffu);
  EXPECT_EQ(f32_round(pow2r(128)), 0x7f800000u);
  EXPECT_THROW(f32_value(0x7f800000u), RequireViolated);
}
