// `qspec spec lint|coverage|list`: the clause catalogue and its cross-references.
#include <iomanip>
#include <iostream>
#include <set>

#include "commands.h"
#include "qspec/spec/catalog.h"

namespace qspec::cli {
namespace {

int run_lint(const Context& ctx, bool allow_missing_vectors) {
  const auto scan = spec::scan_tree(ctx.root);
  if (scan.clauses.empty()) {
    std::cerr << "qspec spec lint: no clauses found under " << ctx.root << "/spec (wrong --root?)\n";
    return kUsage;
  }
  const auto res = spec::lint(scan, {.require_vectors = !allow_missing_vectors});
  for (const auto& e : res.errors) std::cerr << e << "\n";
  std::cout << "qspec spec lint: " << scan.clauses.size() << " clauses, " << scan.reference_tags.size()
            << " reference tags, " << scan.checks.size() << " tests scanned: " << res.errors.size() << " error(s)\n";
  return res.errors.empty() ? kOk : kFail;
}

int run_coverage(const Context& ctx) {
  const auto scan = spec::scan_tree(ctx.root);
  std::map<std::string, std::vector<std::string>> refs, checks;
  for (const auto& t : scan.reference_tags) refs[t.id].push_back(t.file + ":" + std::to_string(t.line));
  for (const auto& c : scan.checks) checks[c.id].push_back(c.file);
  int gaps = 0;
  std::cout << std::left << std::setw(44) << "clause" << std::setw(8) << "ref" << std::setw(8) << "tests" << std::setw(10)
            << "vectors" << "status\n";
  for (const auto& c : scan.clauses) {
    const auto suite = spec::test_suite_name(c.id);
    const std::size_t nref = refs[c.id].size();
    const std::size_t ntest = checks[suite].size();
    const long nvec = scan.vector_tests.count(c.id) ? scan.vector_tests.at(c.id) : 0;
    std::string status = "ok";
    if (nref == 0) status = "MISSING reference";
    else if (ntest == 0) status = "MISSING property/test";
    else if (nvec == 0 && !c.vectors_exempt) status = "MISSING vectors";
    else if (nvec == 0) status = "ok (no vectors: " + c.vectors_exempt_reason + ")";
    if (status.rfind("MISSING", 0) == 0) ++gaps;
    std::cout << std::setw(44) << c.id << std::setw(8) << nref << std::setw(8) << ntest << std::setw(10) << nvec << status
              << "\n";
  }
  std::cout << scan.clauses.size() << " clauses, " << gaps << " with gaps\n";
  return gaps == 0 ? kOk : kFail;
}

}  // namespace

void add_spec_command(CLI::App& app, Context& ctx) {
  auto* spec = app.add_subcommand("spec", "The clause catalogue and the op catalogue: lint, coverage, list, generate");
  spec->require_subcommand(1);
  auto* lint = spec->add_subcommand("lint", "Fail if a clause ID does not resolve or a clause lacks reference, test or vectors");
  static bool allow_missing_vectors = false;
  lint->add_flag("--allow-missing-vectors", allow_missing_vectors, "Do not require vectors for every clause");
  lint->callback([&ctx] { ctx.exit_code = run_lint(ctx, allow_missing_vectors); });
  auto* cov = spec->add_subcommand("coverage", "Per clause: reference functions, tests, vector count; fails on gaps");
  cov->callback([&ctx] { ctx.exit_code = run_coverage(ctx); });
  add_spec_generate_command(*spec, ctx);
  auto* list = spec->add_subcommand("list", "List clause IDs with their titles and spec file");
  list->callback([&ctx] {
    for (const auto& c : spec::scan_tree(ctx.root).clauses)
      std::cout << c.id << "\t" << c.title << "\t" << c.file << ":" << c.line << "\n";
    ctx.exit_code = kOk;
  });
}

}  // namespace qspec::cli
