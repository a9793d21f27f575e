// Reading integer tensors of any width into int64 and writing them back with range checks.
#include "qspec/simd/int_tensor.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "qspec/simd/backend_core.h"

namespace qspec::simd {

std::int64_t IntArray::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

IntArray read_int(const qspec_tensor& t) {
  IntArray a;
  a.shape.assign(t.shape, t.shape + t.rank);
  const auto n = static_cast<std::size_t>(numel(t));
  a.data.resize(n);
  const auto* p = static_cast<const unsigned char*>(t.data);
  for (std::size_t i = 0; i < n; ++i) {
    switch (t.dtype) {
      case QSPEC_DTYPE_INT8: a.data[i] = static_cast<std::int8_t>(p[i]); break;
      case QSPEC_DTYPE_UINT8: a.data[i] = p[i]; break;
      case QSPEC_DTYPE_INT16: {
        std::int16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        a.data[i] = v;
        break;
      }
      case QSPEC_DTYPE_UINT16: {
        std::uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        a.data[i] = v;
        break;
      }
      case QSPEC_DTYPE_INT32: {
        std::int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        a.data[i] = v;
        break;
      }
      case QSPEC_DTYPE_INT64: {
        std::int64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        a.data[i] = v;
        break;
      }
      default:
        throw std::invalid_argument(std::string("tensor '") + (t.name ? t.name : "?") + "' must be an integer tensor");
    }
  }
  return a;
}

void write_int(qspec_tensor& t, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& values) {
  bool same = static_cast<std::size_t>(t.rank) == shape.size();
  for (std::size_t i = 0; same && i < shape.size(); ++i) same = t.shape[i] == shape[i];
  if (!same)
    throw std::invalid_argument(std::string("output '") + (t.name ? t.name : "?") +
                                "': shape differs from the result's");
  auto* p = static_cast<unsigned char*>(t.data);
  auto check = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
    if (v < lo || v > hi)
      throw std::runtime_error(std::string("output '") + (t.name ? t.name : "?") + "': value does not fit its dtype");
  };
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t v = values[i];
    switch (t.dtype) {
      case QSPEC_DTYPE_INT8:
        check(v, -128, 127);
        p[i] = static_cast<unsigned char>(v);
        break;
      case QSPEC_DTYPE_UINT8:
        check(v, 0, 255);
        p[i] = static_cast<unsigned char>(v);
        break;
      case QSPEC_DTYPE_INT16: {
        check(v, -32768, 32767);
        const auto w = static_cast<std::int16_t>(v);
        std::memcpy(p + 2 * i, &w, 2);
        break;
      }
      case QSPEC_DTYPE_UINT16: {
        check(v, 0, 65535);
        const auto w = static_cast<std::uint16_t>(v);
        std::memcpy(p + 2 * i, &w, 2);
        break;
      }
      case QSPEC_DTYPE_INT32: {
        check(v, INT32_MIN, INT32_MAX);
        const auto w = static_cast<std::int32_t>(v);
        std::memcpy(p + 4 * i, &w, 4);
        break;
      }
      case QSPEC_DTYPE_INT64: std::memcpy(p + 8 * i, &v, 8); break;
      default:
        throw std::invalid_argument(std::string("output '") + (t.name ? t.name : "?") + "' must be an integer tensor");
    }
  }
}

bool all_within(const std::vector<std::int64_t>& v, std::int64_t lo, std::int64_t hi) {
  for (auto x : v)
    if (x < lo || x > hi) return false;
  return true;
}

}  // namespace qspec::simd
