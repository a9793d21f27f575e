// Exact number types of the reference (arbitrary-precision integers and rationals) and tiny helpers.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace qspec::ref {

using Int = boost::multiprecision::cpp_int;
using Rat = boost::multiprecision::cpp_rational;

// A precondition marked ERROR_IF in the spec was violated: a conforming implementation must
// reject the input. The message names the clause and the failed condition.
struct ErrorIf : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A precondition marked REQUIRE was violated: the behaviour is undefined, so the reference
// refuses to produce a value (vectors never go there). Seeing this is a bug in the caller.
struct RequireViolated : std::logic_error {
  using std::logic_error::logic_error;
};

inline void require(bool cond, const std::string& what) {
  if (!cond) throw RequireViolated("REQUIRE violated: " + what);
}
inline void error_if(bool cond, const std::string& what) {
  if (cond) throw ErrorIf("ERROR_IF: " + what);
}

// 2^e for e >= 0, exactly.
inline Int pow2(unsigned e) { return Int(1) << e; }

// 2^e for any integer e, as a rational.
inline Rat pow2r(int e) {
  return e >= 0 ? Rat(pow2(static_cast<unsigned>(e))) : Rat(Int(1), pow2(static_cast<unsigned>(-e)));
}

inline Int numerator(const Rat& r) { return boost::multiprecision::numerator(r); }
inline Int denominator(const Rat& r) { return boost::multiprecision::denominator(r); }

// floor(a / b) for b != 0. cpp_int's operator/ truncates toward zero, like C++'s.
inline Int floor_div(const Int& a, const Int& b) {
  Int q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

inline Int abs(const Int& a) { return a < 0 ? Int(-a) : a; }
inline Rat abs(const Rat& a) { return a < 0 ? Rat(-a) : a; }

// "p/q" or "p" (for integers), the exact text form used in vectors and diagnostics.
inline std::string to_string(const Rat& r) {
  if (denominator(r) == 1) return numerator(r).str();
  return numerator(r).str() + "/" + denominator(r).str();
}

}  // namespace qspec::ref
