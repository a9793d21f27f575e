// Storage and lookup for reference-op registrations.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

#include "qspec/refops.h"

namespace qspec::refops {
namespace {
std::map<std::pair<std::string, std::string>, OpImpl>& registry() {
  static std::map<std::pair<std::string, std::string>, OpImpl> r;
  return r;
}
}  // namespace

bool register_op(OpImpl impl) {
  auto key = std::make_pair(impl.op, impl.convention);
  if (!registry().emplace(key, std::move(impl)).second) {
    std::fprintf(stderr, "qspec: reference op registered twice: %s / %s\n", key.first.c_str(), key.second.c_str());
    std::abort();
  }
  return true;
}

const OpImpl* find_op(std::string_view op, std::string_view convention) {
  auto it = registry().find({std::string(op), std::string(convention)});
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<const OpImpl*> all_ops() {
  std::vector<const OpImpl*> v;
  for (auto& [k, impl] : registry()) v.push_back(&impl);
  return v;
}

std::vector<const OpImpl*> ops_named(std::string_view op) {
  std::vector<const OpImpl*> v;
  for (auto& [k, impl] : registry())
    if (k.first == op) v.push_back(&impl);
  return v;
}

}  // namespace qspec::refops
