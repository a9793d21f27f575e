// Checks the MRT/CVM vector families (vectors/gen/src/mrt.cc) against the reference ops that produce them.
//
// For every family under "mrt/" (the catalogue's vector files; catalogue_families_test checks
// that each catalogued pair has its family, reference op, clauses and required flags): generation
// is deterministic, every explanation in the notes is used, tests marked invalid are exactly the
// ones the reference rejects with ErrorIf, and every output lies in its dtype's range. The
// diagnostic conventions must tell the families' tie and deviation cases apart, or the vectors
// would not be diagnostic.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "family_cases.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/exact.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/generate.h"

namespace {

using qspec::Tensor;
using qspec::refops::Attrs;
using qspec::test::canonical;
using qspec::test::Case;
using qspec::test::flatten;
namespace vecgen = qspec::vecgen;
namespace refops = qspec::refops;

std::vector<const vecgen::Family*> mrt_families() {
  std::vector<const vecgen::Family*> v;
  for (const auto& f : vecgen::families())
    if (f.file.rfind("mrt/", 0) == 0) v.push_back(&f);
  EXPECT_FALSE(v.empty()) << "no family writes under vectors/mrt/: these checks would check nothing";
  return v;
}

// Evaluates a (op, convention) on a case; returns nullopt if the convention refuses (ErrorIf or
// RequireViolated), so diagnostics comparisons skip inputs outside a convention's domain.
std::optional<std::vector<Tensor>> eval(const refops::OpImpl* impl, const Case& c) {
  try {
    return impl->fn(c.attrs, c.test->inputs);
  } catch (const qspec::ref::ErrorIf&) {
    return std::nullopt;
  } catch (const qspec::ref::RequireViolated&) {
    return std::nullopt;
  }
}

bool same_outputs(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].data != b[i].data || a[i].dtype != b[i].dtype) return false;
  return true;
}

TEST(vectors_mrt, FamiliesAreWellFormed) {
  for (const auto* f : mrt_families()) {
    SCOPED_TRACE(f->file);
    std::set<std::string> noted, used;
    for (const auto& [flag, meaning] : f->notes) {
      EXPECT_TRUE(noted.insert(flag).second) << "flag explained twice: " << flag;
      EXPECT_FALSE(meaning.empty()) << flag;
    }
    vecgen::Rng rng(f->seed), rng2(f->seed);
    const auto groups = f->generate(rng);
    EXPECT_EQ(canonical(groups), canonical(f->generate(rng2))) << "generation is not deterministic";
    const auto cases = flatten(groups);
    std::printf("[ vectors ] %s: %zu tests\n", f->file.c_str(), cases.size());
    EXPECT_GE(cases.size(), 150u);
    EXPECT_LE(cases.size(), 1000u);
    for (const auto& c : cases) used.insert(c.test->flags.begin(), c.test->flags.end());
    for (const auto& fl : noted) EXPECT_TRUE(used.count(fl)) << "note '" << fl << "' is used by no test";
  }
}

// The shared writer accepts every family and produces the same document twice.
TEST(vectors_mrt, DocumentsBuildDeterministically) {
  for (const auto* f : mrt_families()) {
    SCOPED_TRACE(f->file);
    nlohmann::ordered_json a, b;
    ASSERT_NO_THROW(a = vecgen::generate_document(*f, "test"));
    ASSERT_NO_THROW(b = vecgen::generate_document(*f, "test"));
    EXPECT_EQ(a, b);
    EXPECT_GE(a["numberOfTests"].get<int>(), 150);
  }
}

TEST(vectors_mrt, InvalidExactlyWhenReferenceRejects) {
  for (const auto* f : mrt_families()) {
    SCOPED_TRACE(f->file);
    const refops::OpImpl* impl = refops::find_op(f->op, f->convention);
    ASSERT_NE(impl, nullptr);
    vecgen::Rng rng(f->seed);
    int valid = 0, invalid = 0, index = 0;
    const auto groups = f->generate(rng);  // the cases point into it
    for (const auto& c : flatten(groups)) {
      ++index;
      const std::string where =
          "test " + std::to_string(index) + " \"" + c.test->comment + "\" attrs " + c.attrs.dump();
      ++(c.test->invalid ? invalid : valid);
      qspec::test::expect_reference_verdict(*impl, c, where);
    }
    EXPECT_GE(valid, 100);
    EXPECT_GE(invalid, 1);
  }
}

// The family of a catalogued (op, convention), found by its vector file.
const vecgen::Family* family(std::string_view op, std::string_view convention) {
  const auto* c = qspec::catalogue::get().find(op, convention);
  for (const auto* f : mrt_families())
    if (c && f->file == c->vectors) return f;
  return nullptr;
}

// Counts, over a family's valid tests, how often another convention of the same op agrees.
struct Agreement {
  int compared = 0, agree = 0;
};
Agreement agreement(const vecgen::Family& f, const std::string& other_convention) {
  const auto* impl = refops::find_op(f.op, f.convention);
  const auto* other = refops::find_op(f.op, other_convention);
  Agreement a;
  if (!impl || !other) return a;
  vecgen::Rng rng(f.seed);
  const auto groups = f.generate(rng);  // the cases point into it
  for (const auto& c : flatten(groups)) {
    if (c.test->invalid) continue;
    const auto x = eval(impl, c), y = eval(other, c);
    if (!x || !y) continue;
    ++a.compared;
    if (same_outputs(*x, *y)) ++a.agree;
  }
  return a;
}

TEST(vectors_mrt, RightShiftVectorsSeparateTheRoundings) {
  using RightShift = qspec::cat::cvm_right_shift;
  const auto* f = family(RightShift::op, RightShift::conv::cvm_formal);
  ASSERT_NE(f, nullptr);
  // The formal kernel is round half up: the exact half-up convention agrees everywhere ...
  const Agreement up = agreement(*f, std::string(RightShift::conv::shift_exact_half_up));
  EXPECT_GT(up.compared, 0);
  EXPECT_EQ(up.agree, up.compared);
  // ... and every other rounding is caught by some test (the tie groups).
  for (const std::string_view other : {RightShift::conv::shift_exact_half_away, RightShift::conv::shift_exact_half_even,
                                       RightShift::conv::shift_exact_half_down, RightShift::conv::shift_exact_floor,
                                       RightShift::conv::shift_exact_ceil, RightShift::conv::shift_exact_trunc}) {
    const Agreement a = agreement(*f, std::string(other));
    EXPECT_GT(a.compared, 0) << other;
    EXPECT_LT(a.agree, a.compared) << other << " is indistinguishable from cvm.formal on these vectors";
  }
  // The CPU kernel's deviations are present in both shift families.
  const std::string cpu_conv(RightShift::conv::cvm_cpu);
  EXPECT_LT(agreement(*f, cpu_conv).agree, agreement(*f, cpu_conv).compared);
  const auto* cpu = family(RightShift::op, RightShift::conv::cvm_cpu);
  ASSERT_NE(cpu, nullptr);
  const Agreement formal = agreement(*cpu, std::string(RightShift::conv::cvm_formal));
  EXPECT_LT(formal.agree, formal.compared);
}

TEST(vectors_mrt, SymQuantizeVectorsSeparateV1FromV2) {
  using SymQuantize = qspec::cat::mrt_sym_quantize;
  const auto* f = family(SymQuantize::op, SymQuantize::conv::mrt);
  ASSERT_NE(f, nullptr);
  const Agreement v2 = agreement(*f, std::string(SymQuantize::conv::mrt_v2));
  EXPECT_GT(v2.compared, 0);
  EXPECT_LT(v2.agree, v2.compared);
}

}  // namespace
