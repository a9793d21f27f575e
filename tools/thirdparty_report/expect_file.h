// Writes a library's --expect file (docs/running.md line format) from its own-conventions
// measurements at every ISA recorded.
#pragma once

#include <string>

#include "markdown.h"

namespace qspec::thirdparty_report {

// One line per non-PASS, non-UNSUPPORTED test of `library`'s native measurements: "FILE TCID
// VERDICT [isa=A,B] kind: reason", the reason being the "expect" text of the annotation covering
// the test's class. A test that deviates on some of the measured ISAs only gets `isa=` naming
// them (it is expected to pass elsewhere). Returns false with `why` if there is no native
// measurement or a class has no annotation with an expect reason.
bool write_expect_file(const RenderInput& in, const std::string& library, const std::string& path, std::string& why);

}  // namespace qspec::thirdparty_report
