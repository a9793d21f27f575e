// The canonical byte form of a vector file: what `qspec vectors regen` writes and `check` compares.
//
// Layout (docs/vector-format.md): header fields one per line, one note per line, one test group
// opening per line, one test per line, compact JSON inside a line, keys in insertion order
// (nlohmann::ordered_json), "\n" line ends and a final newline. Only integers and strings may
// appear as JSON values (floats are hex strings), so the bytes do not depend on the machine.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace qspec::harness {

// Throws std::invalid_argument if the document holds a JSON floating-point number or invalid UTF-8.
std::string serialize_vector_document(const nlohmann::ordered_json& doc);

struct LineDifference {
  std::size_t line = 0;    // 1-based
  std::size_t column = 0;  // 1-based byte column of the first differing character
  std::string expected;    // the line in `expected` ("<end of file>" past its end); long lines are
  std::string actual;      // cut to a window around `column`, marked with "..."
};
// The first line at which the two texts differ; nullopt if they are identical.
std::optional<LineDifference> first_line_difference(const std::string& expected, const std::string& actual);

}  // namespace qspec::harness
