// JSON Schema (draft 4, rapidjson) validation of vector files: the common schema plus an optional per-op one.
//
// vectors/schema/vectors.schema.json applies to every vector file; vectors/schema/<op>.schema.json,
// when present, refines it for the files whose "op" is <op>. Both must accept a file.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace qspec::harness {

class SchemaSet {
 public:
  // Loads every *.schema.json in `schema_dir`; throws std::runtime_error naming a schema file
  // that is not valid JSON or not a draft-4 schema rapidjson fully implements (a keyword it would
  // ignore, a "$ref" that does not resolve, a pattern it cannot compile), or if the common schema
  // is missing.
  explicit SchemaSet(const std::filesystem::path& schema_dir);
  ~SchemaSet();
  SchemaSet(const SchemaSet&) = delete;
  SchemaSet& operator=(const SchemaSet&) = delete;

  // Validates a vector file's text; returns one message per violation ("at /path: ...",
  // prefixed with the schema file), empty if valid. The text is first held to the loader's limits
  // (precheck_json), unless `prechecked` says the caller already did that on this very text and it
  // passed (the loader, which validates what it has just read).
  enum class Prechecked { No, Yes };
  std::vector<std::string> validate(const std::string& vector_file_text, Prechecked prechecked = Prechecked::No) const;
  // The same, for a caller that has parsed the file and knows its "op" string (the loader): a
  // valid file is then checked in one pass over its text against both schemas at once, without a
  // DOM; a file with a violation is validated again as above, so the messages are the same.
  std::vector<std::string> validate(const std::string& vector_file_text, Prechecked prechecked,
                                    const std::string& op) const;
  // Names of the loaded per-op schemas (without the common one).
  std::vector<std::string> op_schemas() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qspec::harness
