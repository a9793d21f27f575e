// The op catalogue (spec/catalogue/*.json, format in spec/catalogue/README.md): every op's inputs,
// outputs and typed attributes, and per convention its clauses, description, attributes, vector
// file and required vector flags. Everything else derives from it or is checked against it: the
// reference op registry takes clauses and descriptions from here, the vector writer stamps the
// clauses and checks each generated test, the loader rejects unknown attributes and inputs, the
// per-op schemas, typed attribute keys (qspec/catalogue/keys.h) and spec/ops.md are generated
// from it, and tests fail when a backend claims a pair the catalogue lacks.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qspec/core/attr.h"
#include "qspec/core/tensor.h"

namespace qspec::catalogue {

// A catalogue file is malformed; what() names the file and the field.
struct CatalogueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class AttrType { Int, IntArray, OptIntArray, F32, F32Array, F64, DType, Enum, Bool };
std::string_view attr_type_name(AttrType t);  // "int", "int[]", ... as written in the files

struct AttributeSpec {
  std::string name;
  AttrType type = AttrType::Int;
  std::int64_t min = INT64_MIN, max = INT64_MAX;  // Int, IntArray, OptIntArray
  std::vector<std::string> values;                // DType (dtype names) and Enum
  std::string doc;
};

struct TensorSpec {
  std::string name;
  std::vector<DType> dtypes;  // allowed dtypes
  // Variadic: the tensors are named name0, name1, ... (at least min_count, at most max_count).
  bool variadic = false;
  int min_count = 1, max_count = 1;
  // Outputs: the dtype is the value of this attribute, or the dtype of this input (else: dtypes).
  std::string dtype_from_attribute;
  std::string dtype_same_as;
  std::string doc;

  bool matches(std::string_view tensor_name) const;  // name, or name<k> when variadic
};

struct ConventionSpec {
  std::string name;
  std::vector<std::string> clauses;
  std::string description;                       // one line, shown in diagnostics
  std::string source;                            // where the convention's code lives (library, file, function)
  bool diagnostic_only = false;                  // exists to name a wrong answer, has no vectors of its own
  std::vector<std::string> attributes;           // required in every valid test
  std::vector<std::string> optional_attributes;  // may be given
  std::string vectors;                           // vector file under vectors/
  std::vector<std::string> required_flags;       // flags its vectors must contain

  bool uses(std::string_view attribute) const;
};

struct OpSpec {
  std::string name;
  std::string summary;
  std::string spec;  // the spec file stating the op's clauses and vocabulary
  bool elementwise = false;
  std::vector<TensorSpec> inputs, outputs;
  std::vector<AttributeSpec> attributes;
  std::vector<ConventionSpec> conventions;

  const AttributeSpec* attribute(std::string_view name) const;
  const ConventionSpec* convention(std::string_view name) const;
  const TensorSpec* input(std::string_view tensor_name) const;  // by exact or variadic name
  const TensorSpec* output(std::string_view tensor_name) const;
};

struct Catalogue {
  std::vector<OpSpec> ops;  // sorted by name

  const OpSpec* op(std::string_view name) const;
  const ConventionSpec* find(std::string_view op, std::string_view convention) const;
};

// Parses catalogue files given as (file name, JSON text); checks the format and the cross
// references (convention attributes exist, dtype names, unique names). Throws CatalogueError.
Catalogue parse(const std::vector<std::pair<std::string, std::string>>& files);

// The catalogue compiled into this program (core/src/catalogue_data.cc, generated from
// spec/catalogue by `qspec spec generate`), plus any extension registered before its first use.
const Catalogue& get();

// Adds an op file to the catalogue of this program: for test binaries with private ops (the
// harness's own tests). Call during static initialization, before anything uses get().
bool register_extension(std::string file, std::string json_text);
// The generated files and the extensions, as parsed by get() (catalogue_data.cc).
std::vector<std::pair<std::string, std::string>> builtin_files();

// One problem of a test: where it is (relative to the test: "attributes/shift", "inputs/x2",
// "inputs") and what it is.
struct TestProblem {
  std::string where;
  std::string what;
};

// What is wrong with one test of (op, convention) against the catalogue, one entry per problem
// naming the attribute or tensor; empty if nothing. Unknown attributes and input names, attribute
// values outside their type and domain, and input dtypes are checked for every test; required
// attributes only for valid tests (an invalid test may stop at its first ERROR_IF).
std::vector<TestProblem> check_test(const OpSpec& op, const ConventionSpec& conv, const Attrs& merged_attributes,
                                    const std::vector<std::pair<std::string, DType>>& inputs, bool valid);

}  // namespace qspec::catalogue
