// Vector generation and `vectors check`: expected values from the reference op, loud failures,
// byte-identical output across runs and thread counts, and the tree check's findings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness_test_ops.h"
#include "qspec/vecgen/generate.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/harness/vectors_tree.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness;
using OJ = nlohmann::ordered_json;

std::string bytes_of(const vecgen::Family& f) { return serialize_vector_document(vecgen::generate_document(f, "9.9.9")); }

std::string generation_error(const vecgen::Family& f) {
  try {
    vecgen::generate_document(f, "9.9.9");
  } catch (const vecgen::GenerationError& e) {
    return e.what();
  }
  return "";
}

TEST(harness_generation, header_and_expected_values_come_from_the_reference_op) {
  const OJ doc = vecgen::generate_document(harness_test::test_family(), "9.9.9");
  EXPECT_EQ(doc["schema"], "qspec-vectors/1");
  EXPECT_EQ(doc["op"], "test.requantize");
  EXPECT_EQ(doc["convention"], "test.half_away");
  EXPECT_EQ(doc["clauses"], OJ::parse(R"(["test.clause_a", "test.clause_b"])"));
  EXPECT_EQ(doc["generator"], OJ::parse(R"({"tool": "qspec", "version": "9.9.9", "seed": 17})"));
  EXPECT_EQ(doc["numberOfTests"], 7);
  EXPECT_EQ(doc["notes"]["NegativeTie"], "x*M/2^s is exactly -k-0.5: half away and half up disagree");
  const OJ& g0 = doc["testGroups"][0];
  // tcId 3: x = -6, -2, 2 with M = 3, s = 2: -4.5, -1.5, 1.5 rounded half away from zero.
  EXPECT_EQ(g0["tests"][2]["tcId"], 3);
  EXPECT_EQ(g0["tests"][2]["expected"]["y"]["data"], OJ::parse("[-5, -2, 2]"));
  EXPECT_EQ(g0["tests"][2]["expected"]["y"]["dtype"], "int8");
  // tcId 4 overrides the group's attributes; only its own attributes are written.
  EXPECT_EQ(g0["tests"][3]["attributes"]["multiplier"], 1);
  EXPECT_EQ(g0["tests"][3]["expected"]["y"]["data"], OJ::parse("[127]"));
  EXPECT_FALSE(g0["tests"][0].contains("attributes"));
  // tcId 5 is invalid: no expected outputs.
  EXPECT_EQ(g0["tests"][4]["result"], "invalid");
  EXPECT_FALSE(g0["tests"][4].contains("expected"));
  // tcId 6 continues the numbering in the second group.
  EXPECT_EQ(doc["testGroups"][1]["tests"][0]["tcId"], 6);
  EXPECT_EQ(doc["testGroups"][1]["tests"][0]["expected"]["y"]["data"], OJ::parse("[9259]"));  // 37035/4 = 9258.75
}

TEST(harness_generation, output_is_byte_identical_across_runs_and_thread_counts) {
  const auto f = harness_test::test_family();
  const std::string once = bytes_of(f);
  EXPECT_EQ(once, bytes_of(f));
  std::vector<GenerationJob> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back({"f" + std::to_string(i) + ".json", [f] { return bytes_of(f); }});
  const auto serial = run_generation_jobs(jobs, 1);
  const auto parallel = run_generation_jobs(jobs, 4);
  ASSERT_EQ(serial.size(), parallel.size());
  for (std::size_t i = 0; i < serial.size(); ++i) {
    EXPECT_EQ(serial[i].file, jobs[i].file);
    EXPECT_EQ(parallel[i].file, jobs[i].file);
    EXPECT_EQ(serial[i].bytes, once);
    EXPECT_EQ(parallel[i].bytes, once);
  }
}

TEST(harness_generation, a_different_seed_changes_only_the_random_test) {
  auto f = harness_test::test_family();
  const OJ a = vecgen::generate_document(f, "v");
  f.seed = 18;
  const OJ b = vecgen::generate_document(f, "v");
  EXPECT_EQ(a["testGroups"][0], b["testGroups"][0]);
  EXPECT_NE(a["testGroups"][1]["tests"][1]["inputs"], b["testGroups"][1]["tests"][1]["inputs"]);
}

TEST(harness_generation, invalid_test_the_reference_accepts_fails_loudly) {
  auto f = harness_test::test_family();
  f.generate = [](vecgen::Rng&) {
    std::vector<vecgen::Group> g(1);
    g[0].attributes = harness_test::requant_attrs(3, 2, 0, "int8");
    g[0].tests.push_back(harness_test::test_case("fine", {1}));
    g[0].tests.push_back(harness_test::test_case("claims invalid", {1}, {}, {}, /*invalid=*/true));
    return g;
  };
  const std::string e = generation_error(f);
  EXPECT_NE(e.find("test/test.half_away.json"), std::string::npos) << e;
  EXPECT_NE(e.find("tcId 2"), std::string::npos) << e;
  EXPECT_NE(e.find("claims invalid"), std::string::npos) << e;
  EXPECT_NE(e.find("accepted it"), std::string::npos) << e;
}

TEST(harness_generation, valid_test_the_reference_rejects_or_throws_on_fails_loudly) {
  auto f = harness_test::test_family();
  f.generate = [](vecgen::Rng&) {
    std::vector<vecgen::Group> g(1);
    g[0].attributes = harness_test::requant_attrs(-3, 2, 0, "int8");
    g[0].tests.push_back(harness_test::test_case("negative multiplier, not marked invalid", {1}));
    return g;
  };
  std::string e = generation_error(f);
  EXPECT_NE(e.find("tcId 1"), std::string::npos) << e;
  EXPECT_NE(e.find("rejected a valid test"), std::string::npos) << e;

  f.generate = [](vecgen::Rng&) {
    std::vector<vecgen::Group> g(1);
    g[0].attributes = harness_test::requant_attrs(3, 99, 0, "int8");  // outside the REQUIRE
    g[0].tests.push_back(harness_test::test_case("shift 99", {1}));
    return g;
  };
  e = generation_error(f);
  EXPECT_NE(e.find("threw unexpectedly"), std::string::npos) << e;
  EXPECT_NE(e.find("REQUIRE violated"), std::string::npos) << e;
}

TEST(harness_generation, unexplained_flags_and_unknown_ops_fail) {
  auto f = harness_test::test_family();
  f.notes.pop_back();  // "Invalid" no longer explained
  EXPECT_NE(generation_error(f).find("flag 'Invalid' is not explained"), std::string::npos);
  f = harness_test::test_family();
  f.convention = "test.no_such_convention";
  EXPECT_NE(generation_error(f).find("no reference op registered"), std::string::npos);
  f = harness_test::test_family();
  f.convention = "test.half_up";  // diagnostic-only conventions have no vectors of their own
  EXPECT_NE(generation_error(f).find("diagnostic_only"), std::string::npos);
}

// A temporary vectors tree holding the test family's file and the shipped schemas.
struct Tree {
  fs::path dir = fs::temp_directory_path() / ("qspec_tree_" + std::to_string(::getpid()));
  std::vector<GeneratedFile> fresh;
  Tree() {
    fs::remove_all(dir);
    fs::create_directories(dir / "schema");
    fs::copy(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema", dir / "schema", fs::copy_options::recursive);
    const auto f = harness_test::test_family();
    fresh = run_generation_jobs({{f.file, [f] { return bytes_of(f); }}}, 1);
    write_file_atomically(dir / f.file, fresh[0].bytes);
  }
  ~Tree() { fs::remove_all(dir); }
  std::vector<TreeIssue> check() const { return check_vectors_tree(dir, fresh, SchemaSet(dir / "schema")); }
};

std::string joined(const std::vector<TreeIssue>& v) {
  std::string s;
  for (const auto& i : v) s += i.file + ": " + i.message + "\n";
  return s;
}

TEST(harness_generation, check_passes_a_fresh_tree_and_finds_an_edited_line) {
  Tree t;
  EXPECT_TRUE(t.check().empty()) << joined(t.check());
  // Change one expected value on the line of tcId 3.
  const fs::path file = t.dir / "test/test.half_away.json";
  std::string text = t.fresh[0].bytes;
  const auto pos = text.find("\"data\":[-5,-2,2]");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 16, "\"data\":[-4,-2,2]");
  write_file_atomically(file, text);
  const auto issues = t.check();
  ASSERT_EQ(issues.size(), 1u) << joined(issues);
  EXPECT_EQ(issues[0].file, "test/test.half_away.json");
  std::size_t line = 1;
  for (std::size_t i = 0; i < pos; ++i) line += text[i] == '\n';
  EXPECT_NE(issues[0].message.find("at line " + std::to_string(line)), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[0].message.find("[-4,-2,2]"), std::string::npos) << issues[0].message;
}

TEST(harness_generation, check_reports_missing_stale_and_malformed_files) {
  Tree t;
  fs::remove(t.dir / "test/test.half_away.json");
  std::ofstream(t.dir / "stale.json") << "{\"schema\": \"qspec-vectors/1\"}";
  const auto issues = t.check();
  const std::string all = joined(issues);
  EXPECT_NE(all.find("test/test.half_away.json: missing"), std::string::npos) << all;
  EXPECT_NE(all.find("stale.json: stale"), std::string::npos) << all;
  EXPECT_NE(all.find("stale.json: schema: vectors.schema.json"), std::string::npos) << all;
  EXPECT_NE(all.find("stale.json: missing field \"op\""), std::string::npos) << all;
}

TEST(harness_generation, check_reports_a_family_that_fails_to_generate) {
  Tree t;
  t.fresh[0].error = "vector family test/test.half_away.json: boom";
  const std::string all = joined(t.check());
  EXPECT_NE(all.find("generation failed: vector family test/test.half_away.json: boom"), std::string::npos) << all;
}

TEST(harness_generation, atomic_write_replaces_the_file_and_leaves_no_temporary) {
  const fs::path dir = fs::temp_directory_path() / ("qspec_atomic_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  write_file_atomically(dir / "a" / "x.txt", "one");
  write_file_atomically(dir / "a" / "x.txt", "two");
  std::ifstream in(dir / "a" / "x.txt");
  std::string s;
  std::getline(in, s);
  EXPECT_EQ(s, "two");
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "a")) ++n;
  EXPECT_EQ(n, 1u);
  fs::remove_all(dir);
}

}  // namespace
