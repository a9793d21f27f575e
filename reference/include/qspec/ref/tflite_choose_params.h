// TFLite's ChooseQuantizationParams<T>(rmin, rmax, narrow_range): the scale and zero point a
// framework parser computes from a float range (spec/tflite_tosa.md tflite.choose_quantization_params).
#pragma once

#include <cstdint>

#include "qspec/ref/types.h"

namespace qspec::ref {

struct TfliteQuantParams {
  std::uint64_t scale;  // binary64 bits
  Int zero_point;
};

// spec: tflite.choose_quantization_params
// tensorflow/lite/kernels/internal/quantization_util.h, in binary64: T is int8, uint8 or int16;
// ERROR_IF rmin > 0 or rmax < 0 (TFLITE_CHECK), or rmin == rmax != 0; rmin == rmax == 0 gives
// scale 0, zero point 0. REQUIRE rmin, rmax finite.
TfliteQuantParams tflite_choose_quantization_params(std::uint64_t rmin_f64, std::uint64_t rmax_f64, DType t,
                                                    bool narrow_range);

}  // namespace qspec::ref
