// Exact rounding of rationals to integers, one function per named convention.
#include "qspec/ref/rounding.h"

namespace qspec::ref {

// spec: round.floor
Int round_floor(const Rat& x) { return floor_div(numerator(x), denominator(x)); }

// spec: round.ceil
// ceil(x) = -floor(-x).
Int round_ceil(const Rat& x) { return -round_floor(-x); }

// spec: round.trunc
Int round_trunc(const Rat& x) { return x < 0 ? round_ceil(x) : round_floor(x); }

// spec: round.half_up
// Ties toward +infinity: floor(x + 1/2).
Int round_half_up(const Rat& x) { return round_floor(x + Rat(1, 2)); }

// spec: round.half_down
// Ties toward -infinity: ceil(x - 1/2).
Int round_half_down(const Rat& x) { return round_ceil(x - Rat(1, 2)); }

// spec: round.half_away
// Ties away from zero: sign(x) * floor(|x| + 1/2).
Int round_half_away(const Rat& x) { return x < 0 ? Int(-round_half_up(-x)) : round_half_up(x); }

// spec: round.half_even
// Nearest integer; on a tie (fractional part exactly 1/2) the even neighbour.
Int round_half_even(const Rat& x) {
  const Int f = round_floor(x);
  const Rat frac = x - Rat(f);
  if (frac < Rat(1, 2)) return f;
  if (frac > Rat(1, 2)) return f + 1;
  return (f % 2 == 0) ? f : Int(f + 1);
}

Int round(const Rat& x, Rounding mode) {
  switch (mode) {
    case Rounding::Floor: return round_floor(x);
    case Rounding::Ceil: return round_ceil(x);
    case Rounding::Trunc: return round_trunc(x);
    case Rounding::HalfUp: return round_half_up(x);
    case Rounding::HalfDown: return round_half_down(x);
    case Rounding::HalfAway: return round_half_away(x);
    case Rounding::HalfEven: return round_half_even(x);
  }
  throw RequireViolated("unknown rounding mode");
}

std::string_view clause_id(Rounding mode) {
  switch (mode) {
    case Rounding::Floor: return "round.floor";
    case Rounding::Ceil: return "round.ceil";
    case Rounding::Trunc: return "round.trunc";
    case Rounding::HalfUp: return "round.half_up";
    case Rounding::HalfDown: return "round.half_down";
    case Rounding::HalfAway: return "round.half_away";
    case Rounding::HalfEven: return "round.half_even";
  }
  return "?";
}

std::string_view display_name(Rounding mode) {
  switch (mode) {
    case Rounding::Floor: return "floor";
    case Rounding::Ceil: return "ceil";
    case Rounding::Trunc: return "truncate";
    case Rounding::HalfUp: return "half-up";
    case Rounding::HalfDown: return "half-down";
    case Rounding::HalfAway: return "half-away-from-zero";
    case Rounding::HalfEven: return "half-to-even";
  }
  return "?";
}

}  // namespace qspec::ref
