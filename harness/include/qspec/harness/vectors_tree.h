// `qspec vectors regen|check` without the generator: parallel generation jobs, atomic writes, and
// the check of a committed vectors/ tree (byte equality, schemas, unique tcIds, counts, stale files).
//
// The generator itself (vecgen::generate_document, generate.h) is injected as a job function so
// this library does not depend on the reference; the qspec executable wires the two together.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace qspec::harness {

class SchemaSet;

struct GenerationJob {
  std::string file;                    // path under vectors/, '/'-separated
  std::function<std::string()> bytes;  // the file's canonical bytes; may throw
};

struct GeneratedFile {
  std::string file;
  std::string bytes;
  std::string error;  // non-empty: generation failed (the exception's message)
};

// Runs every job on up to `threads` threads (0: hardware concurrency); results in job order.
std::vector<GeneratedFile> run_generation_jobs(const std::vector<GenerationJob>& jobs, unsigned threads);

// Writes `bytes` to `path` by writing a temporary file in the same directory and renaming it
// over `path` (readers never see a partial file). Creates missing parent directories unless
// `create_parent_directories` is false (reports: a typo'd directory is an error, not a new
// tree). Throws on error.
void write_file_atomically(const std::filesystem::path& path, const std::string& bytes, bool create_parent_directories = true);

struct TreeIssue {
  std::string file;
  std::string message;
};

// Checks a committed vectors directory against a fresh generation:
//  - every generated file exists and is byte-identical (else: the first differing line);
//  - every *.json outside schema/ validates against the schemas and loads (unique tcIds,
//    numberOfTests equal to the number of tests, flags explained, tensors well-formed);
//  - no *.json outside schema/ lacks a family that generates it (stale file).
// Returns every issue found (empty: the tree is clean).
std::vector<TreeIssue> check_vectors_tree(const std::filesystem::path& vectors_dir, const std::vector<GeneratedFile>& fresh,
                                          const SchemaSet& schemas);

}  // namespace qspec::harness
