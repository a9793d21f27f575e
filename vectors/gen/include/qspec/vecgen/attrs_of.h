// Test attributes from (typed key, value) pairs: attrs_of(K::prec, 8, K::threshold, bits) writes
// {"prec": 8, "threshold": "0x..."} in that order, through qspec::attr::set (the key's domain is checked).
//
// The values are function arguments, whose evaluation order C++ leaves unspecified: pass values
// already computed, never draws from an Rng (they would land in a compiler-chosen order).
#pragma once

#include "qspec/core/attr.h"

namespace qspec::vecgen {

inline void set_each(Attrs&) {}
template <class Key, class Value, class... Rest>
void set_each(Attrs& attrs, const Key& key, const Value& value, const Rest&... rest) {
  attr::set(attrs, key, value);
  set_each(attrs, rest...);
}

template <class... KeyValues>
Attrs attrs_of(const KeyValues&... kv) {
  static_assert(sizeof...(kv) % 2 == 0, "attrs_of takes (key, value) pairs");
  Attrs attrs = Attrs::object();
  set_each(attrs, kv...);
  return attrs;
}

}  // namespace qspec::vecgen
