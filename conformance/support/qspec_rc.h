// Shared RapidCheck generators and printers for exact types (cpp_int / cpp_rational).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <ostream>

#include "qspec/ref/exact.h"

namespace rc {
// RapidCheck prints counterexamples with Show; give it the exact text forms.
template <>
struct Arbitrary<qspec::ref::Rat> {
  // p/q with |p| < 2^40 and 1 <= q <= 2^20: covers ties (q = 2), small and large magnitudes.
  static Gen<qspec::ref::Rat> arbitrary() {
    return gen::map(gen::pair(gen::inRange<std::int64_t>(-(std::int64_t{1} << 40), std::int64_t{1} << 40),
                              gen::inRange<std::int64_t>(1, (std::int64_t{1} << 20) + 1)),
                    [](std::pair<std::int64_t, std::int64_t> pq) { return qspec::ref::Rat(pq.first, pq.second); });
  }
};
}  // namespace rc

namespace boost::multiprecision {
// Used by RapidCheck's counterexample output.
inline void showValue(const qspec::ref::Rat& r, std::ostream& os) { os << qspec::ref::to_string(r); }
inline void showValue(const qspec::ref::Int& i, std::ostream& os) { os << i.str(); }
}  // namespace boost::multiprecision
