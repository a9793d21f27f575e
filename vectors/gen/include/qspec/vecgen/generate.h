// Golden-vector generation for one family: inputs from the family, expected outputs from the
// exact reference op. Declared here, defined in vectors/gen/src/writer.cc (library qspec_vecgen,
// which links the reference), so include it only from code that links qspec_vecgen.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "qspec/vecgen.h"

namespace qspec::vecgen {

// Generation failed; what() names the family file and, for a test, its tcId and comment.
struct GenerationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Builds the qspec-vectors/1 document of family `f` (docs/vector-format.md):
// runs f.generate with Rng(f.seed), numbers the tests 1..N in order, merges each test's
// attributes over its group's, and computes the expected outputs with
// refops::find_op(f.op, f.convention)->fn. A test marked invalid must make the op throw
// qspec::ref::ErrorIf; a valid test must not throw at all. Every flag must be explained in
// f.notes and every input needs a unique non-empty name. Violations throw GenerationError.
// `tool_version` goes into the generator provenance ("0.1.0").
nlohmann::ordered_json generate_document(const Family& f, const std::string& tool_version);

}  // namespace qspec::vecgen
