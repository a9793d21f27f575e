// Measurements (summary.h): reducing a run, the machine it ran on, JSON files, comparison.
#include "summary.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "qspec/harness/expectations.h"

namespace qspec::thirdparty_report {
namespace fs = std::filesystem;

namespace {

// The /proc/cpuinfo flags that decide which kernels oneDNN, XNNPACK, libtorch and gemmlowp run.
const std::set<std::string> kRelevantFlags = {"sse4_1",   "sse4_2",   "avx",         "avx2",        "fma",
                                              "f16c",     "xop",      "avx512f",     "avx512dq",    "avx512cd",
                                              "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
                                              "avx_vnni", "amx_tile", "amx_int8",    "amx_bf16"};

nlohmann::json counts_json(const Counts& c) {
  return {{"PASS", c.pass},   {"FAIL", c.fail},       {"ERROR", c.error},      {"UNSUPPORTED", c.unsupported},
          {"CRASH", c.crash}, {"TIMEOUT", c.timeout}, {"expected", c.expected}};
}

Counts counts_from(const nlohmann::json& j) {
  Counts c;
  c.pass = j.at("PASS").get<std::int64_t>();
  c.fail = j.at("FAIL").get<std::int64_t>();
  c.error = j.at("ERROR").get<std::int64_t>();
  c.unsupported = j.at("UNSUPPORTED").get<std::int64_t>();
  c.crash = j.at("CRASH").get<std::int64_t>();
  c.timeout = j.at("TIMEOUT").get<std::int64_t>();
  c.expected = j.at("expected").get<std::int64_t>();
  return c;
}

// The fields of an outcome the page shows (its representative vector and what it matches).
Outcome page_fields(const Outcome& o) {
  Outcome m;
  m.file = o.file;
  m.tc_id = o.tc_id;
  m.op = o.op;
  m.convention = o.convention;
  m.verdict = o.verdict;
  m.reason = o.reason;
  m.diff_output = o.diff_output;
  m.diff_expected = o.diff_expected;
  m.diff_actual = o.diff_actual;
  m.diff_index = o.diff_index;
  m.differing = o.differing;
  m.total = o.total;
  m.matching = o.matching;
  m.matching_diagnostic = o.matching_diagnostic;
  m.closest = o.closest;
  m.closest_differing = o.closest_differing;
  return m;
}

nlohmann::json outcome_json(const Outcome& o) {
  return {
      {"file", o.file},
      {"tcId", o.tc_id},
      {"verdict", o.verdict},
      {"reason", o.reason},
      {"diff",
       {{"output", o.diff_output}, {"index", o.diff_index}, {"expected", o.diff_expected}, {"actual", o.diff_actual}}},
      {"differing_elements", o.differing},
      {"total_elements", o.total},
      {"matching", o.matching},
      {"matching_diagnostic", o.matching_diagnostic},
      {"closest", o.closest},
      {"closest_differing", o.closest_differing}};
}

Outcome outcome_from(const nlohmann::json& j, const std::string& op, const std::string& convention) {
  Outcome o;
  o.file = j.at("file").get<std::string>();
  o.tc_id = j.at("tcId").get<std::int64_t>();
  o.op = op;
  o.convention = convention;
  o.verdict = j.at("verdict").get<std::string>();
  o.reason = j.at("reason").get<std::string>();
  const auto& d = j.at("diff");
  o.diff_output = d.at("output").get<std::string>();
  o.diff_index = d.at("index").get<std::string>();
  o.diff_expected = d.at("expected").get<std::string>();
  o.diff_actual = d.at("actual").get<std::string>();
  o.differing = j.at("differing_elements").get<std::int64_t>();
  o.total = j.at("total_elements").get<std::int64_t>();
  o.matching = j.at("matching").get<std::vector<std::string>>();
  o.matching_diagnostic = j.at("matching_diagnostic").get<std::vector<std::string>>();
  o.closest = j.at("closest").get<std::string>();
  o.closest_differing = j.at("closest_differing").get<std::int64_t>();
  return o;
}

// The harness's reason for a test whose (op, convention) the backend does not claim.
bool not_claimed(const Outcome& o) { return o.reason.rfind("backend does not implement", 0) == 0; }

}  // namespace

std::string normalize_reason(const std::string& r) {
  std::string out;
  auto word_char = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < r.size(); ++i) {
    const bool starts_number = std::isdigit(static_cast<unsigned char>(r[i])) && (i == 0 || !word_char(r[i - 1])) &&
                               (i == 0 || !std::isdigit(static_cast<unsigned char>(r[i - 1])));
    if (!starts_number) {
      out += r[i];
      continue;
    }
    std::size_t j = i;
    while (j < r.size() && (std::isdigit(static_cast<unsigned char>(r[j])) || r[j] == '.' || r[j] == 'e')) ++j;
    if (j < r.size() && word_char(r[j])) {  // part of a word after all ("2d")
      out += r[i];
      continue;
    }
    if (!out.empty() && out.back() == '-') out.pop_back();
    out += 'N';
    i = j - 1;
  }
  return out;
}

Machine this_machine(const std::string& setting) {
  Machine m;
  m.setting = setting;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  bool have_flags = false;
  while (std::getline(in, line) && (m.cpu.empty() || !have_flags)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "model name" && m.cpu.empty()) m.cpu = value;
    if (key == "flags" && !have_flags) {
      have_flags = true;
      std::istringstream fs(value);
      std::string f;
      while (fs >> f)
        if (kRelevantFlags.count(f)) m.flags.push_back(f);
      std::sort(m.flags.begin(), m.flags.end());
    }
  }
  if (m.cpu.empty()) m.cpu = "unknown";
  return m;
}

std::string RunSummary::file_name() const { return label + "." + mode + "." + (isa.empty() ? "fixed" : isa) + ".json"; }

RunSummary summarize(const Run& run, const Machine& machine) {
  RunSummary s;
  s.label = run.library;
  s.mode = run.mode;
  s.version = run.version;
  s.isa = harness::isa_of_version(run.version);
  s.machine = machine;
  std::map<std::pair<std::string, std::string>, std::int64_t> unclaimed;
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::int64_t>> sigs;
  for (const auto& o : run.outcomes) {
    if (not_claimed(o)) ++unclaimed[{o.op, o.convention}];
    if (o.verdict != "PASS" && o.verdict != "UNSUPPORTED") ++sigs[{o.op, o.convention}][failure_signature(o)];
    if (o.verdict == "UNSUPPORTED" && !not_claimed(o)) ++s.unsupported[o.op + ": " + normalize_reason(o.reason)];
  }
  for (const auto& [k, c] : counts_by_op_convention(run)) {
    Row r;
    r.op = k.first;
    r.convention = k.second;
    r.counts = c;
    r.unclaimed = unclaimed[k];
    r.signatures = sigs[k];
    s.rows.push_back(std::move(r));
  }
  // Every test of each class (native runs: the --expect files are written from them).
  std::map<std::string, std::vector<std::string>> tests;
  if (run.mode == "native")
    for (const auto& o : run.outcomes)
      if (o.verdict != "PASS" && o.verdict != "UNSUPPORTED")
        tests[o.op + "|" + o.convention + "|" + failure_kind(o)].push_back(o.file + "#" + std::to_string(o.tc_id) +
                                                                           " " + o.verdict);
  for (const auto& c : deviation_classes(run)) {
    ClassSummary cs;
    cs.op = c.op;
    cs.convention = c.convention;
    cs.kind = c.kind;
    cs.count = c.count;
    cs.of_tests = c.of_tests;
    cs.signatures = c.signatures;
    if (c.minimal) cs.minimal = page_fields(*c.minimal);
    cs.tests = tests[c.op + "|" + c.convention + "|" + c.kind];
    std::sort(cs.tests.begin(), cs.tests.end());
    s.classes.push_back(std::move(cs));
  }
  std::sort(s.classes.begin(), s.classes.end(), [](const ClassSummary& a, const ClassSummary& b) {
    return std::tie(a.op, a.convention, a.kind) < std::tie(b.op, b.convention, b.kind);
  });
  return s;
}

nlohmann::json to_json(const RunSummary& s) {
  nlohmann::json j;
  j["schema"] = "qspec-thirdparty-measurement/1";
  j["label"] = s.label;
  j["mode"] = s.mode;
  j["version"] = s.version;
  j["isa"] = s.isa;
  j["machine"] = {{"cpu", s.machine.cpu}, {"flags", s.machine.flags}, {"setting", s.machine.setting}};
  j["rows"] = nlohmann::json::array();
  for (const auto& r : s.rows)
    j["rows"].push_back({{"op", r.op},
                         {"convention", r.convention},
                         {"counts", counts_json(r.counts)},
                         {"unclaimed", r.unclaimed},
                         {"signatures", r.signatures}});
  j["unsupported"] = s.unsupported;
  j["classes"] = nlohmann::json::array();
  for (const auto& c : s.classes)
    j["classes"].push_back({{"op", c.op},
                            {"convention", c.convention},
                            {"kind", c.kind},
                            {"count", c.count},
                            {"of_tests", c.of_tests},
                            {"signatures", c.signatures},
                            {"minimal", outcome_json(c.minimal)},
                            {"tests", c.tests}});
  return j;
}

RunSummary summary_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    if (j.value("schema", "") != "qspec-thirdparty-measurement/1")
      throw std::runtime_error("\"schema\" is not \"qspec-thirdparty-measurement/1\"");
    RunSummary s;
    s.label = j.at("label").get<std::string>();
    s.mode = j.at("mode").get<std::string>();
    s.version = j.at("version").get<std::string>();
    s.isa = j.at("isa").get<std::string>();
    s.machine.cpu = j.at("machine").at("cpu").get<std::string>();
    s.machine.flags = j.at("machine").at("flags").get<std::vector<std::string>>();
    s.machine.setting = j.at("machine").at("setting").get<std::string>();
    for (const auto& r : j.at("rows")) {
      Row row;
      row.op = r.at("op").get<std::string>();
      row.convention = r.at("convention").get<std::string>();
      row.counts = counts_from(r.at("counts"));
      row.unclaimed = r.at("unclaimed").get<std::int64_t>();
      row.signatures = r.at("signatures").get<std::map<std::string, std::int64_t>>();
      s.rows.push_back(std::move(row));
    }
    s.unsupported = j.at("unsupported").get<std::map<std::string, std::int64_t>>();
    for (const auto& c : j.at("classes")) {
      ClassSummary cs;
      cs.op = c.at("op").get<std::string>();
      cs.convention = c.at("convention").get<std::string>();
      cs.kind = c.at("kind").get<std::string>();
      cs.count = c.at("count").get<std::int64_t>();
      cs.of_tests = c.at("of_tests").get<std::int64_t>();
      cs.signatures = c.at("signatures").get<std::map<std::string, std::int64_t>>();
      cs.minimal = outcome_from(c.at("minimal"), cs.op, cs.convention);
      cs.tests = c.at("tests").get<std::vector<std::string>>();
      s.classes.push_back(std::move(cs));
    }
    return s;
  } catch (const std::exception& e) {
    throw std::runtime_error(where + ": not a usable measurement: " + e.what());
  }
}

std::vector<RunSummary> load_measurements(const std::string& dir) {
  std::vector<RunSummary> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("no measurements directory " + dir);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::ifstream in(p);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
      throw std::runtime_error(p.string() + ": not JSON: " + e.what());
    }
    out.push_back(summary_from_json(j, p.string()));
    if (out.back().file_name() != p.filename().string())
      throw std::runtime_error(p.string() + ": holds the measurement " + out.back().key() + ", which belongs in " +
                               out.back().file_name());
  }
  return out;
}

void save_measurement(const std::string& dir, const RunSummary& s) {
  fs::create_directories(dir);
  const fs::path p = fs::path(dir) / s.file_name();
  {
    std::ofstream f(p.string() + ".tmp");
    f << to_json(s).dump(1) << "\n";
    if (!f) throw std::runtime_error("cannot write " + p.string());
  }
  fs::rename(p.string() + ".tmp", p);
}

std::vector<Row> RunSummary::claimed_rows() const {
  std::vector<Row> out;
  for (const auto& r : rows)
    if (r.unclaimed != r.counts.total()) out.push_back(r);
  return out;
}

std::string RunSummary::difference(const RunSummary& o) const {
  std::ostringstream d;
  if (version != o.version) d << "  version: \"" << version << "\" here, \"" << o.version << "\" recorded\n";
  std::map<std::pair<std::string, std::string>, Row> mine, theirs;
  for (const auto& r : claimed_rows()) mine[{r.op, r.convention}] = r;
  for (const auto& r : o.claimed_rows()) theirs[{r.op, r.convention}] = r;
  auto counts_text = [](const Row* r) {
    if (!r) return std::string("absent");
    const Counts& c = r->counts;
    return std::to_string(c.pass) + " PASS, " + std::to_string(c.fail) + " FAIL, " + std::to_string(c.unsupported) +
           " UNSUPPORTED, " + std::to_string(c.error + c.crash + c.timeout) + " ERROR/CRASH/TIMEOUT, " +
           std::to_string(c.expected) + " known";
  };
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [k, r] : mine) keys.insert(k);
  for (const auto& [k, r] : theirs) keys.insert(k);
  for (const auto& k : keys) {
    const Row* a = mine.count(k) ? &mine[k] : nullptr;
    const Row* b = theirs.count(k) ? &theirs[k] : nullptr;
    if (a && b && *a == *b) continue;
    if (a && b && a->counts == b->counts)
      d << "  " << k.first << " / " << k.second << ": same counts, other failure signatures\n";
    else
      d << "  " << k.first << " / " << k.second << ": " << counts_text(a) << " here; " << counts_text(b)
        << " recorded\n";
  }
  if (unsupported != o.unsupported) d << "  the UNSUPPORTED reasons differ\n";
  std::map<std::string, const ClassSummary*> cm, co;
  for (const auto& c : classes) cm[c.op + "|" + c.convention + "|" + c.kind] = &c;
  for (const auto& c : o.classes) co[c.op + "|" + c.convention + "|" + c.kind] = &c;
  for (const auto& [k, c] : cm)
    if (!co.count(k))
      d << "  deviation class " << k << " (" << c->count << " tests) is new here\n";
    else if (!(*c == *co[k]))
      d << "  deviation class " << k << " differs (" << c->count << " tests here, " << co[k]->count << " recorded)\n";
  for (const auto& [k, c] : co)
    if (!cm.count(k)) d << "  deviation class " << k << " (" << c->count << " tests recorded) does not occur here\n";
  return d.str();
}

std::vector<MeasuredClass> measured_classes(const std::vector<RunSummary>& runs) {
  std::vector<MeasuredClass> out;
  for (const auto& r : runs)
    for (const auto& c : r.classes) out.push_back({&r, &c});
  return out;
}

}  // namespace qspec::thirdparty_report
