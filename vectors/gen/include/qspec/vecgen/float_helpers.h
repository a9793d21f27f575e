// Helpers the vector generators share: float32 bit patterns, random float32 scales, flag lists.
#pragma once

#include <bit>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/rounding.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen {

// The bit pattern of a float32 constant (the compiler rounds the literal correctly).
inline std::uint32_t f32(float f) { return std::bit_cast<std::uint32_t>(f); }

// True when v = k + 1/2 for an integer k: a tie of every round-to-nearest.
inline bool is_half_integer(const ref::Rat& v) { return v - ref::Rat(ref::round_floor(v)) == ref::Rat(1, 2); }

// v without repeats, each kept at its first place.
inline std::vector<std::string> dedup(std::vector<std::string> v) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& s : v)
    if (seen.insert(s).second) out.push_back(std::move(s));
  return out;
}

// A positive normal float32 scale 2^e (1 + m / 2^23), e uniform in [emin, emax]; m uniform, or
// (on the other half of the draws) one of 8 short mantissas, whose products are often exact.
inline std::uint32_t random_scale(Rng& rng, int emin, int emax) {
  const auto e = rng.uniform(emin, emax);
  const std::uint32_t m = rng.coin() ? static_cast<std::uint32_t>(rng.uniform(0, (1 << 23) - 1))
                                     : static_cast<std::uint32_t>(rng.uniform(0, 7)) << 20;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

}  // namespace qspec::vecgen
