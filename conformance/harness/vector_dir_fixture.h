// A temporary vectors/ directory holding the test family's vector file, for the runner tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "harness_test_ops.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/runner.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"

namespace qspec::harness_test {

struct VectorDir {
  std::filesystem::path root, dir;
  // `tag` keeps concurrent test binaries apart: <tmp>/qspec_<tag>_<pid>/vectors.
  explicit VectorDir(const std::string& tag)
      : root(std::filesystem::temp_directory_path() / ("qspec_" + tag + "_" + std::to_string(::getpid()))), dir(root / "vectors") {
    std::filesystem::remove_all(root);
    const auto f = test_family();
    harness::write_file_atomically(dir / f.file, harness::serialize_vector_document(vecgen::generate_document(f, "9.9.9")));
  }
  ~VectorDir() { std::filesystem::remove_all(root); }
  VectorDir(const VectorDir&) = delete;
  VectorDir& operator=(const VectorDir&) = delete;
  harness::RunOptions options() const {
    harness::RunOptions o;
    o.files = harness::find_vector_files({dir});
    return o;
  }
};

}  // namespace qspec::harness_test
