// Canonical, machine-independent serialization of vector documents and line-level comparison.
#include "qspec/harness/vector_serialize.h"

#include <stdexcept>

namespace qspec::harness {
namespace {
using OJ = nlohmann::ordered_json;

void reject_floats(const OJ& j, const std::string& path) {
  if (j.is_number_float())
    throw std::invalid_argument("vector document holds a floating-point JSON number at " + path +
                                " (encode floats as hex bit patterns, see docs/vector-format.md)");
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) reject_floats(j[i], path + "/" + std::to_string(i));
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) reject_floats(v, path + "/" + k);
  }
}

std::string compact(const OJ& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict); }

std::string group_text(const OJ& group) {
  if (!group.is_object()) return "    " + compact(group);
  std::string out = "    {";
  bool first = true;
  for (const auto& [k, v] : group.items()) {
    if (!first) out += ", ";
    first = false;
    out += compact(OJ(k)) + ": ";
    if (k == "tests" && v.is_array() && !v.empty()) {
      out += "[\n";
      for (std::size_t i = 0; i < v.size(); ++i) out += "      " + compact(v[i]) + (i + 1 < v.size() ? ",\n" : "\n");
      out += "    ]";
    } else {
      out += compact(v);
    }
  }
  return out + "}";
}

// At most ~160 characters of `s` around byte `col` (0-based).
std::string window(const std::string& s, std::size_t col) {
  constexpr std::size_t kBefore = 60, kWidth = 160;
  if (s.size() <= kWidth) return s;
  const std::size_t start = col > kBefore ? col - kBefore : 0;
  std::string w = s.substr(start, kWidth);
  if (start > 0) w = "..." + w;
  if (start + kWidth < s.size()) w += "...";
  return w;
}
}  // namespace

std::string serialize_vector_document(const OJ& doc) {
  reject_floats(doc, "");
  if (!doc.is_object()) return compact(doc) + "\n";
  std::string out = "{\n";
  std::size_t i = 0;
  for (const auto& [k, v] : doc.items()) {
    out += "  " + compact(OJ(k)) + ": ";
    if (k == "notes" && v.is_object() && !v.empty()) {
      out += "{\n";
      std::size_t n = 0;
      for (const auto& [flag, meaning] : v.items())
        out += "    " + compact(OJ(flag)) + ": " + compact(meaning) + (++n < v.size() ? ",\n" : "\n");
      out += "  }";
    } else if (k == "testGroups" && v.is_array() && !v.empty()) {
      out += "[\n";
      for (std::size_t g = 0; g < v.size(); ++g) out += group_text(v[g]) + (g + 1 < v.size() ? ",\n" : "\n");
      out += "  ]";
    } else {
      out += compact(v);
    }
    out += ++i < doc.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

std::optional<LineDifference> first_line_difference(const std::string& expected, const std::string& actual) {
  if (expected == actual) return std::nullopt;
  std::size_t line = 1, a = 0, b = 0;
  while (true) {
    const std::size_t ea = expected.find('\n', a), eb = actual.find('\n', b);
    const bool end_a = a >= expected.size(), end_b = b >= actual.size();
    const std::string la = end_a ? "<end of file>" : expected.substr(a, ea == std::string::npos ? std::string::npos : ea - a);
    const std::string lb = end_b ? "<end of file>" : actual.substr(b, eb == std::string::npos ? std::string::npos : eb - b);
    const bool nl_a = ea != std::string::npos, nl_b = eb != std::string::npos;
    if (la != lb || end_a != end_b || nl_a != nl_b) {
      std::size_t col = 0;
      while (col < la.size() && col < lb.size() && la[col] == lb[col]) ++col;
      return LineDifference{line, col + 1, window(la, col) + (nl_a || end_a ? "" : " <no final newline>"),
                            window(lb, col) + (nl_b || end_b ? "" : " <no final newline>")};
    }
    if (end_a && end_b) return LineDifference{line, 1, "<end of file>", "<end of file>"};  // unreachable: texts differ
    a = nl_a ? ea + 1 : expected.size();
    b = nl_b ? eb + 1 : actual.size();
    ++line;
  }
}

}  // namespace qspec::harness
