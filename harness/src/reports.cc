// Text summary, JSON report and JUnit XML for a qspec run.
#include "qspec/harness/reports.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "qspec/core/json_values.h"
#include "qspec/harness/test_identity.h"
#include "qspec/harness/text_safety.h"
#include "qspec/harness/vectors_tree.h"

namespace qspec::harness {
namespace {
using OJ = nlohmann::ordered_json;

std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); }

// Columns: tests, one per verdict (kAllVerdicts), unexpected; each as wide as its heading (min 6).
std::string counts_row(const std::string& key, std::size_t w, const Counts& c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7zu", c.total());
  std::string s = "  " + pad(key, w) + buf;
  for (Verdict v : kAllVerdicts) {
    std::snprintf(buf, sizeof buf, " %*zu", static_cast<int>(std::max<std::size_t>(6, verdict_name(v).size())), c.of(v));
    s += buf;
  }
  std::snprintf(buf, sizeof buf, " %11zu", c.unexpected);
  return s + buf + "\n";
}

std::string counts_table(const char* title, const std::map<std::string, Counts>& rows) {
  std::size_t w = 10;
  for (const auto& [k, c] : rows) w = std::max(w, k.size() + 2);
  std::string s = std::string(title) + "\n  " + pad("", w) + "  tests";
  for (Verdict v : kAllVerdicts) {
    const std::string name(verdict_name(v));
    s += " " + std::string(name.size() < 6 ? 6 - name.size() : 0, ' ') + name;
  }
  s += "  unexpected\n";
  for (const auto& [k, c] : rows) s += counts_row(k, w, c);
  return s;
}

OJ counts_json(const Counts& c) {
  OJ j = OJ{{"total", c.total()}};
  for (Verdict v : kAllVerdicts) j[std::string(verdict_name(v))] = c.of(v);
  j["unexpected"] = c.unexpected;
  j["expected_deviations"] = c.expected_deviation;
  j["unexpected_passes"] = c.unexpected_pass;
  return j;
}

// [{"name": "x", "dtype": "int32", "shape": [6], "data": [...]}, ...] in the vector encoding.
OJ tensors_json(const std::vector<Tensor>& ts) {
  OJ a = OJ::array();
  for (const auto& t : ts) {
    OJ e = OJ{{"name", t.name}};
    e.update(tensor_to_json(t));
    a.push_back(std::move(e));
  }
  return a;
}

std::string time_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", seconds);
  return buf;
}

OJ provenance_json(const RunProvenance& p) {
  return OJ{{"qspec_version", p.qspec_version},
            {"contract_version", p.contract_version},
            {"started", p.started},
            {"finished", p.finished.empty() ? OJ(nullptr) : OJ(p.finished)},
            {"host", OJ{{"hostname", p.hostname}, {"system", p.system}, {"cpu", p.cpu}}}};
}

std::uint64_t tests_identity(const std::vector<TestOutcome>& outcomes) {
  std::uint64_t d = 0;
  for (const auto& o : outcomes) d += test_identity_hash(o.index, o.file, o.tc_id, o.op, o.convention);
  return d;
}

std::string plural(std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// The result line of a run in which no test was checked (RunResult::nothing_checked, or a
// shard that holds none of the selection), or "" if some test was checked.
std::string nothing_checked_line(const RunResult& r) {
  const Counts& c = r.counts;
  if (c.total() == 0 && r.shard && r.selected_total > 0)
    return "Result: NOTHING CHECKED (shard " + shard_text(*r.shard) + " holds none of the " + plural(r.selected_total, "selected test") +
           "; `qspec report merge` judges the shards together)\n";
  if (c.total() == 0 && r.only_claimed && !r.unclaimed_files.empty())
    return "Result: NOTHING CHECKED (backend " + r.backend_name + " claims none of the (op, convention) pairs of the " +
           plural(r.unclaimed_files.size(), "vector file") + " selected; --only-claimed left them all out)\n";
  if (!r.nothing_checked()) return "";
  return "Result: NOTHING CHECKED (every one of the " + plural(c.total(), "test") + " is UNSUPPORTED: backend " + r.backend_name +
         (r.only_claimed ? " declines every test of the pairs it claims"
                         : " claims none of the selected (op, convention) pairs; --only-claimed runs only the pairs it claims") +
         (r.shard ? "; `qspec report merge` judges the shards together" : "") + ")\n";
}

}  // namespace

std::string junit_classname(const std::string& file) {
  std::string stem = file;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) stem.resize(stem.size() - 5);
  const auto slash = stem.rfind('/');
  std::string dir = slash == std::string::npos ? "" : stem.substr(0, slash);
  std::string name = slash == std::string::npos ? stem : stem.substr(slash + 1);
  for (char& ch : dir) {
    if (ch == '.') ch = '_';
    if (ch == '/') ch = '.';
  }
  for (char& ch : name)
    if (ch == '.') ch = '_';
  return dir.empty() ? name : dir + "." + name;
}

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
  if (c.crash) s += ", " + std::to_string(c.crash) + " CRASH";
  if (c.timeout) s += ", " + std::to_string(c.timeout) + " TIMEOUT";
  if (c.skipped) s += ", " + std::to_string(c.skipped) + " SKIPPED (after consecutive TIMEOUT/CRASH)";
  if (c.expected_deviation) s += "; " + std::to_string(c.expected_deviation) + " known deviations (--expect)";
  if (c.unexpected_pass) s += "; " + std::to_string(c.unexpected_pass) + " unexpected passes";
  s += "\n";
  const std::size_t n = r.skipped.size();
  if (n) {  // --keep-going: listed whether or not the run finished
    s += "Skipped " + std::to_string(n) + " malformed vector file" + (n == 1 ? "" : "s") + " (--keep-going):\n";
    for (const auto& k : r.skipped) s += "  " + k.error + "\n";
  }
  if (r.interrupted)  // SIGINT/SIGTERM: the counts are those of the tests done so far
    return s + "Result: INTERRUPTED after " + std::to_string(c.total()) + " tests (" + std::to_string(c.unexpected) +
           " unexpected so far" + (n ? ", " + std::to_string(n) + " vector file" + (n == 1 ? "" : "s") + " skipped" : std::string()) +
           "; qspec run --resume continues)\n";
  if (n) {  // an input error outranks the verdicts
    return s + "Result: INPUT ERROR (" + std::to_string(n) + " vector file" + (n == 1 ? "" : "s") + " skipped" +
           (c.unexpected ? "; " + std::to_string(c.unexpected) + " unexpected outcome" + (c.unexpected == 1 ? "" : "s") : "") + ")\n";
  }
  if (c.unexpected != 0) return s + "Result: FAILED (" + plural(c.unexpected, "unexpected outcome") + ")\n";
  if (const std::string nothing = nothing_checked_line(r); !nothing.empty()) return s + nothing;
  if (r.only_claimed && !r.unclaimed_files.empty())
    s += "(--only-claimed: " + plural(r.unclaimed_files.size(), "vector file") + " of pairs the backend does not claim not run)\n";
  return s + "Result: OK (every outcome as expected)\n";
}

OJ json_report(const RunResult& r) {
  OJ j = OJ::object();
  j["schema"] = "qspec-report/1";
  // Versions, host and time (docs/CONFORMANCE.md 4.3); "finished" is null in a checkpoint.
  j["run"] = provenance_json(r.provenance);
  // true: the run did not finish (SIGINT/SIGTERM, or a checkpoint of a run still going):
  // "tests" holds the tests done so far; `qspec run --resume` continues it.
  j["interrupted"] = r.interrupted;
  j["vector_files"] = r.vector_files;  // every vector file found (display names), for --resume
  j["filters"] = r.filters;
  j["backend"] = OJ{{"name", r.backend_name}, {"version", r.backend_version}, {"source", r.backend_source}};
  j["selection"] = OJ{{"tests", r.selected_total},
                      {"fingerprint", r.selection_fingerprint},
                      {"shard", r.shard ? OJ{{"index", r.shard->index}, {"count", r.shard->count}} : OJ(nullptr)},
                      {"shard_tests", r.shard ? shard_size(*r.shard, r.selected_total) : r.selected_total},
                      {"identity", identity_digest_text(r.selection_identity)},
                      {"tests_identity", identity_digest_text(tests_identity(r.outcomes))}};
  if (r.only_claimed) {  // --only-claimed: what was left out of the selection
    j["only_claimed"] = true;
    j["unclaimed_files"] = r.unclaimed_files;
  }
  std::map<std::string, Counts> by_op, by_clause;
  for (const auto& o : r.outcomes) {
    by_op[o.op].add(o);
    for (const auto& c : o.clauses) by_clause[c].add(o);
  }
  OJ summary = counts_json(r.counts);
  summary["exit_code"] = r.exit_code();
  summary["skipped_files"] = r.skipped.size();
  OJ ops = OJ::object(), clauses = OJ::object();
  for (const auto& [k, c] : by_op) ops[k] = counts_json(c);
  for (const auto& [k, c] : by_clause) clauses[k] = counts_json(c);
  summary["by_op"] = ops;
  summary["by_clause"] = clauses;
  j["summary"] = summary;
  OJ files = OJ::array();
  for (const auto& f : r.files) {
    OJ e = OJ{{"file", f.file}, {"op", f.op}, {"convention", f.convention}, {"clauses", f.clauses}, {"counts", counts_json(f.counts)}};
    // The fingerprint of the file's selected tests: `--resume` runs a file that changed again.
    if (const auto fp = r.file_fingerprints.find(f.file); fp != r.file_fingerprints.end()) e["fingerprint"] = fp->second;
    files.push_back(std::move(e));
  }
  j["files"] = files;
  OJ skipped_files = OJ::array();  // malformed vector files skipped by --keep-going
  for (const auto& k : r.skipped) skipped_files.push_back(OJ{{"file", k.file}, {"error", k.error}});
  j["skipped_files"] = skipped_files;
  OJ tests = OJ::array();
  for (const auto& o : r.outcomes) {
    OJ t = OJ::object();
    t["file"] = o.file;
    t["tcId"] = o.tc_id;
    t["index"] = o.index;
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
    if (o.data) {
      OJ d = OJ{{"attributes", o.data->attributes}, {"inputs", tensors_json(o.data->inputs)}, {"expected", tensors_json(o.data->expected)}};
      if (!o.data->actual.empty()) d["actual"] = tensors_json(o.data->actual);
      t["data"] = std::move(d);
    }
    t["seconds"] = o.seconds;
    tests.push_back(std::move(t));
  }
  j["tests"] = tests;
  return j;
}

void write_json_report(const std::filesystem::path& path, const RunResult& r) {
  write_file_atomically(path, json_report(r).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                        /*create_parent_directories=*/false);
}

namespace {
// <properties> of every <testsuite>: what the JSON report's "backend" and "run" say.
std::string junit_properties(const RunResult& r) {
  const RunProvenance& p = r.provenance;
  const std::pair<const char*, std::string> props[] = {
      {"backend.name", r.backend_name},       {"backend.version", r.backend_version},
      {"backend.source", r.backend_source},   {"qspec.version", p.qspec_version},
      {"qspec.contract_version", std::to_string(p.contract_version)},
      {"host.system", p.system},              {"host.cpu", p.cpu}};
  std::string s = "    <properties>\n";
  for (const auto& [name, value] : props)
    s += "      <property name=\"" + std::string(name) + "\" value=\"" + xml_escape(value) + "\"/>\n";
  return s + "    </properties>\n";
}
}  // namespace

std::string junit_report(const RunResult& r) {
  std::map<std::string, std::vector<const TestOutcome*>> by_file;
  std::vector<std::string> order;
  for (const auto& o : r.outcomes) {
    if (!by_file.count(o.file)) order.push_back(o.file);
    by_file[o.file].push_back(&o);
  }
  // JUnit's timestamp has no time zone (ISO 8601 local form): the UTC time without the "Z".
  std::string timestamp = r.provenance.started;
  if (!timestamp.empty() && timestamp.back() == 'Z') timestamp.pop_back();
  const std::string suite_attrs = " timestamp=\"" + xml_escape(timestamp) + "\" hostname=\"" + xml_escape(r.provenance.hostname) + "\"";
  const std::string properties = junit_properties(r);
  std::ostringstream x;
  std::size_t failures = 0, errors = 0, skipped = 0;
  double total_time = 0;
  std::ostringstream body;
  for (const auto& file : order) {
    std::size_t f_fail = 0, f_err = 0, f_skip = 0;
    double f_time = 0;
    std::ostringstream cases;
    const std::string classname = xml_escape(junit_classname(file));
    for (const TestOutcome* o : by_file[file]) {
      f_time += o->seconds;
      cases << "    <testcase classname=\"" << classname << "\" name=\"tcId " << o->tc_id << "\" time=\"" << time_text(o->seconds) << "\"";
      std::string inner;
      const std::string text = o->reason + (o->diagnostic.empty() ? "" : "\n" + o->diagnostic);
      if (o->unexpected_pass) {
        ++f_fail;
        inner = "<failure message=\"unexpected PASS (--expect says " + std::string(verdict_name(*o->expected_verdict)) +
                ": " + xml_escape(o->expectation_reason) + ")\" type=\"UNEXPECTED_PASS\"/>";
      } else if (!o->as_expected &&
                 (o->verdict == Verdict::Error || o->verdict == Verdict::Crash || o->verdict == Verdict::Timeout ||
                  o->verdict == Verdict::Skipped)) {
        ++f_err;
        inner = "<error message=\"" + xml_escape(o->reason) + "\" type=\"" + std::string(verdict_name(o->verdict)) + "\">" +
                xml_escape(text) + "</error>";
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
    total_time += f_time;
    body << "  <testsuite name=\"" << xml_escape(file) << "\" tests=\"" << by_file[file].size() << "\" failures=\"" << f_fail
         << "\" errors=\"" << f_err << "\" skipped=\"" << f_skip << "\" time=\"" << time_text(f_time) << "\"" << suite_attrs << ">\n"
         << properties << cases.str() << "  </testsuite>\n";
  }
  for (const auto& k : r.skipped) {  // --keep-going: one <error> per malformed vector file
    ++errors;
    body << "  <testsuite name=\"" << xml_escape(k.file) << "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000000\""
         << suite_attrs << ">\n"
         << properties << "    <testcase classname=\"" << xml_escape(junit_classname(k.file))
         << "\" name=\"load\" time=\"0.000000\"><error message=\"malformed vector file\" "
         << "type=\"MALFORMED_VECTOR_FILE\">" << xml_escape(k.error) << "</error></testcase>\n  </testsuite>\n";
  }
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"qspec run --backend " << xml_escape(r.backend_name) << "\" tests=\"" << r.outcomes.size() + r.skipped.size()
    << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\"" << time_text(total_time)
    << "\"" << suite_attrs << ">\n";
  x << body.str() << "</testsuites>\n";
  return x.str();
}

void write_junit_report(const std::filesystem::path& path, const RunResult& r) {
  write_file_atomically(path, junit_report(r), /*create_parent_directories=*/false);
}

}  // namespace qspec::harness
