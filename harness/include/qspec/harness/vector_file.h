// The in-memory model of a golden-vector file (format "qspec-vectors/1", docs/vector-format.md)
// and its loader, which checks every field and names the file, tcId and JSON path of a defect.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qspec/core/attr.h"  // merge_attributes: the test's attributes over its group's
#include "qspec/core/tensor.h"

namespace qspec::harness {

class SchemaSet;

inline constexpr const char* kVectorSchemaId = "qspec-vectors/1";

// A malformed vector file. what() reads "FILE: tcId N: at /json/path: problem". Control
// characters in the parts (from a hostile file's keys or strings) are shown as \xNN.
class VectorFileError : public std::runtime_error {
 public:
  VectorFileError(std::string file, std::optional<std::int64_t> tc_id, std::string json_path, std::string problem);
  const std::string& file() const { return file_; }
  const std::optional<std::int64_t>& tc_id() const { return tc_id_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& problem() const { return problem_; }

 private:
  struct Printable {};
  VectorFileError(Printable, std::string file, std::optional<std::int64_t> tc_id, std::string json_path, std::string problem);
  std::string file_;
  std::optional<std::int64_t> tc_id_;
  std::string json_path_;
  std::string problem_;
};

struct VectorTest {
  std::int64_t tc_id = 0;
  std::string comment;
  std::vector<std::string> flags;
  bool invalid = false;                    // "result": "invalid": a conforming backend must reject it
  nlohmann::ordered_json attributes;       // the group's attributes with the test's merged over them
  // attributes.dump(), made once by parse_vector_file (the fingerprint, the request to the backend
  // and the diagnostics each need it); empty in a VectorTest built otherwise: use attributes_text().
  std::string attributes_json;
  std::vector<Tensor> inputs;              // in file order
  std::vector<Tensor> expected;            // in file order; empty for invalid tests
  std::string json_path;                   // "/testGroups/G/tests/T"
};

// The test's attributes as compact JSON text (what a backend receives).
inline std::string attributes_text(const VectorTest& t) {
  return t.attributes_json.empty() ? t.attributes.dump() : t.attributes_json;
}

struct VectorFile {
  std::string display_name;                // path relative to the vectors directory, '/'-separated
  std::string schema;
  std::string op;
  std::string convention;
  std::vector<std::string> clauses;
  nlohmann::ordered_json generator;
  std::int64_t number_of_tests = 0;
  std::vector<std::pair<std::string, std::string>> notes;  // flag -> meaning
  std::vector<VectorTest> tests;           // every group's tests, in file order
};

// Parses and checks a vector file's text. Throws VectorFileError (malformed JSON is reported
// with its line, column and byte offset; invalid UTF-8 with the offset of the bad byte). The
// limits of vector_limits.h are checked before the allocations they bound.
VectorFile parse_vector_file(const std::string& text, const std::string& display_name);
// Reads a vector file's bytes, never more than vector_limits.h's kMaxFileBytes (plus one chunk):
// a missing, unreadable or oversized file is a VectorFileError (the size is checked before the
// file is read).
std::string read_vector_file_text(const std::filesystem::path& path, const std::string& display_name);
// read_vector_file_text, then parse_vector_file.
VectorFile load_vector_file(const std::filesystem::path& path, const std::string& display_name);

// Checks the file's (op, convention) against the pairs in `known` (the reference backend's
// capabilities in `qspec run`); `known_by` names that catalogue in the message. Throws
// VectorFileError at /op for an unknown op, at /convention (listing the op's known conventions)
// for an unknown convention of a known op.
void check_op_known(const VectorFile& f, const std::vector<std::pair<std::string, std::string>>& known, const std::string& known_by);

struct VectorSource {
  std::filesystem::path path;
  std::string display_name;
  // Non-empty: this entry cannot be a vector file, and why ("dangling symbolic link -> x.json
  // (its target does not exist)", "not a regular file (a FIFO): ...", "cannot read the directory
  // ...: Permission denied"). Loading it throws VectorFileError with this problem, so a run
  // reports it by name like any malformed file (and --keep-going skips it).
  std::string problem;
};

// Expands the --vectors arguments: a directory contributes every *.json below it (except those
// under a directory named "schema"; symbolic links to directories are followed unless they lead
// back into the walk), named relative to that directory; a file is named relative to its
// nearest ancestor directory called "vectors", or by its path as given, and may be a pipe.
// Entries that should hold vectors but cannot (see VectorSource::problem) are listed too.
// Sorted by display name, duplicates removed. A path that does not exist throws VectorFileError.
std::vector<VectorSource> find_vector_files(const std::vector<std::filesystem::path>& paths);

// Loads a file found by find_vector_files: throws VectorFileError for an entry with a problem;
// else load_vector_file, then (when `schemas` is given) check_schema and check_catalogue.
VectorFile load_vector_source(const VectorSource& source, const SchemaSet* schemas);

// The JSON Schema check of `qspec vectors check` (SchemaSet::validate) on a loaded file's text
// (`file` is what parse_vector_file made of `text`, so the text passed precheck_json): throws VectorFileError naming the first violation's JSON path, the tcId of the test that
// holds it, the schema file, and how many more there are.
void check_schema(const VectorFile& file, const std::string& text, const SchemaSet& schemas);

// The op catalogue's check of every test (catalogue::check_test: attributes and inputs the
// convention does not have, attribute types and domains, required attributes of valid tests) for a
// file whose (op, convention) is catalogued; throws VectorFileError naming the tcId and the field.
void check_catalogue(const VectorFile& file);

}  // namespace qspec::harness
