// `qspec report merge`: reads JSON reports, checks that shards cover one run exactly once, and
// writes the merged report (or a report set of several backends).
#include "qspec/harness/report_merge.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/shard.h"
#include "qspec/harness/test_identity.h"

namespace qspec::harness {
namespace {

using OJ = nlohmann::ordered_json;

std::string test_key(const OJ& t) {
  return t["file"].get<std::string>() + "#" + std::to_string(t["tcId"].get<std::int64_t>());
}

std::string backend_label(const OJ& r) {
  const OJ& b = r["backend"];
  std::string s = b["name"].get<std::string>();
  if (b.contains("version") && b["version"].is_string() && !b["version"].get<std::string>().empty())
    s += " " + b["version"].get<std::string>();
  return s;
}

std::string backend_key(const OJ& r) {
  const OJ& b = r["backend"];
  return b["name"].get<std::string>() + "\n" +
         (b.contains("version") && b["version"].is_string() ? b["version"].get<std::string>() : "");
}

bool is_count(const OJ& j) { return j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0); }

// The "selection" record of a report (absent in reports of qspec before sharding existed).
struct Selection {
  bool present = false;
  std::size_t tests = 0;
  std::string fingerprint;
  std::optional<ShardSpec> shard;
  std::size_t shard_tests = 0;
};

Selection selection_of(const LoadedReport& r) {
  Selection s;
  if (!r.report.contains("selection")) return s;
  const OJ& j = r.report["selection"];
  const auto bad = [&](const std::string& what) { return MergeError(r.source + ": malformed \"selection\": " + what); };
  if (!j.is_object() || !j.contains("tests") || !is_count(j["tests"])) throw bad("\"tests\" must be a count");
  if (!j.contains("fingerprint") || !j["fingerprint"].is_string()) throw bad("\"fingerprint\" must be a string");
  s.present = true;
  s.tests = j["tests"].get<std::size_t>();
  s.fingerprint = j["fingerprint"].get<std::string>();
  s.shard_tests =
      j.contains("shard_tests") && is_count(j["shard_tests"]) ? j["shard_tests"].get<std::size_t>() : s.tests;
  if (j.contains("shard") && !j["shard"].is_null()) {
    const OJ& sh = j["shard"];
    if (!sh.is_object() || !sh.contains("index") || !sh.contains("count") || !is_count(sh["index"]) ||
        !is_count(sh["count"]) || sh["count"].get<std::size_t>() == 0 ||
        sh["index"].get<std::size_t>() >= sh["count"].get<std::size_t>())
      throw bad("\"shard\" must be {\"index\": I, \"count\": N} with 0 <= I < N");
    s.shard = ShardSpec{sh["index"].get<std::size_t>(), sh["count"].get<std::size_t>()};
  }
  return s;
}

// What the summary counts need of a test (Counts::add).
TestOutcome outcome_of(const OJ& t, const std::string& source) {
  TestOutcome o;
  o.file = t["file"].get<std::string>();
  o.tc_id = t["tcId"].get<std::int64_t>();
  o.op = t.value("op", "");
  o.convention = t.value("convention", "");
  if (t.contains("clauses") && t["clauses"].is_array())
    for (const auto& c : t["clauses"])
      if (c.is_string()) o.clauses.push_back(c.get<std::string>());
  const std::string name = t["verdict"].get<std::string>();
  const auto v = verdict_from_name(name);
  if (!v)
    throw MergeError(source + ": test " + test_key(t) + " has the unknown verdict '" + name +
                     "' (a report of a newer qspec?)");
  o.verdict = *v;
  o.as_expected = t.value("as_expected", true);
  o.unexpected_pass = t.value("unexpected_pass", false);
  if (t.contains("expected_verdict") && t["expected_verdict"].is_string())
    o.expected_verdict = verdict_from_name(t["expected_verdict"].get<std::string>());
  if (t.contains("index") && is_count(t["index"])) o.index = t["index"].get<std::size_t>();
  return o;
}

std::string list_text(const std::vector<std::string>& items, std::size_t max_items = 8) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < max_items; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > max_items) s += ", ... (" + std::to_string(items.size()) + " in all)";
  return s;
}

// Checks that the reports of one backend are the shards of one run (or one whole run); returns
// the selection they share (nullptr if every report is an interrupted one).
const Selection* check_shards(const std::vector<const LoadedReport*>& g, const std::vector<Selection>& sel,
                              const MergeOptions& opt, std::vector<std::string>& warnings) {
  const std::string backend = backend_label(g[0]->report);
  // An interrupted run (SIGINT, a checkpoint) stopped before it saw its whole selection, so its
  // selection record is partial too: name the cause instead of a selection mismatch.
  std::size_t whole = g.size();  // a report that is not interrupted, to compare the others with
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (!g[i]->report.value("interrupted", false)) {
      if (whole == g.size()) whole = i;
      continue;
    }
    const std::string msg = g[i]->source + " is an interrupted run of backend " + backend + " (" +
                            std::to_string(g[i]->report["tests"].size()) +
                            " tests done): finish it with `qspec run ... --resume " + g[i]->source + "`";
    if (!opt.allow_incomplete) throw MergeError(msg + ", or pass --allow-incomplete");
    warnings.push_back(msg);
  }
  if (whole == g.size()) return nullptr;  // only interrupted reports: nothing to check them against
  const Selection& ref = sel[whole];
  for (std::size_t i = 0; i < g.size(); ++i)
    if (i != whole && !g[i]->report.value("interrupted", false) &&
        (sel[i].tests != sel[whole].tests || sel[i].fingerprint != sel[whole].fingerprint))
      throw MergeError(g[whole]->source + " and " + g[i]->source + " are runs of different test selections (" +
                       std::to_string(sel[whole].tests) + " tests, " + sel[whole].fingerprint + " vs " +
                       std::to_string(sel[i].tests) + " tests, " + sel[i].fingerprint +
                       "): other vector files or --filter; only the shards of one run merge");
  if (g.size() > 1)
    for (std::size_t i = 0; i < g.size(); ++i)
      if (!sel[i].shard)
        throw MergeError(g[i]->source + " is a whole run of backend " + backend + ", not a shard: it overlaps " +
                         g[i == 0 ? 1 : 0]->source + " (only the shards of one run merge)");
  if (!ref.shard) return &ref;
  const std::size_t n = ref.shard->count;
  std::map<std::size_t, std::string> seen;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (sel[i].shard->count != n)
      throw MergeError(g[whole]->source + " is shard " + shard_text(*ref.shard) + " but " + g[i]->source +
                       " is shard " + shard_text(*sel[i].shard) + ": different shard counts");
    const auto [it, fresh] = seen.emplace(sel[i].shard->index, g[i]->source);
    if (!fresh)
      throw MergeError("shard " + shard_text(*sel[i].shard) + " of backend " + backend +
                       " is given twice: " + it->second + " and " + g[i]->source + " (overlapping shards)");
    // Each test must sit in the shard its selection position says (a renamed or mislabelled file).
    for (const auto& t : g[i]->report["tests"])
      if (t.contains("index") && is_count(t["index"]) && !in_shard(*sel[i].shard, t["index"].get<std::size_t>())) {
        const std::size_t p = t["index"].get<std::size_t>();
        throw MergeError(g[i]->source + " says it is shard " + shard_text(*sel[i].shard) + " but holds " + test_key(t) +
                         " at selection position " + std::to_string(p) + ", which belongs to shard " +
                         shard_text(ShardSpec{p % n, n}));
      }
    const std::size_t have = g[i]->report["tests"].size();
    const std::size_t want = shard_size(*sel[i].shard, ref.tests);
    if (have != want && !g[i]->report.value("interrupted", false)) {  // (an interrupted one was named above)
      const std::string msg = g[i]->source + " (shard " + shard_text(*sel[i].shard) + " of backend " + backend +
                              ") holds " + std::to_string(have) + " of its " + std::to_string(want) + " tests" +
                              (have < want ? " (an interrupted run?)" : "");
      if (have > want || !opt.allow_incomplete) throw MergeError(msg);
      warnings.push_back(msg);
    }
  }
  std::vector<std::string> missing;
  std::size_t uncovered = 0;
  for (std::size_t k = 0; k < n; ++k)
    if (!seen.count(k)) {
      missing.push_back(shard_text(ShardSpec{k, n}));
      uncovered += shard_size(ShardSpec{k, n}, ref.tests);
    }
  if (!missing.empty()) {
    const std::string msg = "backend " + backend + ": missing shard" + (missing.size() == 1 ? " " : "s ") +
                            list_text(missing, 16) + " (" + std::to_string(uncovered) + " of " +
                            std::to_string(ref.tests) + " tests not covered); pass every shard's report";
    if (!opt.allow_incomplete) throw MergeError(msg + ", or --allow-incomplete");
    warnings.push_back(msg);
  }
  return &ref;
}

// Top-level keys the merge computes itself; every other key is carried over from the inputs.
bool computed_key(const std::string& k) {
  return k == "schema" || k == "run" || k == "backend" || k == "selection" || k == "summary" || k == "files" || k == "tests";
}

// The identity digest (test_identity.h) of report tests, from their own fields; nullopt if a
// test lacks its selection position.
std::optional<std::uint64_t> identity_of(const std::vector<const OJ*>& tests) {
  std::uint64_t d = 0;
  for (const OJ* t : tests) {
    if (!t->contains("index") || !is_count((*t)["index"])) return std::nullopt;
    d += test_identity_hash((*t)["index"].get<std::size_t>(), (*t)["file"].get<std::string>(), (*t)["tcId"].get<std::int64_t>(),
                            t->value("op", ""), t->value("convention", ""));
  }
  return d;
}

std::string recorded_digest(const OJ& report, const char* key) {
  if (!report.contains("selection") || !report["selection"].is_object()) return "";
  const OJ& s = report["selection"];
  return s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : "";
}

// A test renamed, lost or invented after the run (a hand-edited report, reports mixed up) keeps
// counts and positions plausible; the identity digests do not (test_identity.h). Each report's
// tests must be those it was written with ("tests_identity"), and shards that together hold the
// whole selection must hold exactly its tests ("identity"). Reports without digests (an older
// qspec) are not checked.
void check_identities(const std::vector<const LoadedReport*>& g, const std::vector<const OJ*>& all_tests, const Selection* ref) {
  for (const auto* r : g) {
    const std::string recorded = recorded_digest(r->report, "tests_identity");
    if (recorded.empty()) continue;
    std::vector<const OJ*> tests;
    for (const auto& t : r->report["tests"]) tests.push_back(&t);
    const auto computed = identity_of(tests);
    if (computed && identity_digest_text(*computed) != recorded)
      throw MergeError(r->source + ": its tests are not the tests the run wrote (their identity digest is " +
                       identity_digest_text(*computed) + ", the report records " + recorded +
                       "): a test was renamed, removed or added after the run; rerun it instead of editing the report");
  }
  const std::string whole = recorded_digest(g[0]->report, "identity");
  if (!ref || whole.empty() || all_tests.size() != ref->tests) return;
  for (const auto* r : g)
    if (recorded_digest(r->report, "identity") != whole) return;  // (check_shards compared the fingerprints)
  const auto computed = identity_of(all_tests);
  if (computed && identity_digest_text(*computed) != whole)
    throw MergeError("the reports of backend " + backend_label(g[0]->report) + " hold " + std::to_string(all_tests.size()) +
                     " tests, as many as the run selected, but not the same tests (identity digest " + identity_digest_text(*computed) +
                     ", the run's is " + whole + "): a test is missing and another one is in its place");
}

// The "run" record (versions, host, times) of merged reports: the earliest start, the latest
// finish (null if a report has none), one host or all of them, and a warning when the reports
// were written by different qspec or contract versions.
OJ merged_run_record(const std::vector<const LoadedReport*>& g, std::vector<std::string>& warnings) {
  std::vector<const OJ*> runs;
  for (const auto* r : g)
    if (r->report.contains("run") && r->report["run"].is_object()) runs.push_back(&r->report["run"]);
  if (runs.empty()) return nullptr;
  OJ out = *runs[0];
  OJ hosts = OJ::array();
  bool unfinished = false;
  for (const OJ* run : runs) {
    for (const char* key : {"qspec_version", "contract_version"})
      if (run->value(key, OJ()) != runs[0]->value(key, OJ()))
        warnings.push_back("the reports of backend " + backend_label(g[0]->report) + " were written with different " + key + "s (" +
                           runs[0]->value(key, OJ()).dump() + " and " + run->value(key, OJ()).dump() + ")");
    const OJ started = run->value("started", OJ());
    if (started.is_string() && (!out["started"].is_string() || started.get<std::string>() < out["started"].get<std::string>()))
      out["started"] = started;
    const OJ finished = run->value("finished", OJ());
    if (!finished.is_string()) unfinished = true;
    else if (!out["finished"].is_string() || finished.get<std::string>() > out["finished"].get<std::string>()) out["finished"] = finished;
    if (run->contains("host") && std::find(hosts.begin(), hosts.end(), (*run)["host"]) == hosts.end()) hosts.push_back((*run)["host"]);
  }
  if (unfinished) out["finished"] = nullptr;
  if (hosts.size() > 1) {
    out.erase("host");
    out["hosts"] = hosts;
  }
  return out;
}

// One value for a carried-over key: the common value; for differing values true wins for
// booleans ("interrupted"), arrays are united ("skipped" files); otherwise the first, with a warning.
OJ combine(const std::string& key, const std::vector<const LoadedReport*>& g, std::vector<std::string>& warnings) {
  std::vector<const OJ*> values;
  for (const auto* r : g)
    if (r->report.contains(key)) values.push_back(&r->report[key]);
  OJ out = *values[0];
  bool differ = false;
  for (const OJ* v : values) differ |= *v != out;
  if (!differ) return out;
  if (out.is_boolean()) {
    bool any = false;
    for (const OJ* v : values) any |= v->is_boolean() && v->get<bool>();
    return any;
  }
  if (out.is_array()) {
    std::set<std::string> have;
    OJ u = OJ::array();
    for (const OJ* v : values)
      if (v->is_array())
        for (const auto& item : *v)
          if (have.insert(item.dump()).second) u.push_back(item);
    return u;
  }
  warnings.push_back("the reports of backend " + backend_label(g[0]->report) + " differ in \"" + key + "\"; kept " +
                     g[0]->source + "'s value");
  return out;
}

OJ merge_group(const std::vector<const LoadedReport*>& g, const MergeOptions& opt, std::vector<std::string>& warnings) {
  std::vector<Selection> sel;
  for (const auto* r : g) sel.push_back(selection_of(*r));
  const bool recorded = std::all_of(sel.begin(), sel.end(), [](const Selection& s) { return s.present; });
  const Selection* ref = nullptr;
  if (recorded) {
    ref = check_shards(g, sel, opt, warnings);
  } else if (g.size() > 1) {
    for (std::size_t i = 0; i < g.size(); ++i)
      if (!sel[i].present)
        warnings.push_back("cannot check that the reports of backend " + backend_label(g[0]->report) +
                           " cover one run: " + g[i]->source +
                           " has no \"selection\" record (an older qspec); merged as a union of tests");
  }
  for (std::size_t i = 1; i < g.size(); ++i)
    if (g[i]->report["backend"].value("source", "") != g[0]->report["backend"].value("source", ""))
      warnings.push_back("backend " + backend_label(g[0]->report) + " was loaded from " +
                         g[0]->report["backend"].value("source", "?") + " in " + g[0]->source + " but from " +
                         g[i]->report["backend"].value("source", "?") + " in " + g[i]->source);

  // Every test exactly once: by selection position when the reports record it (two vector files
  // given by different --vectors directories may share a name), else by file#tcId. One report
  // is taken as it is.
  struct Entry {
    const OJ* test;
    const std::string* source;
  };
  std::vector<Entry> tests;
  for (const auto* r : g)
    for (const auto& t : r->report["tests"]) tests.push_back({&t, &r->source});
  const bool indexed = std::all_of(tests.begin(), tests.end(), [](const Entry& e) {
    return e.test->contains("index") && is_count((*e.test)["index"]);
  });
  const bool by_position = recorded && indexed;
  if (g.size() > 1) {
    std::map<std::string, const Entry*> first;
    std::vector<std::string> duplicates;
    for (const Entry& e : tests) {
      const std::string key =
          by_position ? "#" + std::to_string((*e.test)["index"].get<std::size_t>()) : test_key(*e.test);
      const auto [it, fresh] = first.emplace(key, &e);
      if (!fresh) duplicates.push_back(test_key(*e.test) + " (" + *it->second->source + " and " + *e.source + ")");
    }
    if (!duplicates.empty())
      throw MergeError("backend " + backend_label(g[0]->report) +
                       ": tests reported more than once (overlapping shards or runs): " + list_text(duplicates, 5));
  }
  if (by_position)
    std::stable_sort(tests.begin(), tests.end(), [](const Entry& a, const Entry& b) {
      return (*a.test)["index"].get<std::size_t>() < (*b.test)["index"].get<std::size_t>();
    });

  {
    std::vector<const OJ*> all;
    for (const Entry& e : tests) all.push_back(e.test);
    check_identities(g, all, ref);
  }

  // The run this would have been, as far as the summary needs it; json_report computes the rest.
  // A run's tests of one file are consecutive in selection order, so in that order a file
  // starts where the name changes (two files of one name stay two, as in the run's report).
  RunResult rr;
  const OJ& b = g[0]->report["backend"];
  rr.backend_name = b["name"].get<std::string>();
  rr.backend_version = b.value("version", "");
  rr.backend_source = b.value("source", "");
  std::map<std::string, std::size_t> file_pos;
  for (const Entry& e : tests) {
    TestOutcome o = outcome_of(*e.test, *e.source);
    std::size_t pos;
    if (by_position) {
      if (rr.files.empty() || rr.files.back().file != o.file)
        rr.files.push_back(FileResult{o.file, o.op, o.convention, o.clauses, {}});
      pos = rr.files.size() - 1;
    } else {
      auto [it, fresh] = file_pos.emplace(o.file, rr.files.size());
      if (fresh) rr.files.push_back(FileResult{o.file, o.op, o.convention, o.clauses, {}});
      pos = it->second;
    }
    rr.files[pos].counts.add(o);
    rr.counts.add(o);
    rr.outcomes.push_back(std::move(o));
  }
  rr.selected_total = ref ? ref->tests : tests.size();
  rr.selection_fingerprint = ref ? ref->fingerprint : "";
  if (ref) {  // the run's selection digest, read back (json_report writes it from this number)
    const std::string whole = recorded_digest(g[0]->report, "identity");
    if (whole.rfind("sum64:", 0) == 0) rr.selection_identity = std::strtoull(whole.c_str() + 6, nullptr, 16);
  }
  if (ref && g.size() == 1 && ref->shard) rr.shard = ref->shard;  // one shard (--allow-incomplete): still that shard
  // Each file's fingerprint (`qspec run --resume` checks it) is the same in every shard: it is
  // taken before sharding.
  for (const auto* r : g)
    if (r->report.contains("files") && r->report["files"].is_array())
      for (const auto& f : r->report["files"])
        if (f.is_object() && f.contains("file") && f["file"].is_string() && f.contains("fingerprint") &&
            f["fingerprint"].is_string())
          rr.file_fingerprints.emplace(f["file"].get<std::string>(), f["fingerprint"].get<std::string>());

  OJ j = json_report(rr);
  OJ merged_tests = OJ::array();
  for (const Entry& e : tests) merged_tests.push_back(*e.test);
  j["tests"] = std::move(merged_tests);
  j["backend"] = b;
  if (OJ run = merged_run_record(g, warnings); !run.is_null()) j["run"] = std::move(run);
  else j.erase("run");
  std::vector<std::string> keys;
  for (const auto* r : g)
    for (const auto& [k, v] : r->report.items())
      if (!computed_key(k) && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  for (const auto& k : keys) j[k] = combine(k, g, warnings);
  // An input error of a shard (exit status 2: a skipped vector file) stays one.
  int exit_code = j["summary"].value("exit_code", 0);
  for (const auto* r : g)
    if (r->report.contains("summary") && r->report["summary"].is_object() &&
        r->report["summary"].value("exit_code", 0) == 2)
      exit_code = 2;
  j["summary"]["exit_code"] = exit_code;
  return j;
}

}  // namespace

void check_report(const std::string& source, const OJ& r) {
  const auto bad = [&](const std::string& what) { return MergeError(source + ": not a usable qspec report: " + what); };
  if (!r.is_object()) throw bad("not a JSON object");
  if (!r.contains("schema") || r["schema"] != kReportSchema)
    throw bad(std::string("\"schema\" is not \"") + kReportSchema + "\"");
  if (!r.contains("backend") || !r["backend"].is_object() || !r["backend"].contains("name") ||
      !r["backend"]["name"].is_string())
    throw bad("no backend.name");
  if (!r.contains("tests") || !r["tests"].is_array()) throw bad("no \"tests\" array");
  std::size_t i = 0;
  for (const auto& t : r["tests"]) {
    if (!t.is_object() || !t.contains("file") || !t["file"].is_string() || !t.contains("tcId") ||
        !t["tcId"].is_number_integer() || !t.contains("verdict") || !t["verdict"].is_string())
      throw bad("tests[" + std::to_string(i) +
                "] lacks a string \"file\", an integer \"tcId\" or a string \"verdict\"");
    ++i;
  }
}

std::vector<LoadedReport> read_report_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MergeError(path.string() + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  OJ j;
  try {
    j = OJ::parse(ss.str());
  } catch (const nlohmann::json::exception& e) {
    throw MergeError(path.string() + ": not JSON: " + e.what());
  }
  std::vector<LoadedReport> out;
  if (j.is_object() && j.contains("schema") && j["schema"] == kReportSetSchema) {
    if (!j.contains("reports") || !j["reports"].is_array())
      throw MergeError(path.string() + ": a report set without a \"reports\" array");
    for (std::size_t i = 0; i < j["reports"].size(); ++i) {
      LoadedReport r{path.string() + "[" + std::to_string(i) + "]", j["reports"][i]};
      check_report(r.source, r.report);
      out.push_back(std::move(r));
    }
    return out;
  }
  check_report(path.string(), j);
  out.push_back(LoadedReport{path.string(), std::move(j)});
  return out;
}

MergeResult merge_reports(const std::vector<LoadedReport>& inputs, const MergeOptions& options) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const LoadedReport*>> groups;
  for (const auto& r : inputs) {
    check_report(r.source, r.report);
    const std::string k = backend_key(r.report);
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(&r);
  }
  MergeResult out;
  for (const auto& k : order) out.reports.push_back(merge_group(groups[k], options, out.warnings));
  return out;
}

OJ report_document(const std::vector<OJ>& reports) {
  if (reports.size() == 1) return reports[0];
  OJ set = OJ::object();
  set["schema"] = kReportSetSchema;
  set["reports"] = reports;
  return set;
}

int reports_exit_code(const std::vector<OJ>& reports) {
  int rc = 0;
  for (const auto& r : reports)
    if (r.contains("summary") && r["summary"].is_object()) rc = std::max(rc, r["summary"].value("exit_code", 0));
  return rc;
}

}  // namespace qspec::harness
