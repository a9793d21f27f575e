// The clause catalogue read from spec/*.md, and the cross-reference scan behind `qspec spec lint`.
//
// A clause is a level-3 Markdown heading whose first token is a back-quoted ID:
//     ### `requant.gemmlowp.rdbpot`: RoundingDivideByPOT
// IDs are lowercase dotted names ([a-z0-9_]+(\.[a-z0-9_]+)+), unique across spec/. A clause
// may opt out of vectors with a line "**Vectors.** none: <reason>" (for clauses with no
// observable input/output of their own, e.g. a bound that only properties can check).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace qspec::spec {

struct Clause {
  std::string id;
  std::string title;
  std::string file;  // relative to the root, e.g. "spec/requantization.md"
  int line = 0;
  bool vectors_exempt = false;
  std::string vectors_exempt_reason;
};

struct Reference {  // one place that names a clause ID
  std::string file;
  int line = 0;
  std::string id;
};

struct Scan {
  std::vector<Clause> clauses;
  std::vector<std::string> catalogue_errors;    // duplicate IDs, malformed headings
  std::vector<Reference> reference_tags;        // "// spec: <id>" under reference/
  std::vector<Reference> other_tags;            // "// spec: <id>" anywhere else in code
  std::vector<Reference> checks;                // RC_GTEST_PROP / TEST named after a clause in conformance/
  std::map<std::string, long> vector_tests;     // clause ID -> number of vector tests listing it
  std::vector<Reference> vector_clause_refs;    // clause IDs listed in vectors/**/*.json headers
  std::vector<std::string> vector_file_errors;  // vector files whose header cannot be read
};

// Reads spec/*.md and scans reference/, conformance/, harness/, backends/, bench/, tools/, vectors/
// under `root`.
Scan scan_tree(const std::string& root);

// The property/test suite name that stands for a clause: dots become underscores
// ("requant.gemmlowp.rdbpot" -> "requant_gemmlowp_rdbpot").
std::string test_suite_name(const std::string& clause_id);

struct LintOptions {
  bool require_vectors = true;  // a clause without vectors (and not exempt) is an error
};

struct LintResult {
  std::vector<std::string> errors;  // "file:line: message" (empty = pass)
};

LintResult lint(const Scan& scan, const LintOptions& opt);

}  // namespace qspec::spec
