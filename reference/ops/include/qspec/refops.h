// Registry of reference operations: (op, convention) -> exact reference evaluation on tensors.
//
// A registration supplies only the function. What the pair is (its clauses, description, whether it
// is diagnostic-only, its attributes) comes from the op catalogue (qspec/core/catalogue.h,
// spec/catalogue/); registering a pair the catalogue lacks aborts the program at start.
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

#include "qspec/core/attr.h"
#include "qspec/core/catalogue.h"
#include "qspec/core/tensor.h"

namespace qspec::refops {

using qspec::Attrs;
using OpFn = std::function<std::vector<Tensor>(const Attrs& attrs, const std::vector<Tensor>& inputs)>;

// What a reference op file registers.
struct Registration {
  std::string op;          // a catalogue op, e.g. std::string(qspec::cat::requantize::op)
  std::string convention;  // one of its conventions, e.g. qspec::cat::requantize::conv::tosa_single_round
  OpFn fn;
};

// A registered pair: the function with its catalogue entry.
struct OpImpl {
  std::string op;
  std::string convention;
  std::vector<std::string> clauses;  // from the catalogue: spec clause IDs this evaluation implements
  std::string description;           // from the catalogue: one line, shown in diagnostics
  OpFn fn;
  // From the catalogue: a convention that exists only to explain a wrong answer (e.g. the exact
  // rational result rounded half up), not a normative one with vectors of its own.
  bool diagnostic_only = false;
  const catalogue::OpSpec* spec = nullptr;
  const catalogue::ConventionSpec* convention_spec = nullptr;
};

// The registration of (Op, convention) named through the catalogue's typed names (qspec/catalogue/keys.h):
// registration<cat::requantize>(cat::requantize::conv::tvm_upward, fn).
template <class Op>
Registration registration(std::string_view convention, OpFn fn) {
  return {.op = std::string(Op::op), .convention = std::string(convention), .fn = std::move(fn)};
}

// Registers at static-initialization time. The registry is built on the first lookup: a pair the
// catalogue lacks, or a pair registered twice, then aborts the program with a message naming it.
bool register_op(Registration r);
const OpImpl* find_op(std::string_view op, std::string_view convention);
// Every registration, sorted by (op, convention).
std::vector<const OpImpl*> all_ops();
std::vector<const OpImpl*> ops_named(std::string_view op);

}  // namespace qspec::refops

#define QSPEC_REFOPS_CAT2(a, b) a##b
#define QSPEC_REFOPS_CAT(a, b) QSPEC_REFOPS_CAT2(a, b)
// QSPEC_REGISTER_REF_OP({.op = cat::requantize::op, .convention = cat::requantize::conv::tflite_single_round, .fn = f});
#define QSPEC_REGISTER_REF_OP(...) \
  [[maybe_unused]] static const bool QSPEC_REFOPS_CAT(qspec_refop_reg_, __LINE__) = ::qspec::refops::register_op(__VA_ARGS__)
