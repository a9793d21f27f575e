// The vector families a test file is about, chosen from the op catalogue instead of a list of files:
// the families of the normative pairs whose clauses are all stated in the given spec files.
//
// So a new convention of an op enters the family-specific tests of its spec file by its catalogue
// entry alone. (What every pair gets -- a reference function, one family, its committed file with
// the catalogue's clauses, its required flags -- is catalogue_families_test.cc's; that every clause
// ID resolves is `qspec spec lint`'s.)
#pragma once

#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "qspec/core/catalogue.h"
#include "qspec/vecgen.h"

namespace qspec::test {

// The families of (op, convention) pairs every clause of which has its heading in one of
// spec/<files>, in the registry's order.
inline std::vector<const vecgen::Family*> families_stated_in(std::initializer_list<const char*> spec_files) {
  std::string text;
  for (const char* f : spec_files) {
    std::ifstream in(std::string(QSPEC_SOURCE_DIR) + "/spec/" + f);
    std::stringstream ss;
    ss << in.rdbuf();
    text += ss.str();
  }
  std::vector<const vecgen::Family*> out;
  if (text.empty()) return out;
  for (const auto& f : vecgen::families()) {
    const auto* conv = catalogue::get().find(f.op, f.convention);
    if (conv == nullptr || conv->diagnostic_only) continue;
    bool stated = true;
    for (const auto& id : conv->clauses) stated = stated && text.find("### `" + id + "`") != std::string::npos;
    if (stated) out.push_back(&f);
  }
  return out;
}

}  // namespace qspec::test
