// The named rounding functions on exact rationals (spec/primitives.md, clauses round.*).
#pragma once

#include <array>
#include <string_view>

#include "qspec/ref/exact.h"

namespace qspec::ref {

// Every rounding convention qspec names. Nothing in the reference says just "round".
enum class Rounding { Floor, Ceil, Trunc, HalfUp, HalfDown, HalfAway, HalfEven };

inline constexpr std::array<Rounding, 7> kAllRoundings = {Rounding::Floor,   Rounding::Ceil,     Rounding::Trunc,
                                                          Rounding::HalfUp,  Rounding::HalfDown, Rounding::HalfAway,
                                                          Rounding::HalfEven};

// spec: round.floor
Int round_floor(const Rat& x);
// spec: round.ceil
Int round_ceil(const Rat& x);
// spec: round.trunc
Int round_trunc(const Rat& x);
// spec: round.half_up
Int round_half_up(const Rat& x);
// spec: round.half_down
Int round_half_down(const Rat& x);
// spec: round.half_away
Int round_half_away(const Rat& x);
// spec: round.half_even
Int round_half_even(const Rat& x);

Int round(const Rat& x, Rounding mode);

// The clause ID ("round.half_even") and a human name ("half-to-even") of a mode.
std::string_view clause_id(Rounding mode);
std::string_view display_name(Rounding mode);

}  // namespace qspec::ref
