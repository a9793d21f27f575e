// Encoders/decoders for the exact JSON value forms of vectors (see json_values.h).
#include "qspec/core/json_values.h"

#include <cinttypes>
#include <cstdio>
#include <limits>

namespace qspec {
namespace {
constexpr std::int64_t kMaxExactDouble = std::int64_t{1} << 53;

std::uint64_t parse_hex_bits(const nlohmann::ordered_json& j, std::size_t digits, const char* what) {
  if (!j.is_string()) throw JsonValueError(std::string(what) + ": expected a hex bit-pattern string");
  const std::string s = j.get<std::string>();
  if (s.size() != digits + 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
    throw JsonValueError(std::string(what) + ": expected \"0x\" and " + std::to_string(digits) + " hex digits, got \"" +
                         s + "\"");
  std::uint64_t v = 0;
  for (std::size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      throw JsonValueError(std::string(what) + ": bad hex digit in \"" + s + "\"");
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return v;
}
}  // namespace

nlohmann::ordered_json int_to_json(std::int64_t v) {
  if (v >= -kMaxExactDouble && v <= kMaxExactDouble) return v;
  return std::to_string(v);
}

nlohmann::ordered_json f32_to_json(std::uint32_t bits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08" PRIx32, bits);
  return std::string(buf);
}

nlohmann::ordered_json f64_to_json(std::uint64_t bits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, bits);
  return std::string(buf);
}

nlohmann::ordered_json element_to_json(DType t, std::int64_t stored) {
  if (t == DType::F32) return f32_to_json(static_cast<std::uint32_t>(stored));
  if (t == DType::F64) return f64_to_json(static_cast<std::uint64_t>(stored));
  return int_to_json(stored);
}

nlohmann::ordered_json tensor_to_json(const Tensor& t) {
  nlohmann::ordered_json j;
  j["dtype"] = std::string(dtype_name(t.dtype));
  j["shape"] = t.shape;
  auto data = nlohmann::ordered_json::array();
  for (auto v : t.data) data.push_back(element_to_json(t.dtype, v));
  j["data"] = std::move(data);
  return j;
}

std::int64_t json_to_int(const nlohmann::ordered_json& j) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw JsonValueError("integer " + std::to_string(u) + " exceeds int64");
    return static_cast<std::int64_t>(u);
  }
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    std::size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
    if (i == s.size()) throw JsonValueError("expected a decimal integer string, got \"" + s + "\"");
    for (std::size_t k = i; k < s.size(); ++k)
      if (s[k] < '0' || s[k] > '9') throw JsonValueError("expected a decimal integer string, got \"" + s + "\"");
    try {
      return std::stoll(s);
    } catch (const std::out_of_range&) {
      throw JsonValueError("integer \"" + s + "\" exceeds int64");
    }
  }
  throw JsonValueError(std::string("expected an integer, got ") + j.type_name());
}

std::uint32_t json_to_f32(const nlohmann::ordered_json& j) {
  return static_cast<std::uint32_t>(parse_hex_bits(j, 8, "float32"));
}

std::uint64_t json_to_f64(const nlohmann::ordered_json& j) { return parse_hex_bits(j, 16, "float64"); }

std::int64_t json_to_element(DType t, const nlohmann::ordered_json& j) {
  if (t == DType::F32) return static_cast<std::int64_t>(json_to_f32(j));
  if (t == DType::F64) return static_cast<std::int64_t>(json_to_f64(j));
  const std::int64_t v = json_to_int(j);
  if (v < dtype_min(t) || v > dtype_max(t))
    throw JsonValueError("value " + std::to_string(v) + " is outside the range of " + std::string(dtype_name(t)));
  return v;
}

Tensor json_to_tensor(const std::string& name, const nlohmann::ordered_json& j, std::int64_t max_elements) {
  if (!j.is_object()) throw JsonValueError("tensor '" + name + "': expected an object");
  for (const char* k : {"dtype", "shape", "data"})
    if (!j.contains(k)) throw JsonValueError("tensor '" + name + "': missing field '" + k + "'");
  Tensor t;
  t.name = name;
  if (!j["dtype"].is_string()) throw JsonValueError("tensor '" + name + "': field 'dtype' must be a string");
  auto dt = dtype_from_name(j["dtype"].get<std::string>());
  if (!dt) throw JsonValueError("tensor '" + name + "': unknown dtype \"" + j["dtype"].get<std::string>() + "\"");
  t.dtype = *dt;
  if (!j["shape"].is_array()) throw JsonValueError("tensor '" + name + "': field 'shape' must be an array");
  std::int64_t n = 1;
  for (const auto& d : j["shape"]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0)
      throw JsonValueError("tensor '" + name + "': shape entries must be non-negative integers");
    const std::int64_t dim = d.get<std::int64_t>();
    if (dim != 0 && n > max_elements / dim)
      throw JsonValueError("tensor '" + name + "': shape has more than " + std::to_string(max_elements) +
                           " elements (limit)");
    n *= dim;
    t.shape.push_back(dim);
  }
  if (!j["data"].is_array()) throw JsonValueError("tensor '" + name + "': field 'data' must be an array");
  if (static_cast<std::int64_t>(j["data"].size()) != n)
    throw JsonValueError("tensor '" + name + "': data has " + std::to_string(j["data"].size()) +
                         " elements but shape implies " + std::to_string(n));
  t.data.reserve(static_cast<std::size_t>(n));
  std::size_t i = 0;
  for (const auto& v : j["data"]) {
    try {
      t.data.push_back(json_to_element(t.dtype, v));
    } catch (const JsonValueError& e) {
      throw JsonValueError("tensor '" + name + "': data[" + std::to_string(i) + "]: " + e.what());
    }
    ++i;
  }
  return t;
}

bool has_attr(const nlohmann::ordered_json& attrs, const char* key) { return attrs.is_object() && attrs.contains(key); }

namespace {
const nlohmann::ordered_json& get_attr(const nlohmann::ordered_json& attrs, const char* key) {
  if (!has_attr(attrs, key)) throw JsonValueError(std::string("missing attribute '") + key + "'");
  return attrs[key];
}
template <class F>
auto with_attr_context(const char* key, F f) {
  try {
    return f();
  } catch (const JsonValueError& e) {
    throw JsonValueError(std::string("attribute '") + key + "': " + e.what());
  }
}
}  // namespace

std::int64_t attr_int(const nlohmann::ordered_json& a, const char* key) {
  const auto& j = get_attr(a, key);
  return with_attr_context(key, [&] { return json_to_int(j); });
}
std::uint32_t attr_f32(const nlohmann::ordered_json& a, const char* key) {
  const auto& j = get_attr(a, key);
  return with_attr_context(key, [&] { return json_to_f32(j); });
}
std::uint64_t attr_f64(const nlohmann::ordered_json& a, const char* key) {
  const auto& j = get_attr(a, key);
  return with_attr_context(key, [&] { return json_to_f64(j); });
}
std::string attr_str(const nlohmann::ordered_json& a, const char* key) {
  const auto& j = get_attr(a, key);
  if (!j.is_string()) throw JsonValueError(std::string("attribute '") + key + "': expected a string");
  return j.get<std::string>();
}

}  // namespace qspec
