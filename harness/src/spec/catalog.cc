// Parses clause headings from spec/*.md and finds every place in the tree that names a clause.
#include "qspec/spec/catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "text_trim.h"

namespace fs = std::filesystem;

namespace qspec::spec {
namespace {

const std::regex kClauseHeading(R"(^###\s+`([a-z0-9_]+(?:\.[a-z0-9_]+)+)`\s*[:\-]?\s*(.*)$)");
const std::regex kAnyBacktickHeading(R"(^###\s+`([^`]*)`)");
const std::regex kVectorsNone(R"(^\*\*Vectors\.\*\*\s+none\b(.*)$)");
const std::regex kExemptionKey(R"(^\s*\(([a-z-]+)\):\s*(.*)$)");
const std::regex kBacktickId(R"(`([a-z0-9_]+(?:\.[a-z0-9_]+)+)`)");
// A tag is a line of its own: "// spec: <id>". Anything else mentioning "spec:" is prose.
const std::regex kSpecTagLine(R"(^\s*//\s*spec:\s*([a-z0-9_]+(?:\.[a-z0-9_]+)+)\s*$)");
const std::regex kSpecTagAnywhere(R"(//\s*spec:\s*([a-z0-9_]+(?:\.[a-z0-9_]+)+))");

std::vector<std::string> read_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  std::string l;
  while (std::getline(in, l)) lines.push_back(l);
  return lines;
}

std::vector<fs::path> files_under(const fs::path& dir, const std::vector<std::string>& exts) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && (it->path().filename() == "lint_fixtures" || it->path().filename() == "build")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    const auto ext = it->path().extension().string();
    if (std::find(exts.begin(), exts.end(), ext) != exts.end()) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string rel(const fs::path& root, const fs::path& p) { return fs::relative(p, root).generic_string(); }

// Which lines of a C/C++ file are live code: not inside /* */ and not inside #if 0 ... #endif.
std::vector<bool> live_lines(const std::vector<std::string>& lines) {
  std::vector<bool> live(lines.size(), true);
  bool in_block = false;
  int if0_depth = 0;  // > 0: inside #if 0 (counting nested #if inside it)
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (if0_depth > 0) {
      live[i] = false;
      if (t.rfind("#if", 0) == 0)
        ++if0_depth;
      else if (t.rfind("#endif", 0) == 0)
        --if0_depth;
      else if (if0_depth == 1 && (t.rfind("#else", 0) == 0 || t.rfind("#elif", 0) == 0))
        if0_depth = 0;
      continue;
    }
    if (!in_block && (t == "#if 0" || t.rfind("#if 0 ", 0) == 0)) {
      live[i] = false;
      if0_depth = 1;
      continue;
    }
    if (in_block) live[i] = false;
    // Track block comments outside string literals (good enough for this tree: no "/*" in strings
    // of files that carry tags).
    for (std::size_t k = 0; k < lines[i].size(); ++k) {
      if (!in_block && lines[i].compare(k, 2, "//") == 0) break;
      if (!in_block && lines[i].compare(k, 2, "/*") == 0) {
        in_block = true;
        if (t.rfind("/*", 0) == 0) live[i] = false;
        ++k;
      } else if (in_block && lines[i].compare(k, 2, "*/") == 0) {
        in_block = false;
        ++k;
      }
    }
  }
  return live;
}

// True if the tag at `i` is followed (after further comment lines) by a line of code.
bool tags_code(const std::vector<std::string>& lines, const std::vector<bool>& live, std::size_t i) {
  for (std::size_t k = i + 1; k < lines.size(); ++k) {
    if (!live[k]) return false;
    const std::string t = trim(lines[k]);
    if (t.empty()) return false;
    if (t.rfind("//", 0) == 0) continue;
    return true;
  }
  return false;
}

}  // namespace

std::string test_suite_name(const std::string& clause_id) {
  std::string s = clause_id;
  std::replace(s.begin(), s.end(), '.', '_');
  return s;
}

Scan scan_tree(const std::string& root_str) {
  const fs::path root(root_str);
  Scan s;
  std::map<std::string, std::string> seen;
  for (const auto& md : files_under(root / "spec", {".md"})) {
    const auto lines = read_lines(md);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::smatch m;
      if (std::regex_match(lines[i], m, kClauseHeading)) {
        Clause c{m[1], m[2], rel(root, md), static_cast<int>(i + 1), false, "", ""};
        for (std::size_t k = i + 1; k < lines.size() && lines[k].rfind("#", 0) != 0; ++k) {
          std::smatch v;
          if (!std::regex_match(lines[k], v, kVectorsNone)) continue;
          c.vectors_exempt = true;
          const std::string rest = v[1];
          std::smatch key;
          const std::string where = rel(root, md) + ":" + std::to_string(k + 1) + ": clause `" + c.id + "`";
          if (!std::regex_match(rest, key, kExemptionKey)) {
            s.catalogue_errors.push_back(
                where + ": a vectors exemption needs a reason key: '**Vectors.** none (<key>): <text>'");
            continue;
          }
          const std::string k_name = key[1];
          const bool known = std::any_of(std::begin(kExemptionReasons), std::end(kExemptionReasons),
                                         [&](const ExemptionReason& r) { return k_name == r.key; });
          if (!known) {
            std::string keys;
            for (const auto& r : kExemptionReasons) keys += std::string(keys.empty() ? "" : ", ") + r.key;
            s.catalogue_errors.push_back(where + ": unknown vectors exemption reason `" + k_name +
                                         "` (one of: " + keys + ")");
            continue;
          }
          c.vectors_exempt_key = k_name;
          c.vectors_exempt_reason = key[2];
        }
        const std::string where = c.file + ":" + std::to_string(c.line);
        if (auto it = seen.find(c.id); it != seen.end())
          s.catalogue_errors.push_back(where + ": clause `" + c.id + "` is defined twice (first at " + it->second +
                                       ")");
        else
          seen[c.id] = where;
        s.clauses.push_back(std::move(c));
      } else if (std::regex_search(lines[i], m, kAnyBacktickHeading)) {
        s.catalogue_errors.push_back(rel(root, md) + ":" + std::to_string(i + 1) + ": malformed clause ID `" +
                                     std::string(m[1]) + "` (expected lowercase dotted name)");
      }
    }
  }

  const std::vector<std::string> code_exts = {".h", ".hpp", ".cc", ".cpp", ".c", ".inc"};
  for (const char* dir : {"reference", "conformance", "harness", "backends", "bench", "tools", "vectors", "docs"}) {
    const bool is_reference = std::string(dir) == "reference";
    for (const auto& f : files_under(root / dir, code_exts)) {
      const auto lines = read_lines(f);
      const auto live = live_lines(lines);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        std::smatch m;
        if (is_reference && std::regex_match(lines[i], m, kSpecTagLine)) {
          Reference r{rel(root, f), static_cast<int>(i + 1), m[1]};
          (live[i] && tags_code(lines, live, i) ? s.reference_tags : s.ignored_tags).push_back(r);
          continue;
        }
        for (std::sregex_iterator it(lines[i].begin(), lines[i].end(), kSpecTagAnywhere), end; it != end; ++it) {
          Reference r{rel(root, f), static_cast<int>(i + 1), (*it)[1]};
          // Under reference/, a tag that is not a line of its own does not tag a function.
          (is_reference ? s.ignored_tags : s.other_tags).push_back(r);
        }
      }
    }
  }

  for (const auto& f : files_under(root / "vectors", {".json"})) {
    if (f.parent_path().filename() == "schema") continue;
    const std::string name = rel(root, f);
    try {
      std::ifstream in(f);
      const auto j = nlohmann::json::parse(in);
      long n = 0;  // the tests the file holds, not what its header says
      for (const auto& g : j.at("testGroups")) n += static_cast<long>(g.at("tests").size());
      if (j.contains("numberOfTests") && j.at("numberOfTests").get<long>() != n)
        s.vector_file_errors.push_back(name + ": header says numberOfTests " +
                                       std::to_string(j.at("numberOfTests").get<long>()) + " but the file holds " +
                                       std::to_string(n) + " tests");
      for (const auto& c : j.at("clauses")) {
        const std::string id = c.get<std::string>();
        s.vector_clause_refs.push_back({name, 0, id});
        s.vector_tests[id] += n;
      }
    } catch (const std::exception& e) {
      s.vector_file_errors.push_back(name + ": cannot read the clause list and tests: " + e.what());
    }
  }
  s.inventory = read_seed_inventory(root_str);
  return s;
}

LintResult lint(const Scan& s, const LintOptions& opt) {
  LintResult r;
  r.errors = s.catalogue_errors;
  for (const auto& e : s.vector_file_errors) r.errors.push_back(e);
  for (const auto& e : s.test_binary_errors) r.errors.push_back(e);
  if (s.test_binaries.empty())
    r.errors.push_back("no test binaries were listed: properties and tests cannot be checked");
  std::set<std::string> ids;
  std::map<std::string, std::string> by_suite;
  for (const auto& c : s.clauses) {
    ids.insert(c.id);
    const auto suite = test_suite_name(c.id);
    if (auto it = by_suite.find(suite); it != by_suite.end())
      r.errors.push_back(c.file + ":" + std::to_string(c.line) + ": clause `" + c.id + "` and `" + it->second +
                         "` map to the same test name " + suite);
    by_suite[suite] = c.id;
  }
  auto dangling = [&](const Reference& ref, const char* what) {
    if (!ids.count(ref.id))
      r.errors.push_back(ref.file + ":" + std::to_string(ref.line) + ": dangling clause ID `" + ref.id + "` in " +
                         what + " (no such clause in spec/)");
  };
  for (const auto& t : s.reference_tags) dangling(t, "a // spec: tag");
  for (const auto& t : s.ignored_tags) dangling(t, "a // spec: tag");
  for (const auto& t : s.other_tags) dangling(t, "a // spec: tag");
  for (const auto& t : s.vector_clause_refs) dangling(t, "a vector file's clause list");
  for (auto& e : check_seed_inventory(s.inventory, ids)) r.errors.push_back(std::move(e));

  std::set<std::string> with_ref, with_check, with_disabled_only;
  for (const auto& t : s.reference_tags) with_ref.insert(t.id);
  for (const auto& t : s.tests) {
    auto it = by_suite.find(t.suite);
    if (it == by_suite.end()) continue;
    (t.disabled ? with_disabled_only : with_check).insert(it->second);
  }
  std::map<std::string, const Reference*> first_ignored;
  for (const auto& t : s.ignored_tags) first_ignored.emplace(t.id, &t);
  for (const auto& c : s.clauses) {
    const std::string where = c.file + ":" + std::to_string(c.line) + ": clause `" + c.id + "`";
    if (!with_ref.count(c.id)) {
      std::string e =
          where + " has no reference function (a '// spec: " + c.id + "' line tagging code under reference/)";
      if (auto it = first_ignored.find(c.id); it != first_ignored.end())
        e += "; the tag at " + it->second->file + ":" + std::to_string(it->second->line) +
             " does not count (it is inside a comment or #if 0, shares its line, or tags no code)";
      r.errors.push_back(e);
    }
    if (!with_check.count(c.id)) {
      std::string e =
          where + " has no property or test named " + test_suite_name(c.id) + " registered by a test binary";
      if (with_disabled_only.count(c.id)) e += " (only DISABLED_ ones, which never run)";
      r.errors.push_back(e);
    }
    if (c.vectors_exempt && c.vectors_exempt_key == "exercised-by") {
      bool names_covered = false;
      for (std::sregex_iterator it(c.vectors_exempt_reason.begin(), c.vectors_exempt_reason.end(), kBacktickId), end;
           it != end; ++it) {
        auto v = s.vector_tests.find((*it)[1]);
        names_covered = names_covered || (v != s.vector_tests.end() && v->second > 0);
      }
      if (!names_covered)
        r.errors.push_back(where + ": '(exercised-by)' must name, back-quoted, a clause that has vectors");
    }
    if (opt.require_vectors && !c.vectors_exempt) {
      auto it = s.vector_tests.find(c.id);
      if (it == s.vector_tests.end() || it->second == 0)
        r.errors.push_back(where + " has no vectors (and no '**Vectors.** none (<key>): <text>' exemption)");
    }
  }
  return r;
}

}  // namespace qspec::spec
