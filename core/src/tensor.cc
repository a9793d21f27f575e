// DType names, sizes and ranges; element counts.
#include "qspec/core/tensor.h"

#include <array>
#include <limits>
#include <utility>

namespace qspec {
namespace {
constexpr std::array<std::pair<DType, std::string_view>, 8> kNames = {{{DType::I8, "int8"},
                                                                       {DType::U8, "uint8"},
                                                                       {DType::I16, "int16"},
                                                                       {DType::U16, "uint16"},
                                                                       {DType::I32, "int32"},
                                                                       {DType::I64, "int64"},
                                                                       {DType::F32, "float32"},
                                                                       {DType::F64, "float64"}}};
}  // namespace

std::string_view dtype_name(DType t) {
  for (const auto& [d, n] : kNames)
    if (d == t) return n;
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& [d, n] : kNames)
    if (n == name) return d;
  return std::nullopt;
}

bool is_float(DType t) { return t == DType::F32 || t == DType::F64; }

int dtype_size(DType t) {
  switch (t) {
    case DType::I8:
    case DType::U8: return 1;
    case DType::I16:
    case DType::U16: return 2;
    case DType::I32:
    case DType::F32: return 4;
    case DType::I64:
    case DType::F64: return 8;
  }
  return 0;
}

std::int64_t dtype_min(DType t) {
  switch (t) {
    case DType::I8: return -128;
    case DType::I16: return -32768;
    case DType::I32: return std::numeric_limits<std::int32_t>::min();
    case DType::I64: return std::numeric_limits<std::int64_t>::min();
    default: return 0;
  }
}

std::int64_t dtype_max(DType t) {
  switch (t) {
    case DType::I8: return 127;
    case DType::U8: return 255;
    case DType::I16: return 32767;
    case DType::U16: return 65535;
    case DType::I32: return std::numeric_limits<std::int32_t>::max();
    case DType::I64: return std::numeric_limits<std::int64_t>::max();
    case DType::F32: return 0xffffffffll;
    case DType::F64: return std::numeric_limits<std::int64_t>::max();
  }
  return 0;
}

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

}  // namespace qspec
