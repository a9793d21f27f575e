// Checks the TVM / Glow / float-convention vector families against the reference ops that produce them.
//
// Scope: the families of the normative pairs whose clauses are stated in spec/{tvm_qnn,glow,
// float_conventions,primitives}.md (catalogue_scope.h). Beyond what every family gets (reference
// function, family, file, clauses and required flags: catalogue_families_test.cc; valid tests
// evaluate, invalid ones raise ERROR_IF, flags explained: the vector writer), these families are
// deterministic, use every flag they explain, have 300-800 tests, keep inputs and outputs in their
// dtype's range, and are diagnostic: the conventions that differ in rounding order disagree on
// the families' tie cases.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalogue_scope.h"
#include "family_cases.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/exact.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"

namespace {

using qspec::Tensor;
using qspec::refops::Attrs;
using qspec::test::canonical;
using qspec::test::Case;
using qspec::test::flatten;
namespace vecgen = qspec::vecgen;
namespace refops = qspec::refops;

namespace cat = qspec::cat;

std::vector<const vecgen::Family*> my_families() {
  return qspec::test::families_stated_in({"tvm_qnn.md", "glow.md", "float_conventions.md", "primitives.md"});
}

// The family of (Op, convention).
template <class Op>
const vecgen::Family* family(std::string_view convention) {
  for (const auto* f : my_families())
    if (f->op == Op::op && f->convention == convention) return f;
  return nullptr;
}

// Each family generated once per process (generation evaluates the reference many times).
const std::vector<vecgen::Group>& groups_of(const vecgen::Family* f) {
  static std::map<const vecgen::Family*, std::vector<vecgen::Group>> cache;
  auto it = cache.find(f);
  if (it == cache.end()) {
    vecgen::Rng rng(f->seed);
    it = cache.emplace(f, f->generate(rng)).first;
  }
  return it->second;
}

std::optional<std::vector<Tensor>> eval(const refops::OpImpl* impl, const Case& c) {
  try {
    return impl->fn(c.attrs, c.test->inputs);
  } catch (const qspec::ref::ErrorIf&) {
    return std::nullopt;
  } catch (const qspec::ref::RequireViolated&) {
    return std::nullopt;
  } catch (const std::invalid_argument&) {  // the convention does not apply to these attributes
    return std::nullopt;
  }
}

bool has_flag(const vecgen::Test& t, const std::string& flag) {
  for (const auto& f : t.flags)
    if (f == flag) return true;
  return false;
}

// No family silently leaves these tests: every normative convention of the ops these spec files
// define, and of requantize / requantize_per_channel, is in this scope or the fixed-point one
// (vectors_fixedpoint_test.cc).
TEST(vectors_tvm_glow_float, ScopeHoldsEveryConventionOfItsOps) {
  std::set<std::pair<std::string, std::string>> scope;
  for (const auto* f : my_families()) scope.insert({f->op, f->convention});
  for (const auto* f : qspec::test::families_stated_in({"tflite_tosa.md", "gemmlowp.md", "operators_qlinear_armnn.md"}))
    scope.insert({f->op, f->convention});
  int ops = 0;
  for (const auto& op : qspec::catalogue::get().ops) {
    const bool mine = op.spec == "spec/tvm_qnn.md" || op.spec == "spec/glow.md" ||
                      op.spec == "spec/float_conventions.md" || op.name == cat::requantize::op ||
                      op.name == cat::requantize_per_channel::op;
    if (!mine) continue;
    ++ops;
    for (const auto& c : op.conventions)
      if (!c.diagnostic_only) {
        EXPECT_TRUE(scope.count({op.name, c.name})) << op.name << " / " << c.name;
      }
  }
  EXPECT_GE(ops, 6);
}

TEST(vectors_tvm_glow_float, FamiliesAreDeterministicAndUseTheirNotes) {
  for (const auto* f : my_families()) {
    SCOPED_TRACE(f->file);
    std::set<std::string> noted, used;
    for (const auto& [flag, meaning] : f->notes) noted.insert(flag);
    vecgen::Rng rng2(f->seed);
    const auto& groups = groups_of(f);
    EXPECT_EQ(canonical(groups), canonical(f->generate(rng2))) << "generation is not deterministic";
    const auto cases = flatten(groups);
    EXPECT_GE(cases.size(), 300u);
    EXPECT_LE(cases.size(), 800u);
    for (const auto& c : cases) used.insert(c.test->flags.begin(), c.test->flags.end());
    for (const auto& fl : noted) EXPECT_TRUE(used.count(fl)) << "note '" << fl << "' is used by no test";
  }
}

TEST(vectors_tvm_glow_float, InvalidExactlyWhenReferenceRejects) {
  for (const auto* f : my_families()) {
    SCOPED_TRACE(f->file);
    const refops::OpImpl* impl = refops::find_op(f->op, f->convention);
    ASSERT_NE(impl, nullptr);
    int valid = 0, index = 0;
    const auto& groups = groups_of(f);
    for (const auto& c : flatten(groups)) {
      ++index;
      const std::string where =
          "test " + std::to_string(index) + " \"" + c.test->comment + "\" attrs " + c.attrs.dump();
      for (const auto& in : c.test->inputs) {
        ASSERT_EQ(static_cast<std::int64_t>(in.data.size()), in.numel()) << where << " input " << in.name;
        if (!qspec::is_float(in.dtype))
          for (auto v : in.data) {
            EXPECT_GE(v, qspec::dtype_min(in.dtype)) << where << " input " << in.name;
            EXPECT_LE(v, qspec::dtype_max(in.dtype)) << where << " input " << in.name;
          }
      }
      if (!c.test->invalid) ++valid;
      qspec::test::expect_reference_verdict(*impl, c, where);
    }
    EXPECT_GE(valid, 250);
  }
}

// Over a family's valid tests carrying `flag` (or all, for an empty flag): how many tests the
// other convention of the same op answers identically.
struct Agreement {
  int compared = 0, agree = 0;
};
template <class Op>
Agreement agreement(std::string_view convention, std::string_view other_convention, const std::string& flag) {
  Agreement a;
  const auto* f = family<Op>(convention);
  if (!f) return a;
  const auto* impl = refops::find_op(f->op, f->convention);
  const auto* other = refops::find_op(f->op, other_convention);
  if (!impl || !other) return a;
  for (const auto& c : flatten(groups_of(f))) {
    if (c.test->invalid || (!flag.empty() && !has_flag(*c.test, flag))) continue;
    const auto x = eval(impl, c), y = eval(other, c);
    if (!x || !y) continue;
    ++a.compared;
    bool same = x->size() == y->size();
    for (std::size_t i = 0; same && i < x->size(); ++i) same = (*x)[i].data == (*y)[i].data;
    if (same) ++a.agree;
  }
  return a;
}

// XNNPACK (round, then add zp) and oneDNN (add zp, then round) part exactly on odd-zero-point
// ties; the tie vectors must show it, in both the quantize and the requantize families.
TEST(vectors_tvm_glow_float, XnnpackAndOnednnPartOnOddZeroPointTies) {
  using Q = cat::quantize;
  using R = cat::requantize;
  auto a = agreement<Q>(Q::conv::xnnpack_convert, Q::conv::onednn_reorder, "tie_odd_zero_point");
  EXPECT_GT(a.compared, 20);
  EXPECT_LT(a.agree, a.compared);
  a = agreement<R>(R::conv::xnnpack_fp32, R::conv::onednn_fp32, "tie_odd_zero_point");
  EXPECT_GT(a.compared, 20);
  EXPECT_LT(a.agree, a.compared);
  // Random (non-tie) cases agree far more often than not.
  a = agreement<R>(R::conv::xnnpack_fp32, R::conv::onednn_fp32, "random");
  EXPECT_GT(a.agree * 10, a.compared * 9);
}

// TVM's UPWARD and TONEAREST differ only on negative ties; Glow's two rescales differ through
// the 9-bit integer scale; TVM (ties away) and ONNX (ties to even) part on ties.
TEST(vectors_tvm_glow_float, ConventionsSeparatedByTheirTies) {
  using Q = cat::quantize;
  using R = cat::requantize;
  auto a = agreement<R>(R::conv::tvm_upward, R::conv::tvm_tonearest, "tie_0_5");
  EXPECT_GT(a.compared, 10);
  EXPECT_LT(a.agree, a.compared);
  a = agreement<R>(R::conv::glow_cpu_rescale, R::conv::glow_interpreter_rescale, "");
  EXPECT_GT(a.compared, 100);
  EXPECT_LT(a.agree, a.compared);
  a = agreement<Q>(Q::conv::tvm_quantize, Q::conv::onnx_quantize_linear, "tie_2_5");
  EXPECT_GT(a.compared, 10);
  EXPECT_LT(a.agree, a.compared);
  // PyTorch multiplies by fl32(1/s), ONNX divides: the float_tie / float_off_tie cases show it.
  a = agreement<Q>(Q::conv::pytorch_quantize_per_tensor, Q::conv::onnx_quantize_linear, "float_off_tie");
  EXPECT_GT(a.compared, 0);
  EXPECT_LT(a.agree, a.compared);
}

// The diagnostic yardsticks apply to the families' attributes (for diagnosis of a failure).
TEST(vectors_tvm_glow_float, DiagnosticConventionsApply) {
  using Q = cat::quantize;
  using R = cat::requantize;
  auto a = agreement<Q>(Q::conv::onnx_quantize_linear, Q::conv::float_exact_half_even, "");
  EXPECT_GT(a.compared, 200);
  EXPECT_LT(a.agree, a.compared);  // the float32 division sometimes differs from the exact quotient
  a = agreement<R>(R::conv::tvm_upward, R::conv::fp32_exact_half_up, "");
  EXPECT_GT(a.compared, 200);
  a = agreement<R>(R::conv::xnnpack_fp32, R::conv::fp32_exact_half_even, "tie_0_5");
  EXPECT_GT(a.compared, 10);
}

}  // namespace
