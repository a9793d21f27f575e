// `qspec spec generate`: every file derived from the op catalogue (spec/catalogue/*.json).
//
//   core/include/qspec/catalogue/keys.h   typed names: ops, inputs, outputs, attribute keys, conventions
//   core/src/catalogue_data.cc            the catalogue's JSON compiled into the program
//   vectors/schema/<op>.schema.json       per-op JSON Schema (draft 4): attribute and tensor names/types
//   spec/ops.md                           the op index and each op's vector vocabulary
//
// Generated files are committed (so a cross build needs no host tool) and CI checks that they
// equal a fresh generation (`qspec spec generate --check`, CTest spec_generated_up_to_date).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace qspec::spec {

// The catalogue files under root/spec/catalogue, as (path relative to root, text), sorted.
std::vector<std::pair<std::string, std::string>> read_catalogue_files(const std::string& root);

// Every generated file: path relative to root -> content. Throws catalogue::CatalogueError.
std::map<std::string, std::string> generate_from_catalogue(const std::vector<std::pair<std::string, std::string>>& files);

// Files under the generated directories that generation does not produce (stale, e.g. the schema
// of a removed op), relative to root.
std::vector<std::string> stale_generated_files(const std::string& root, const std::map<std::string, std::string>& generated);

}  // namespace qspec::spec
