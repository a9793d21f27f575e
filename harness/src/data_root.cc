// Resolution of the data root of the qspec executable: environment, install layout, build tree.
#include "qspec/harness/data_root.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace qspec::harness {
namespace fs = std::filesystem;

std::string executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

namespace {
bool holds_vectors(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_directory(dir / "vectors", ec);
}
}  // namespace

DataRoot find_data_root(const std::string& install_relative, const std::string& source_dir) {
  if (const char* env = std::getenv("QSPEC_ROOT"); env && env[0]) return {env, "$QSPEC_ROOT"};
  if (const std::string exe = executable_dir(); !exe.empty() && !install_relative.empty()) {
    const fs::path installed = (fs::path(exe) / install_relative).lexically_normal();
    if (holds_vectors(installed)) return {installed.string(), "next to the executable"};
  }
  if (holds_vectors(source_dir)) return {source_dir, "the build's source tree"};
  return {source_dir, "the build's source tree, which has no vectors/: pass --root or set QSPEC_ROOT"};
}

}  // namespace qspec::harness
