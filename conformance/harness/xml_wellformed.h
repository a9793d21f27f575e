// A small checker of XML 1.0 well-formedness for the JUnit report tests: UTF-8, allowed
// characters, the declaration, balanced and properly nested elements, quoted attributes,
// character and entity references. Enough for the documents qspec writes (no DTD, no CDATA,
// no processing instructions but the declaration); it says where the first defect is.
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qspec/harness/text_safety.h"

namespace qspec::harness_test {

// nullopt when `doc` is well-formed, else "byte N: what is wrong".
inline std::optional<std::string> xml_defect(const std::string& doc) {
  std::size_t i = 0;
  const auto fail = [&](const std::string& what) {
    return std::optional<std::string>("byte " + std::to_string(i) + ": " + what);
  };
  // Every character: well-formed UTF-8 and an XML 1.0 Char.
  for (std::size_t k = 0; k < doc.size();) {
    const std::size_t len = harness::utf8_sequence_length(doc, k);
    if (len == 0) return "byte " + std::to_string(k) + ": ill-formed UTF-8";
    const auto c = static_cast<unsigned char>(doc[k]);
    if (len == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r')
      return "byte " + std::to_string(k) + ": control character not allowed in XML";
    if (len == 3 && doc.compare(k, 3, "\xef\xbf\xbe") == 0) return "byte " + std::to_string(k) + ": U+FFFE";
    if (len == 3 && doc.compare(k, 3, "\xef\xbf\xbf") == 0) return "byte " + std::to_string(k) + ": U+FFFF";
    k += len;
  }
  const auto is_name = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.' || ch == ':';
  };
  const auto name = [&]() {
    const std::size_t start = i;
    while (i < doc.size() && is_name(doc[i])) ++i;
    return doc.substr(start, i - start);
  };
  const auto space = [&] {
    while (i < doc.size() && (doc[i] == ' ' || doc[i] == '\n' || doc[i] == '\t' || doc[i] == '\r')) ++i;
  };
  // A reference after '&': a predefined entity or a character reference.
  const auto reference = [&]() -> bool {
    const auto semi = doc.find(';', i);
    if (semi == std::string::npos) return false;
    const std::string ref = doc.substr(i + 1, semi - i - 1);
    const bool ok = ref == "amp" || ref == "lt" || ref == "gt" || ref == "quot" || ref == "apos" ||
                    (ref.size() > 1 && ref[0] == '#' &&
                     ref.find_first_not_of(ref[1] == 'x' ? "0123456789abcdefABCDEF" : "0123456789",
                                           ref[1] == 'x' ? 2 : 1) == std::string::npos);
    i = semi + 1;
    return ok;
  };
  if (doc.rfind("<?xml ", 0) == 0) {
    const auto end = doc.find("?>");
    if (end == std::string::npos) return fail("unterminated XML declaration");
    i = end + 2;
  }
  std::vector<std::string> open;
  bool root_seen = false;
  while (true) {
    // Character data up to the next '<'.
    while (i < doc.size() && doc[i] != '<') {
      if (doc[i] == '&') {
        if (!reference()) return fail("bad reference in text");
        continue;
      }
      if (doc[i] == '>' && i >= 2 && doc.compare(i - 2, 2, "]]") == 0) return fail("]]> in text");
      if (open.empty() && !std::isspace(static_cast<unsigned char>(doc[i])))
        return fail("text outside the root element");
      ++i;
    }
    if (i >= doc.size()) break;
    ++i;  // '<'
    if (i < doc.size() && doc[i] == '/') {
      ++i;
      const std::string n = name();
      space();
      if (i >= doc.size() || doc[i] != '>') return fail("bad end tag");
      ++i;
      if (open.empty() || open.back() != n)
        return fail("end tag </" + n + "> does not close <" + (open.empty() ? "" : open.back()) + ">");
      open.pop_back();
      continue;
    }
    const std::string n = name();
    if (n.empty()) return fail("bad start tag");
    if (open.empty() && root_seen) return fail("a second root element");
    root_seen = true;
    std::vector<std::string> attrs;
    while (true) {
      space();
      if (i >= doc.size()) return fail("unterminated start tag");
      if (doc[i] == '>' || doc.compare(i, 2, "/>") == 0) break;
      const std::string a = name();
      if (a.empty()) return fail("bad attribute name in <" + n + ">");
      for (const auto& seen : attrs)
        if (seen == a) return fail("attribute " + a + " twice in <" + n + ">");
      attrs.push_back(a);
      space();
      if (i >= doc.size() || doc[i] != '=') return fail("attribute " + a + " without a value");
      ++i;
      space();
      if (i >= doc.size() || (doc[i] != '"' && doc[i] != '\'')) return fail("unquoted attribute " + a);
      const char q = doc[i++];
      while (i < doc.size() && doc[i] != q) {
        if (doc[i] == '<') return fail("'<' in attribute " + a);
        if (doc[i] == '&') {
          if (!reference()) return fail("bad reference in attribute " + a);
          continue;
        }
        ++i;
      }
      if (i >= doc.size()) return fail("unterminated attribute " + a);
      ++i;
    }
    if (doc[i] == '/') {
      i += 2;
    } else {
      ++i;
      open.push_back(n);
    }
  }
  if (!open.empty()) return fail("<" + open.back() + "> is not closed");
  if (!root_seen) return fail("no root element");
  return std::nullopt;
}

}  // namespace qspec::harness_test
