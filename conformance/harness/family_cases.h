// A generated vector family as the family-specific tests read it: its tests with their merged
// attributes, a canonical text of them (for the determinism checks), and the reference's verdict.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "qspec/core/attr.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/exact.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"

namespace qspec::test {

struct Case {
  const vecgen::Test* test;
  Attrs attrs;  // the group's attributes with the test's merged over them
};

inline std::vector<Case> flatten(const std::vector<vecgen::Group>& groups) {
  std::vector<Case> out;
  for (const auto& g : groups)
    for (const auto& t : g.tests) out.push_back({&t, merge_attributes(g.attributes, t.attributes)});
  return out;
}

// One line per test: comment, merged attributes, validity and inputs.
inline std::string canonical(const std::vector<vecgen::Group>& groups) {
  std::ostringstream os;
  for (const auto& c : flatten(groups)) {
    os << c.test->comment << "|" << c.attrs.dump() << "|" << c.test->invalid << "|";
    for (const auto& in : c.test->inputs) os << in.name << "=" << tensor_to_json(in).dump() << ";";
    os << "\n";
  }
  return os.str();
}

// An invalid test raises the reference's ERROR_IF; a valid one evaluates to outputs of the size
// their shape says, integers inside their dtype's range. `where` names the test in failures.
inline void expect_reference_verdict(const refops::OpImpl& impl, const Case& c, const std::string& where) {
  if (c.test->invalid) {
    EXPECT_THROW(impl.fn(c.attrs, c.test->inputs), ref::ErrorIf) << where;
    return;
  }
  try {
    const auto outs = impl.fn(c.attrs, c.test->inputs);
    ASSERT_FALSE(outs.empty()) << where;
    for (const auto& o : outs) {
      ASSERT_EQ(static_cast<std::int64_t>(o.data.size()), o.numel()) << where << " output " << o.name;
      if (is_float(o.dtype)) continue;
      for (auto v : o.data) {
        EXPECT_GE(v, dtype_min(o.dtype)) << where << " output " << o.name;
        EXPECT_LE(v, dtype_max(o.dtype)) << where << " output " << o.name;
      }
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << where << ": the reference threw on a valid test: " << e.what();
  }
}

}  // namespace qspec::test
