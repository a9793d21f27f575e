// Exact JSON encodings of values in vectors: big integers as decimal strings, floats as hex bits.
//
//   integer  |v| <= 2^53      -> JSON number          42
//   integer  |v| >  2^53      -> decimal string       "-9223372036854775808"
//   float32                   -> "0x" + 8 hex digits   "0x3f800000"   (IEEE bit pattern)
//   float64                   -> "0x" + 16 hex digits  "0x3ff0000000000000"
//   rational                  -> "p/q" string          "-3/8"  (decoded by the reference side)
//   tensor                    -> {"dtype": "int8", "shape": [2, 3], "data": [..6 values..]}
//
// Readers accept exactly these forms and throw JsonValueError naming what is wrong.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "qspec/core/tensor.h"

namespace qspec {

struct JsonValueError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

nlohmann::ordered_json int_to_json(std::int64_t v);
nlohmann::ordered_json f32_to_json(std::uint32_t bits);
nlohmann::ordered_json f64_to_json(std::uint64_t bits);
// One tensor element in the encoding of its dtype.
nlohmann::ordered_json element_to_json(DType t, std::int64_t stored);
nlohmann::ordered_json tensor_to_json(const Tensor& t);  // without the name

std::int64_t json_to_int(const nlohmann::ordered_json& j);   // number or decimal string
std::uint32_t json_to_f32(const nlohmann::ordered_json& j);  // "0x" + 8 hex digits
std::uint64_t json_to_f64(const nlohmann::ordered_json& j);  // "0x" + 16 hex digits
std::int64_t json_to_element(DType t, const nlohmann::ordered_json& j);  // range-checked
// Reads a tensor; checks dtype name, shape (non-negative, at most max_elements elements), data
// length == product of shape, and every element in its dtype's range.
Tensor json_to_tensor(const std::string& name, const nlohmann::ordered_json& j,
                      std::int64_t max_elements = std::int64_t{1} << 26);

// Attribute accessors for reference ops and backends: throw JsonValueError("missing attribute
// 'x'") / ("attribute 'x': ...") so diagnostics can tell "does not apply" from a real error.
std::int64_t attr_int(const nlohmann::ordered_json& attrs, const char* key);
std::uint32_t attr_f32(const nlohmann::ordered_json& attrs, const char* key);
std::uint64_t attr_f64(const nlohmann::ordered_json& attrs, const char* key);
std::string attr_str(const nlohmann::ordered_json& attrs, const char* key);
bool has_attr(const nlohmann::ordered_json& attrs, const char* key);

}  // namespace qspec
