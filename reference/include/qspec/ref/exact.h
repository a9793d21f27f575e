// Exact number types of the reference (arbitrary-precision integers and rationals) and tiny helpers.
//
// Int and Rat are thin value wrappers around Boost.Multiprecision's cpp_int and cpp_rational:
// every operation forwards to Boost (exact.cc), so the arithmetic is Boost's, unchanged. The
// wrapper exists for build time only: Boost's headers and expression templates are compiled
// once, in exact.cc, instead of in each of the ~150 translation units of the reference, the
// properties and the generators (which made every such file cost 15-30 s of compiler time).
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace qspec::ref {

class Rat;

// An integer of unbounded size (boost::multiprecision::cpp_int).
class Int {
 public:
  Int() noexcept;
  Int(const Int& o);
  Int(Int&& o) noexcept;
  Int& operator=(const Int& o);
  Int& operator=(Int&& o) noexcept;
  ~Int();

  template <std::signed_integral T>
  Int(T v) : Int(static_cast<long long>(v), Tag{}) {}
  template <std::unsigned_integral T>
    requires(!std::same_as<T, bool>)
  Int(T v) : Int(static_cast<unsigned long long>(v), Tag{}) {}
  // Decimal text, with an optional leading '-' (throws std::runtime_error on anything else).
  explicit Int(const std::string& decimal);
  explicit Int(const char* decimal) : Int(std::string(decimal)) {}

  // Conversion to a built-in integer, exactly as cpp_int's explicit conversion (which saturates
  // out-of-range values; callers range-check first). Defined for every standard integer type.
  template <std::integral T>
  explicit operator T() const { return convert<T>(); }
  explicit operator bool() const { return sign() != 0; }

  int sign() const;  // -1, 0 or 1
  std::string str() const;

  Int& operator+=(const Int& o);
  Int& operator-=(const Int& o);
  Int& operator*=(const Int& o);
  Int& operator/=(const Int& o);  // truncates toward zero, like C++
  Int& operator%=(const Int& o);  // sign of the dividend, like C++
  Int& operator&=(const Int& o);
  Int& operator|=(const Int& o);
  Int& operator^=(const Int& o);
  Int& operator<<=(unsigned long long s);
  Int& operator>>=(unsigned long long s);  // as cpp_int: see exact.cc
  Int& operator++() { return *this += Int(1); }
  Int& operator--() { return *this -= Int(1); }
  Int operator++(int) { Int t(*this); ++*this; return t; }
  Int operator--(int) { Int t(*this); --*this; return t; }
  Int operator-() const;
  Int operator+() const { return *this; }
  Int operator~() const;

  friend Int operator+(Int a, const Int& b) { return a += b; }
  friend Int operator-(Int a, const Int& b) { return a -= b; }
  friend Int operator*(Int a, const Int& b) { return a *= b; }
  friend Int operator/(Int a, const Int& b) { return a /= b; }
  friend Int operator%(Int a, const Int& b) { return a %= b; }
  friend Int operator&(Int a, const Int& b) { return a &= b; }
  friend Int operator|(Int a, const Int& b) { return a |= b; }
  friend Int operator^(Int a, const Int& b) { return a ^= b; }
  template <std::integral S>
  friend Int operator<<(Int a, S s) { return a <<= static_cast<unsigned long long>(s); }
  template <std::integral S>
  friend Int operator>>(Int a, S s) { return a >>= static_cast<unsigned long long>(s); }

  friend bool operator==(const Int& a, const Int& b) { return a.compare(b) == 0; }
  friend std::strong_ordering operator<=>(const Int& a, const Int& b) { return a.compare(b) <=> 0; }

  // Storage of the Boost value (exact.cc checks size and alignment).
  static constexpr std::size_t kSize = 32, kAlign = 16;

 private:
  friend class Rat;
  struct Tag {};
  Int(long long v, Tag);
  Int(unsigned long long v, Tag);
  template <std::integral T>
  T convert() const;
  int compare(const Int& o) const;
  alignas(kAlign) unsigned char storage_[kSize];
};

// A rational number of unbounded size (boost::multiprecision::cpp_rational), always in lowest
// terms with a positive denominator.
class Rat {
 public:
  Rat() noexcept;
  Rat(const Rat& o);
  Rat(Rat&& o) noexcept;
  Rat& operator=(const Rat& o);
  Rat& operator=(Rat&& o) noexcept;
  ~Rat();

  Rat(const Int& n);
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Rat(T v) : Rat(Int(v)) {}
  Rat(const Int& num, const Int& den);  // den != 0 (throws otherwise)

  int sign() const;  // -1, 0 or 1
  Int numerator() const;
  Int denominator() const;

  Rat& operator+=(const Rat& o);
  Rat& operator-=(const Rat& o);
  Rat& operator*=(const Rat& o);
  Rat& operator/=(const Rat& o);
  Rat operator-() const;
  Rat operator+() const { return *this; }

  friend Rat operator+(Rat a, const Rat& b) { return a += b; }
  friend Rat operator-(Rat a, const Rat& b) { return a -= b; }
  friend Rat operator*(Rat a, const Rat& b) { return a *= b; }
  friend Rat operator/(Rat a, const Rat& b) { return a /= b; }
  friend bool operator==(const Rat& a, const Rat& b) { return a.compare(b) == 0; }
  friend std::strong_ordering operator<=>(const Rat& a, const Rat& b) { return a.compare(b) <=> 0; }

  static constexpr std::size_t kSize = 64, kAlign = 16;

 private:
  int compare(const Rat& o) const;
  alignas(kAlign) unsigned char storage_[kSize];
};

// Mixed Int/Rat arithmetic and comparison happen in Q: an Int converts implicitly to a Rat (there
// are deliberately no mixed overloads, which would make `rat < 0` ambiguous).

std::ostream& operator<<(std::ostream& os, const Int& v);
std::ostream& operator<<(std::ostream& os, const Rat& v);  // "p/q", or "p" for an integer

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

[[noreturn]] inline void require_failed(const std::string& what) { throw RequireViolated("REQUIRE violated: " + what); }
[[noreturn]] inline void error_if_failed(const std::string& what) { throw ErrorIf("ERROR_IF: " + what); }
inline void require(bool cond, const std::string& what) {
  if (!cond) require_failed(what);
}
inline void error_if(bool cond, const std::string& what) {
  if (cond) error_if_failed(what);
}

}  // namespace qspec::ref

// The reference's own checks use these: the message (often a concatenation naming the clause and
// the values) is built only when the check fails. Built eagerly on every call, as the functions
// above must, it was a third of the time of the exhaustive tests (an allocation per check).
#define QSPEC_REQUIRE(cond, what) ((cond) ? void() : ::qspec::ref::require_failed(what))
#define QSPEC_ERROR_IF(cond, what) ((cond) ? ::qspec::ref::error_if_failed(what) : void())

namespace qspec::ref {

// 2^e for e >= 0, exactly.
inline Int pow2(unsigned e) { return Int(1) << e; }

// 2^e for any integer e, as a rational.
inline Rat pow2r(int e) {
  return e >= 0 ? Rat(pow2(static_cast<unsigned>(e))) : Rat(Int(1), pow2(static_cast<unsigned>(-e)));
}

inline Int numerator(const Rat& r) { return r.numerator(); }
inline Int denominator(const Rat& r) { return r.denominator(); }

// floor(a / b) for b != 0. Int's operator/ truncates toward zero, like C++'s.
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
