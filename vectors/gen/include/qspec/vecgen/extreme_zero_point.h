// Accumulators for requantization draws whose output zero point is INT32_MIN or INT32_MAX.
//
// Q31, TVM and float conventions that take an int32 zero point and require only that the scaled
// value plus it stays in int32 (tflite.single_round, gemmlowp.double_round, tvm.*) or add it in a
// wider type (oneDNN in float32, PyTorch in int64) accept such zero points for every out_dtype. The
// optimized kernels clamp the scaled value to [qmin - zp, qmax - zp] before adding zp; with an
// unsigned output and zp = INT32_MIN that interval lies above int32 (commit a1a516a), so every
// element must reach the kernels' vector loops, not only their scalar tails: these lists are long.
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/ref/exact.h"

namespace qspec::vecgen {

// Sorted distinct int32 accumulators for the real multiplier m (> 0) and zero point zp: 64 spread
// evenly over int32 (the extremes included), and for output codes y at both ends of [lo, hi], around
// 0 and spread between them, the two accumulators floor((y - zp) / m) and one above. Callers keep
// those their convention's REQUIREs allow (the scaled value plus zp in int32 for the Q31 and TVM
// conventions), so most of the codes that no accumulator reaches are simply dropped.
std::vector<std::int64_t> extreme_zero_point_accumulators(const ref::Rat& m, std::int64_t zp, std::int64_t lo,
                                                          std::int64_t hi);

}  // namespace qspec::vecgen
