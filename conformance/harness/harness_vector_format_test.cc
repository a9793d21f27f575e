// The vector file format: canonical serialization, the loader's checks and error paths, schemas.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness_test_ops.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/vector_serialize.h"
#include "qspec/vecgen/generate.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness;
using OJ = nlohmann::ordered_json;

std::string generated_text() {
  return serialize_vector_document(vecgen::generate_document(harness_test::test_family(), "9.9.9"));
}

// A minimal valid document, edited by the error-path tests.
OJ minimal_doc() {
  return OJ::parse(R"({"schema": "qspec-vectors/1", "op": "test.requantize", "convention": "test.half_away",
    "clauses": ["test.clause_a"], "generator": {"tool": "qspec", "version": "0", "seed": 1}, "numberOfTests": 2,
    "notes": {"F": "a flag"},
    "testGroups": [{"attributes": {"multiplier": 3}, "tests": [
      {"tcId": 1, "comment": "", "flags": ["F"], "result": "valid", "attributes": {"shift": 1},
       "inputs": {"x": {"dtype": "int32", "shape": [2], "data": [1, 2]}},
       "expected": {"y": {"dtype": "int8", "shape": [2], "data": [3, 4]}}},
      {"tcId": 2, "comment": "bad", "flags": [], "result": "invalid",
       "inputs": {"x": {"dtype": "int32", "shape": [], "data": [5]}}}]}]})");
}

// Expects parse_vector_file to fail on `doc` with this tcId (0: none) and JSON path.
void expect_error(const OJ& doc, std::int64_t tc_id, const std::string& path, const std::string& problem_part) {
  try {
    parse_vector_file(doc.dump(), "dir/file.json");
    FAIL() << "accepted a malformed file; expected an error at " << path;
  } catch (const VectorFileError& e) {
    EXPECT_EQ(e.file(), "dir/file.json");
    if (tc_id) {
      ASSERT_TRUE(e.tc_id().has_value()) << e.what();
      EXPECT_EQ(*e.tc_id(), tc_id) << e.what();
    } else {
      EXPECT_FALSE(e.tc_id().has_value()) << e.what();
    }
    EXPECT_EQ(e.json_path(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(problem_part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("dir/file.json: ", 0), 0u) << e.what();
  }
}

TEST(harness_vector_format, minimal_document_loads_with_merged_attributes) {
  const VectorFile f = parse_vector_file(minimal_doc().dump(), "x.json");
  EXPECT_EQ(f.op, "test.requantize");
  ASSERT_EQ(f.tests.size(), 2u);
  EXPECT_EQ(f.tests[0].attributes, OJ::parse(R"({"multiplier": 3, "shift": 1})"));
  EXPECT_EQ(f.tests[0].json_path, "/testGroups/0/tests/0");
  EXPECT_FALSE(f.tests[0].invalid);
  EXPECT_TRUE(f.tests[1].invalid);
  EXPECT_TRUE(f.tests[1].expected.empty());
  EXPECT_EQ(f.tests[1].inputs[0].shape, std::vector<std::int64_t>{});
  EXPECT_EQ(f.tests[1].inputs[0].data, std::vector<std::int64_t>{5});
}

TEST(harness_vector_format, test_attributes_override_group_attributes_key_by_key) {
  const OJ merged = merge_attributes(OJ::parse(R"({"a": 1, "b": 2})"), OJ::parse(R"({"b": 3, "c": 4})"));
  EXPECT_EQ(merged, OJ::parse(R"({"a": 1, "b": 3, "c": 4})"));
  EXPECT_EQ(merged.begin().key(), "a");  // group order kept, new keys appended
}

TEST(harness_vector_format, errors_name_file_tcid_and_json_path) {
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][0]["inputs"]["x"]["data"][1] = 4294967296LL;
    expect_error(d, 1, "/testGroups/0/tests/0/inputs/x", "outside the range of int32");
  }
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][1]["tcId"] = 1;
    expect_error(d, 1, "/testGroups/0/tests/1/tcId", "duplicate tcId");
  }
  {
    OJ d = minimal_doc();
    d["numberOfTests"] = 3;
    expect_error(d, 0, "/numberOfTests", "holds 2 tests");
  }
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][0]["flags"][0] = "Unexplained";
    expect_error(d, 1, "/testGroups/0/tests/0/flags/0", "not explained");
  }
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][1]["result"] = "acceptable";
    expect_error(d, 2, "/testGroups/0/tests/1/result", "\"valid\" or \"invalid\"");
  }
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][0].erase("expected");
    expect_error(d, 1, "/testGroups/0/tests/0", "missing field \"expected\"");
  }
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][1]["expected"] = OJ::object();
    expect_error(d, 2, "/testGroups/0/tests/1/expected", "no expected outputs");
  }
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][0]["expected"]["y"]["shape"] = {3};
    expect_error(d, 1, "/testGroups/0/tests/0/expected/y", "shape implies 3");
  }
  {
    OJ d = minimal_doc();
    d["schema"] = "qspec-vectors/2";
    expect_error(d, 0, "/schema", "unsupported schema");
  }
  {
    OJ d = minimal_doc();
    d["surprise"] = 1;
    expect_error(d, 0, "/surprise", "unknown top-level field");
  }
  {
    OJ d = minimal_doc();
    d["testGroups"][0]["tests"][0]["tcId"] = "1";
    expect_error(d, 0, "/testGroups/0/tests/0/tcId", "positive integer");
  }
}

TEST(harness_vector_format, invalid_json_reports_line_and_column) {
  try {
    parse_vector_file("{\n  \"schema\": \"qspec-vectors/1\",\n  \"op\": ,\n}", "broken.json");
    FAIL() << "accepted broken JSON";
  } catch (const VectorFileError& e) {
    // The streaming pre-pass also names the JSON Pointer of the value being read (json_precheck.h).
    EXPECT_NE(std::string(e.what()).find("broken.json: at /op: not valid JSON (line 3, column 9, byte offset 41)"),
              std::string::npos)
        << e.what();
  }
}

TEST(harness_vector_format, serialization_is_one_test_per_line_and_parses_back) {
  const std::string text = generated_text();
  EXPECT_EQ(text.rfind("{\n  \"schema\": \"qspec-vectors/1\",\n  \"op\": \"test.requantize\",\n", 0), 0u) << text;
  EXPECT_EQ(text.back(), '\n');
  // Every test is on a line of its own.
  std::size_t test_lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("      {\"tcId\":", 0) == 0) ++test_lines;
  EXPECT_EQ(test_lines, 7u);
  const VectorFile f = parse_vector_file(text, "t.json");
  EXPECT_EQ(f.number_of_tests, 7);
  // Round trip: parse + serialize gives the same bytes.
  EXPECT_EQ(serialize_vector_document(OJ::parse(text)), text);
}

TEST(harness_vector_format, serialization_rejects_floating_point_numbers) {
  OJ d = minimal_doc();
  d["testGroups"][0]["attributes"]["scale"] = 0.5;
  EXPECT_THROW(serialize_vector_document(d), std::invalid_argument);
}

TEST(harness_vector_format, first_line_difference_points_at_the_line) {
  EXPECT_FALSE(first_line_difference("a\nb\n", "a\nb\n"));
  auto d = first_line_difference("a\nb\nc\n", "a\nB\nc\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 2u);
  EXPECT_EQ(d->expected, "b");
  EXPECT_EQ(d->actual, "B");
  d = first_line_difference("a\nb\n", "a\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 2u);
  EXPECT_EQ(d->actual, "<end of file>");
  d = first_line_difference("a\n", "a");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 1u);
}

TEST(harness_vector_format, generated_files_pass_the_shipped_schemas) {
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  const auto errors = schemas.validate(generated_text());
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_TRUE(schemas.validate(minimal_doc().dump()).empty());
}

TEST(harness_vector_format, schema_rejects_structural_defects_with_paths) {
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  OJ d = minimal_doc();
  d["testGroups"][0]["tests"][0]["result"] = "maybe";
  d["testGroups"][0]["tests"][1]["inputs"]["x"]["data"][0] = "0xzz";
  d.erase("notes");
  const auto errors = schemas.validate(d.dump());
  auto has = [&](const std::string& part) {
    for (const auto& e : errors)
      if (e.find(part) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("/testGroups/0/tests/0/result")) << ::testing::PrintToString(errors);
  EXPECT_TRUE(has("/testGroups/0/tests/1/inputs/x/data/0")) << ::testing::PrintToString(errors);
  EXPECT_TRUE(has("notes")) << ::testing::PrintToString(errors);
}

// Every rule the shipped schemas state, as rapidjson (draft 4) checks it: the valid/invalid rule
// (draft-7 if/then/else before, oneOf now), per-op input names, all missing fields at once.
TEST(harness_vector_format, schema_rules_survive_the_draft_4_port) {
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  auto errors_of = [&](const OJ& d) {
    std::string all;
    for (const auto& e : schemas.validate(d.dump())) all += e + "\n";
    return all;
  };
  OJ d = minimal_doc();
  d["testGroups"][0]["tests"][1]["expected"] = d["testGroups"][0]["tests"][0]["expected"];  // invalid test with outputs
  EXPECT_NE(errors_of(d).find("/testGroups/0/tests/1: violates \"oneOf\""), std::string::npos) << errors_of(d);
  d = minimal_doc();
  d["testGroups"][0]["tests"][0].erase("expected");  // valid test without outputs
  EXPECT_NE(errors_of(d).find("/testGroups/0/tests/0: violates \"oneOf\""), std::string::npos) << errors_of(d);
  d = minimal_doc();
  d["schema"] = "qspec-vectors/2";
  EXPECT_NE(errors_of(d).find("at /schema: \"qspec-vectors/2\" is not one of \"qspec-vectors/1\""), std::string::npos)
      << errors_of(d);
  d = minimal_doc();
  d.erase("notes");
  d.erase("clauses");
  EXPECT_NE(errors_of(d).find("at /: missing required fields \"clauses\", \"notes\""), std::string::npos)
      << errors_of(d);
  // requantize.schema.json: exactly one input "x".
  d = minimal_doc();
  d["op"] = "requantize";
  d["testGroups"][0]["tests"][0]["inputs"]["x2"] = d["testGroups"][0]["tests"][0]["inputs"]["x"];
  d["testGroups"][0]["tests"][1]["inputs"].erase("x");
  d["testGroups"][0]["tests"][1]["inputs"]["z"] = d["testGroups"][0]["tests"][0]["inputs"]["x"];
  const std::string e = errors_of(d);
  EXPECT_NE(e.find("requantize.schema.json: at /testGroups/0/tests/0/inputs: unknown field \"x2\" (allowed: x)"),
            std::string::npos)
      << e;
  // A missing input is not a schema violation: an invalid test may lack one on purpose; the
  // catalogue check refuses a valid test without it (run_input_checks_cli_test).
  EXPECT_EQ(e.find("tests/1/inputs"), std::string::npos) << e;
  // concat.schema.json: variadic inputs x0, x1, ... (patternProperties). rapidjson 1.1.0 once
  // validated x0's own members against "inputs" and called them unknown fields.
  d = minimal_doc();
  d["op"] = "concat";
  d["testGroups"][0]["tests"][0]["inputs"] = OJ::object();
  d["testGroups"][0]["tests"][0]["inputs"]["x0"] = {{"dtype", "int32"}, {"shape", {1}}, {"data", {1}}};
  d["testGroups"][0]["tests"][0]["inputs"]["x1"] = {{"dtype", "int32"}, {"shape", {1}}, {"data", {2}}};
  d["testGroups"][0]["tests"][1]["inputs"] = d["testGroups"][0]["tests"][0]["inputs"];
  EXPECT_EQ(errors_of(d).find("inputs"), std::string::npos) << errors_of(d);
  d["testGroups"][0]["tests"][0]["inputs"]["y"] = d["testGroups"][0]["tests"][0]["inputs"]["x0"];
  const std::string ev = errors_of(d);
  EXPECT_NE(ev.find("concat.schema.json: at /testGroups/0/tests/0/inputs: unknown field \"y\""), std::string::npos)
      << ev;
  d = minimal_doc();
  d["op"] = "requantize";
  // An integer may be written as a decimal string (beyond 2^53); anything else is refused.
  d["testGroups"][0]["attributes"]["shift"] = "1";
  EXPECT_EQ(errors_of(d).find("attributes/shift"), std::string::npos) << errors_of(d);
  d["testGroups"][0]["attributes"]["shift"] = "one";
  EXPECT_NE(errors_of(d).find("at /testGroups/0/attributes/shift: \"one\" does not match the pattern"),
            std::string::npos)
      << errors_of(d);
  d["testGroups"][0]["attributes"]["shift"] = true;
  EXPECT_NE(
      errors_of(d).find("at /testGroups/0/attributes/shift: true is a boolean, expected type \"integer\", \"string\""),
      std::string::npos)
      << errors_of(d);
}

// The loader's one-pass validation (the file's op known, no DOM) and the DOM validation agree on
// every document: empty for a valid one, the same messages otherwise; among them violations only
// the common schema sees and only the op's schema sees, and integers beyond int32 and int64 (the
// SAX parse reports numbers as Uint/Int64 where the DOM walk says Int).
TEST(harness_vector_format, one_pass_validation_agrees_with_the_dom_validation) {
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  std::vector<OJ> docs = {minimal_doc()};
  OJ d = minimal_doc();
  d["testGroups"][0]["tests"][0]["result"] = "maybe";  // the common schema
  docs.push_back(d);
  d = minimal_doc();
  d["op"] = "requantize";
  d["convention"] = "gemmlowp.double_round";
  docs.push_back(d);
  d["testGroups"][0]["tests"][0]["inputs"]["x"]["data"] =
      OJ::parse("[-1, 0, 2147483648, -2147483649, 18446744073709551615]");
  d["testGroups"][0]["tests"][0]["inputs"]["x"]["shape"] = {5};
  docs.push_back(d);
  OJ only_op = d;
  only_op["testGroups"][0]["tests"][0]["inputs"]["x2"] = d["testGroups"][0]["tests"][0]["inputs"]["x"];
  docs.push_back(only_op);  // the op's schema only
  d["testGroups"][0]["attributes"]["shift"] = true;
  docs.push_back(d);  // the op's schema only
  std::size_t valid = 0;
  for (const OJ& doc : docs) {
    const std::string text = doc.dump();
    const auto dom = schemas.validate(text);
    EXPECT_EQ(schemas.validate(text, SchemaSet::Prechecked::Yes, doc["op"].get<std::string>()), dom) << text;
    valid += dom.empty();
  }
  EXPECT_EQ(valid, 3u);  // the minimal document, as requantize, and with the wide integers
  EXPECT_TRUE(schemas.validate(generated_text(), SchemaSet::Prechecked::Yes, "test.requantize").empty());
}

// rapidjson skips keywords it does not implement without a word; such a schema is refused, so a
// rule can never be lost by writing it in a later draft's vocabulary.
TEST(harness_vector_format, schemas_with_keywords_rapidjson_would_ignore_are_refused) {
  const fs::path dir = fs::temp_directory_path() / ("qspec_schema_vet_" + std::to_string(::getpid()));
  auto load_error = [&](const std::string& common) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "vectors.schema.json") << common;
    try {
      const SchemaSet s(dir);
      return std::string("(loaded)");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  };
  const std::string head = R"({"$schema": "http://json-schema.org/draft-04/schema#", )";
  EXPECT_NE(
      load_error(head + R"("properties": {"op": {"const": "x"}}})").find("at /properties/op/const: keyword \"const\""),
      std::string::npos);
  EXPECT_NE(load_error(head + R"("if": {}, "then": {}})").find("keyword \"if\""), std::string::npos);
  EXPECT_NE(load_error(R"({"$schema": "http://json-schema.org/draft-07/schema#"})").find("draft-04"),
            std::string::npos);
  EXPECT_NE(load_error(head + R"("items": {"$ref": "#/definitions/none"}})").find("does not resolve"),
            std::string::npos);
  // Patterns rapidjson's regex parser would assert on (Debug builds) or cannot express.
  for (const char* bad : {"(unclosed", "a**", "a(", "((a)", "a|", "\\\\d+", "(?:a)"})
    EXPECT_NE(load_error(head + R"("pattern": ")" + bad + R"("})").find("cannot compile"), std::string::npos) << bad;
  EXPECT_NE(load_error(head + R"("patternProperties": {"(x": {}}})").find("cannot compile"), std::string::npos);
  EXPECT_EQ(load_error(head + R"("pattern": "^(-?[0-9]+|0x[0-9a-f]{8})$", "patternProperties": {"^[a-z]+$": {}}})"),
            "(loaded)");
  // Names under "properties" / "definitions" are not keywords.
  EXPECT_EQ(load_error(head + R"("properties": {"if": {"type": "string"}}, "definitions": {"const": {}}})"),
            "(loaded)");
  fs::remove_all(dir);
}

TEST(harness_vector_format, find_vector_files_names_relative_to_the_vectors_directory) {
  const fs::path tmp = fs::temp_directory_path() / ("qspec_find_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp / "vectors" / "op" / "sub");
  fs::create_directories(tmp / "vectors" / "schema");
  for (const char* p :
       {"vectors/op/b.json", "vectors/op/sub/a.json", "vectors/schema/vectors.schema.json", "vectors/op/notes.txt"})
    std::ofstream(tmp / p) << "{}";
  const auto all = find_vector_files({tmp / "vectors"});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].display_name, "op/b.json");
  EXPECT_EQ(all[1].display_name, "op/sub/a.json");
  const auto one = find_vector_files({tmp / "vectors" / "op" / "sub" / "a.json", tmp / "vectors"});
  EXPECT_EQ(one.size(), 2u);  // the file given twice is listed once
  EXPECT_THROW(find_vector_files({tmp / "missing"}), VectorFileError);
  fs::remove_all(tmp);
}

}  // namespace
