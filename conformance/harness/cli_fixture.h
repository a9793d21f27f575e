// A temporary qspec vectors tree for the command-line tests: the test family's vector file and the
// deliberately wrong plugin of backends/testing, which claims the test op and fails some tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "harness_test_ops.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"

namespace qspec::harness_test {

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// <tmp>/qspec_<tag>_<pid>/vectors/test/test.half_away.json: 7 tests; the wrong plugin fails 4
// of them, reports an ERROR on tcId 6 and passes the other 2 (tcId 1 among them).
class CliFixture : public ::testing::Test {
 protected:
  explicit CliFixture(const std::string& tag)
      : root(std::filesystem::temp_directory_path() / ("qspec_" + tag + "_" + std::to_string(::getpid()))),
        vectors(root / "vectors"),
        file(vectors / "test" / "test.half_away.json") {}

  void SetUp() override {
    if (find_qspec().empty()) GTEST_SKIP() << "qspec executable not found (set QSPEC_EXE)";
    if (run_cli({"--version"}).rc != 0) GTEST_SKIP() << "cannot run " << find_qspec() << " here (cross build?)";
    wrong = testing_plugin("wrong_requantize");
    ASSERT_FALSE(wrong.empty()) << "build backends/testing or set QSPEC_TESTING_PLUGIN_DIR";
    std::filesystem::remove_all(root);
    harness::write_file_atomically(file, family_text());
  }
  void TearDown() override {
    std::error_code ec;  // directories a test made unreadable must be readable to be removed
    for (auto it = std::filesystem::recursive_directory_iterator(
             root, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->is_directory(ec) && !it->is_symlink(ec))
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(root, ec);
  }
  static std::string family_text() {
    return harness::serialize_vector_document(vecgen::generate_document(test_family(), "9.9.9"));
  }

  std::filesystem::path root, vectors, file;
  std::string wrong;
};

}  // namespace qspec::harness_test
