// The tensor value passed between vectors, the harness and backends (dtype, shape, flat data).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qspec {

// Element types of vectors and of the backend ABI (same order as qspec_dtype in backend.h).
enum class DType { I8, U8, I16, U16, I32, I64, F32, F64 };

std::string_view dtype_name(DType t);  // "int8", "uint8", ..., "float32", "float64"
std::optional<DType> dtype_from_name(std::string_view name);
bool is_float(DType t);
int dtype_size(DType t);  // bytes per element
// Value range of an integer dtype (int64 covers all of them).
std::int64_t dtype_min(DType t);
std::int64_t dtype_max(DType t);

// Row-major tensor. Integer elements are stored as their value; float32/float64 elements as
// their IEEE bit pattern (zero-extended), so every value is exact and comparisons are bitwise.
struct Tensor {
  std::string name;
  DType dtype = DType::I32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> data;

  std::int64_t numel() const;
};

}  // namespace qspec
