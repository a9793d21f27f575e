// "frexp, round to Q31, carry" (qspec/backend_common/q31.h).
#include "qspec/backend_common/q31.h"

#include <cmath>

namespace qspec::q31 {

Q31 carry(std::int64_t m, int shift) {
  if (m == (std::int64_t{1} << 31)) return {std::int32_t{1} << 30, shift + 1};
  return {static_cast<std::int32_t>(m), shift};
}

Q31 flush_tiny(Q31 q) { return q.shift < -31 ? Q31{} : q; }

Q31 frexp_q31(double d) {
  if (d == 0.0) return {};
  int e = 0;
  const double q = std::frexp(d, &e);                                         // exact
  return carry(static_cast<std::int64_t>(std::round(std::ldexp(q, 31))), e);  // exact product, ties away
}

Q31 tflite_quantize_multiplier(double d) { return flush_tiny(frexp_q31(d)); }

}  // namespace qspec::q31
