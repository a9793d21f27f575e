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

// "avx2,avx512_core" -> {"avx2", "avx512_core"}; names are [A-Za-z0-9_.+-]+, or globs of them with * and ?
// (a library whose ISA names two dispatchers, libtorch's "aten_avx2-dnnl_avx2": "aten_avx2-*").
std::vector<std::string> parse_isa_list(const std::string& s, const std::string& where) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto comma = s.find(',', start);
    const std::string name = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty() ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-*?") !=
            std::string::npos)
      throw ExpectationError(
          where +
          ": isa= takes comma-separated instruction set names (as backends report them) or globs of them, got '" + s +
          "'");
    out.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::string isa_of_version(const std::string& version) {
  const auto at = version.find("isa: ");
  if (at == std::string::npos) return "";
  const auto begin = at + 5;
  const auto end =
      version.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-", begin);
  return version.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

void Expectations::select_isa(const std::string& isa) {
  std::vector<Expectation> kept;
  for (auto& e : entries_) {
    bool holds = e.isa.empty();
    for (const auto& name : e.isa) holds = holds || (!isa.empty() && fnmatch(name.c_str(), isa.c_str(), 0) == 0);
    if (holds) kept.push_back(std::move(e));
  }
  entries_ = std::move(kept);
}

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
      if (!e.is_object() || !e.contains("file") || !e["file"].is_string() || !e.contains("verdict") ||
          !e["verdict"].is_string())
        throw ExpectationError(where + ": needs string fields \"file\" and \"verdict\"");
      Expectation x;
      x.file_glob = e["file"].get<std::string>();
      if (e.contains("tcId")) {
        if (e["tcId"].is_number_integer())
          x.tc_id = e["tcId"].get<std::int64_t>();
        else if (e["tcId"].is_string())
          x.tc_id = parse_tc_id(e["tcId"].get<std::string>(), where);
        else
          throw ExpectationError(where + ": \"tcId\" must be an integer or \"*\"");
      }
      x.verdict = parse_verdict(e["verdict"].get<std::string>(), where);
      x.reason = e.contains("reason") && e["reason"].is_string() ? e["reason"].get<std::string>() : "";
      if (e.contains("isa")) {
        if (!e["isa"].is_array() || e["isa"].empty())
          throw ExpectationError(where + ": \"isa\" must be a non-empty array of names");
        std::string joined;
        for (const auto& n : e["isa"]) {
          if (!n.is_string()) throw ExpectationError(where + ": \"isa\" must be a non-empty array of names");
          joined += (joined.empty() ? "" : ",") + n.get<std::string>();
        }
        x.isa = parse_isa_list(joined, where);
      }
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
    while (!x.reason.empty() && (x.reason.back() == ' ' || x.reason.back() == '\t' || x.reason.back() == '\r'))
      x.reason.pop_back();
    if (x.reason.rfind("isa=", 0) == 0) {  // the optional qualifier before the reason
      const auto space = x.reason.find_first_of(" \t");
      x.isa = parse_isa_list(x.reason.substr(4, space == std::string::npos ? std::string::npos : space - 4), where);
      const auto rest = space == std::string::npos ? std::string::npos : x.reason.find_first_not_of(" \t", space);
      x.reason = rest == std::string::npos ? "" : x.reason.substr(rest);
    }
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
