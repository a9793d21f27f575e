// Parser and matcher for --expect files (known deviations of a backend), in line or JSON form.
#include "qspec/harness/expectations.h"

#include <fnmatch.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace qspec::harness {
namespace {

std::optional<std::int64_t> parse_tc_id(const std::string& s, const std::string& where) {
  if (s == "*") return std::nullopt;
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw ExpectationError(where + ": tcId must be a positive integer or '*', got '" + s + "'");
  try {
    return std::stoll(s);
  } catch (const std::exception&) {
    throw ExpectationError(where + ": tcId out of range: '" + s + "'");
  }
}

Verdict parse_verdict(const std::string& s, const std::string& where) {
  auto v = verdict_from_name(s);
  if (!v) {
    std::string names;
    for (Verdict k : kAllVerdicts) names += (names.empty() ? "" : ", ") + std::string(verdict_name(k));
    throw ExpectationError(where + ": verdict must be one of " + names + ", got '" + s + "'");
  }
  return *v;
}

}  // namespace

Expectations Expectations::parse(const std::string& text, const std::string& source) {
  Expectations ex;
  ex.source_ = source;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
      throw ExpectationError(source + ": not valid JSON: " + e.what());
    }
    if (!j.contains("expectations") || !j["expectations"].is_array())
      throw ExpectationError(source + ": expected {\"schema\": \"qspec-expect/1\", \"expectations\": [...]}");
    if (j.contains("schema") && j["schema"] != "qspec-expect/1")
      throw ExpectationError(source + ": unsupported schema (this qspec reads \"qspec-expect/1\")");
    int idx = 0;
    for (const auto& e : j["expectations"]) {
      const std::string where = source + ": expectations[" + std::to_string(idx) + "]";
      if (!e.is_object() || !e.contains("file") || !e["file"].is_string() || !e.contains("verdict") || !e["verdict"].is_string())
        throw ExpectationError(where + ": needs string fields \"file\" and \"verdict\"");
      Expectation x;
      x.file_glob = e["file"].get<std::string>();
      if (e.contains("tcId")) {
        if (e["tcId"].is_number_integer()) x.tc_id = e["tcId"].get<std::int64_t>();
        else if (e["tcId"].is_string()) x.tc_id = parse_tc_id(e["tcId"].get<std::string>(), where);
        else throw ExpectationError(where + ": \"tcId\" must be an integer or \"*\"");
      }
      x.verdict = parse_verdict(e["verdict"].get<std::string>(), where);
      x.reason = e.contains("reason") && e["reason"].is_string() ? e["reason"].get<std::string>() : "";
      x.line = idx++;
      ex.entries_.push_back(std::move(x));
    }
    return ex;
  }
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    // '#' starts a comment at the start of a line or after blank space ("*#7" is a glob).
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
        line.erase(i);
        break;
      }
    std::istringstream ls(line);
    std::string glob, tc, verdict;
    if (!(ls >> glob)) continue;
    const std::string where = source + ":" + std::to_string(n);
    if (!(ls >> tc >> verdict)) throw ExpectationError(where + ": expected '<file-glob> <tcId|*> <VERDICT> <reason>'");
    Expectation x;
    x.file_glob = glob;
    x.tc_id = parse_tc_id(tc, where);
    x.verdict = parse_verdict(verdict, where);
    std::getline(ls >> std::ws, x.reason);
    while (!x.reason.empty() && (x.reason.back() == ' ' || x.reason.back() == '\t' || x.reason.back() == '\r')) x.reason.pop_back();
    x.line = n;
    ex.entries_.push_back(std::move(x));
  }
  return ex;
}

Expectations Expectations::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExpectationError("cannot open expectations file " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path.string());
}

const Expectation* Expectations::find(const std::string& file, std::int64_t tc_id) const {
  for (const auto& e : entries_) {
    if (e.tc_id && *e.tc_id != tc_id) continue;
    if (fnmatch(e.file_glob.c_str(), file.c_str(), 0) != 0) continue;
    ++e.uses;
    return &e;
  }
  return nullptr;
}

}  // namespace qspec::harness
