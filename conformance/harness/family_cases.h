// A generated vector family as the family-specific tests read it: its tests with their merged
// attributes, and a canonical text of them (for the determinism checks).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "qspec/core/attr.h"
#include "qspec/core/json_values.h"
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

}  // namespace qspec::test
