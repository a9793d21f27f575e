// Accumulators for requantization draws whose output zero point is INT32_MIN or INT32_MAX.
#include "qspec/vecgen/extreme_zero_point.h"

#include <algorithm>
#include <set>

#include "qspec/ref/rounding.h"

namespace qspec::vecgen {

std::vector<std::int64_t> extreme_zero_point_accumulators(const ref::Rat& m, std::int64_t zp, std::int64_t lo,
                                                          std::int64_t hi) {
  constexpr std::int64_t kMin = -2147483648LL, kMax = 2147483647LL;
  std::set<std::int64_t> xs;
  for (std::int64_t k = 0; k < 63; ++k) xs.insert(kMin + (kMax - kMin) / 63 * k);
  xs.insert(kMax);
  std::vector<std::int64_t> codes;
  for (std::int64_t d = 0; d < 4; ++d) codes.insert(codes.end(), {lo + d, hi - d, d - 2, lo - 1 - d, hi + 1 + d});
  for (std::int64_t k = 1; k < 24; ++k) codes.push_back(lo + (hi - lo) / 24 * k);
  for (std::int64_t y : codes) {
    const ref::Int x = ref::round_floor(ref::Rat(ref::Int(y) - ref::Int(zp)) / m);
    for (std::int64_t e : {0, 1}) {
      const ref::Int v = x + ref::Int(e);
      if (v >= ref::Int(kMin) && v <= ref::Int(kMax)) xs.insert(static_cast<std::int64_t>(v));
    }
  }
  return {xs.begin(), xs.end()};
}

}  // namespace qspec::vecgen
