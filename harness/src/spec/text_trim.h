// Trimming a line of Markdown or source text (shared by the clause scan and the seed inventory).
#pragma once

#include <string>

namespace qspec::spec {

// `s` without leading and trailing blanks, tabs and carriage returns (a CRLF file's '\r').
inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace qspec::spec
