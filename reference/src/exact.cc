// Int and Rat forward every operation to Boost.Multiprecision's cpp_int / cpp_rational (exact.h says why).
#include "qspec/ref/exact.h"

#include <boost/multiprecision/cpp_int.hpp>
#include <new>
#include <ostream>
#include <utility>

namespace qspec::ref {
namespace {

using BInt = boost::multiprecision::cpp_int;
using BRat = boost::multiprecision::cpp_rational;

static_assert(sizeof(BInt) <= Int::kSize && alignof(BInt) <= Int::kAlign, "Int storage too small for cpp_int");
static_assert(sizeof(BRat) <= Rat::kSize && alignof(BRat) <= Rat::kAlign, "Rat storage too small for cpp_rational");

}  // namespace

// The Boost value living in a wrapper's storage (constructed by every constructor, destroyed by the
// destructor; a moved-from wrapper holds whatever valid value Boost leaves behind).
#define QSPEC_I(w) (*std::launder(reinterpret_cast<BInt*>((w).storage_)))
#define QSPEC_CI(w) (*std::launder(reinterpret_cast<const BInt*>((w).storage_)))
#define QSPEC_R(w) (*std::launder(reinterpret_cast<BRat*>((w).storage_)))
#define QSPEC_CR(w) (*std::launder(reinterpret_cast<const BRat*>((w).storage_)))

// ---- Int ----
Int::Int() noexcept { new (storage_) BInt(); }
Int::Int(const Int& o) { new (storage_) BInt(QSPEC_CI(o)); }
Int::Int(Int&& o) noexcept { new (storage_) BInt(std::move(QSPEC_I(o))); }
Int& Int::operator=(const Int& o) {
  QSPEC_I(*this) = QSPEC_CI(o);
  return *this;
}
Int& Int::operator=(Int&& o) noexcept {
  QSPEC_I(*this) = std::move(QSPEC_I(o));
  return *this;
}
Int::~Int() { QSPEC_I(*this).~BInt(); }
Int::Int(long long v, Tag) { new (storage_) BInt(v); }
Int::Int(unsigned long long v, Tag) { new (storage_) BInt(v); }
Int::Int(const std::string& decimal) {
  // Boost accepts more (hex, octal, leading '+'); the reference's text form is plain decimal.
  std::size_t i = (!decimal.empty() && decimal[0] == '-') ? 1 : 0;
  if (i == decimal.size()) throw std::runtime_error("not a decimal integer: \"" + decimal + "\"");
  for (std::size_t k = i; k < decimal.size(); ++k)
    if (decimal[k] < '0' || decimal[k] > '9') throw std::runtime_error("not a decimal integer: \"" + decimal + "\"");
  // Leading zeros would make Boost read octal: strip them.
  std::size_t first = i;
  while (first + 1 < decimal.size() && decimal[first] == '0') ++first;
  new (storage_) BInt(decimal.substr(first));
  if (i == 1) QSPEC_I(*this) = -QSPEC_I(*this);
}

template <std::integral T>
T Int::convert() const {
  return static_cast<T>(QSPEC_CI(*this));
}
template char Int::convert<char>() const;
template signed char Int::convert<signed char>() const;
template unsigned char Int::convert<unsigned char>() const;
template short Int::convert<short>() const;
template unsigned short Int::convert<unsigned short>() const;
template int Int::convert<int>() const;
template unsigned Int::convert<unsigned>() const;
template long Int::convert<long>() const;
template unsigned long Int::convert<unsigned long>() const;
template long long Int::convert<long long>() const;
template unsigned long long Int::convert<unsigned long long>() const;

int Int::sign() const { return QSPEC_CI(*this).sign(); }
std::string Int::str() const { return QSPEC_CI(*this).str(); }
int Int::compare(const Int& o) const { return QSPEC_CI(*this).compare(QSPEC_CI(o)); }

Int& Int::operator+=(const Int& o) {
  QSPEC_I(*this) += QSPEC_CI(o);
  return *this;
}
Int& Int::operator-=(const Int& o) {
  QSPEC_I(*this) -= QSPEC_CI(o);
  return *this;
}
Int& Int::operator*=(const Int& o) {
  QSPEC_I(*this) *= QSPEC_CI(o);
  return *this;
}
Int& Int::operator/=(const Int& o) {
  QSPEC_I(*this) /= QSPEC_CI(o);
  return *this;
}
Int& Int::operator%=(const Int& o) {
  QSPEC_I(*this) %= QSPEC_CI(o);
  return *this;
}
Int& Int::operator&=(const Int& o) {
  QSPEC_I(*this) &= QSPEC_CI(o);
  return *this;
}
Int& Int::operator|=(const Int& o) {
  QSPEC_I(*this) |= QSPEC_CI(o);
  return *this;
}
Int& Int::operator^=(const Int& o) {
  QSPEC_I(*this) ^= QSPEC_CI(o);
  return *this;
}
Int& Int::operator<<=(unsigned long long s) {
  QSPEC_I(*this) <<= s;
  return *this;
}
// cpp_int's right shift of a negative value rounds toward minus infinity (an arithmetic shift).
Int& Int::operator>>=(unsigned long long s) {
  QSPEC_I(*this) >>= s;
  return *this;
}
Int Int::operator-() const {
  Int r(*this);
  QSPEC_I(r) = -QSPEC_CI(*this);
  return r;
}
Int Int::operator~() const {
  Int r(*this);
  QSPEC_I(r) = ~QSPEC_CI(*this);
  return r;
}

// ---- Rat ----
Rat::Rat() noexcept { new (storage_) BRat(); }
Rat::Rat(const Rat& o) { new (storage_) BRat(QSPEC_CR(o)); }
Rat::Rat(Rat&& o) noexcept { new (storage_) BRat(std::move(QSPEC_R(o))); }
Rat& Rat::operator=(const Rat& o) {
  QSPEC_R(*this) = QSPEC_CR(o);
  return *this;
}
Rat& Rat::operator=(Rat&& o) noexcept {
  QSPEC_R(*this) = std::move(QSPEC_R(o));
  return *this;
}
Rat::~Rat() { QSPEC_R(*this).~BRat(); }
Rat::Rat(const Int& n) { new (storage_) BRat(QSPEC_CI(n)); }
Rat::Rat(const Int& num, const Int& den) { new (storage_) BRat(QSPEC_CI(num), QSPEC_CI(den)); }

int Rat::sign() const { return QSPEC_CR(*this).sign(); }
Int Rat::numerator() const {
  Int r;
  QSPEC_I(r) = boost::multiprecision::numerator(QSPEC_CR(*this));
  return r;
}
Int Rat::denominator() const {
  Int r;
  QSPEC_I(r) = boost::multiprecision::denominator(QSPEC_CR(*this));
  return r;
}
int Rat::compare(const Rat& o) const { return QSPEC_CR(*this).compare(QSPEC_CR(o)); }

Rat& Rat::operator+=(const Rat& o) {
  QSPEC_R(*this) += QSPEC_CR(o);
  return *this;
}
Rat& Rat::operator-=(const Rat& o) {
  QSPEC_R(*this) -= QSPEC_CR(o);
  return *this;
}
Rat& Rat::operator*=(const Rat& o) {
  QSPEC_R(*this) *= QSPEC_CR(o);
  return *this;
}
Rat& Rat::operator/=(const Rat& o) {
  QSPEC_R(*this) /= QSPEC_CR(o);
  return *this;
}
Rat Rat::operator-() const {
  Rat r(*this);
  QSPEC_R(r) = -QSPEC_CR(*this);
  return r;
}

std::ostream& operator<<(std::ostream& os, const Int& v) { return os << v.str(); }
std::ostream& operator<<(std::ostream& os, const Rat& v) { return os << to_string(v); }

}  // namespace qspec::ref
