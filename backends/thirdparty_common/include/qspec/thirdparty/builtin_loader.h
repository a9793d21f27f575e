// A thin built-in entry for a third-party adapter plugin: `qspec run --backend xnnpack` by name.
//
// The adapters stay plugins (the qspec executable never links XNNPACK, oneDNN or gemmlowp);
// each registers a built-in create function that dlopens its plugin and forwards to the
// plugin's qspec_backend_create2 (run options included). Search order: $QSPEC_PLUGIN_DIR/<file>,
// the install tree (a path relative to the qspec executable's directory, so a moved install prefix
// still finds its plugins), the build tree. The plugin is never unloaded (the libraries keep
// process-wide state).
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "qspec/backend.h"

namespace qspec::thirdparty {

// `path` made absolute against the running executable's directory when it is relative.
inline std::string beside_executable(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? path : (exe.parent_path() / path).lexically_normal().string();
}

// Loads `file_name` from the search path above and calls its qspec_backend_create2; returns its
// result, or 1 (with a message on stderr naming every place tried) if no plugin could be loaded.
// `install_path` is relative to the executable's directory (or absolute).
inline int create_from_plugin(const char* file_name, const char* build_path, const char* install_path,
                              std::uint32_t host_abi_version, const qspec_backend_options* options,
                              qspec_backend* out) {
  std::string tried;
  auto try_path = [&](const std::string& path) -> void* {
    if (path.empty()) return nullptr;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* err = dlerror();
      tried += "\n  " + path + ": " + (err ? err : "dlopen failed");
    }
    return h;
  };
  void* handle = nullptr;
  if (const char* dir = std::getenv("QSPEC_PLUGIN_DIR"); dir && dir[0]) handle = try_path(std::string(dir) + "/" + file_name);
  if (!handle) handle = try_path(beside_executable(install_path));
  if (!handle) handle = try_path(build_path);
  if (!handle) {
    std::fprintf(stderr, "qspec: cannot load the %s adapter plugin; tried:%s\n", file_name, tried.c_str());
    return 1;
  }
  auto create = reinterpret_cast<qspec_backend_create2_fn>(dlsym(handle, "qspec_backend_create2"));
  if (!create) {
    std::fprintf(stderr, "qspec: %s does not export qspec_backend_create2\n", file_name);
    return 1;
  }
  return create(host_abi_version, options, out);
}

}  // namespace qspec::thirdparty
