// Checks the TVM / Glow / float-convention vector families against the reference ops that produce them.
//
// For every family of vectors/gen/src/{tvm_qnn,glow,float_conventions}.cc: the op is registered
// and normative, its clause IDs exist in spec/, generation is deterministic and the golden
// document builds (generate_document), every flag is explained and every explanation used,
// tests marked invalid are exactly those the reference rejects with ErrorIf, outputs lie in
// their dtype's range, and the family has 300-800 tests. Then the vectors must be diagnostic:
// the conventions that differ in rounding order disagree on the families' tie cases.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/vecgen/generate.h"
#include "qspec/ref/exact.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"

namespace {

using qspec::Tensor;
using qspec::refops::Attrs;
namespace vecgen = qspec::vecgen;
namespace refops = qspec::refops;

const std::set<std::string> kExpectedFiles = {
    "quantize/tvm.quantize.json",
    "quantize/glow.quantize.json",
    "quantize/onnx.quantize_linear.json",
    "quantize/xnnpack.convert.json",
    "quantize/onednn.reorder.json",
    "quantize/pytorch.quantize_per_tensor.json",
    "dequantize/tvm.dequantize.json",
    "dequantize/glow.dequantize.json",
    "dequantize/onnx.dequantize_linear.json",
    "dequantize/xnnpack.convert.json",
    "dequantize/pytorch.dequantize.json",
    "requantize/xnnpack.fp32.json",
    "requantize/onednn.fp32.json",
    "requantize/pytorch.requantize_from_int.json",
    "requantize/tvm.upward.json",
    "requantize/tvm.tonearest.json",
    "requantize/glow.cpu_rescale.json",
    "requantize/glow.interpreter_rescale.json",
    "quantize_per_channel/tvm.quantize.json",
    "quantize_per_channel/onnx.quantize_linear.json",
    "quantize_per_channel/pytorch.quantize_per_channel.json",
    "requantize_per_channel/xnnpack.fp32.json",
    "requantize_per_channel/tvm.upward.json",
    "requantize_per_channel/tvm.tonearest.json",
    "fixed_point_multiply/tvm.json",
};

// Glow's own ops (spec/glow.md): every family of them, as the catalogue lists them.
bool glow_own(const vecgen::Family& f) {
  const auto* op = qspec::catalogue::get().op(f.op);
  return op && op->spec == "spec/glow.md";
}

std::vector<const vecgen::Family*> my_families() {
  std::vector<const vecgen::Family*> v;
  for (const auto& f : vecgen::families())
    if (kExpectedFiles.count(f.file) || glow_own(f)) v.push_back(&f);
  return v;
}

const vecgen::Family* family(const std::string& file) {
  for (const auto* f : my_families())
    if (f->file == file) return f;
  return nullptr;
}

struct Case {
  const vecgen::Test* test;
  Attrs attrs;
};

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

std::vector<Case> flatten(const std::vector<vecgen::Group>& groups) {
  std::vector<Case> out;
  for (const auto& g : groups)
    for (const auto& t : g.tests) {
      Attrs merged = g.attributes;
      for (const auto& [k, v] : t.attributes.items()) merged[k] = v;
      out.push_back({&t, merged});
    }
  return out;
}

std::string canonical(const std::vector<vecgen::Group>& groups) {
  std::ostringstream os;
  for (const auto& c : flatten(groups)) {
    os << c.test->comment << "|" << c.attrs.dump() << "|" << c.test->invalid << "|";
    for (const auto& in : c.test->inputs) os << in.name << "=" << qspec::tensor_to_json(in).dump() << ";";
    os << "\n";
  }
  return os.str();
}

std::string read_specs() {
  std::string all;
  for (const char* f : {"tvm_qnn.md", "glow.md", "float_conventions.md", "primitives.md"}) {
    std::ifstream in(std::string(QSPEC_SOURCE_DIR) + "/spec/" + f);
    std::stringstream ss;
    ss << in.rdbuf();
    all += ss.str();
  }
  return all;
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

TEST(vectors_tvm_glow_float, AllFamiliesRegistered) {
  std::set<std::string> files;
  int glow = 0;
  for (const auto* f : my_families()) {
    if (glow_own(*f))
      ++glow;
    else
      files.insert(f->file);
  }
  EXPECT_EQ(files, kExpectedFiles);
  EXPECT_GE(glow, 8);  // the catalogue still places Glow's own ops in spec/glow.md
}

TEST(vectors_tvm_glow_float, FamiliesAreWellFormed) {
  const std::string spec = read_specs();
  ASSERT_FALSE(spec.empty());
  for (const auto* f : my_families()) {
    SCOPED_TRACE(f->file);
    const refops::OpImpl* impl = refops::find_op(f->op, f->convention);
    ASSERT_NE(impl, nullptr) << "no reference op (" << f->op << ", " << f->convention << ")";
    EXPECT_FALSE(impl->diagnostic_only);
    ASSERT_FALSE(f->clauses.empty());
    for (const auto& id : f->clauses) EXPECT_NE(spec.find("### `" + id + "`"), std::string::npos) << id;
    std::set<std::string> noted, used;
    for (const auto& [flag, meaning] : f->notes) {
      EXPECT_TRUE(noted.insert(flag).second) << "flag explained twice: " << flag;
      EXPECT_FALSE(meaning.empty()) << flag;
    }
    vecgen::Rng rng2(f->seed);
    const auto& groups = groups_of(f);
    EXPECT_EQ(canonical(groups), canonical(f->generate(rng2))) << "generation is not deterministic";
    const auto cases = flatten(groups);
    EXPECT_GE(cases.size(), 300u);
    EXPECT_LE(cases.size(), 800u);
    for (const auto& c : cases)
      for (const auto& fl : c.test->flags) {
        EXPECT_TRUE(noted.count(fl)) << "flag '" << fl << "' not explained in notes (" << c.test->comment << ")";
        used.insert(fl);
      }
    for (const auto& fl : noted) EXPECT_TRUE(used.count(fl)) << "note '" << fl << "' is used by no test";
    // The golden document builds: the writer re-checks invalid / valid against the reference.
    EXPECT_NO_THROW(vecgen::generate_document(*f, "test"));
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
      const std::string where = "test " + std::to_string(index) + " \"" + c.test->comment + "\" attrs " + c.attrs.dump();
      for (const auto& in : c.test->inputs) {
        ASSERT_EQ(static_cast<std::int64_t>(in.data.size()), in.numel()) << where << " input " << in.name;
        if (!qspec::is_float(in.dtype))
          for (auto v : in.data) {
            EXPECT_GE(v, qspec::dtype_min(in.dtype)) << where << " input " << in.name;
            EXPECT_LE(v, qspec::dtype_max(in.dtype)) << where << " input " << in.name;
          }
      }
      if (c.test->invalid) {
        EXPECT_THROW(impl->fn(c.attrs, c.test->inputs), qspec::ref::ErrorIf) << where;
        continue;
      }
      ++valid;
      try {
        const auto outs = impl->fn(c.attrs, c.test->inputs);
        ASSERT_FALSE(outs.empty()) << where;
        for (const auto& o : outs) {
          ASSERT_EQ(static_cast<std::int64_t>(o.data.size()), o.numel()) << where << " output " << o.name;
          if (qspec::is_float(o.dtype)) continue;
          for (auto v : o.data) {
            EXPECT_GE(v, qspec::dtype_min(o.dtype)) << where << " output " << o.name;
            EXPECT_LE(v, qspec::dtype_max(o.dtype)) << where << " output " << o.name;
          }
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << where << ": the reference threw on a valid test: " << e.what();
      }
    }
    EXPECT_GE(valid, 250);
  }
}

// Over a family's valid tests carrying `flag` (or all, for an empty flag): how many tests the
// other convention of the same op answers identically.
struct Agreement {
  int compared = 0, agree = 0;
};
Agreement agreement(const std::string& file, const std::string& other_convention, const std::string& flag) {
  Agreement a;
  const auto* f = family(file);
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
  auto a = agreement("quantize/xnnpack.convert.json", "onednn.reorder", "tie_odd_zero_point");
  EXPECT_GT(a.compared, 20);
  EXPECT_LT(a.agree, a.compared);
  a = agreement("requantize/xnnpack.fp32.json", "onednn.fp32", "tie_odd_zero_point");
  EXPECT_GT(a.compared, 20);
  EXPECT_LT(a.agree, a.compared);
  // Random (non-tie) cases agree far more often than not.
  a = agreement("requantize/xnnpack.fp32.json", "onednn.fp32", "random");
  EXPECT_GT(a.agree * 10, a.compared * 9);
}

// TVM's UPWARD and TONEAREST differ only on negative ties; Glow's two rescales differ through
// the 9-bit integer scale; TVM (ties away) and ONNX (ties to even) part on ties.
TEST(vectors_tvm_glow_float, ConventionsSeparatedByTheirTies) {
  auto a = agreement("requantize/tvm.upward.json", "tvm.tonearest", "tie_0_5");
  EXPECT_GT(a.compared, 10);
  EXPECT_LT(a.agree, a.compared);
  a = agreement("requantize/glow.cpu_rescale.json", "glow.interpreter_rescale", "");
  EXPECT_GT(a.compared, 100);
  EXPECT_LT(a.agree, a.compared);
  a = agreement("quantize/tvm.quantize.json", "onnx.quantize_linear", "tie_2_5");
  EXPECT_GT(a.compared, 10);
  EXPECT_LT(a.agree, a.compared);
  // PyTorch multiplies by fl32(1/s), ONNX divides: the float_tie / float_off_tie cases show it.
  a = agreement("quantize/pytorch.quantize_per_tensor.json", "onnx.quantize_linear", "float_off_tie");
  EXPECT_GT(a.compared, 0);
  EXPECT_LT(a.agree, a.compared);
}

// The diagnostic yardsticks apply to the families' attributes (for diagnosis of a failure).
TEST(vectors_tvm_glow_float, DiagnosticConventionsApply) {
  auto a = agreement("quantize/onnx.quantize_linear.json", "float.exact.half_even", "");
  EXPECT_GT(a.compared, 200);
  EXPECT_LT(a.agree, a.compared);  // the float32 division sometimes differs from the exact quotient
  a = agreement("requantize/tvm.upward.json", "fp32.exact.half_up", "");
  EXPECT_GT(a.compared, 200);
  a = agreement("requantize/xnnpack.fp32.json", "fp32.exact.half_even", "tie_0_5");
  EXPECT_GT(a.compared, 10);
}

}  // namespace
