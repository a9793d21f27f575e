// Loading qspec-report/1 files and grouping their failures into deviation classes.
#include "report_model.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace qspec::thirdparty_report {

Run load_run(const std::string& library, const std::string& mode, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read report " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not JSON: " + e.what());
  }
  if (j.value("schema", "") != "qspec-report/1") throw std::runtime_error(path + ": not a qspec-report/1 file");
  Run r;
  r.library = library;
  r.mode = mode;
  r.report_path = path;
  r.version = j.at("backend").value("version", "");
  for (const auto& t : j.at("tests")) {
    Outcome o;
    o.file = t.at("file").get<std::string>();
    o.tc_id = t.at("tcId").get<std::int64_t>();
    o.op = t.at("op").get<std::string>();
    o.convention = t.at("convention").get<std::string>();
    o.invalid = t.value("result", "valid") == "invalid";
    o.verdict = t.at("verdict").get<std::string>();
    o.reason = t.value("reason", "");
    if (t.contains("expected_verdict")) o.expected_verdict = t["expected_verdict"].get<std::string>();
    o.expectation_reason = t.value("expectation_reason", "");
    if (t.contains("first_difference")) {
      const auto& d = t["first_difference"];
      o.diff_output = d.value("output", "");
      o.diff_expected = d.value("expected", "");
      o.diff_actual = d.value("actual", "");
      o.diff_index = d.contains("index") ? d["index"].dump() : "";
      o.differing = t.value("differing_elements", std::int64_t{0});
      o.total = t.value("total_elements", std::int64_t{0});
    }
    if (t.contains("matching_conventions"))
      for (const auto& m : t["matching_conventions"])
        (m.value("diagnostic_only", false) ? o.matching_diagnostic : o.matching).push_back(m.at("convention").get<std::string>());
    if (t.contains("closest_convention")) {
      o.closest = t["closest_convention"].value("convention", "");
      o.closest_differing = t["closest_convention"].value("differing_elements", std::int64_t{0});
    }
    r.outcomes.push_back(std::move(o));
  }
  return r;
}

void Counts::add(const Outcome& o) {
  if (o.verdict == "PASS") ++pass;
  else if (o.verdict == "FAIL") ++fail;
  else if (o.verdict == "ERROR") ++error;
  else if (o.verdict == "CRASH") ++crash;
  else if (o.verdict == "TIMEOUT") ++timeout;
  else ++unsupported;
  if (o.expected_verdict && *o.expected_verdict == o.verdict && o.verdict != "PASS") ++expected;
}

namespace {
std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}
}  // namespace

std::string failure_kind(const Outcome& o) {
  if (o.verdict == "ERROR") return "error";
  if (o.verdict == "CRASH") return "crash";
  if (o.verdict == "TIMEOUT") return "timeout";
  if (o.reason.rfind("rejected a valid input", 0) == 0) return "rejects a valid input";
  if (o.reason.rfind("accepted an invalid input", 0) == 0) return "accepts an invalid input";
  return "differs";
}

std::string DeviationClass::top_signatures(std::size_t n) const {
  std::vector<std::pair<std::int64_t, std::string>> v;
  for (const auto& [sig, cnt] : signatures) v.push_back({-cnt, sig});
  std::sort(v.begin(), v.end());
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < n; ++i) s += (i ? "; " : "") + v[i].second + " (" + std::to_string(-v[i].first) + ")";
  if (v.size() > n) s += "; ...";
  return s;
}

std::string failure_signature(const Outcome& o) {
  if (o.verdict == "ERROR") return "error";
  if (o.verdict == "CRASH") return "crash";
  if (o.verdict == "TIMEOUT") return "timeout";
  if (o.reason.rfind("rejected a valid input", 0) == 0) return "rejects a valid input";
  if (o.reason.rfind("accepted an invalid input", 0) == 0) return "accepts an invalid input";
  if (!o.matching.empty()) return "matches " + join(o.matching, ", ");
  if (!o.matching_diagnostic.empty()) return "matches " + join(o.matching_diagnostic, ", ");
  if (!o.closest.empty()) return "no convention matches (closest " + o.closest + ")";
  return "no convention matches";
}

std::map<std::pair<std::string, std::string>, Counts> counts_by_op_convention(const Run& r) {
  std::map<std::pair<std::string, std::string>, Counts> m;
  for (const auto& o : r.outcomes) m[{o.op, o.convention}].add(o);
  return m;
}

std::vector<DeviationClass> deviation_classes(const Run& r) {
  std::vector<DeviationClass> out;
  {
    const auto totals = counts_by_op_convention(r);
    std::map<std::string, DeviationClass> by_key;
    for (const auto& o : r.outcomes) {
      if (o.verdict == "PASS" || o.verdict == "UNSUPPORTED") continue;
      DeviationClass c;
      c.library = r.library;
      c.mode = r.mode;
      c.op = o.op;
      c.convention = o.convention;
      c.kind = failure_kind(o);
      auto [it, fresh] = by_key.emplace(c.key(), c);
      DeviationClass& d = it->second;
      ++d.count;
      ++d.signatures[failure_signature(o)];
      d.of_tests = totals.at({o.op, o.convention}).total();
      // The representative: fewest elements, then the lowest file / tcId (stable across runs).
      auto size = [](const Outcome* x) { return x->total > 0 ? x->total : INT64_MAX; };
      if (!d.minimal || size(&o) < size(d.minimal) ||
          (size(&o) == size(d.minimal) && std::tie(o.file, o.tc_id) < std::tie(d.minimal->file, d.minimal->tc_id)))
        d.minimal = &o;
    }
    for (auto& [k, c] : by_key) out.push_back(c);
  }
  return out;
}

std::vector<DeviationClass> deviation_classes(const std::vector<Run>& runs) {
  std::vector<DeviationClass> out;
  for (const auto& r : runs)
    for (auto& c : deviation_classes(r)) out.push_back(std::move(c));
  return out;
}

}  // namespace qspec::thirdparty_report
