// Where the harness tests find the qspec executable and the backends/testing plugins of this build.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace qspec::harness_test {

inline std::filesystem::path test_exe_dir() { return std::filesystem::read_symlink("/proc/self/exe").parent_path(); }

// $QSPEC_EXE, else <build>/harness/qspec (this test lives in <build>/conformance/harness); "" if absent.
inline std::string find_qspec() {
  namespace fs = std::filesystem;
  if (const char* e = std::getenv("QSPEC_EXE")) return e;
  for (const fs::path& p : {test_exe_dir() / ".." / ".." / "harness" / "qspec", test_exe_dir() / "qspec"})
    if (fs::exists(p)) return fs::canonical(p).string();
  return "";
}

// libqspec_testing_<name>.so: $QSPEC_TESTING_PLUGIN_DIR, else <build>/backends/testing; "" if absent.
inline std::string testing_plugin(const std::string& name) {
  namespace fs = std::filesystem;
  const std::string file = "libqspec_testing_" + name + ".so";
  if (const char* d = std::getenv("QSPEC_TESTING_PLUGIN_DIR")) return (fs::path(d) / file).string();
  for (const fs::path& dir : {test_exe_dir() / ".." / ".." / "backends" / "testing", test_exe_dir()})
    if (fs::exists(dir / file)) return fs::canonical(dir / file).string();
  return "";
}

// A program of backends/testing (e.g. qspec_testing_exec_bridge): $QSPEC_TESTING_PLUGIN_DIR, else
// <build>/backends/testing; "" if absent.
inline std::string testing_program(const std::string& name) {
  namespace fs = std::filesystem;
  if (const char* d = std::getenv("QSPEC_TESTING_PLUGIN_DIR")) return (fs::path(d) / name).string();
  for (const fs::path& dir : {test_exe_dir() / ".." / ".." / "backends" / "testing", test_exe_dir()})
    if (fs::exists(dir / name)) return fs::canonical(dir / name).string();
  return "";
}

}  // namespace qspec::harness_test
