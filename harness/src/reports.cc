// Text summary, JSON report and JUnit XML for a qspec run.
#include "qspec/harness/reports.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "qspec/harness/vectors_tree.h"

namespace qspec::harness {
namespace {
using OJ = nlohmann::ordered_json;

std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); }

std::string counts_row(const std::string& key, std::size_t w, const Counts& c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%7zu %6zu %6zu %6zu %12zu %11zu", c.total(), c.pass, c.fail, c.error, c.unsupported, c.unexpected);
  return "  " + pad(key, w) + buf + "\n";
}

std::string counts_table(const char* title, const std::map<std::string, Counts>& rows) {
  std::size_t w = 10;
  for (const auto& [k, c] : rows) w = std::max(w, k.size() + 2);
  std::string s = std::string(title) + "\n  " + pad("", w) + "  tests   PASS   FAIL  ERROR  UNSUPPORTED  unexpected\n";
  for (const auto& [k, c] : rows) s += counts_row(k, w, c);
  return s;
}

OJ counts_json(const Counts& c) {
  return OJ{{"total", c.total()},           {"PASS", c.pass},
            {"FAIL", c.fail},               {"ERROR", c.error},
            {"UNSUPPORTED", c.unsupported}, {"unexpected", c.unexpected},
            {"expected_deviations", c.expected_deviation}, {"unexpected_passes", c.unexpected_pass}};
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (unsigned char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (ch < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') o += "?";  // not allowed in XML 1.0
        else o += static_cast<char>(ch);
    }
  }
  return o;
}

std::string time_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", seconds);
  return buf;
}

}  // namespace

std::string summary_text(const RunResult& r) {
  std::map<std::string, Counts> by_op, by_clause;
  for (const auto& o : r.outcomes) {
    by_op[o.op].add(o);
    for (const auto& c : o.clauses) by_clause[c].add(o);
  }
  std::string s = counts_table("Summary by op:", by_op) + counts_table("Summary by clause:", by_clause);
  const Counts& c = r.counts;
  s += "Total: " + std::to_string(c.total()) + " tests: " + std::to_string(c.pass) + " PASS, " + std::to_string(c.fail) + " FAIL, " +
       std::to_string(c.error) + " ERROR, " + std::to_string(c.unsupported) + " UNSUPPORTED";
  if (c.expected_deviation) s += "; " + std::to_string(c.expected_deviation) + " known deviations (--expect)";
  if (c.unexpected_pass) s += "; " + std::to_string(c.unexpected_pass) + " unexpected passes";
  s += "\n";
  s += c.unexpected == 0 ? "Result: OK (every outcome as expected)\n"
                         : "Result: FAILED (" + std::to_string(c.unexpected) + " unexpected outcome" + (c.unexpected == 1 ? "" : "s") + ")\n";
  return s;
}

OJ json_report(const RunResult& r) {
  OJ j = OJ::object();
  j["schema"] = "qspec-report/1";
  j["backend"] = OJ{{"name", r.backend_name}, {"version", r.backend_version}, {"source", r.backend_source}};
  std::map<std::string, Counts> by_op, by_clause;
  for (const auto& o : r.outcomes) {
    by_op[o.op].add(o);
    for (const auto& c : o.clauses) by_clause[c].add(o);
  }
  OJ summary = counts_json(r.counts);
  summary["exit_code"] = r.exit_code();
  OJ ops = OJ::object(), clauses = OJ::object();
  for (const auto& [k, c] : by_op) ops[k] = counts_json(c);
  for (const auto& [k, c] : by_clause) clauses[k] = counts_json(c);
  summary["by_op"] = ops;
  summary["by_clause"] = clauses;
  j["summary"] = summary;
  OJ files = OJ::array();
  for (const auto& f : r.files)
    files.push_back(OJ{{"file", f.file}, {"op", f.op}, {"convention", f.convention}, {"clauses", f.clauses}, {"counts", counts_json(f.counts)}});
  j["files"] = files;
  OJ tests = OJ::array();
  for (const auto& o : r.outcomes) {
    OJ t = OJ::object();
    t["file"] = o.file;
    t["tcId"] = o.tc_id;
    t["op"] = o.op;
    t["convention"] = o.convention;
    t["clauses"] = o.clauses;
    t["result"] = o.invalid ? "invalid" : "valid";
    t["verdict"] = std::string(verdict_name(o.verdict));
    t["as_expected"] = o.as_expected;
    if (o.expected_verdict) {
      t["expected_verdict"] = std::string(verdict_name(*o.expected_verdict));
      t["expectation_reason"] = o.expectation_reason;
    }
    if (o.unexpected_pass) t["unexpected_pass"] = true;
    if (!o.reason.empty()) t["reason"] = o.reason;
    if (o.comparison && o.comparison->first) {
      const auto& d = *o.comparison->first;
      t["first_difference"] = OJ{{"output", d.output}, {"index", d.index}, {"flat_index", d.flat_index},
                                 {"expected", d.expected}, {"actual", d.actual}};
      t["differing_elements"] = o.comparison->differing;
      t["total_elements"] = o.comparison->total;
    }
    if (o.conventions && o.conventions->available) {
      OJ m = OJ::array();
      for (const auto& c : o.conventions->matches) m.push_back(OJ{{"convention", c.convention}, {"description", c.description}, {"diagnostic_only", c.diagnostic_only}});
      t["matching_conventions"] = m;
      if (o.conventions->closest)
        t["closest_convention"] = OJ{{"convention", o.conventions->closest->convention}, {"differing_elements", o.conventions->closest->differing}};
    }
    if (!o.diagnostic.empty()) t["diagnostic"] = o.diagnostic;
    t["seconds"] = o.seconds;
    tests.push_back(std::move(t));
  }
  j["tests"] = tests;
  return j;
}

void write_json_report(const std::filesystem::path& path, const RunResult& r) {
  write_file_atomically(path, json_report(r).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

std::string junit_report(const RunResult& r) {
  std::map<std::string, std::vector<const TestOutcome*>> by_file;
  std::vector<std::string> order;
  for (const auto& o : r.outcomes) {
    if (!by_file.count(o.file)) order.push_back(o.file);
    by_file[o.file].push_back(&o);
  }
  std::ostringstream x;
  std::size_t failures = 0, errors = 0, skipped = 0;
  std::ostringstream body;
  for (const auto& file : order) {
    std::size_t f_fail = 0, f_err = 0, f_skip = 0;
    double f_time = 0;
    std::ostringstream cases;
    for (const TestOutcome* o : by_file[file]) {
      f_time += o->seconds;
      cases << "    <testcase classname=\"" << xml_escape(file) << "\" name=\"tcId " << o->tc_id << "\" time=\"" << time_text(o->seconds) << "\"";
      std::string inner;
      const std::string text = o->reason + (o->diagnostic.empty() ? "" : "\n" + o->diagnostic);
      if (o->unexpected_pass) {
        ++f_fail;
        inner = "<failure message=\"unexpected PASS (--expect says " + std::string(verdict_name(*o->expected_verdict)) +
                ": " + xml_escape(o->expectation_reason) + ")\" type=\"UNEXPECTED_PASS\"/>";
      } else if (!o->as_expected && o->verdict == Verdict::Error) {
        ++f_err;
        inner = "<error message=\"" + xml_escape(o->reason) + "\" type=\"ERROR\">" + xml_escape(text) + "</error>";
      } else if (!o->as_expected) {
        ++f_fail;
        inner = "<failure message=\"" + xml_escape(o->reason) + "\" type=\"" + std::string(verdict_name(o->verdict)) + "\">" +
                xml_escape(text) + "</failure>";
      } else if (o->verdict != Verdict::Pass) {
        ++f_skip;
        inner = "<skipped message=\"" +
                xml_escape(std::string(verdict_name(o->verdict)) + (o->expected_verdict ? " (expected: " + o->expectation_reason + ")" : ": " + o->reason)) +
                "\"/>";
      }
      cases << (inner.empty() ? "/>\n" : ">" + inner + "</testcase>\n");
    }
    failures += f_fail;
    errors += f_err;
    skipped += f_skip;
    body << "  <testsuite name=\"" << xml_escape(file) << "\" tests=\"" << by_file[file].size() << "\" failures=\"" << f_fail
         << "\" errors=\"" << f_err << "\" skipped=\"" << f_skip << "\" time=\"" << time_text(f_time) << "\">\n"
         << cases.str() << "  </testsuite>\n";
  }
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"qspec run --backend " << xml_escape(r.backend_name) << "\" tests=\"" << r.outcomes.size() << "\" failures=\""
    << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\">\n";
  x << body.str() << "</testsuites>\n";
  return x.str();
}

void write_junit_report(const std::filesystem::path& path, const RunResult& r) { write_file_atomically(path, junit_report(r)); }

}  // namespace qspec::harness
