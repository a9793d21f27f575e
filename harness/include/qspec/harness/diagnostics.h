// What a failing test says: the first differing element, how many differ, and which other named
// convention of the same op would have produced the backend's answer (ruy-style diagnostics).
//
// Naming conventions is the one place the harness consults the reference, and it does so through
// the built-in `reference` backend's C ABI: its capabilities list every registered (op,
// convention) with a description, normative and diagnostic-only alike; the explainer runs each
// one on the failing test's attributes and inputs and compares with the actual outputs.
// Conventions that reject the input or cannot read its attributes simply do not apply.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "qspec/core/tensor.h"
#include "qspec/harness/backend_loader.h"

namespace qspec::harness {

struct ElementDifference {
  std::string output;               // output tensor name
  std::int64_t flat_index = 0;
  std::vector<std::int64_t> index;  // multi-dimensional index (row-major)
  std::string expected;             // formatted values (floats: hex bits and decimal)
  std::string actual;
};

struct Comparison {
  bool equal = true;
  std::int64_t differing = 0;  // differing elements over all outputs
  std::int64_t total = 0;      // elements over all outputs
  std::optional<ElementDifference> first;
  std::string structural;      // non-empty if outputs do not even line up (count/name/dtype/shape)
};

// Compares outputs pairwise (same order and names); integers exactly, floats bitwise.
Comparison compare_outputs(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual);

// One element: integers in decimal; float32/float64 as "0x3f800000 (1)".
std::string format_element(DType t, std::int64_t stored);
// "x int32[2,3] = [1, 2, 3, 4, 5, 6]", abbreviated to the first and last elements beyond max_elements.
std::string format_tensor(const Tensor& t, std::size_t max_elements = 16);
// "[1, 2]" for a flat index in a tensor of this shape ("[]" for rank 0).
std::string format_index(const std::vector<std::int64_t>& shape, std::int64_t flat);

struct ConventionMatch {
  std::string convention;
  std::string description;
  bool diagnostic_only = false;
  std::int64_t differing = 0;  // 0: the convention reproduces the actual outputs exactly
};

struct ConventionReport {
  bool available = false;         // false: no reference backend to ask
  std::string spec_description;   // description of the file's own convention
  std::vector<ConventionMatch> matches;   // every convention reproducing the actual outputs
  std::optional<ConventionMatch> closest; // when none matches: the fewest differing elements
  std::size_t evaluated = 0;      // conventions that applied to these inputs
};

class ConventionExplainer {
 public:
  // `reference` is the built-in reference backend (or nullptr: explanations unavailable).
  explicit ConventionExplainer(const Backend* reference);
  ConventionReport explain(const std::string& op, const std::string& spec_convention, const std::string& attrs_json,
                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& expected,
                           const std::vector<Tensor>& actual) const;

 private:
  const Backend* ref_;
  std::vector<Capability> caps_;
};

// The one-line convention sentence: "your result matches X (desc); the spec (Y) says: desc",
// or "no registered convention of OP reproduces your result (closest: ...)"; empty if unavailable.
std::string describe_conventions(const std::string& op, const std::string& spec_convention, const ConventionReport& r);

}  // namespace qspec::harness
