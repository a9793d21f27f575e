// A streaming pass over a vector file's text that rejects what must never reach the JSON DOM.
//
// The loader runs it instead of a plain parse and has it build the document in the same pass
// (each SAX event reaches the DOM only after its checks), so a hostile file costs no more than
// the limits of vector_limits.h: it checks the JSON syntax (line, column and byte offset of the
// first error), UTF-8 (the offset of the first bad byte), nesting depth, string length, the
// number of values, duplicate object keys (the DOM would silently keep the last one) and
// floating-point numbers (the format has none). It keeps only a stack of at most kMaxJsonDepth
// frames and the keys of the open objects, and it never recurses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace qspec::harness {

struct JsonPrecheckError {
  std::string json_path;              // JSON Pointer of the innermost value being read ("" : the document)
  std::optional<std::int64_t> tc_id;  // the enclosing test's tcId, when it was read before the defect
  std::string problem;                // one line; names the line/column/byte offset for syntax errors
};

// Returns the first defect of `text`, or nullopt if it is acceptable JSON within the limits; then
// *dom (if given) holds the document (after a defect, an unspecified part of it).
std::optional<JsonPrecheckError> precheck_json(std::string_view text, nlohmann::ordered_json* dom = nullptr);

// Byte offset at which the first ill-formed UTF-8 sequence of `text` begins (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence), or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// 1-based line and column (in bytes) of byte offset `byte` of `text`.
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t byte);

// Escapes a key as one JSON Pointer token (RFC 6901: ~ -> ~0, / -> ~1); a key longer than 64 bytes
// is abbreviated so that an error message stays one readable line.
std::string json_pointer_token(std::string_view key);

}  // namespace qspec::harness
