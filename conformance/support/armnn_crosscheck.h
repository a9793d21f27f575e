// Helpers every Arm NN cross-check shares (conformance/crosscheck_armnn_*.cc): a seeded draw, the
// 8-bit code range, and the Arm NN types of a qspec dtype, shape and float32 bit pattern.
#pragma once

#include <armnn/Tensor.hpp>
#include <armnn/Types.hpp>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "qspec/core/tensor.h"
#include "qspec/ref/ops/ndarray.h"

namespace qspec::armnn_crosscheck {

struct Rng {
  std::mt19937_64 e;
  long long in(long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(e); }
};

inline long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
inline long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }
inline armnn::DataType dtype(DType t) { return t == DType::I8 ? armnn::DataType::QAsymmS8 : armnn::DataType::QAsymmU8; }
inline armnn::TensorShape tshape(const ref::ops::Shape& s) {
  std::vector<unsigned> d(s.begin(), s.end());
  return armnn::TensorShape(static_cast<unsigned>(d.size()), d.data());
}
inline float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }

}  // namespace qspec::armnn_crosscheck
