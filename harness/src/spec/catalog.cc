// Parses clause headings from spec/*.md and finds every place in the tree that names a clause.
#include "qspec/spec/catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace qspec::spec {
namespace {

const std::regex kClauseHeading(R"(^###\s+`([a-z0-9_]+(?:\.[a-z0-9_]+)+)`\s*[:\-]?\s*(.*)$)");
const std::regex kAnyBacktickHeading(R"(^###\s+`([^`]*)`)");
const std::regex kVectorsNone(R"(^\*\*Vectors\.\*\*\s+none:?\s*(.*)$)");
const std::regex kSpecTag(R"(//\s*spec:\s*([a-z0-9_]+(?:\.[a-z0-9_]+)+))");
const std::regex kCheck(R"(\b(?:RC_GTEST_PROP|RC_GTEST_FIXTURE_PROP|TEST|TEST_F|TEST_P)\s*\(\s*([A-Za-z0-9_]+)\s*,)");

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
        Clause c{m[1], m[2], rel(root, md), static_cast<int>(i + 1), false, ""};
        for (std::size_t k = i + 1; k < lines.size() && lines[k].rfind("#", 0) != 0; ++k) {
          std::smatch v;
          if (std::regex_match(lines[k], v, kVectorsNone)) {
            c.vectors_exempt = true;
            c.vectors_exempt_reason = v[1];
          }
        }
        const std::string where = c.file + ":" + std::to_string(c.line);
        if (auto it = seen.find(c.id); it != seen.end())
          s.catalogue_errors.push_back(where + ": clause `" + c.id + "` is defined twice (first at " + it->second + ")");
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
    for (const auto& f : files_under(root / dir, code_exts)) {
      const auto lines = read_lines(f);
      const bool is_reference = std::string(dir) == "reference";
      const bool is_conformance = std::string(dir) == "conformance";
      for (std::size_t i = 0; i < lines.size(); ++i) {
        for (std::sregex_iterator it(lines[i].begin(), lines[i].end(), kSpecTag), end; it != end; ++it) {
          Reference r{rel(root, f), static_cast<int>(i + 1), (*it)[1]};
          (is_reference ? s.reference_tags : s.other_tags).push_back(r);
        }
        if (is_conformance) {
          for (std::sregex_iterator it(lines[i].begin(), lines[i].end(), kCheck), end; it != end; ++it)
            s.checks.push_back({rel(root, f), static_cast<int>(i + 1), (*it)[1]});
        }
      }
    }
  }

  for (const auto& f : files_under(root / "vectors", {".json"})) {
    if (f.parent_path().filename() == "schema") continue;
    try {
      std::ifstream in(f);
      const auto j = nlohmann::json::parse(in);
      const long n = j.value("numberOfTests", 0L);
      for (const auto& c : j.at("clauses")) {
        const std::string id = c.get<std::string>();
        s.vector_clause_refs.push_back({rel(root, f), 0, id});
        s.vector_tests[id] += n;
      }
    } catch (const std::exception& e) {
      s.vector_file_errors.push_back(rel(root, f) + ": cannot read the header's clause list: " + e.what());
    }
  }
  return s;
}

LintResult lint(const Scan& s, const LintOptions& opt) {
  LintResult r;
  r.errors = s.catalogue_errors;
  for (const auto& e : s.vector_file_errors) r.errors.push_back(e);
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
  for (const auto& t : s.other_tags) dangling(t, "a // spec: tag");
  for (const auto& t : s.vector_clause_refs) dangling(t, "a vector file's clause list");

  std::set<std::string> with_ref, with_check;
  for (const auto& t : s.reference_tags) with_ref.insert(t.id);
  for (const auto& c : s.checks)
    if (by_suite.count(c.id)) with_check.insert(by_suite[c.id]);
  for (const auto& c : s.clauses) {
    const std::string where = c.file + ":" + std::to_string(c.line) + ": clause `" + c.id + "`";
    if (!with_ref.count(c.id)) r.errors.push_back(where + " has no reference function (// spec: " + c.id + " under reference/)");
    if (!with_check.count(c.id))
      r.errors.push_back(where + " has no property or test named " + test_suite_name(c.id) + " in conformance/");
    if (opt.require_vectors && !c.vectors_exempt) {
      auto it = s.vector_tests.find(c.id);
      if (it == s.vector_tests.end() || it->second == 0)
        r.errors.push_back(where + " has no vectors (and no '**Vectors.** none: <reason>' exemption)");
    }
  }
  return r;
}

}  // namespace qspec::spec
