// Hand-derived tables for the exact primitives: roundings at ties, ranges, bit counts.
// Expected values are written out by hand from the definitions, not computed by the code under test.
#include <gtest/gtest.h>

#include <algorithm>

#include "qspec/ref/bits.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/types.h"

using namespace qspec::ref;

namespace {
struct TieRow {
  Rat x;
  int floor, ceil, trunc, half_up, half_down, half_away, half_even;
};
// The tie cases +-0.5, +-1.5, +-2.5 separate all seven conventions (spec/primitives.md table).
const TieRow kTies[] = {
    {Rat(1, 2), 0, 1, 0, 1, 0, 1, 0},        {Rat(-1, 2), -1, 0, 0, 0, -1, -1, 0},
    {Rat(3, 2), 1, 2, 1, 2, 1, 2, 2},        {Rat(-3, 2), -2, -1, -1, -1, -2, -2, -2},
    {Rat(5, 2), 2, 3, 2, 3, 2, 3, 2},        {Rat(-5, 2), -3, -2, -2, -2, -3, -3, -2},
    {Rat(7, 3), 2, 3, 2, 2, 2, 2, 2},        {Rat(-7, 3), -3, -2, -2, -2, -2, -2, -2},
    {Rat(0), 0, 0, 0, 0, 0, 0, 0},           {Rat(-4), -4, -4, -4, -4, -4, -4, -4},
    {Rat(-11, 4), -3, -2, -2, -3, -3, -3, -3},
};
}  // namespace

TEST(round_floor, HandTable) {
  for (const auto& r : kTies) EXPECT_EQ(round_floor(r.x), r.floor) << to_string(r.x);
}
TEST(round_ceil, HandTable) {
  for (const auto& r : kTies) EXPECT_EQ(round_ceil(r.x), r.ceil) << to_string(r.x);
}
TEST(round_trunc, HandTable) {
  for (const auto& r : kTies) EXPECT_EQ(round_trunc(r.x), r.trunc) << to_string(r.x);
}
TEST(round_half_up, HandTable) {
  for (const auto& r : kTies) EXPECT_EQ(round_half_up(r.x), r.half_up) << to_string(r.x);
}
TEST(round_half_down, HandTable) {
  for (const auto& r : kTies) EXPECT_EQ(round_half_down(r.x), r.half_down) << to_string(r.x);
}
TEST(round_half_away, HandTable) {
  for (const auto& r : kTies) EXPECT_EQ(round_half_away(r.x), r.half_away) << to_string(r.x);
}
TEST(round_half_even, HandTable) {
  for (const auto& r : kTies) EXPECT_EQ(round_half_even(r.x), r.half_even) << to_string(r.x);
}

TEST(types_int_range, HandTable) {
  EXPECT_EQ(int_range(DType::I8).lo, -128);
  EXPECT_EQ(int_range(DType::I8).hi, 127);
  EXPECT_EQ(int_range(DType::U8).hi, 255);
  EXPECT_EQ(int_range(DType::I16).lo, -32768);
  EXPECT_EQ(int_range(DType::U16).hi, 65535);
  EXPECT_EQ(int_range(DType::I32).lo, Int("-2147483648"));
  EXPECT_EQ(int_range(DType::I64).hi, Int("9223372036854775807"));
  EXPECT_THROW(int_range(DType::F32), RequireViolated);
}

TEST(types_mrt_sym_range, HandTable) {
  EXPECT_EQ(mrt_sym_range(8).lo, -127);  // int8 at PREC 8 never produces -128
  EXPECT_EQ(mrt_sym_range(8).hi, 127);
  EXPECT_EQ(mrt_sym_range(1).hi, 0);
  EXPECT_EQ(mrt_sym_range(32).hi, Int("2147483647"));
  EXPECT_THROW(mrt_sym_range(0), ErrorIf);
  EXPECT_THROW(mrt_sym_range(33), ErrorIf);
}

TEST(sat_clamp, HandTable) {
  EXPECT_EQ(saturate(Int(300), DType::U8), 255);
  EXPECT_EQ(saturate(Int(-1), DType::U8), 0);
  EXPECT_EQ(saturate(Int(-129), DType::I8), -128);
  EXPECT_EQ(saturate(Int(5), DType::I8), 5);
  EXPECT_THROW(saturate(Int(0), Range{Int(1), Int(0)}), RequireViolated);
}

// One step beyond each end is the end, and each end itself passes, for every integer dtype: the
// off-by-one a clamp can get wrong (found by tools/mutation: a clamp letting hi + 1 through
// passed the table above).
TEST(sat_clamp, OneBeyondEachEnd) {
  for (DType t : {DType::I8, DType::U8, DType::I16, DType::U16, DType::I32, DType::I64}) {
    const Range r = int_range(t);
    EXPECT_EQ(saturate(r.hi + 1, t), r.hi);
    EXPECT_EQ(saturate(r.hi, t), r.hi);
    EXPECT_EQ(saturate(r.lo - 1, t), r.lo);
    EXPECT_EQ(saturate(r.lo, t), r.lo);
  }
  const Range odd{Int(-3), Int(5)};
  for (int v = -6; v <= 8; ++v) EXPECT_EQ(saturate(Int(v), odd), Int(std::min(5, std::max(-3, v))));
}

// Values from research/mrt-cvm-semantics.md section 3, derived by hand from MRT's Python.
TEST(bits_mrt_get_bit, HandTable) {
  EXPECT_EQ(mrt_get_bit(Rat(127)), 8);
  EXPECT_EQ(mrt_get_bit(Rat(128)), 9);
  EXPECT_EQ(mrt_get_bit(Rat(0)), 1);
  EXPECT_EQ(mrt_get_bit(Rat(1)), 2);
  EXPECT_EQ(mrt_get_bit(Rat(-127)), 8);
  EXPECT_EQ(mrt_get_bit(Rat(1, 2)), 2);    // ceil(log2(1.5)) + 1 = 1 + 1
  EXPECT_EQ(mrt_get_bit(Rat(255, 2)), 9);  // ceil(log2(128.5)) + 1 = 8 + 1
}
TEST(bits_mrt_get_bit_cnt, HandTable) {
  EXPECT_EQ(mrt_get_bit_cnt(1), 1);
  EXPECT_EQ(mrt_get_bit_cnt(8), 4);
  EXPECT_EQ(mrt_get_bit_cnt(9), 4);
  EXPECT_EQ(mrt_get_bit_cnt(1024), 11);
  EXPECT_THROW(mrt_get_bit_cnt(0), ErrorIf);
}
TEST(bits_cvm_number_precision, HandTable) {
  EXPECT_EQ(cvm_number_precision(127), 9);  // differs from get_bit(127) = 8
  EXPECT_EQ(cvm_number_precision(0), 2);
  EXPECT_EQ(cvm_number_precision(126), 8);
}
TEST(bits_cvm_precision_op, HandTable) {
  EXPECT_EQ(cvm_precision_op(0), 1);
  EXPECT_EQ(cvm_precision_op(1), 1);
  EXPECT_EQ(cvm_precision_op(-128), 8);
  EXPECT_EQ(cvm_precision_op(127), 7);
}
TEST(bits_bit_length, HandTable) {
  EXPECT_EQ(bit_length(0), 0);
  EXPECT_EQ(bit_length(1), 1);
  EXPECT_EQ(bit_length(255), 8);
  EXPECT_EQ(bit_length(256), 9);
}
