// `qspec sweep` discovery: the property binaries of a build tree, their gtest listings, glob selection.
// GCC 12 with -fsanitize=address reports a false -Wmaybe-uninitialized inside <regex>'s
// internals (the asan preset builds with -Werror); the warning is not about this file's code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "qspec/harness/sweep.h"

namespace qspec::harness::sweep {

fs::path default_bin_dir(const fs::path& self_exe) {
  // The qspec executable is <build>/harness/qspec; the property binaries are <build>/conformance/*.
  return self_exe.parent_path().parent_path() / "conformance";
}

std::vector<fs::path> find_property_binaries(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw SweepError("binary directory " + dir.string() + " does not exist (use --bin-dir)");
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const std::string suffix = "_properties";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    if (!e.is_regular_file(ec) || ::access(e.path().c_str(), X_OK) != 0) continue;
    found.push_back(e.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::string> parse_gtest_list(const std::string& listing) {
  // gtest prints "Suite.\n  Name\n  Name2\n"; typed and parameterized tests add "  # TypeParam = ..."
  // comments after either. Anything else (a banner line) is ignored.
  static const std::regex suite_re(R"(^([A-Za-z_][A-Za-z0-9_/]*)\.\s*(#.*)?$)");
  static const std::regex name_re(R"(^  ([A-Za-z_][A-Za-z0-9_/]*)\s*(#.*)?$)");
  std::vector<std::string> tests;
  std::string suite, line;
  std::istringstream in(listing);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, suite_re)) {
      suite = m[1];
    } else if (!suite.empty() && std::regex_match(line, m, name_re)) {
      tests.push_back(suite + "." + m[1].str());
    }
  }
  return tests;
}

std::string unit_name(const PropertyTarget& t) { return t.seed ? t.test + "@" + std::to_string(*t.seed) : t.test; }

std::vector<PropertyTarget> sweep_units(const std::vector<PropertyTarget>& properties, std::uint64_t seed, std::uint64_t seeds_per_property,
                                        const std::optional<ShardSpec>& shard) {
  std::vector<PropertyTarget> units;
  std::size_t position = 0;
  for (const auto& p : properties)
    for (std::uint64_t j = 0; j < std::max<std::uint64_t>(1, seeds_per_property); ++j, ++position) {
      if (shard && !in_shard(*shard, position)) continue;
      PropertyTarget u = p;
      if (seeds_per_property > 1) u.seed = seed + j;  // wraps modulo 2^64, like any RapidCheck seed
      units.push_back(std::move(u));
    }
  return units;
}

bool glob_match(const std::string& pattern, const std::string& text) { return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0; }

std::vector<PropertyTarget> select_properties(const std::vector<fs::path>& binaries, const std::vector<std::string>& globs) {
  std::vector<PropertyTarget> selected;
  for (const auto& bin : binaries) {
    const ChildResult r = run_child({bin.string(), "--gtest_list_tests"}, {{"GTEST_COLOR", "no"}}, 120);
    if (r.exec_failed || r.timed_out || r.signal || r.exit_code != 0)
      throw SweepError("cannot list the tests of " + bin.string() + ":\n" + r.output);
    for (const auto& t : parse_gtest_list(r.output)) {
      const bool keep = globs.empty() || std::any_of(globs.begin(), globs.end(), [&](const std::string& g) { return glob_match(g, t); });
      if (keep) selected.push_back({bin, t, std::nullopt});
    }
  }
  return selected;
}

}  // namespace qspec::harness::sweep
