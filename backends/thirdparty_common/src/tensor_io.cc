// Typed reading and writing of ABI tensors for adapters (see tensor_io.h).
#include "qspec/thirdparty/tensor_io.h"

#include <cstring>
#include <limits>
#include <stdexcept>

namespace qspec::thirdparty {
namespace {

std::size_t elem_size(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: case QSPEC_DTYPE_UINT8: return 1;
    case QSPEC_DTYPE_INT16: case QSPEC_DTYPE_UINT16: return 2;
    case QSPEC_DTYPE_INT32: case QSPEC_DTYPE_FLOAT32: return 4;
    case QSPEC_DTYPE_INT64: case QSPEC_DTYPE_FLOAT64: return 8;
  }
  throw std::invalid_argument("unknown dtype code");
}

std::string tname(const qspec_tensor& t) { return t.name ? t.name : "?"; }

void check_buffer(const qspec_tensor& t) {
  const std::size_t need = static_cast<std::size_t>(numel(t)) * elem_size(t.dtype);
  if (t.size_bytes != need || (need > 0 && t.data == nullptr))
    throw std::invalid_argument("tensor '" + tname(t) + "': buffer of " + std::to_string(t.size_bytes) +
                                " bytes, shape needs " + std::to_string(need));
}

}  // namespace

const char* dtype_name(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: return "int8";
    case QSPEC_DTYPE_UINT8: return "uint8";
    case QSPEC_DTYPE_INT16: return "int16";
    case QSPEC_DTYPE_UINT16: return "uint16";
    case QSPEC_DTYPE_INT32: return "int32";
    case QSPEC_DTYPE_INT64: return "int64";
    case QSPEC_DTYPE_FLOAT32: return "float32";
    case QSPEC_DTYPE_FLOAT64: return "float64";
  }
  return "?";
}

qspec_dtype dtype_from_name(const std::string& name) {
  for (int d = QSPEC_DTYPE_INT8; d <= QSPEC_DTYPE_FLOAT64; ++d)
    if (name == dtype_name(static_cast<qspec_dtype>(d))) return static_cast<qspec_dtype>(d);
  throw std::invalid_argument("unknown dtype name \"" + name + "\"");
}

std::int64_t dtype_min(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: return std::numeric_limits<std::int8_t>::min();
    case QSPEC_DTYPE_INT16: return std::numeric_limits<std::int16_t>::min();
    case QSPEC_DTYPE_INT32: return std::numeric_limits<std::int32_t>::min();
    case QSPEC_DTYPE_INT64: return std::numeric_limits<std::int64_t>::min();
    case QSPEC_DTYPE_UINT8: case QSPEC_DTYPE_UINT16: return 0;
    default: throw std::invalid_argument(std::string("dtype_min of non-integer dtype ") + dtype_name(d));
  }
}

std::int64_t dtype_max(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: return std::numeric_limits<std::int8_t>::max();
    case QSPEC_DTYPE_UINT8: return std::numeric_limits<std::uint8_t>::max();
    case QSPEC_DTYPE_INT16: return std::numeric_limits<std::int16_t>::max();
    case QSPEC_DTYPE_UINT16: return std::numeric_limits<std::uint16_t>::max();
    case QSPEC_DTYPE_INT32: return std::numeric_limits<std::int32_t>::max();
    case QSPEC_DTYPE_INT64: return std::numeric_limits<std::int64_t>::max();
    default: throw std::invalid_argument(std::string("dtype_max of non-integer dtype ") + dtype_name(d));
  }
}

std::int64_t numel(const qspec_tensor& t) {
  std::int64_t n = 1;
  for (std::int32_t i = 0; i < t.rank; ++i) n *= t.shape[i];
  return n;
}

std::vector<std::int64_t> shape_of(const qspec_tensor& t) {
  if (t.rank <= 0) return {};
  return std::vector<std::int64_t>(t.shape, t.shape + t.rank);
}

void expect_dtype(const qspec_tensor& t, qspec_dtype d) {
  if (t.dtype != d)
    throw std::invalid_argument("tensor '" + tname(t) + "' has dtype " + dtype_name(t.dtype) + ", expected " +
                                dtype_name(d));
}

std::vector<std::int64_t> read_ints(const qspec_tensor& t) {
  check_buffer(t);
  const std::size_t n = static_cast<std::size_t>(numel(t));
  std::vector<std::int64_t> out(n);
  const auto* p = static_cast<const unsigned char*>(t.data);
  for (std::size_t i = 0; i < n; ++i) {
    switch (t.dtype) {
      case QSPEC_DTYPE_INT8: { std::int8_t x; std::memcpy(&x, p + i, 1); out[i] = x; break; }
      case QSPEC_DTYPE_UINT8: { std::uint8_t x; std::memcpy(&x, p + i, 1); out[i] = x; break; }
      case QSPEC_DTYPE_INT16: { std::int16_t x; std::memcpy(&x, p + 2 * i, 2); out[i] = x; break; }
      case QSPEC_DTYPE_UINT16: { std::uint16_t x; std::memcpy(&x, p + 2 * i, 2); out[i] = x; break; }
      case QSPEC_DTYPE_INT32: { std::int32_t x; std::memcpy(&x, p + 4 * i, 4); out[i] = x; break; }
      case QSPEC_DTYPE_INT64: { std::int64_t x; std::memcpy(&x, p + 8 * i, 8); out[i] = x; break; }
      default: throw std::invalid_argument("tensor '" + tname(t) + "': expected an integer dtype, got " + dtype_name(t.dtype));
    }
  }
  return out;
}

std::vector<float> read_f32(const qspec_tensor& t) {
  expect_dtype(t, QSPEC_DTYPE_FLOAT32);
  check_buffer(t);
  std::vector<float> out(static_cast<std::size_t>(numel(t)));
  if (!out.empty()) std::memcpy(out.data(), t.data, out.size() * sizeof(float));
  return out;
}

void write_f32(qspec_tensor& t, const std::vector<float>& values) {
  if (t.rank < 0) return;  // the output sink of an invalid test (Call::output)
  expect_dtype(t, QSPEC_DTYPE_FLOAT32);
  check_buffer(t);
  if (values.size() != static_cast<std::size_t>(numel(t)))
    throw std::logic_error("tensor '" + tname(t) + "': writing " + std::to_string(values.size()) + " values into " +
                           std::to_string(numel(t)) + " elements");
  if (!values.empty()) std::memcpy(t.data, values.data(), values.size() * sizeof(float));
}

void write_ints(qspec_tensor& t, const std::vector<std::int64_t>& values) {
  if (t.rank < 0) return;  // the output sink of an invalid test (Call::output)
  check_buffer(t);
  if (values.size() != static_cast<std::size_t>(numel(t)))
    throw std::logic_error("tensor '" + tname(t) + "': writing " + std::to_string(values.size()) + " values into " +
                           std::to_string(numel(t)) + " elements");
  auto* p = static_cast<unsigned char*>(t.data);
  const std::int64_t lo = dtype_min(t.dtype), hi = dtype_max(t.dtype);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t v = values[i];
    if (v < lo || v > hi)
      throw std::logic_error("tensor '" + tname(t) + "': value " + std::to_string(v) + " does not fit " + dtype_name(t.dtype));
    switch (t.dtype) {
      case QSPEC_DTYPE_INT8: { auto x = static_cast<std::int8_t>(v); std::memcpy(p + i, &x, 1); break; }
      case QSPEC_DTYPE_UINT8: { auto x = static_cast<std::uint8_t>(v); std::memcpy(p + i, &x, 1); break; }
      case QSPEC_DTYPE_INT16: { auto x = static_cast<std::int16_t>(v); std::memcpy(p + 2 * i, &x, 2); break; }
      case QSPEC_DTYPE_UINT16: { auto x = static_cast<std::uint16_t>(v); std::memcpy(p + 2 * i, &x, 2); break; }
      case QSPEC_DTYPE_INT32: { auto x = static_cast<std::int32_t>(v); std::memcpy(p + 4 * i, &x, 4); break; }
      case QSPEC_DTYPE_INT64: std::memcpy(p + 8 * i, &v, 8); break;
      default: throw std::logic_error("tensor '" + tname(t) + "': not an integer dtype");
    }
  }
}

}  // namespace qspec::thirdparty
