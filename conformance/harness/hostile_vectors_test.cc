// Hostile vector files: every class of defect is rejected with a VectorFileError naming the file,
// the tcId or JSON path and the field, within bounded memory (measured by counting operator new).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "qspec/harness/json_precheck.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/vector_limits.h"
#include "qspec/harness/vectors_tree.h"

// ---- Heap accounting: every operator new of this binary goes through here. ----
// Each block carries its size in a 16-byte header so that delete can subtract it; `peak` is the
// high-water mark of live bytes since the last reset.
namespace {
std::atomic<std::size_t> g_live{0}, g_peak{0};

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<std::size_t*>(p) = n;
  const std::size_t now = g_live += n;
  for (std::size_t peak = g_peak.load(); now > peak && !g_peak.compare_exchange_weak(peak, now);) {
  }
  return static_cast<char*>(p) + 16;
}

void counted_free(void* p) noexcept {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  g_live -= *reinterpret_cast<std::size_t*>(base);
  std::free(base);
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
// The nothrow forms too (some libraries allocate with them): sanitizer runtimes define their own, which
// would otherwise hand out blocks without our header.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }

namespace {
namespace fs = std::filesystem;
using namespace qspec::harness;
namespace lim = qspec::harness::vector_limits;

// The bytes allocated (live at once, at most) while a scope runs, above what was live at its start.
class HeapPeak {
 public:
  HeapPeak() : start_(g_live.load()) { g_peak = start_; }
  std::size_t bytes() const { return g_peak.load() - start_; }

 private:
  std::size_t start_;
};

// A small valid file (the test op of the harness tests; parse_vector_file does not look ops up).
const std::string kGood =
    R"({"schema":"qspec-vectors/1","op":"test.requantize","convention":"test.half_away","clauses":["test.clause_a"],)"
    R"("generator":{"tool":"qspec"},"numberOfTests":2,"notes":{"F":"a flag"},"testGroups":[{"attributes":{"multiplier":3},"tests":[)"
    "\n"
    R"({"tcId":1,"comment":"one","flags":["F"],"result":"valid","attributes":{"shift":1},)"
    R"("inputs":{"x":{"dtype":"int32","shape":[2],"data":[1,2]}},"expected":{"y":{"dtype":"int8","shape":[2],"data":[3,4]}}},)"
    "\n"
    R"({"tcId":2,"comment":"two","flags":[],"result":"invalid","inputs":{"x":{"dtype":"int32","shape":[],"data":[5]}}}]}]})"
    "\n";

// kGood with `from` (which must occur exactly once) replaced by `to`.
std::string edit(const std::string& from, const std::string& to, const std::string& text = kGood) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  EXPECT_EQ(text.find(from, pos + 1), std::string::npos) << from << " occurs twice";
  if (pos == std::string::npos) return text;
  return text.substr(0, pos) + to + text.substr(pos + from.size());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Parses `text` as "dir/bad.json", expects a VectorFileError with this tcId (0: none) and JSON path
// (a path ending in '*' is a prefix) whose message contains every part, and returns it. Also checks
// that what() starts with the file name and that rejecting used at most `max_heap_bytes` of heap.
VectorFileError rejected(const std::string& text, std::int64_t tc_id, const std::string& path,
                         const std::vector<std::string>& parts, std::size_t max_heap_bytes = std::size_t{1} << 20) {
  HeapPeak heap;
  try {
    parse_vector_file(text, "dir/bad.json");
  } catch (const VectorFileError& e) {
    const std::size_t used = heap.bytes();
    EXPECT_EQ(e.file(), "dir/bad.json");
    EXPECT_EQ(std::string(e.what()).rfind("dir/bad.json: ", 0), 0u) << e.what();
    if (tc_id) {
      EXPECT_EQ(e.tc_id(), std::optional<std::int64_t>(tc_id)) << e.what();
      EXPECT_TRUE(contains(e.what(), "tcId " + std::to_string(tc_id) + ": ")) << e.what();
    } else {
      EXPECT_FALSE(e.tc_id().has_value()) << e.what();
    }
    if (!path.empty() && path.back() == '*')
      EXPECT_EQ(e.json_path().rfind(path.substr(0, path.size() - 1), 0), 0u) << e.what();
    else
      EXPECT_EQ(e.json_path(), path) << e.what();
    for (const auto& p : parts) EXPECT_TRUE(contains(e.problem(), p)) << "missing \"" << p << "\" in: " << e.what();
    EXPECT_LE(used, max_heap_bytes) << "rejecting took " << used << " bytes of heap: " << e.what();
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw something else than VectorFileError: " << e.what();
    return VectorFileError("", std::nullopt, "", "");
  }
  ADD_FAILURE() << "accepted a hostile file; expected an error at " << path;
  return VectorFileError("", std::nullopt, "", "");
}

TEST(hostile_vectors, the_good_file_loads) {
  const VectorFile f = parse_vector_file(kGood, "good.json");
  EXPECT_EQ(f.tests.size(), 2u);
  EXPECT_FALSE(precheck_json(kGood).has_value());
}

TEST(hostile_vectors, invalid_json_names_line_column_byte_offset_and_path) {
  const std::string text = edit(R"("result":"invalid")", R"("result":invalid")");
  const std::size_t at = text.find("invalid\"");
  const auto [line, col] = line_and_column(text, at);
  EXPECT_EQ(line, 3u);
  rejected(text, 2, "/testGroups/0/tests/1/result",
           {"not valid JSON (line 3, column " + std::to_string(col) + ", byte offset " + std::to_string(at) + ")",
            "invalid literal"});
  // Not an object, and trailing garbage after the document.
  rejected("[]", 0, "", {"must hold a JSON object"});
  rejected(kGood + "}", 0, "", {"not valid JSON (line 4, column 1", "expected end of input"});
}

TEST(hostile_vectors, truncated_file_says_truncated_with_the_tcid_and_path) {
  const std::string cut = kGood.substr(0, kGood.find("\"data\":[5]") + 8);  // ends after "data":[
  rejected(cut, 2, "/testGroups/0/tests/1/inputs/x/data/0",
           {"truncated", "byte offset " + std::to_string(cut.size() - 1)});
  rejected("", 0, "", {"the file is empty"});
  rejected("{\"schema\"", 0, "/schema", {"truncated"});
}

TEST(hostile_vectors, non_utf8_bytes_give_the_offset_of_the_bad_byte) {
  const std::string text = edit(R"("comment":"two")", "\"comment\":\"tw\xff\"");
  const std::size_t at = text.find('\xff');
  rejected(text, 2, "/testGroups/0/tests/1/comment",
           {"not valid UTF-8: byte 0xff at byte offset " + std::to_string(at)});
  // An overlong '/' (C0 AF) in a key: the lead byte is named.
  const std::string key = edit(R"("notes":{"F")", "\"notes\":{\"\xc0\xaf\"");
  rejected(key, 0, "/notes", {"byte 0xc0 at byte offset " + std::to_string(key.find('\xc0'))});
}

TEST(hostile_vectors, utf8_scanner_follows_rfc3629) {
  EXPECT_EQ(first_invalid_utf8("plain ascii"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xf4\x8f\xbf\xbf"),
            std::nullopt);                                 // e-acute, euro, G clef, U+10FFFF
  EXPECT_EQ(first_invalid_utf8("ab\x80"), 2u);             // lone continuation byte
  EXPECT_EQ(first_invalid_utf8("a\xc1\xbf"), 1u);          // overlong 2-byte form
  EXPECT_EQ(first_invalid_utf8("a\xe0\x9f\xbf"), 1u);      // overlong 3-byte form
  EXPECT_EQ(first_invalid_utf8("a\xed\xa0\x80"), 1u);      // UTF-16 surrogate D800
  EXPECT_EQ(first_invalid_utf8("a\xf4\x90\x80\x80"), 1u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("abc\xe2\x82"), 3u);        // sequence cut by the end of the text
  EXPECT_EQ(first_invalid_utf8("\xf5\x80\x80\x80"), 0u);   // F5..FF never occur
}

TEST(hostile_vectors, schema_violations_name_the_field) {
  rejected(edit(R"("tcId":2)", R"("tcId":"2")"), 0, "/testGroups/0/tests/1/tcId", {"positive integer"});
  rejected(edit(R"("tcId":2)", R"("tcId":18446744073709551615)"), 0, "/testGroups/0/tests/1/tcId",
           {"positive integer"});
  rejected(edit(R"("flags":["F"])", R"("flags":"F")"), 1, "/testGroups/0/tests/0/flags",
           {"expected an array of strings"});
  rejected(edit(R"(,"inputs":{"x":{"dtype":"int32","shape":[],"data":[5]}})", ""), 2, "/testGroups/0/tests/1",
           {"missing field \"inputs\""});
  rejected(edit(R"("numberOfTests":2)", R"("numberOfTests":3)"), 0, "/numberOfTests", {"holds 2 tests"});
  rejected(edit(R"("result":"invalid")", R"("result":"acceptable")"), 2, "/testGroups/0/tests/1/result",
           {"\"valid\" or \"invalid\""});
  rejected(edit(R"("schema":"qspec-vectors/1",)", R"("schema":"qspec-vectors/1","extra":1,)"), 0, "/extra",
           {"unknown top-level field"});
}

TEST(hostile_vectors, unknown_schema_version_is_refused) {
  rejected(edit("qspec-vectors/1", "qspec-vectors/2"), 0, "/schema",
           {"unsupported schema \"qspec-vectors/2\"", "qspec-vectors/1"});
}

TEST(hostile_vectors, unknown_op_or_convention_is_named_against_the_catalogue) {
  const VectorFile f = parse_vector_file(kGood, "dir/bad.json");
  const std::vector<std::pair<std::string, std::string>> known = {{"requantize", "tflite.single_round"},
                                                                  {"test.requantize", "test.half_up"},
                                                                  {"test.requantize", "test.half_even"}};
  try {
    check_op_known(f, known, "the reference");
    FAIL() << "unknown convention accepted";
  } catch (const VectorFileError& e) {
    EXPECT_EQ(e.json_path(), "/convention");
    EXPECT_TRUE(contains(e.what(),
                         "unknown convention \"test.half_away\" of op \"test.requantize\": not implemented by the "
                         "reference (known conventions of the op: test.half_even, test.half_up)"))
        << e.what();
  }
  VectorFile g = f;
  g.op = "test.requantise";
  try {
    check_op_known(g, known, "the reference");
    FAIL() << "unknown op accepted";
  } catch (const VectorFileError& e) {
    EXPECT_EQ(e.json_path(), "/op");
    EXPECT_TRUE(contains(e.what(), "unknown op \"test.requantise\"")) << e.what();
  }
  EXPECT_NO_THROW(check_op_known(f, {{"test.requantize", "test.half_away"}}, "the reference"));
}

TEST(hostile_vectors, wrong_dtypes_name_the_tensor) {
  rejected(edit(R"("dtype":"int8")", R"("dtype":"int7")"), 1, "/testGroups/0/tests/0/expected/y",
           {"tensor 'y'", "unknown dtype \"int7\""});
  rejected(edit(R"("dtype":"int8")", R"("dtype":8)"), 1, "/testGroups/0/tests/0/expected/y",
           {"'dtype' must be a string"});
  rejected(edit(R"("dtype":"int8","shape":[2],"data":[3,4])", R"("dtype":"float32","shape":[2],"data":[3,4])"), 1,
           "/testGroups/0/tests/0/expected/y", {"data[0]", "float32: expected a hex bit-pattern string"});
  rejected(edit(R"("data":[1,2])", R"("data":[1,"0x3f800000"])"), 1, "/testGroups/0/tests/0/inputs/x",
           {"data[1]", "decimal integer string"});
}

TEST(hostile_vectors, values_outside_their_dtype_are_refused) {
  rejected(edit(R"("data":[3,4])", R"("data":[3,128])"), 1, "/testGroups/0/tests/0/expected/y",
           {"data[1]", "128 is outside the range of int8"});
  rejected(edit(R"("data":[1,2])", R"("data":[1,2147483648])"), 1, "/testGroups/0/tests/0/inputs/x",
           {"outside the range of int32"});
  rejected(edit(R"("data":[1,2])", R"("data":[1,"-9223372036854775809"])"), 1, "/testGroups/0/tests/0/inputs/x",
           {"exceeds int64"});
  rejected(edit(R"("data":[1,2])", R"("data":[1,18446744073709551616])"), 1, "/testGroups/0/tests/0/inputs/x/data/1",
           {"outside the 64-bit integer range"});
}

TEST(hostile_vectors, shape_and_data_length_must_agree) {
  rejected(edit(R"("shape":[2],"data":[3,4])", R"("shape":[3],"data":[3,4])"), 1, "/testGroups/0/tests/0/expected/y",
           {"data has 2 elements but shape implies 3"});
  rejected(edit(R"("shape":[],"data":[5])", R"("shape":[],"data":[])"), 2, "/testGroups/0/tests/1/inputs/x",
           {"shape implies 1"});
  rejected(edit(R"("shape":[2],"data":[1,2])", R"("shape":[-2],"data":[1,2])"), 1, "/testGroups/0/tests/0/inputs/x",
           {"non-negative"});
}

// Declared shapes that would size gigantic buffers are refused from the shape alone: the heap used
// while rejecting them stays below 64 KiB (the document itself is a few hundred bytes).
TEST(hostile_vectors, memory_bomb_shapes_fail_before_any_allocation) {
  const std::size_t small = std::size_t{64} << 10;
  rejected(edit(R"("shape":[2],"data":[1,2])", R"("shape":[1099511627776,1099511627776],"data":[])"), 1,
           "/testGroups/0/tests/0/inputs/x/shape/0", {"dimension 1099511627776 exceeds the limit of 262144"}, small);
  rejected(edit(R"("shape":[2],"data":[1,2])", R"("shape":[65536,65536],"data":[])"), 1,
           "/testGroups/0/tests/0/inputs/x/shape", {"shape [65536,65536] has more than 262144 elements"}, small);
  rejected(edit(R"("shape":[2],"data":[1,2])", R"("shape":[0,9223372036854775807,9223372036854775807],"data":[])"), 1,
           "/testGroups/0/tests/0/inputs/x/shape/1", {"exceeds the limit"}, small);
  rejected(edit(R"("shape":[2],"data":[1,2])", R"("shape":[18446744073709551615],"data":[])"), 1,
           "/testGroups/0/tests/0/inputs/x/shape/0", {"exceeds the limit"}, small);
  rejected(edit(R"("shape":[2],"data":[1,2])", R"("shape":[1,1,1,1,1,1,1,1,1],"data":[1])"), 1,
           "/testGroups/0/tests/0/inputs/x/shape", {"rank 9 exceeds the limit of 8"}, small);
}

// A data array too long for the value limit is refused while streaming, before a DOM exists.
TEST(hostile_vectors, too_many_json_values_fail_while_streaming) {
  std::string zeros;
  zeros.reserve(2 * lim::kMaxJsonValues + 8);
  for (std::size_t i = 0; i <= lim::kMaxJsonValues; ++i) zeros += i ? ",0" : "0";
  const std::string text = edit(R"("data":[1,2])", "\"data\":[" + zeros + "]");
  // The limit is hit inside the array: the path is the element that crossed it. The loader builds
  // the DOM in the same pass, each value only after its checks, so rejecting costs at most the DOM
  // of the limit (about 40 bytes a value here), as accepting a file at the limit does, never more.
  rejected(text, 1, "/testGroups/0/tests/0/inputs/x/data/*", {"more than 2097152 JSON values"},
           64 * lim::kMaxJsonValues);
  // The check alone (SchemaSet::validate's, before rapidjson builds its document) builds nothing.
  HeapPeak heap;
  const auto e = precheck_json(text);
  EXPECT_LE(heap.bytes(), std::size_t{1} << 16);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(contains(e->problem, "more than 2097152 JSON values")) << e->problem;
}

// 5 tensors of 2^18 elements each exceed the 2^20 elements a file may hold.
TEST(hostile_vectors, file_element_limit_counts_every_tensor) {
  std::string data;
  for (std::int64_t i = 0; i < lim::kMaxTensorElements; ++i) data += i ? ",0" : "0";
  std::string tests;
  for (int t = 1; t <= 5; ++t)
    tests += std::string(t > 1 ? "," : "") + R"({"tcId":)" + std::to_string(t) +
             R"(,"comment":"","flags":[],"result":"invalid","inputs":{"x":{"dtype":"int8","shape":[262144],"data":[)" +
             data + "]}}}";
  const std::string text =
      R"({"schema":"qspec-vectors/1","op":"o","convention":"c","clauses":["a.b"],"generator":{},"numberOfTests":5,)"
      R"("notes":{},"testGroups":[{"attributes":{},"tests":[)" +
      tests + "]}]}";
  // The DOM of an accepted-size document is allowed (about 50 bytes per value): the tensors of the
  // first four tests are built, the fifth's is refused from its shape.
  rejected(text, 5, "/testGroups/0/tests/4/inputs/x", {"more than 1048576 elements in total"}, std::size_t{256} << 20);
}

// Every test gets its own merged copy of its group's attributes: big group attributes shared by
// many tests would multiply the memory of a file within every other limit.
TEST(hostile_vectors, attribute_copies_are_bounded_before_they_are_made) {
  std::string zeros;
  for (std::size_t i = 0; i < lim::kMaxAttributeValuesPerFile / 2; ++i) zeros += i ? ",0" : "0";
  std::string tests;
  for (int t = 1; t <= 3; ++t)
    tests += std::string(t > 1 ? "," : "") + R"({"tcId":)" + std::to_string(t) +
             R"(,"comment":"","flags":[],"result":"invalid","inputs":{}})";
  const std::string text =
      R"({"schema":"qspec-vectors/1","op":"o","convention":"c","clauses":["a.b"],"generator":{},"numberOfTests":3,)"
      R"("notes":{},"testGroups":[{"attributes":{"big":[)" +
      zeros + R"(]},"tests":[)" + tests + "]}]}";
  // Test 1's copy is made (within the limit); test 2's would cross it.
  rejected(text, 2, "/testGroups/0/tests/1/attributes", {"more than 262144 JSON values in total"},
           std::size_t{64} << 20);
}

TEST(hostile_vectors, deep_nesting_fails_while_streaming_without_recursion) {
  const std::string deep(1'000'000, '[');
  std::string path;
  for (int i = 0; i < 32; ++i) path += "/0";  // the 33rd array would be element 0 of the 32nd
  rejected(deep, 0, path, {"nesting deeper than 32 levels"}, std::size_t{64} << 10);
  // Inside a test's attributes: the tcId was read before, so it is named.
  std::string nested = "1";
  for (int i = 0; i < 40; ++i) nested = "[" + nested + "]";
  rejected(edit(R"("attributes":{"shift":1})", R"("attributes":{"shift":)" + nested + "}"), 1,
           "/testGroups/0/tests/0/attributes/shift/0/0/*", {"nesting deeper"});
  // The schema validator (recursive) never sees such a document either.
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  const auto errors = schemas.validate(deep);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(contains(errors[0], "nesting deeper than 32 levels")) << errors[0];
}

TEST(hostile_vectors, duplicate_tcids_name_both_json_paths) {
  rejected(edit(R"("tcId":2)", R"("tcId":1)"), 1, "/testGroups/0/tests/1/tcId",
           {"duplicate tcId 1", "/testGroups/0/tests/0/tcId has it too"});
}

// nlohmann's DOM keeps the last of two equal keys; the loader must not silently pick one.
TEST(hostile_vectors, duplicate_keys_are_refused) {
  rejected(edit(R"("result":"valid",)", R"("result":"valid","result":"invalid",)"), 1, "/testGroups/0/tests/0/result",
           {"duplicate key \"result\""});
  rejected(edit(R"("shape":[],"data":[5])", R"("shape":[],"data":[5],"data":[6])"), 2,
           "/testGroups/0/tests/1/inputs/x/data", {"duplicate key \"data\""});
}

TEST(hostile_vectors, overlong_strings_and_keys_are_refused) {
  rejected(edit(R"("comment":"one")", "\"comment\":\"" + std::string(lim::kMaxStringBytes + 1, 'a') + "\""), 1,
           "/testGroups/0/tests/0/comment", {"a string of 4097 bytes exceeds the limit of 4096 bytes"});
  const auto e = rejected(
      edit(R"("notes":{"F":"a flag"})", "\"notes\":{\"F\":\"a flag\",\"" + std::string(5000, 'k') + "\":\"x\"}"), 0,
      "/notes/" + std::string(60, 'k') + "...", {"an object key of 5000 bytes"});
  EXPECT_LT(std::string(e.what()).size(), 400u) << "the message repeats the whole key";
  // A syntax error at the end of a long string: nlohmann quotes the token read; the message is cut.
  const auto s = rejected(edit(R"("comment":"one")", "\"comment\":\"" + std::string(100000, 'a') + "\\q\""), 1,
                          "/testGroups/0/tests/0/comment", {"not valid JSON (line 2", "invalid string"});
  EXPECT_LT(std::string(s.what()).size(), 600u) << "the message quotes the whole token";
}

TEST(hostile_vectors, floating_point_numbers_are_refused) {
  rejected(edit(R"("multiplier":3)", R"("multiplier":0.5)"), 0, "/testGroups/0/attributes/multiplier",
           {"floating-point number 0.5"});
  rejected(edit(R"("data":[3,4])", R"("data":[3,4e0])"), 1, "/testGroups/0/tests/0/expected/y/data/1",
           {"floating-point number 4e0"});
  rejected(edit(R"("multiplier":3)", R"("multiplier":1e400)"), 0, "/testGroups/0/attributes/multiplier",
           {"number overflow parsing '1e400'"});
}

TEST(hostile_vectors, too_many_tests_are_refused_per_file) {
  std::string tests;
  const std::size_t n = lim::kMaxTestsPerFile + 1;
  for (std::size_t t = 1; t <= n; ++t)
    tests += std::string(t > 1 ? "," : "") + R"({"tcId":)" + std::to_string(t) +
             R"(,"comment":"","flags":[],"result":"invalid","inputs":{}})";
  const std::string text =
      R"({"schema":"qspec-vectors/1","op":"o","convention":"c","clauses":["a.b"],"generator":{},"numberOfTests":)" +
      std::to_string(n) + R"(,"notes":{},"testGroups":[{"attributes":{},"tests":[)" + tests + "]}]}";
  rejected(text, 0, "/testGroups/0/tests", {"more than 65536 tests"}, std::size_t{256} << 20);
}

TEST(hostile_vectors, oversized_files_are_refused_before_reading) {
  rejected(std::string(lim::kMaxFileBytes + 1, ' '), 0, "", {"16777217 bytes, more than the limit of 16777216 bytes"},
           4096);
  // A sparse 1 GiB file: load_vector_file must not read it.
  const fs::path p = fs::temp_directory_path() / ("qspec_hostile_big_" + std::to_string(::getpid()) + ".json");
  { std::ofstream(p) << ""; }
  fs::resize_file(p, std::uintmax_t{1} << 30);
  HeapPeak heap;
  try {
    load_vector_file(p, "big.json");
    ADD_FAILURE() << "a 1 GiB file was accepted";
  } catch (const VectorFileError& e) {
    EXPECT_TRUE(contains(e.what(), "big.json: the file is 1073741824 bytes, more than the limit")) << e.what();
  }
  EXPECT_LT(heap.bytes(), std::size_t{64} << 10);
  fs::remove(p);
  // An endless stream whose size the file system does not know: read to one chunk past the limit.
  if (fs::exists("/dev/zero")) {
    HeapPeak stream;
    try {
      load_vector_file("/dev/zero", "zero.json");
      ADD_FAILURE() << "an endless file was accepted";
    } catch (const VectorFileError& e) {
      EXPECT_TRUE(contains(e.what(), "zero.json: the file holds more than 16777216 bytes, the limit")) << e.what();
    }
    EXPECT_LT(stream.bytes(), std::size_t{17} << 20);  // the limit plus one 64 KiB chunk
  }
}

TEST(hostile_vectors, unreadable_paths_are_vector_file_errors) {
  const fs::path dir = fs::temp_directory_path() / ("qspec_hostile_dir_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_THROW(load_vector_file(dir, "dir.json"), VectorFileError);
  EXPECT_THROW(load_vector_file(dir / "missing.json", "missing.json"), VectorFileError);
  fs::remove_all(dir);
}

TEST(hostile_vectors, control_characters_never_reach_the_message_raw) {
  const auto e = rejected(edit(R"("schema":"qspec-vectors/1",)", R"("schema":"qspec-vectors/1","\u001b[2J":1,)"), 0,
                          "/\\x1b[2J", {"unknown top-level field \"\\x1b[2J\""});
  EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos);
}

// `qspec vectors check` (check_vectors_tree) reports every bad file, not only the first.
TEST(hostile_vectors, vectors_check_reports_every_bad_file) {
  const fs::path dir = fs::temp_directory_path() / ("qspec_hostile_tree_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a");
  std::ofstream(dir / "a" / "broken.json") << edit(R"("result":"invalid")", R"("result":invalid")");
  std::ofstream(dir / "a" / "deep.json") << std::string(100000, '[');
  std::ofstream(dir / "a" / "good.json") << kGood;
  std::ofstream(dir / "a" / "utf8.json") << edit(R"("comment":"two")", "\"comment\":\"\xfe\"");
  { std::ofstream(dir / "a" / "big.json") << ""; }
  fs::resize_file(dir / "a" / "big.json", std::uintmax_t{1} << 30);  // sparse: costs no disk
  const SchemaSet schemas(fs::path(QSPEC_SOURCE_DIR) / "vectors" / "schema");
  HeapPeak heap;
  const auto issues = check_vectors_tree(dir, {}, schemas);
  // The 1 GiB file is refused from its size; the tree's other files are small.
  EXPECT_LT(heap.bytes(), std::size_t{16} << 20);
  auto issue_for = [&](const std::string& file, const std::string& part) {
    for (const auto& i : issues)
      if (i.file == file && contains(i.message, part)) return true;
    return false;
  };
  EXPECT_TRUE(issue_for("a/broken.json", "not valid JSON (line 3")) << ::testing::PrintToString(issues.size());
  EXPECT_TRUE(issue_for("a/deep.json", "nesting deeper than 32"));
  EXPECT_TRUE(issue_for("a/utf8.json", "not valid UTF-8: byte 0xfe"));
  EXPECT_TRUE(issue_for("a/big.json", "the file is 1073741824 bytes, more than the limit"));
  EXPECT_FALSE(issue_for("a/good.json", "not valid"));
  fs::remove_all(dir);
}

std::size_t json_values(const nlohmann::ordered_json& j) {
  std::size_t n = 1;
  if (j.is_structured())
    for (const auto& v : j) n += json_values(v);
  return n;
}

// Every shipped vector file is within every limit (the limits document a 20x headroom, 10x for the
// element counts since the qlinear "wide" draws that fill the optimized kernels' blocks; a family
// that outgrows it fails here first, before users' files do).
TEST(hostile_vectors, shipped_vectors_are_well_within_the_limits) {
  const auto files = find_vector_files({fs::path(QSPEC_SOURCE_DIR) / "vectors"});
  ASSERT_FALSE(files.empty());
  for (const auto& src : files) {
    EXPECT_LE(fs::file_size(src.path) * 20, lim::kMaxFileBytes) << src.display_name;
    const VectorFile f = load_vector_file(src.path, src.display_name);
    EXPECT_LE(f.tests.size() * 20, lim::kMaxTestsPerFile) << src.display_name;
    std::int64_t elements = 0;
    std::size_t attribute_values = 0;
    for (const auto& t : f.tests) attribute_values += json_values(t.attributes);
    EXPECT_LE(attribute_values * 20, lim::kMaxAttributeValuesPerFile) << src.display_name;
    for (const auto& t : f.tests)
      for (const auto* ts : {&t.inputs, &t.expected})
        for (const auto& x : *ts) {
          elements += x.numel();
          EXPECT_LE(x.numel() * 10, lim::kMaxTensorElements) << src.display_name << " tcId " << t.tc_id;
          EXPECT_LE(x.shape.size(), lim::kMaxRank) << src.display_name;
        }
    EXPECT_LE(elements * 10, lim::kMaxFileElements) << src.display_name;
  }
}

}  // namespace
