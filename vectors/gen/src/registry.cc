// Vector-family registry storage and the platform-independent random number helper.
#include <cstdio>
#include <cstdlib>

#include "qspec/core/catalogue.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen {

std::int64_t Rng::uniform(std::int64_t lo, std::int64_t hi) {
  if (lo > hi) std::abort();
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (span == ~0ull) return static_cast<std::int64_t>(next());
  const std::uint64_t n = span + 1;
  // Largest multiple of n that fits: reject above it so every residue is equally likely.
  const std::uint64_t limit = (~0ull / n) * n;
  std::uint64_t x;
  do {
    x = next();
  } while (x >= limit);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % n);
}

namespace {

std::vector<Family>& pending() {
  static std::vector<Family> r;
  return r;
}

[[noreturn]] void die(const Family& f, const char* what) {
  std::fprintf(stderr, "qspec: vector family %s / %s: %s\n", f.op.c_str(), f.convention.c_str(), what);
  std::abort();
}

}  // namespace

bool register_family(Family f) {
  pending().push_back(std::move(f));
  return true;
}

// Joined with the catalogue on first use, not during static initialization (see refops' registry).
const std::vector<Family>& families() {
  static const std::vector<Family> r = [] {
    std::vector<Family> v;
    for (auto& f : pending()) {
      const catalogue::ConventionSpec* conv = catalogue::get().find(f.op, f.convention);
      if (!conv || conv->diagnostic_only) die(f, "not a normative pair of the op catalogue (spec/catalogue/)");
      f.file = conv->vectors;
      f.clauses = conv->clauses;
      for (const auto& g : v)
        if (g.file == f.file) die(f, "registered twice");
      v.push_back(std::move(f));
    }
    pending().clear();
    return v;
  }();
  return r;
}

Tensor tensor(std::string name, DType t, std::vector<std::int64_t> shape, std::vector<std::int64_t> data) {
  return Tensor{std::move(name), t, std::move(shape), std::move(data)};
}

Tensor scalar_vector(std::string name, DType t, std::vector<std::int64_t> data) {
  const auto n = static_cast<std::int64_t>(data.size());
  return Tensor{std::move(name), t, {n}, std::move(data)};
}

Test test_case(std::string comment, std::vector<Tensor> inputs, nlohmann::ordered_json attributes, bool invalid) {
  return {.comment = std::move(comment),
          .flags = {},
          .inputs = std::move(inputs),
          .attributes = std::move(attributes),
          .invalid = invalid};
}

}  // namespace qspec::vecgen
