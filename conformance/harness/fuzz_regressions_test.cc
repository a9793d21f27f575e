// Every committed fuzzer finding (conformance/fuzz_regressions/) and hand-made hostile seed
// (tools/fuzz/seeds/) is either accepted or rejected with VectorFileError: no other exception, no crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <typeinfo>

#include "qspec/harness/json_precheck.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/vector_file.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec::harness;

std::vector<fs::path> inputs(const fs::path& dir) {
  std::vector<fs::path> v;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().filename() != "README.md") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fuzz target's properties, minus the sanitizers (those run in ./qspec.sh fuzz and the asan preset).
void check_input(const fs::path& p, const SchemaSet& schemas) {
  SCOPED_TRACE(p.string());
  const std::string text = read_bytes(p);
  try {
    parse_vector_file(text, p.filename().string());
  } catch (const VectorFileError& e) {
    EXPECT_EQ(e.file(), p.filename().string());
    EXPECT_FALSE(e.problem().empty());
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << typeid(e).name() << " instead of VectorFileError: " << e.what();
  } catch (...) {
    ADD_FAILURE() << "threw a non-standard exception";
  }
  if (!precheck_json(text)) {
    EXPECT_NO_THROW({ const auto doc = nlohmann::ordered_json::parse(text); }) << "the pre-pass accepted text nlohmann cannot parse";
  }
  EXPECT_NO_THROW((void)schemas.validate(text));
}

TEST(fuzz_regressions, every_committed_input_is_accepted_or_rejected_cleanly) {
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  const auto regressions = inputs(fs::path(QSPEC_SOURCE_DIR) / "conformance" / "fuzz_regressions");
  for (const auto& p : regressions) check_input(p, schemas);
  std::cout << regressions.size() << " fuzzer regression inputs\n";
}

TEST(fuzz_regressions, every_hostile_seed_is_accepted_or_rejected_cleanly) {
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  const auto seeds = inputs(fs::path(QSPEC_SOURCE_DIR) / "tools" / "fuzz" / "seeds");
  ASSERT_GE(seeds.size(), 30u) << "tools/fuzz/seeds/ is missing its hand-made hostile inputs";
  std::size_t rejected = 0;
  for (const auto& p : seeds) {
    check_input(p, schemas);
    try {
      parse_vector_file(read_bytes(p), p.filename().string());
    } catch (const VectorFileError&) {
      ++rejected;
    } catch (...) {
    }
  }
  // good.json, bom.json (a UTF-8 byte-order mark is skipped) and nul_in_string.json (an escaped
  // U+0000 in a comment is valid JSON) load; every other seed is a defect the loader must refuse.
  EXPECT_EQ(rejected, seeds.size() - 3);
}

}  // namespace
