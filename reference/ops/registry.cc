// Storage and lookup for reference-op registrations, joined with their catalogue entries on first use.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

#include "qspec/refops.h"

namespace qspec::refops {
namespace {

using Key = std::pair<std::string, std::string>;

// Registrations as the op files make them during static initialization.
std::vector<Registration>& pending() {
  static std::vector<Registration> r;
  return r;
}

[[noreturn]] void die(const char* what, const std::string& op, const std::string& conv) {
  std::fprintf(stderr, "qspec: reference op %s / %s %s\n", op.c_str(), conv.c_str(), what);
  std::abort();
}

// The registry, built on first lookup (not during static initialization: a program that only
// regenerates the catalogue's derived files must run even while the catalogue and the op files
// disagree). A pair the catalogue lacks, or one registered twice, aborts with its name.
std::map<Key, OpImpl>& registry() {
  static std::map<Key, OpImpl> r = [] {
    std::map<Key, OpImpl> m;
    for (auto& reg : pending()) {
      const std::string op(reg.op), conv(reg.convention);
      const catalogue::OpSpec* spec = catalogue::get().op(op);
      const catalogue::ConventionSpec* c = spec ? spec->convention(conv) : nullptr;
      if (!c) die("is not in the op catalogue (spec/catalogue/)", op, conv);
      OpImpl impl{.op = op,
                  .convention = conv,
                  .clauses = c->clauses,
                  .description = c->description,
                  .fn = std::move(reg.fn),
                  .diagnostic_only = c->diagnostic_only,
                  .spec = spec,
                  .convention_spec = c};
      if (!m.emplace(Key{op, conv}, std::move(impl)).second) die("is registered twice", op, conv);
    }
    pending().clear();
    return m;
  }();
  return r;
}

}  // namespace

bool register_op(Registration r) {
  pending().push_back(std::move(r));
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
