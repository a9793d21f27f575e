// Random requantization plans, operands and biases for the fused-epilogue tests (the GEMM engines'
// run_requant, the direct convolution's byte store): one text, so that both meet the same hard cases.
#pragma once

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "qspec/simd/requant.h"

namespace qspec::simd::testing {

// Column j's parameters of a random plan of `kind` (per channel unless per_tensor), output type
// out with a narrowed clamp on some seeds: ties (scales of 2^-e, right shifts), saturation (large
// scales and multipliers), every shift 0..31.
inline std::vector<RequantParams> random_plan(RequantKind kind, OutType out, std::int64_t n, bool per_tensor,
                                              std::mt19937_64& rng) {
  std::vector<RequantParams> plan;
  const std::int32_t lo = out_min(out), hi = out_max(out);
  const bool narrowed = rng() % 3 == 0;
  const std::int32_t zp = static_cast<std::int32_t>(lo + static_cast<std::int32_t>(rng() % 256));
  for (std::int64_t j = 0; j < (per_tensor ? 1 : n); ++j) {
    RequantParams p;
    p.kind = kind;
    p.out = OutType::I32;  // as the qlinear plans: int32 lanes, narrowed by the store
    p.qmin = narrowed ? lo + 10 : lo;
    p.qmax = narrowed ? hi - 20 : hi;
    p.zp = zp;
    if (kind == RequantKind::kShiftRound) {  // TFLite single rounding (one constant), TOSA's double (two)
      // Multipliers spread over every binade, shifts just past 32 (TOSA's second constant then
      // matters): many columns land inside the range, near ties.
      p.multiplier = j % 5 == 0 ? INT32_MAX : static_cast<std::int32_t>((rng() >> 33) >> (rng() % 31));
      p.shift = static_cast<int>(j % 4 == 0 ? 62 : j % 4 == 1 ? 32 + rng() % 4 : 1 + rng() % 62);
      p.round_pos = p.round_neg = std::int64_t{1} << (p.shift - 1);
      if (j % 2 && p.shift > 31) p.round_pos += std::int64_t{1} << 30, p.round_neg -= std::int64_t{1} << 30;
    } else if (kind == RequantKind::kQ31Double) {
      p.multiplier = j % 5 == 0 ? INT32_MIN : j % 5 == 1 ? INT32_MAX : static_cast<std::int32_t>(rng());
      p.left_shift = static_cast<int>(j % 7 == 0 ? rng() % 32 : 0);
      p.right_shift = static_cast<int>((j * 13 + rng()) % 32);
    } else {
      // 2^-e (exact ties at half-integers), or a random scale in [2^-20, 2^2).
      p.scale = j % 3 == 0 ? std::ldexp(1.0f, -static_cast<int>(rng() % 12))
                           : std::ldexp(static_cast<float>(rng() % (1u << 23)) / float(1 << 23) + 1.0f,
                                        -20 + static_cast<int>(rng() % 22));
      p.zp_f = static_cast<float>(p.zp);
    }
    EXPECT_TRUE(finalize(p));
    plan.push_back(p);
  }
  return plan;
}

// Operands: random bytes, or on `extreme` cases every one at the value that makes the largest
// accumulators (int8 -128 or uint8 0 activations against 127 or 255 weights).
inline void fill_operands(std::vector<std::uint8_t>& a, bool a_signed, std::vector<std::uint8_t>& w, bool w_unsigned,
                          bool extreme, std::mt19937_64& rng) {
  for (auto& v : a) v = extreme ? static_cast<std::uint8_t>(a_signed ? 0x80 : 0) : static_cast<std::uint8_t>(rng());
  for (auto& v : w) v = extreme ? static_cast<std::uint8_t>(w_unsigned ? 255 : 127) : static_cast<std::uint8_t>(rng());
}

// n biases within +-100000, or with `wide` near +-2^29: oneDNN's float bias rounds once its sum
// passes 2^24.
inline std::vector<std::int64_t> random_bias(std::int64_t n, bool wide, std::mt19937_64& rng) {
  std::vector<std::int64_t> bias(static_cast<std::size_t>(n));
  const std::int64_t span = wide ? std::int64_t{1} << 29 : 100000;
  for (auto& b : bias) b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(2 * span + 1)) - span;
  return bias;
}

}  // namespace qspec::simd::testing
