// Parallel vector generation, atomic file writes, and the byte-for-byte check of vectors/.
#include "qspec/harness/vectors_tree.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "qspec/harness/schema_validation.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/vector_serialize.h"

namespace qspec::harness {
namespace fs = std::filesystem;

std::vector<GeneratedFile> run_generation_jobs(const std::vector<GenerationJob>& jobs, unsigned threads) {
  std::vector<GeneratedFile> out(jobs.size());
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(jobs.size(), 1)));
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      out[i].file = jobs[i].file;
      try {
        out[i].bytes = jobs[i].bytes();
      } catch (const std::exception& e) {
        out[i].error = e.what();
      } catch (...) {
        out[i].error = "generation threw a non-standard exception";
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return out;
}

void write_file_atomically(const fs::path& path, const std::string& bytes, bool create_parent_directories) {
  if (create_parent_directories && path.has_parent_path()) fs::create_directories(path.parent_path());
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + tmp.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot rename " + tmp.string() + " to " + path.string());
  }
}

std::vector<TreeIssue> check_vectors_tree(const fs::path& dir, const std::vector<GeneratedFile>& fresh, const SchemaSet& schemas) {
  std::vector<TreeIssue> issues;
  std::map<std::string, const GeneratedFile*> generated;
  for (const auto& g : fresh) generated[g.file] = &g;

  for (const auto& g : fresh) {
    if (!g.error.empty()) {
      issues.push_back({g.file, "generation failed: " + g.error});
      continue;
    }
    std::error_code ec;
    if (!fs::exists(dir / g.file, ec)) {
      issues.push_back({g.file, "missing (run `qspec vectors regen`)"});
      continue;
    }
    std::string committed;
    try {
      committed = read_vector_file_text(dir / g.file, g.file);
    } catch (const VectorFileError& e) {
      issues.push_back({g.file, e.problem()});
      continue;
    }
    if (auto d = first_line_difference(g.bytes, committed))
      issues.push_back({g.file, "differs from a fresh regeneration at line " + std::to_string(d->line) + ", column " + std::to_string(d->column) +
                                    "\n    regenerated: " + d->expected + "\n    committed:   " + d->actual +
                                    "\n  (run `qspec vectors regen` and commit the result, or fix the generator)"});
  }

  std::vector<VectorSource> files;
  try {
    files = find_vector_files({dir});
  } catch (const std::exception& e) {
    issues.push_back({dir.string(), e.what()});
    return issues;
  }
  for (const auto& src : files) {
    if (!src.problem.empty()) {  // a dangling link, a FIFO, an unreadable directory, ...
      issues.push_back({src.display_name, src.problem});
      continue;
    }
    if (!generated.count(src.display_name))
      issues.push_back({src.display_name, "stale: no registered vector family generates this file (delete it or register the family)"});
    // Bounded like every vector read: an oversized file is reported, never loaded whole.
    std::string text;
    try {
      text = read_vector_file_text(src.path, src.display_name);
    } catch (const VectorFileError& e) {
      issues.push_back({src.display_name, e.problem()});
      continue;
    }
    for (const auto& e : schemas.validate(text)) issues.push_back({src.display_name, "schema: " + e});
    try {
      parse_vector_file(text, src.display_name);
    } catch (const VectorFileError& e) {
      issues.push_back({src.display_name, (e.tc_id() ? "tcId " + std::to_string(*e.tc_id()) + ": " : std::string()) +
                                              (e.json_path().empty() ? std::string() : "at " + e.json_path() + ": ") + e.problem()});
    }
  }
  return issues;
}

}  // namespace qspec::harness
