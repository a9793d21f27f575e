// Arm NN 20.08 CpuRef's Quantize layer on QAsymmS8 / QAsymmU8 (spec/operators_qlinear_armnn.md,
// armnn.quantize): armnn::Quantize<T> of every float32 element. Its Dequantize layer is
// float.dequantize (qspec/ref/float_conventions.h) and needs no function of its own.
#pragma once

#include <cstdint>

#include "qspec/ref/exact.h"
#include "qspec/ref/types.h"

namespace qspec::ref {

// spec: armnn.quantize
// armnn::Quantize<T>(x, s, offset): clip(fl32(round_half_away(fl32(x / s)) + fl32(offset))) in
// float32, then the integral float converted to T: the steps of tvm.quantize, for x = +-inf too
// (the quotient is infinite and saturates). out is int8 or uint8 (the caller's domain); REQUIRE x
// not NaN (ARMNN_ASSERT aborts), s finite and positive, offset in int32.
Int armnn_quantize_layer(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out);

}  // namespace qspec::ref
