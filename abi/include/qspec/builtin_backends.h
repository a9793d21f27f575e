// Registry of backends compiled into the qspec executable (reference, later avx2, gemmlowp...).
//
// A built-in backend is an object file that defines a qspec_backend_create_fn and registers it
// at static-initialization time:
//
//   static int create_avx2(uint32_t host_abi, qspec_backend* out) { ... }
//   QSPEC_REGISTER_BUILTIN_BACKEND("avx2", create_avx2);
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

inline std::map<std::string, qspec_backend_create_fn, std::less<>>& builtin_backend_table() {
  static std::map<std::string, qspec_backend_create_fn, std::less<>> table;
  return table;
}

// Registers `create` under `name`; a duplicate name aborts the program (two objects claim it).
inline bool register_builtin_backend(const std::string& name, qspec_backend_create_fn create) {
  if (name.empty() || create == nullptr || !builtin_backend_table().emplace(name, create).second) {
    std::fprintf(stderr, "qspec: built-in backend registered twice or without a name: '%s'\n", name.c_str());
    std::abort();
  }
  return true;
}

// nullptr if no built-in backend has this name.
inline qspec_backend_create_fn find_builtin_backend(std::string_view name) {
  const auto& t = builtin_backend_table();
  auto it = t.find(name);
  return it == t.end() ? nullptr : it->second;
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
