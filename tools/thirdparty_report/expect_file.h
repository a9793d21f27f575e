// Writes a library's --expect file (docs/running.md line format) from its own-conventions run.
#pragma once

#include <string>

#include "markdown.h"

namespace qspec::thirdparty_report {

// One line per non-PASS, non-UNSUPPORTED outcome of `library`'s native run: "FILE TCID VERDICT
// reason", the reason being the "expect" text of the annotation covering the outcome's class.
// Returns false with `why` if the run is missing or a class has no annotation with an expect reason.
bool write_expect_file(const RenderInput& in, const std::string& library, const std::string& path, std::string& why);

}  // namespace qspec::thirdparty_report
