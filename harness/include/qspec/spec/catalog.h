// The clause catalogue read from spec/*.md, and the cross-reference scan behind `qspec spec lint`.
//
// A clause is a level-3 Markdown heading whose first token is a back-quoted ID:
//     ### `requant.gemmlowp.rdbpot`: RoundingDivideByPOT
// IDs are lowercase dotted names ([a-z0-9_]+(\.[a-z0-9_]+)+), unique across spec/. A clause
// may opt out of vectors with a line "**Vectors.** none (<reason key>): <text>", the key one of
// kExemptionReasons (for clauses with no observable input/output of their own).
//
// What counts, and why it cannot be faked by text:
// - a property/test is a test that a built test binary registers (its own `--gtest_list_tests`),
//   not a regex hit in a source file, so a commented-out `// TEST(...)` is not a test; disabled
//   tests (DISABLED_ suite or test) do not count;
// - a reference function is a `// spec: <id>` line on its own under reference/, outside block
//   comments and `#if 0`, followed by code (the declaration or definition it tags);
// - a clause's vector count is the number of tests the vector files hold, not their header's
//   `numberOfTests` (a header that disagrees is an error).
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
  std::string vectors_exempt_key;     // one of kExemptionReasons (empty: the line has no valid key)
  std::string vectors_exempt_reason;  // the free text after the key
};

// The reasons a clause may have no vectors of its own. `exercised-by` must name (back-quoted) at
// least one clause that has vectors.
struct ExemptionReason {
  const char* key;
  const char* meaning;
};
inline constexpr ExemptionReason kExemptionReasons[] = {
    {"exercised-by", "a building block every vector of the named clauses exercises; it has no op of its own"},
    {"theorem", "a bound or identity relating reals or conventions; no backend computes it, properties check it"},
    {"diagnostic", "a diagnostic-only convention that explains a wrong answer; the normative conventions have vectors"},
    {"no-abi-op", "a predicate or helper with no operation in the backend ABI; tests check it directly"},
};

struct Reference {  // one place that names a clause ID
  std::string file;
  int line = 0;
  std::string id;
};

struct RegisteredTest {  // one test a built binary registers (gtest's own list)
  std::string binary;
  std::string suite;  // the suite name with any parameterization prefix/suffix removed
  std::string name;
  bool disabled = false;  // DISABLED_ suite or test: gtest never runs it
};

// One row of spec/seed_inventory.md: a formula or rule one seed document states, and the clauses
// (or the erratum) that account for it. Status Y: formalized by the named clauses; E: the seed's
// text cannot be formalized as stated, the named erratum says why; N: not covered.
struct InventoryRow {
  std::string file;  // "spec/seed_inventory.md"
  int line = 0;
  std::string id;                       // "S000-01": the seed's number, then the row's
  std::string seed;                     // "S000"
  std::string status;                   // "Y", "E" or "N" (anything else is a parse error)
  std::vector<std::string> clause_ids;  // back-quoted clause IDs of the last column
  std::vector<std::string> errata_ids;  // back-quoted erratum IDs (E-...) of the last column
};

struct InventoryCounts {
  long y = 0, e = 0, n = 0;
  bool operator==(const InventoryCounts&) const = default;
};

struct SeedInventory {
  bool present = false;  // spec/seed_inventory.md exists
  std::vector<InventoryRow> rows;
  std::map<std::string, InventoryCounts> totals;  // "S000", ... and "all", as the totals line states them
  int totals_line = 0;                            // 0: the file has no totals line
  std::set<std::string> errata;                   // the `## E-...:` headings of spec/errata.md
  std::vector<std::string> errors;                // malformed rows, cells, IDs or totals
};

// Reads spec/seed_inventory.md and the erratum headings of spec/errata.md under `root`.
SeedInventory read_seed_inventory(const std::string& root);

// What lint reports about the inventory: parse errors, a missing file or totals line, a repeated
// row ID, a clause ID that is not a `### ` clause, an erratum ID that is not a `## E-...` heading,
// a Y row without a clause, an E row without an erratum, totals that disagree with the rows.
std::vector<std::string> check_seed_inventory(const SeedInventory& inventory, const std::set<std::string>& clause_ids);

struct Scan {
  std::vector<Clause> clauses;
  std::vector<std::string> catalogue_errors;    // duplicate IDs, malformed headings, bad exemptions
  std::vector<Reference> reference_tags;        // "// spec: <id>" tagging code under reference/
  std::vector<Reference> ignored_tags;          // tags in comments/#if 0 or tagging no code (do not count)
  std::vector<Reference> other_tags;            // "// spec: <id>" anywhere else in code
  std::vector<RegisteredTest> tests;            // from the test binaries (scan_test_binaries)
  std::vector<std::string> test_binaries;       // the binaries listed
  std::vector<std::string> test_binary_errors;  // a binary that cannot be listed
  std::map<std::string, long> vector_tests;     // clause ID -> number of vector tests listing it
  std::vector<Reference> vector_clause_refs;    // clause IDs listed in vectors/**/*.json headers
  std::vector<std::string> vector_file_errors;  // vector files whose header cannot be read or lies
  SeedInventory inventory;                      // spec/seed_inventory.md (checked against `clauses`)
};

// Reads spec/*.md and scans reference/, conformance/, harness/, backends/, bench/, tools/, vectors/
// under `root` (everything but the tests, which come from scan_test_binaries).
Scan scan_tree(const std::string& root);

// Runs each binary with --gtest_list_tests (prefixed by `runner`, e.g. an emulator, if not empty)
// and records the tests it registers into `scan`.
void scan_test_binaries(const std::vector<std::string>& binaries, const std::vector<std::string>& runner, Scan& scan);

// Parses gtest's --gtest_list_tests output (exposed for tests).
std::vector<RegisteredTest> parse_gtest_list(const std::string& binary, const std::string& listing);

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
