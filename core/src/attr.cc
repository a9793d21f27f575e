// The typed attribute reader and writer (qspec/core/attr.h): one place for attribute errors.
#include "qspec/core/attr.h"

#include <algorithm>
#include <stdexcept>

#include "qspec/core/json_values.h"

namespace qspec {

Attrs merge_attributes(const Attrs& group, const Attrs& test) {
  Attrs merged = group.is_object() ? group : Attrs::object();
  if (test.is_object())
    for (const auto& [k, v] : test.items()) merged[k] = v;
  return merged;
}

namespace attr {
namespace {

const Attrs& value(const Attrs& attrs, std::string_view name) {
  if (!attrs.is_object()) throw JsonValueError("attributes must be an object");
  const auto it = attrs.find(std::string(name));
  if (it == attrs.end()) throw JsonValueError("missing attribute '" + std::string(name) + "'");
  return *it;
}

[[noreturn]] void fail(std::string_view name, const std::string& what) {
  throw JsonValueError("attribute '" + std::string(name) + "': " + what);
}

// Runs f, prefixing any JsonValueError from the encodings with the attribute's name.
template <class F>
auto in_context(std::string_view name, F f) {
  try {
    return f();
  } catch (const JsonValueError& e) {
    fail(name, e.what());
  }
}

std::int64_t in_range(std::string_view name, std::int64_t v, std::int64_t lo, std::int64_t hi, const char* where = "") {
  if (v < lo || v > hi)
    fail(name, std::string(where) + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "]");
  return v;
}

const Attrs& array_value(const Attrs& attrs, std::string_view name) {
  const Attrs& j = value(attrs, name);
  if (!j.is_array()) fail(name, std::string("expected an array, got ") + j.type_name());
  return j;
}

std::string element(std::size_t i) { return "[" + std::to_string(i) + "] "; }

}  // namespace

std::int64_t get(const Attrs& attrs, const Int& key) {
  const std::int64_t v = in_context(key.name, [&] { return json_to_int(value(attrs, key.name)); });
  return in_range(key.name, v, key.min, key.max);
}

std::vector<std::int64_t> get(const Attrs& attrs, const IntArray& key) {
  const Attrs& j = array_value(attrs, key.name);
  std::vector<std::int64_t> v;
  v.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::int64_t e = in_context(key.name, [&] { return json_to_int(j[i]); });
    v.push_back(in_range(key.name, e, key.min, key.max, element(i).c_str()));
  }
  return v;
}

std::vector<std::optional<std::int64_t>> get(const Attrs& attrs, const OptIntArray& key) {
  const Attrs& j = array_value(attrs, key.name);
  std::vector<std::optional<std::int64_t>> v;
  v.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (j[i].is_null()) {
      v.emplace_back();
      continue;
    }
    const std::int64_t e = in_context(key.name, [&] { return json_to_int(j[i]); });
    v.emplace_back(in_range(key.name, e, key.min, key.max, element(i).c_str()));
  }
  return v;
}

std::uint32_t get(const Attrs& attrs, const F32& key) {
  return in_context(key.name, [&] { return json_to_f32(value(attrs, key.name)); });
}

std::vector<std::uint32_t> get(const Attrs& attrs, const F32Array& key) {
  const Attrs& j = array_value(attrs, key.name);
  std::vector<std::uint32_t> v;
  v.reserve(j.size());
  for (const auto& e : j) v.push_back(in_context(key.name, [&] { return json_to_f32(e); }));
  return v;
}

std::uint64_t get(const Attrs& attrs, const F64& key) {
  return in_context(key.name, [&] { return json_to_f64(value(attrs, key.name)); });
}

DType get(const Attrs& attrs, const DTypeKey& key) {
  const Attrs& j = value(attrs, key.name);
  if (!j.is_string()) fail(key.name, "expected a dtype name");
  const std::string s = j.get<std::string>();
  const auto t = dtype_from_name(s);
  if (!t || std::find(key.allowed.begin(), key.allowed.end(), *t) == key.allowed.end()) {
    std::string names;
    for (DType a : key.allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(a));
    fail(key.name, "expected one of " + names + ", got \"" + s + "\"");
  }
  return *t;
}

std::string_view get(const Attrs& attrs, const Enum& key) {
  const Attrs& j = value(attrs, key.name);
  if (!j.is_string()) fail(key.name, "expected a string");
  const std::string s = j.get<std::string>();
  for (std::string_view v : key.values)
    if (v == s) return v;
  std::string names;
  for (std::string_view v : key.values) names += (names.empty() ? "" : ", ") + std::string(v);
  fail(key.name, "expected one of " + names + ", got \"" + s + "\"");
}

bool get(const Attrs& attrs, const Bool& key) {
  const Attrs& j = value(attrs, key.name);
  if (!j.is_boolean()) fail(key.name, "expected true or false");
  return j.get<bool>();
}

namespace {
void check(bool ok, std::string_view name) {
  if (!ok) throw std::logic_error("attribute '" + std::string(name) + "': value outside the catalogue's domain");
}
}  // namespace

void set(Attrs& attrs, const Int& key, std::int64_t v) {
  check(v >= key.min && v <= key.max, key.name);
  attrs[std::string(key.name)] = int_to_json(v);
}

void set(Attrs& attrs, const IntArray& key, const std::vector<std::int64_t>& v) {
  auto a = nlohmann::ordered_json::array();
  for (std::int64_t e : v) {
    check(e >= key.min && e <= key.max, key.name);
    a.push_back(int_to_json(e));
  }
  attrs[std::string(key.name)] = std::move(a);
}

void set(Attrs& attrs, const OptIntArray& key, const std::vector<std::optional<std::int64_t>>& v) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& e : v) {
    if (!e) {
      a.push_back(nullptr);
      continue;
    }
    check(*e >= key.min && *e <= key.max, key.name);
    a.push_back(int_to_json(*e));
  }
  attrs[std::string(key.name)] = std::move(a);
}

void set(Attrs& attrs, const F32& key, std::uint32_t bits) { attrs[std::string(key.name)] = f32_to_json(bits); }

void set(Attrs& attrs, const F32Array& key, const std::vector<std::uint32_t>& bits) {
  auto a = nlohmann::ordered_json::array();
  for (std::uint32_t b : bits) a.push_back(f32_to_json(b));
  attrs[std::string(key.name)] = std::move(a);
}

void set(Attrs& attrs, const F64& key, std::uint64_t bits) { attrs[std::string(key.name)] = f64_to_json(bits); }

void set(Attrs& attrs, const DTypeKey& key, DType t) {
  check(std::find(key.allowed.begin(), key.allowed.end(), t) != key.allowed.end(), key.name);
  attrs[std::string(key.name)] = std::string(dtype_name(t));
}

void set(Attrs& attrs, const Enum& key, std::string_view v) {
  check(std::find(key.values.begin(), key.values.end(), v) != key.values.end(), key.name);
  attrs[std::string(key.name)] = std::string(v);
}

void set(Attrs& attrs, const Bool& key, bool v) { attrs[std::string(key.name)] = v; }

}  // namespace attr
}  // namespace qspec
