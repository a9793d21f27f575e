// `qspec spec lint|coverage|list` (and `generate`, in cmd_spec_generate.cc): the clause catalogue and its
// cross-references.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "commands.h"
#include "qspec/spec/catalog.h"

#ifndef QSPEC_DEFAULT_TEST_LIST
#define QSPEC_DEFAULT_TEST_LIST ""
#endif

namespace qspec::cli {
namespace {

struct TestSources {
  std::string list_file;              // --tests-from: one test binary per line
  std::vector<std::string> binaries;  // --test-binary (repeatable)
  std::string runner;                 // --test-runner: e.g. an emulator, split on spaces
};

// The test binaries to list: the flags, else the build tree's list (written by CMake next to
// this qspec). Returns false (with a message) when there is nothing to list.
bool test_binaries(const TestSources& src, std::vector<std::string>& out, std::string& why) {
  out = src.binaries;
  std::string file = src.list_file;
  if (file.empty() && out.empty()) file = QSPEC_DEFAULT_TEST_LIST;
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) {
      why = "cannot read the test binary list " + file;
      return false;
    }
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) out.push_back(l);
  }
  if (out.empty()) {
    why =
        "no test binaries to list (pass --tests-from FILE or --test-binary PATH; a build with the conformance "
        "tests writes " +
        std::string(QSPEC_DEFAULT_TEST_LIST[0] ? QSPEC_DEFAULT_TEST_LIST : "<build>/qspec_clause_test_binaries.txt") +
        ")";
    return false;
  }
  return true;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> w;
  std::istringstream in(s);
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

// The full scan (tree + test binaries); false with a message if the binaries cannot be found.
bool full_scan(const Context& ctx, const TestSources& src, spec::Scan& scan, std::string& why) {
  scan = spec::scan_tree(ctx.root);
  if (scan.clauses.empty()) {
    why = "no clauses found under " + ctx.root + "/spec (wrong --root?)";
    return false;
  }
  std::vector<std::string> bins;
  if (!test_binaries(src, bins, why)) return false;
  spec::scan_test_binaries(bins, split_words(src.runner), scan);
  return true;
}

int run_lint(const Context& ctx, const TestSources& src, bool allow_missing_vectors) {
  spec::Scan scan;
  std::string why;
  if (!full_scan(ctx, src, scan, why)) {
    std::cerr << "qspec spec lint: " << why << "\n";
    return kUsage;
  }
  const auto res = spec::lint(scan, {.require_vectors = !allow_missing_vectors});
  for (const auto& e : res.errors) std::cerr << e << "\n";
  long enabled = 0;
  for (const auto& t : scan.tests) enabled += t.disabled ? 0 : 1;
  std::cout << "qspec spec lint: " << scan.clauses.size() << " clauses, " << scan.reference_tags.size()
            << " reference tags, " << enabled << " tests registered by " << scan.test_binaries.size()
            << " binaries: " << res.errors.size() << " error(s)\n";
  return res.errors.empty() ? kOk : kFail;
}

int run_coverage(const Context& ctx, const TestSources& src) {
  spec::Scan scan;
  std::string why;
  if (!full_scan(ctx, src, scan, why)) {
    std::cerr << "qspec spec coverage: " << why << "\n";
    return kUsage;
  }
  std::map<std::string, std::vector<std::string>> refs;
  std::map<std::string, long> tests;
  for (const auto& t : scan.reference_tags) refs[t.id].push_back(t.file + ":" + std::to_string(t.line));
  for (const auto& t : scan.tests)
    if (!t.disabled) ++tests[t.suite];
  int gaps = 0;
  std::cout << std::left << std::setw(44) << "clause" << std::setw(8) << "ref" << std::setw(8) << "tests"
            << std::setw(10) << "vectors"
            << "status\n";
  for (const auto& c : scan.clauses) {
    const auto suite = spec::test_suite_name(c.id);
    const std::size_t nref = refs[c.id].size();
    const long ntest = tests[suite];
    const long nvec = scan.vector_tests.count(c.id) ? scan.vector_tests.at(c.id) : 0;
    std::string status = "ok";
    if (nref == 0)
      status = "MISSING reference";
    else if (ntest == 0)
      status = "MISSING property/test";
    else if (nvec == 0 && !c.vectors_exempt)
      status = "MISSING vectors";
    else if (nvec == 0)
      status = "ok (no vectors, " + c.vectors_exempt_key + ": " + c.vectors_exempt_reason + ")";
    if (status.rfind("MISSING", 0) == 0) ++gaps;
    std::cout << std::setw(44) << c.id << std::setw(8) << nref << std::setw(8) << ntest << std::setw(10) << nvec
              << status << "\n";
  }
  std::cout << scan.clauses.size() << " clauses, " << gaps << " with gaps\n";
  return gaps == 0 ? kOk : kFail;
}

void add_test_source_options(CLI::App* cmd, TestSources& src) {
  cmd->add_option("--tests-from", src.list_file,
                  "File listing the test binaries (one per line); default: the build tree's list");
  cmd->add_option("--test-binary", src.binaries, "A GoogleTest binary whose registered tests count (repeatable)");
  cmd->add_option("--test-runner", src.runner, "Command prefix to run the test binaries (e.g. an emulator)");
}

}  // namespace

void add_spec_command(CLI::App& app, Context& ctx) {
  auto* spec = app.add_subcommand("spec", "The clause catalogue and the op catalogue: lint, coverage, list, generate");
  spec->require_subcommand(1);
  static TestSources src;
  auto* lint = spec->add_subcommand(
      "lint",
      "Fail if a clause ID does not resolve, a clause lacks reference, registered test or vectors, or "
      "spec/seed_inventory.md does not resolve or add up");
  static bool allow_missing_vectors = false;
  lint->add_flag("--allow-missing-vectors", allow_missing_vectors, "Do not require vectors for every clause");
  add_test_source_options(lint, src);
  lint->callback([&ctx] { ctx.exit_code = run_lint(ctx, src, allow_missing_vectors); });
  auto* cov = spec->add_subcommand("coverage", "Per clause: reference functions, tests, vector count; fails on gaps");
  add_test_source_options(cov, src);
  cov->callback([&ctx] { ctx.exit_code = run_coverage(ctx, src); });
  add_spec_generate_command(*spec, ctx);
  auto* list = spec->add_subcommand("list", "List clause IDs with their titles and spec file");
  list->callback([&ctx] {
    for (const auto& c : spec::scan_tree(ctx.root).clauses)
      std::cout << c.id << "\t" << c.title << "\t" << c.file << ":" << c.line << "\n";
    ctx.exit_code = kOk;
  });
}

}  // namespace qspec::cli
