// Properties of the exact roundings: each against its defining inequalities (spec/primitives.md).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::ref;

// Each rounding's result n is characterized by inequalities on x - n; these are the
// definitions in spec/primitives.md, checked independently of how the code computes n.
RC_GTEST_PROP(round_floor, IsGreatestIntegerNotAbove, (Rat x)) {
  const Rat n(round_floor(x));
  RC_ASSERT(n <= x && x < n + 1);
}
RC_GTEST_PROP(round_ceil, IsLeastIntegerNotBelow, (Rat x)) {
  const Rat n(round_ceil(x));
  RC_ASSERT(n - 1 < x && x <= n);
}
RC_GTEST_PROP(round_trunc, TowardZero, (Rat x)) {
  const Rat n(round_trunc(x));
  RC_ASSERT(abs(n) <= abs(x) && abs(x) < abs(n) + 1);
  RC_ASSERT(n == 0 || (n > 0) == (x > 0));
}
RC_GTEST_PROP(round_half_up, NearestTiesUp, (Rat x)) {
  const Rat d = x - Rat(round_half_up(x));  // in [-1/2, 1/2)
  RC_ASSERT(Rat(-1, 2) <= d && d < Rat(1, 2));
}
RC_GTEST_PROP(round_half_down, NearestTiesDown, (Rat x)) {
  const Rat d = x - Rat(round_half_down(x));  // in (-1/2, 1/2]
  RC_ASSERT(Rat(-1, 2) < d && d <= Rat(1, 2));
}
RC_GTEST_PROP(round_half_away, NearestTiesAway, (Rat x)) {
  const Int n = round_half_away(x);
  const Rat d = x - Rat(n);
  RC_ASSERT(abs(d) <= Rat(1, 2));
  if (abs(d) == Rat(1, 2)) RC_ASSERT(abs(Rat(n)) > abs(x));
}
RC_GTEST_PROP(round_half_even, NearestTiesEven, (Rat x)) {
  const Int n = round_half_even(x);
  const Rat d = x - Rat(n);
  RC_ASSERT(abs(d) <= Rat(1, 2));
  if (abs(d) == Rat(1, 2)) RC_ASSERT(n % 2 == 0);
}
// The exact ties k + 1/2 are where conventions part; generate them directly.
RC_GTEST_PROP(round_half_even, TiesAlwaysEven, (std::int32_t k)) {
  const Rat x = Rat(k) + Rat(1, 2);
  RC_ASSERT(round_half_even(x) % 2 == 0);
  RC_ASSERT(round_half_up(x) == Int(k) + 1);
  RC_ASSERT(round_half_down(x) == Int(k));
  RC_ASSERT(round_half_away(x) == (k >= 0 ? Int(k) + 1 : Int(k)));
}
