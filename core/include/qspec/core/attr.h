// Typed attribute keys and the one reader of test attributes: every in-tree read of an attribute
// goes through a key generated from the catalogue (qspec/catalogue/keys.h), never a string literal.
//
// A key carries the attribute's name and the domain the catalogue gives it (spec/catalogue/*.json):
// an integer range, the allowed dtypes, the enum values. get() returns the value or throws
// JsonValueError naming the attribute ("missing attribute 'shift'", "attribute 'shift': 40 is
// outside [-1024, 1024]"); reference ops rely on that exception to mean "this convention does not
// apply to these attributes" (qspec/refops.h), backends turn it into an ERROR or UNSUPPORTED.
// set() writes a value in the vector encoding (qspec/core/json_values.h) for the generators.
//
// The rule "a test's attributes override its group's" lives here too (merge_attributes).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/core/tensor.h"

namespace qspec {

using Attrs = nlohmann::ordered_json;

// The group's attributes with the test's merged over them (docs/vector-format.md "testGroups").
Attrs merge_attributes(const Attrs& group, const Attrs& test);

namespace attr {

// An integer (JSON number, or decimal string beyond 2^53) in [min, max].
struct Int {
  std::string_view name;
  std::int64_t min, max;
};
// An array of integers, each in [min, max].
struct IntArray {
  std::string_view name;
  std::int64_t min, max;
};
// An array whose elements are integers in [min, max] or null ("not given", e.g. slice bounds).
struct OptIntArray {
  std::string_view name;
  std::int64_t min, max;
};
// A float32 as its IEEE bit pattern ("0x3f800000"), an array of them, a float64 ("0x" + 16 digits).
struct F32 {
  std::string_view name;
};
struct F32Array {
  std::string_view name;
};
struct F64 {
  std::string_view name;
};
// A dtype name from `allowed`.
struct DTypeKey {
  std::string_view name;
  std::span<const DType> allowed;
};
// A string from `values`.
struct Enum {
  std::string_view name;
  std::span<const std::string_view> values;
};
struct Bool {
  std::string_view name;
};

template <class Key>
bool has(const Attrs& attrs, const Key& key) {
  return attrs.is_object() && attrs.contains(key.name);
}

std::int64_t get(const Attrs& attrs, const Int& key);
std::vector<std::int64_t> get(const Attrs& attrs, const IntArray& key);
std::vector<std::optional<std::int64_t>> get(const Attrs& attrs, const OptIntArray& key);
std::uint32_t get(const Attrs& attrs, const F32& key);
std::vector<std::uint32_t> get(const Attrs& attrs, const F32Array& key);
std::uint64_t get(const Attrs& attrs, const F64& key);
DType get(const Attrs& attrs, const DTypeKey& key);
std::string_view get(const Attrs& attrs, const Enum& key);  // one of key.values
bool get(const Attrs& attrs, const Bool& key);

// The value if the attribute is present (and valid), else `fallback`.
template <class Key, class T>
auto get_or(const Attrs& attrs, const Key& key, T fallback) -> decltype(get(attrs, key)) {
  if (!has(attrs, key)) return fallback;
  return get(attrs, key);
}

// Writers for the generators: the vector encoding of the value. A value outside the key's domain
// is a generator bug (std::logic_error), except where a generator deliberately writes an invalid
// value for an ERROR_IF test: set_unchecked.
void set(Attrs& attrs, const Int& key, std::int64_t v);
void set(Attrs& attrs, const IntArray& key, const std::vector<std::int64_t>& v);
void set(Attrs& attrs, const OptIntArray& key, const std::vector<std::optional<std::int64_t>>& v);  // nullopt -> null
void set(Attrs& attrs, const F32& key, std::uint32_t bits);
void set(Attrs& attrs, const F32Array& key, const std::vector<std::uint32_t>& bits);
void set(Attrs& attrs, const F64& key, std::uint64_t bits);
void set(Attrs& attrs, const DTypeKey& key, DType t);
void set(Attrs& attrs, const Enum& key, std::string_view v);
void set(Attrs& attrs, const Bool& key, bool v);
template <class Key>
void set_unchecked(Attrs& attrs, const Key& key, nlohmann::ordered_json v) {
  attrs[std::string(key.name)] = std::move(v);
}

}  // namespace attr
}  // namespace qspec
