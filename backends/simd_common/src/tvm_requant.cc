// TVM qnn.requantize as a kShiftRound kernel: the float64 multiplier, its Q31 form, the rounding constants.
#include "tvm_requant.h"

#include <cstring>

#include "qspec/simd/backend_core.h"

namespace qspec::simd::tvm {

Multiplier multiplier(float in_s, float out_s) {
  return q31::frexp_q31(static_cast<double>(in_s) / static_cast<double>(out_s));  // one binary64 division
}

// For e > 0, TVM computes floor((x' * 2^e * M + c) / 2^31) = floor((x' * M + floor(c / 2^e)) / 2^(31 - e))
// (nested floors), so the left shift folds into S = 31 - e and the constants 2^(S-1) (and
// 2^(S-1) - 1 for a negative product under TONEAREST); for S <= 0 the constant vanishes.
RequantParams params(const Multiplier& fm, bool to_nearest, std::int64_t izp, std::int64_t ozp, OutType out) {
  if (izp < INT32_MIN || izp > INT32_MAX || ozp < INT32_MIN || ozp > INT32_MAX)
    throw Unsupported("zero points beyond int32 (REQUIRE)");
  RequantParams p;
  p.kind = RequantKind::kShiftRound;
  p.multiplier = fm.multiplier;
  p.shift = 31 - fm.shift;
  p.input_offset = static_cast<std::int32_t>(-izp);
  if (p.shift > 0) {
    p.round_pos = std::int64_t{1} << (p.shift - 1);
    p.round_neg = to_nearest ? p.round_pos - 1 : p.round_pos;
  }
  p.zp = static_cast<std::int32_t>(ozp);
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  if (!finalize(p)) throw Unsupported("TVM shift outside the kernels' domain (a REQUIRE of tvm.requantize)");
  return p;
}

RequantParams per_tensor(float in_s, float out_s, bool to_nearest, std::int64_t izp, std::int64_t ozp, OutType out) {
  std::uint32_t a, b;
  std::memcpy(&a, &in_s, 4);
  std::memcpy(&b, &out_s, 4);
  return params(a == b ? Multiplier{1 << 30, 1} : multiplier(in_s, out_s), to_nearest, izp, ozp, out);
}

}  // namespace qspec::simd::tvm
