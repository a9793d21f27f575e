// Exact reference of Arm NN 20.08 CpuRef's Quantize layer (armnn.quantize).
#include "qspec/ref/armnn_quantize.h"

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/tvm_qnn.h"

namespace qspec::ref {

// spec: armnn.quantize
// TypesUtils.cpp armnn::Quantize<T>:
//   clampedValue = min(max(float(offset) + float(round(value / scale)), float(min)), float(max));
//   return static_cast<T>(clampedValue);
// The same IEEE operations in the same order as tvm.quantize (whose reference computes them), so
// finite inputs go through it; an infinite input makes every step infinite and the clip saturates.
Int armnn_quantize_layer(std::uint32_t x, std::uint32_t scale, const Int& zero_point, DType out) {
  QSPEC_REQUIRE(!f32_is_nan(x), "armnn.quantize: x is not NaN (ARMNN_ASSERT(!std::isnan(value)) aborts)");
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) > 0, "armnn.quantize: finite positive scale");
  QSPEC_REQUIRE(zero_point >= -pow2(31) && zero_point < pow2(31), "armnn.quantize: the offset is an int32");
  if (f32_is_inf(x)) {
    const Range r = int_range(out);
    return f32_sign(x) ? r.lo : r.hi;
  }
  return tvm_quantize(x, scale, zero_point, out);
}

}  // namespace qspec::ref
