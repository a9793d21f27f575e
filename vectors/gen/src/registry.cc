// Vector-family registry storage and the platform-independent random number helper.
#include <cstdio>
#include <cstdlib>

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
std::vector<Family>& registry() {
  static std::vector<Family> r;
  return r;
}
}  // namespace

bool register_family(Family f) {
  for (const auto& g : registry())
    if (g.file == f.file) {
      std::fprintf(stderr, "qspec: vector family registered twice: %s\n", f.file.c_str());
      std::abort();
    }
  registry().push_back(std::move(f));
  return true;
}

const std::vector<Family>& families() { return registry(); }

Tensor tensor(std::string name, DType t, std::vector<std::int64_t> shape, std::vector<std::int64_t> data) {
  return Tensor{std::move(name), t, std::move(shape), std::move(data)};
}

Tensor scalar_vector(std::string name, DType t, std::vector<std::int64_t> data) {
  const auto n = static_cast<std::int64_t>(data.size());
  return Tensor{std::move(name), t, {n}, std::move(data)};
}

}  // namespace qspec::vecgen
