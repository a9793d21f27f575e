// Known deviations of a backend (`qspec run --expect FILE`): which tests may end in which verdict.
//
// Two formats (docs/running.md). Lines:
//     # comment (a '#' at the start of a line or after a blank)
//     <file-glob> <tcId|*> <PASS|FAIL|ERROR|UNSUPPORTED|CRASH|TIMEOUT> [isa=NAME[,NAME...]] <reason...>
// or JSON:
//     {"schema": "qspec-expect/1", "expectations": [
//        {"file": "requantize/*.json", "tcId": "*", "verdict": "FAIL", "isa": ["avx2"], "reason": "..."}]}
// The first entry whose file glob (fnmatch; '*' also matches '/') and tcId match a test applies.
// An entry with `isa=` holds only for a backend that dispatches to one of those instruction sets,
// as its version string says ("... isa: avx2 ..."; docs/backend-abi.md): a library whose results
// depend on the host CPU keeps one expect file for every machine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qspec/harness/verdict.h"

namespace qspec::harness {

struct ExpectationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Expectation {
  std::string file_glob;
  std::optional<std::int64_t> tc_id;  // nullopt: every test of the matching files
  Verdict verdict = Verdict::Pass;
  std::string reason;
  std::vector<std::string> isa;       // empty: any; else the instruction sets the entry holds for
  int line = 0;                       // where it was declared (1-based line, or JSON array index)
  mutable std::size_t uses = 0;       // how many tests it matched in this run
};

class Expectations {
 public:
  Expectations() = default;
  // Parses the text of an --expect file; throws ExpectationError naming the line / entry.
  static Expectations parse(const std::string& text, const std::string& source_name);
  static Expectations load(const std::filesystem::path& path);

  // Keeps only the entries that hold for a backend dispatching to `isa` (isa_of_version; "" when
  // the backend names none: then every entry with `isa=` is dropped). Call once the backend is
  // loaded; dropped entries neither match tests nor count as unused.
  void select_isa(const std::string& isa);

  // The entry for this test, or nullptr (the test is expected to PASS, or be UNSUPPORTED).
  const Expectation* find(const std::string& file, std::int64_t tc_id) const;
  const std::vector<Expectation>& entries() const { return entries_; }
  const std::string& source() const { return source_; }

 private:
  std::vector<Expectation> entries_;
  std::string source_;
};

// The instruction set a backend's version string names ("oneDNN 2.6.3 (isa: avx2, runtime OMP)"
// -> "avx2"): the word after the first "isa: ", or "" if there is none.
std::string isa_of_version(const std::string& version);

}  // namespace qspec::harness
