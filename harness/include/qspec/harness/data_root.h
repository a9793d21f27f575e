// Where the qspec executable finds its data root (spec/, vectors/ with vectors/schema/), so that
// an installed qspec works wherever its prefix is moved (docs/running.md "Data root").
#pragma once

#include <string>

namespace qspec::harness {

struct DataRoot {
  std::string path;
  std::string how;  // why this one: "$QSPEC_ROOT", "next to the executable", "the build's source tree", ...
};

// The data root, first match: $QSPEC_ROOT (when set and not empty); <directory of the running
// executable>/<install_relative> when it holds vectors/ (an installed qspec: bin/../share/qspec);
// `source_dir` when it holds vectors/ (a qspec run from its build tree); else `source_dir` all
// the same, marked as missing, so the command that needs a file names where it looked.
// (--root, parsed later, overrides all of them.)
DataRoot find_data_root(const std::string& install_relative, const std::string& source_dir);

// The directory holding the running executable (from /proc/self/exe), or "" if it cannot be read.
std::string executable_dir();

}  // namespace qspec::harness
