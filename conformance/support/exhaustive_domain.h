// How much of its domain an exhaustive test visits: all of it, a wider one, or a strided sample.
//
// - Default: every point of the CI domain (the default preset's CTest run).
// - QSPEC_EXHAUSTIVE_FULL=1: the wider parameter sets each test documents (hours, not CI).
// - QSPEC_DOMAIN_STRIDE=N: every N-th point plus both ends of each loop. The asan preset's CTest
//   run sets it: the sanitizer build is there to find undefined behaviour and memory errors, which
//   the same code paths show on a sample, while every point is already checked by the default
//   build's run of the same tests. N should be prime, so that the sample does not fall on a
//   single residue class of the power-of-two moduli that rounding depends on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace qspec::test {

inline bool exhaustive_full() {
  const char* v = std::getenv("QSPEC_EXHAUSTIVE_FULL");
  return v && std::string(v) == "1";
}

// 1 unless QSPEC_DOMAIN_STRIDE is set; announced once on stderr so a sampled run never passes
// for an exhaustive one in a log.
inline std::int64_t domain_stride() {
  static const std::int64_t stride = [] {
    const char* v = std::getenv("QSPEC_DOMAIN_STRIDE");
    char* end = nullptr;
    const long n = v && *v ? std::strtol(v, &end, 10) : 1;
    if (v && *v && (*end != '\0' || n < 1)) {  // a typo must not silently mean "every point"
      std::fprintf(stderr, "QSPEC_DOMAIN_STRIDE=%s: expected a positive integer\n", v);
      std::exit(2);
    }
    if (n > 1) std::fprintf(stderr, "note: exhaustive domains sampled: every %ld-th point and the ends (QSPEC_DOMAIN_STRIDE)\n", n);
    return n > 1 ? std::int64_t{n} : std::int64_t{1};
  }();
  return stride;
}

// Whether point i of a loop over points 0..n-1 is visited: all of them, or the stride's sample
// with both ends.
inline bool visit(std::int64_t i, std::int64_t n) {
  const std::int64_t s = domain_stride();
  return s == 1 || i == 0 || i == n - 1 || i % s == 0;
}

// The integers lo..hi that the domain visits, in order.
inline std::vector<std::int64_t> domain_range(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = lo; x <= hi; ++x)
    if (visit(x - lo, hi - lo + 1)) v.push_back(x);
  return v;
}

}  // namespace qspec::test
