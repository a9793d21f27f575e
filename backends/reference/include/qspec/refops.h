// Registry of reference operations: (op, convention) -> exact reference evaluation on tensors.
//
// This is the bridge between the exact reference (reference/) and everything tensor-shaped:
// the built-in `reference` backend, vector generation (expected values), and diagnostics
// (evaluating the alternative conventions of an op on a failing test's inputs).
//
// An OpFn receives the test's merged attributes (JSON, see docs/vector-format.md for the value
// encodings) and its input tensors in the order the vector file lists them; it returns the output
// tensors. It throws qspec::ref::ErrorIf when an ERROR_IF precondition fails (a conforming
// backend must reject the input) and std::invalid_argument for attributes it cannot read (for
// diagnostics: "this convention does not apply to these attributes").
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/core/tensor.h"

namespace qspec::refops {

using Attrs = nlohmann::ordered_json;
using OpFn = std::function<std::vector<Tensor>(const Attrs& attrs, const std::vector<Tensor>& inputs)>;

struct OpImpl {
  std::string op;                    // "requantize", "quantize", "conv2d", ...
  std::string convention;            // "gemmlowp.double_round", "exact.half_up", ...
  std::vector<std::string> clauses;  // spec clause IDs this evaluation implements
  std::string description;           // one line, shown in diagnostics ("rounds ties toward +inf")
  OpFn fn;
  // True for conventions that exist only to explain a wrong answer (e.g. "exact.half_up" for a
  // requantization), not normative clauses with vectors of their own.
  bool diagnostic_only = false;
};

// Registers at static-initialization time; duplicate (op, convention) pairs abort the program.
bool register_op(OpImpl impl);
const OpImpl* find_op(std::string_view op, std::string_view convention);
// Every registration, sorted by (op, convention).
std::vector<const OpImpl*> all_ops();
std::vector<const OpImpl*> ops_named(std::string_view op);

}  // namespace qspec::refops

#define QSPEC_REFOPS_CAT2(a, b) a##b
#define QSPEC_REFOPS_CAT(a, b) QSPEC_REFOPS_CAT2(a, b)
// QSPEC_REGISTER_REF_OP({.op = "...", .convention = "...", .clauses = {...}, .description = "...", .fn = f});
#define QSPEC_REGISTER_REF_OP(...) \
  [[maybe_unused]] static const bool QSPEC_REFOPS_CAT(qspec_refop_reg_, __LINE__) = ::qspec::refops::register_op(__VA_ARGS__)
