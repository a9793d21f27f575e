// `qspec vectors regen|check|list`: regenerate the golden vectors, verify the committed ones, list families.
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "commands.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"
#include "qspec/vecgen.h"

#ifndef QSPEC_VERSION
#define QSPEC_VERSION "0.0.0"
#endif

namespace qspec::cli {
namespace {
namespace fs = std::filesystem;
using namespace qspec::harness;

struct VectorsOptions {
  std::string dir;  // regen --out / check --dir; default <root>/vectors
  unsigned jobs = 0;
  std::vector<std::string> only;
};

// Families sorted by file, so output order and job order never depend on link order.
std::vector<const vecgen::Family*> sorted_families() {
  std::vector<const vecgen::Family*> v;
  for (const auto& f : vecgen::families()) v.push_back(&f);
  std::sort(v.begin(), v.end(), [](const auto* a, const auto* b) { return a->file < b->file; });
  return v;
}

std::vector<GenerationJob> jobs_for(const std::vector<const vecgen::Family*>& fams) {
  std::vector<GenerationJob> jobs;
  for (const auto* f : fams)
    jobs.push_back({f->file, [f] { return serialize_vector_document(vecgen::generate_document(*f, QSPEC_VERSION)); }});
  return jobs;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool same_content(const fs::path& p, const std::string& bytes) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str() == bytes;
}

int run_regen(const Context& ctx, const VectorsOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path out = o.dir.empty() ? fs::path(ctx.root) / "vectors" : fs::path(o.dir);
  auto fams = sorted_families();
  if (!o.only.empty())
    fams.erase(std::remove_if(fams.begin(), fams.end(),
                              [&](const auto* f) {
                                for (const auto& g : o.only)
                                  if (fnmatch(g.c_str(), f->file.c_str(), 0) == 0) return false;
                                return true;
                              }),
               fams.end());
  const auto results = run_generation_jobs(jobs_for(fams), o.jobs);
  int failures = 0;
  std::size_t changed = 0, bytes = 0;
  for (const auto& r : results) {
    if (!r.error.empty()) {
      std::cerr << "qspec vectors regen: " << r.error << "\n";
      ++failures;
      continue;
    }
    bytes += r.bytes.size();
    if (same_content(out / r.file, r.bytes)) continue;
    try {
      write_file_atomically(out / r.file, r.bytes);
    } catch (const std::exception& e) {
      std::cerr << "qspec vectors regen: " << e.what() << "\n";
      return kUsage;
    }
    ++changed;
    std::cout << "wrote " << (out / r.file).string() << "\n";
  }
  if (o.only.empty() && fs::is_directory(out)) {
    std::set<std::string> produced;
    for (const auto& r : results) produced.insert(r.file);
    for (const auto& src : find_vector_files({out}))
      if (!src.problem.empty())
        std::cerr << "qspec vectors regen: warning: " << src.path.string() << ": " << src.problem << "\n";
      else if (!produced.count(src.display_name))
        std::cerr << "qspec vectors regen: warning: stale file " << src.path.string()
                  << " (no registered family generates it; delete it)\n";
  }
  std::printf("qspec vectors regen: %zu families, %zu files changed, %.1f MB, %.1f s\n", results.size(), changed,
              static_cast<double>(bytes) / 1e6, seconds_since(t0));
  if (failures) std::cerr << "qspec vectors regen: " << failures << " families failed to generate\n";
  return failures ? kFail : kOk;
}

int run_check(const Context& ctx, const VectorsOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path dir = o.dir.empty() ? fs::path(ctx.root) / "vectors" : fs::path(o.dir);
  if (!fs::is_directory(dir)) {
    std::cerr << "qspec vectors check: no vectors directory " << dir.string() << "\n";
    return kUsage;
  }
  std::unique_ptr<SchemaSet> schemas;
  try {
    schemas = std::make_unique<SchemaSet>(dir / "schema");
  } catch (const std::exception& e) {
    std::cerr << "qspec vectors check: " << e.what() << "\n";
    return kUsage;
  }
  const auto fams = sorted_families();
  const auto fresh = run_generation_jobs(jobs_for(fams), o.jobs);
  const auto issues = check_vectors_tree(dir, fresh, *schemas);
  for (const auto& i : issues) std::cerr << i.file << ": " << i.message << "\n";
  std::size_t bytes = 0;
  for (const auto& f : fresh) bytes += f.bytes.size();
  std::printf("qspec vectors check: %zu families, %.1f MB, %zu issue(s), %.1f s\n", fresh.size(), static_cast<double>(bytes) / 1e6,
              issues.size(), seconds_since(t0));
  return issues.empty() ? kOk : kFail;
}

int run_list() {
  for (const auto* f : sorted_families()) {
    std::string clauses;
    for (const auto& c : f->clauses) clauses += (clauses.empty() ? "" : ",") + c;
    std::cout << f->file << "\t" << f->op << "\t" << f->convention << "\tseed=" << f->seed << "\t" << clauses << "\n";
  }
  return kOk;
}

}  // namespace

void add_vectors_command(CLI::App& app, Context& ctx) {
  auto* vec = app.add_subcommand("vectors", "Regenerate, check or list the golden vectors");
  vec->require_subcommand(1);
  auto o = std::make_shared<VectorsOptions>();

  auto* regen = vec->add_subcommand("regen", "Regenerate every vector file from the reference (fixed seeds, byte-identical)");
  regen->add_option("--out", o->dir, "Output directory (default: <root>/vectors)");
  regen->add_option("--only", o->only, "Regenerate only families whose file matches this glob (repeatable)");
  regen->add_option("-j,--jobs", o->jobs, "Generation threads (default: all cores)");
  regen->callback([&ctx, o] { ctx.exit_code = run_regen(ctx, *o); });

  auto* check = vec->add_subcommand("check", "Verify the committed vectors equal a fresh regeneration and pass their schemas");
  check->add_option("--dir", o->dir, "Vectors directory (default: <root>/vectors)");
  check->add_option("-j,--jobs", o->jobs, "Generation threads (default: all cores)");
  check->callback([&ctx, o] { ctx.exit_code = run_check(ctx, *o); });

  auto* list = vec->add_subcommand("list", "List the registered vector families: file, op, convention, seed, clauses");
  list->callback([&ctx] { ctx.exit_code = run_list(); });
}

}  // namespace qspec::cli
