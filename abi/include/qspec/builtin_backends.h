// Registry of backends compiled into the qspec executable (reference, later avx2, gemmlowp...).
//
// A built-in backend is an object file that defines a qspec_backend_create_fn and registers it
// at static-initialization time:
//
//   static int create_avx2(uint32_t host_abi, qspec_backend* out) { ... }
//   QSPEC_REGISTER_BUILTIN_BACKEND("avx2", create_avx2);
//
// A backend that takes run options (ABI version 2, backend.h) registers its
// qspec_backend_create2_fn the same way instead.
//
// The registry is header-only (inline functions with one static table per program) on purpose:
// a backend's object library can register itself without linking qspec_harness, so any test
// binary that links the backend alone still links. Built-ins and plugins share the C ABI of
// qspec/backend.h, so the harness drives both the same way (backend_loader.h).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/backend.h"

namespace qspec {

// A built-in backend's entry point: exactly one of the two is set.
struct BuiltinBackend {
  qspec_backend_create_fn create = nullptr;    // takes no run options
  qspec_backend_create2_fn create2 = nullptr;  // takes run options (ABI version 2)
};

inline std::map<std::string, BuiltinBackend, std::less<>>& builtin_backend_table() {
  static std::map<std::string, BuiltinBackend, std::less<>> table;
  return table;
}

// Registers `entry` under `name`; a duplicate name aborts the program (two objects claim it).
inline bool register_builtin_backend(const std::string& name, BuiltinBackend entry) {
  if (name.empty() || (entry.create == nullptr && entry.create2 == nullptr) ||
      !builtin_backend_table().emplace(name, entry).second) {
    std::fprintf(stderr, "qspec: built-in backend registered twice or without a name: '%s'\n", name.c_str());
    std::abort();
  }
  return true;
}
inline bool register_builtin_backend(const std::string& name, qspec_backend_create_fn create) {
  return register_builtin_backend(name, BuiltinBackend{create, nullptr});
}
inline bool register_builtin_backend(const std::string& name, qspec_backend_create2_fn create2) {
  return register_builtin_backend(name, BuiltinBackend{nullptr, create2});
}

// nullptr if no built-in backend has this name.
inline const BuiltinBackend* find_builtin_backend(std::string_view name) {
  const auto& t = builtin_backend_table();
  auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

// Sorted names of every built-in backend.
inline std::vector<std::string> builtin_backend_names() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : builtin_backend_table()) names.push_back(name);
  return names;
}

}  // namespace qspec

#define QSPEC_BUILTIN_CAT2(a, b) a##b
#define QSPEC_BUILTIN_CAT(a, b) QSPEC_BUILTIN_CAT2(a, b)
#define QSPEC_REGISTER_BUILTIN_BACKEND(name, create_fn)                                 \
  [[maybe_unused]] static const bool QSPEC_BUILTIN_CAT(qspec_builtin_backend_reg_, __LINE__) = \
      ::qspec::register_builtin_backend(name, create_fn)
