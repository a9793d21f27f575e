// Reading a JSON report back into test outcomes for `qspec run --resume`.
#include "qspec/harness/report_resume.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "qspec/core/json_values.h"

namespace qspec::harness {
namespace {
using OJ = nlohmann::ordered_json;

std::string str(const OJ& j, const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

std::vector<std::string> strings(const OJ& j, const char* key) {
  std::vector<std::string> v;
  if (j.contains(key) && j[key].is_array())
    for (const auto& e : j[key])
      if (e.is_string()) v.push_back(e.get<std::string>());
  return v;
}

std::string list_text(const std::vector<std::string>& v) {
  if (v.empty()) return "(none)";
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < 5; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > 5) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return s;
}

// One entry of "tests" (reports.cc json_report) back into a TestOutcome.
TestOutcome outcome_from_json(const OJ& t, std::size_t position) {
  const std::string where = "tests[" + std::to_string(position) + "]";
  if (!t.is_object() || !t.contains("file") || !t["file"].is_string() || !t.contains("tcId") || !t["tcId"].is_number_integer() ||
      !t.contains("verdict") || !t["verdict"].is_string())
    throw ResumeError(where + ": needs \"file\", \"tcId\" and \"verdict\"");
  TestOutcome o;
  o.file = t["file"].get<std::string>();
  o.tc_id = t["tcId"].get<std::int64_t>();
  o.op = str(t, "op");
  o.convention = str(t, "convention");
  o.clauses = strings(t, "clauses");
  o.invalid = str(t, "result") == "invalid";
  const auto v = verdict_from_name(t["verdict"].get<std::string>());
  if (!v) throw ResumeError(where + ": unknown verdict '" + t["verdict"].get<std::string>() + "'");
  o.verdict = *v;
  o.reason = str(t, "reason");
  if (t.contains("index") && t["index"].is_number_unsigned()) o.index = t["index"].get<std::size_t>();
  o.diagnostic = str(t, "diagnostic");
  if (t.contains("seconds") && t["seconds"].is_number()) o.seconds = t["seconds"].get<double>();
  if (t.contains("first_difference") && t["first_difference"].is_object()) {
    const OJ& d = t["first_difference"];
    Comparison c;
    c.equal = false;
    ElementDifference e;
    e.output = str(d, "output");
    if (d.contains("flat_index") && d["flat_index"].is_number_integer()) e.flat_index = d["flat_index"].get<std::int64_t>();
    if (d.contains("index") && d["index"].is_array())
      for (const auto& k : d["index"])
        if (k.is_number_integer()) e.index.push_back(k.get<std::int64_t>());
    e.expected = str(d, "expected");
    e.actual = str(d, "actual");
    c.first = std::move(e);
    if (t.contains("differing_elements") && t["differing_elements"].is_number_integer())
      c.differing = t["differing_elements"].get<std::int64_t>();
    if (t.contains("total_elements") && t["total_elements"].is_number_integer()) c.total = t["total_elements"].get<std::int64_t>();
    o.comparison = std::move(c);
  }
  if (t.contains("matching_conventions") && t["matching_conventions"].is_array()) {
    ConventionReport r;
    r.available = true;
    for (const auto& m : t["matching_conventions"]) {
      if (!m.is_object()) continue;
      r.matches.push_back(ConventionMatch{str(m, "convention"), str(m, "description"),
                                          m.contains("diagnostic_only") && m["diagnostic_only"].is_boolean() &&
                                              m["diagnostic_only"].get<bool>(),
                                          0});
    }
    if (t.contains("closest_convention") && t["closest_convention"].is_object()) {
      const OJ& c = t["closest_convention"];
      ConventionMatch m;
      m.convention = str(c, "convention");
      if (c.contains("differing_elements") && c["differing_elements"].is_number_integer())
        m.differing = c["differing_elements"].get<std::int64_t>();
      r.closest = std::move(m);
    }
    o.conventions = std::move(r);
  }
  // The actual outputs, when the report kept the test's data (the runner takes the attributes,
  // inputs and expected outputs from the vector file again).
  if (t.contains("data") && t["data"].is_object() && t["data"].contains("actual") && t["data"]["actual"].is_array()) {
    try {
      for (const auto& a : t["data"]["actual"]) o.actual.push_back(json_to_tensor(str(a, "name"), a));
    } catch (const std::exception& e) {
      throw ResumeError(where + ": data.actual: " + e.what());
    }
  }
  return o;
}

}  // namespace

ResumeReport load_resume_report(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResumeError("cannot open the report " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  OJ j;
  try {
    j = OJ::parse(ss.str());
  } catch (const std::exception& e) {
    throw ResumeError(path.string() + ": not a JSON report: " + e.what());
  }
  if (!j.is_object() || str(j, "schema") != "qspec-report/1")
    throw ResumeError(path.string() + ": not a qspec-report/1 JSON report");
  ResumeReport r;
  if (j.contains("backend") && j["backend"].is_object()) r.backend_name = str(j["backend"], "name");
  if (!j.contains("vector_files") || !j["vector_files"].is_array())
    throw ResumeError(path.string() + ": the report does not list its vector files (written by a qspec without --resume?)");
  r.vector_files = strings(j, "vector_files");
  r.filters = strings(j, "filters");
  if (j.contains("selection") && j["selection"].is_object() && j["selection"].contains("shard") &&
      j["selection"]["shard"].is_object()) {
    const OJ& sh = j["selection"]["shard"];
    if (sh.contains("index") && sh["index"].is_number_unsigned() && sh.contains("count") && sh["count"].is_number_unsigned())
      r.shard = ShardSpec{sh["index"].get<std::size_t>(), sh["count"].get<std::size_t>()};
  }
  r.interrupted = j.contains("interrupted") && j["interrupted"].is_boolean() && j["interrupted"].get<bool>();
  if (j.contains("files") && j["files"].is_array())
    for (const auto& f : j["files"])
      if (f.is_object() && !str(f, "file").empty() && !str(f, "fingerprint").empty())
        r.file_fingerprints[str(f, "file")] = str(f, "fingerprint");
  if (!j.contains("tests") || !j["tests"].is_array()) throw ResumeError(path.string() + ": no \"tests\" array");
  std::size_t i = 0;
  try {
    for (const auto& t : j["tests"]) {
      TestOutcome o = outcome_from_json(t, i++);
      auto key = std::make_pair(o.file, o.tc_id);
      if (!r.outcomes.emplace(std::move(key), std::move(o)).second)
        throw ResumeError("tests[" + std::to_string(i - 1) + "]: a second entry for the same file and tcId");
    }
  } catch (const ResumeError& e) {
    throw ResumeError(path.string() + ": " + e.what());
  }
  return r;
}

void check_resume_matches(const ResumeReport& report, const std::string& report_path, const std::string& backend_name,
                          const std::vector<std::string>& vector_files, const std::vector<std::string>& filters,
                          const std::optional<ShardSpec>& shard) {
  const std::string refuse = "cannot resume from " + report_path + ": ";
  if (report.backend_name != backend_name)
    throw ResumeError(refuse + "it is a report of backend '" + report.backend_name + "', this run's backend is '" + backend_name + "'");
  if (report.vector_files != vector_files)
    throw ResumeError(refuse + "it was made on other vector files (report: " + list_text(report.vector_files) +
                      "; this run: " + list_text(vector_files) + ")");
  if (report.filters != filters)
    throw ResumeError(refuse + "it was made with other --filter globs (report: " + list_text(report.filters) +
                      "; this run: " + list_text(filters) + ")");
  if (report.shard != shard)
    throw ResumeError(refuse + "it is a report of " + (report.shard ? "shard " + shard_text(*report.shard) : "the whole selection") +
                      ", this run is " + (shard ? "shard " + shard_text(*shard) : "the whole selection") + " (--shard)");
}

}  // namespace qspec::harness
