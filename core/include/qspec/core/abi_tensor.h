// Conversion between qspec::Tensor (int64 values / float bit patterns) and the ABI's packed buffers.
//
// Header-only so both the harness and a built-in backend (which must not depend on the harness
// library, see builtin_backends.h) can use it. In an ABI buffer every element has its dtype's
// native width and byte order; float32/float64 elements are their IEEE bit patterns.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "qspec/backend.h"
#include "qspec/core/tensor.h"

namespace qspec {

// DType and qspec_dtype enumerate the same types in the same order.
inline qspec_dtype to_abi_dtype(DType t) { return static_cast<qspec_dtype>(static_cast<int>(t)); }
inline bool from_abi_dtype(qspec_dtype d, DType& out) {
  const int v = static_cast<int>(d);
  if (v < 0 || v > static_cast<int>(DType::F64)) return false;
  out = static_cast<DType>(v);
  return true;
}

// Writes element i of a packed buffer of dtype t.
inline void store_element(DType t, void* buf, std::size_t i, std::int64_t v) {
  auto* p = static_cast<unsigned char*>(buf);
  switch (t) {
    case DType::I8: { const auto x = static_cast<std::int8_t>(v); std::memcpy(p + i, &x, 1); break; }
    case DType::U8: { const auto x = static_cast<std::uint8_t>(v); std::memcpy(p + i, &x, 1); break; }
    case DType::I16: { const auto x = static_cast<std::int16_t>(v); std::memcpy(p + 2 * i, &x, 2); break; }
    case DType::U16: { const auto x = static_cast<std::uint16_t>(v); std::memcpy(p + 2 * i, &x, 2); break; }
    case DType::I32: { const auto x = static_cast<std::int32_t>(v); std::memcpy(p + 4 * i, &x, 4); break; }
    case DType::F32: { const auto x = static_cast<std::uint32_t>(v); std::memcpy(p + 4 * i, &x, 4); break; }
    case DType::I64: { const auto x = static_cast<std::int64_t>(v); std::memcpy(p + 8 * i, &x, 8); break; }
    case DType::F64: { const auto x = static_cast<std::uint64_t>(v); std::memcpy(p + 8 * i, &x, 8); break; }
  }
}

// Reads element i of a packed buffer of dtype t, in Tensor's representation.
inline std::int64_t load_element(DType t, const void* buf, std::size_t i) {
  const auto* p = static_cast<const unsigned char*>(buf);
  switch (t) {
    case DType::I8: { std::int8_t x; std::memcpy(&x, p + i, 1); return x; }
    case DType::U8: { std::uint8_t x; std::memcpy(&x, p + i, 1); return x; }
    case DType::I16: { std::int16_t x; std::memcpy(&x, p + 2 * i, 2); return x; }
    case DType::U16: { std::uint16_t x; std::memcpy(&x, p + 2 * i, 2); return x; }
    case DType::I32: { std::int32_t x; std::memcpy(&x, p + 4 * i, 4); return x; }
    case DType::F32: { std::uint32_t x; std::memcpy(&x, p + 4 * i, 4); return static_cast<std::int64_t>(x); }
    case DType::I64: { std::int64_t x; std::memcpy(&x, p + 8 * i, 8); return x; }
    case DType::F64: { std::uint64_t x; std::memcpy(&x, p + 8 * i, 8); return static_cast<std::int64_t>(x); }
  }
  return 0;
}

// A tensor in ABI form that owns its name, shape and buffer; view() is valid while it lives.
class AbiTensor {
 public:
  // Packs t's data. With fill_pattern set, the buffer is filled with 0xA5 bytes instead (output
  // tensors: a backend that forgets to write an element shows up as a wrong value).
  explicit AbiTensor(const Tensor& t, bool fill_pattern = false)
      : name_(t.name), dtype_(t.dtype), shape_(t.shape),
        bytes_(static_cast<std::size_t>(t.numel()) * static_cast<std::size_t>(dtype_size(t.dtype)), 0xA5) {
    if (!fill_pattern)
      for (std::size_t i = 0; i < t.data.size(); ++i) store_element(dtype_, bytes_.data(), i, t.data[i]);
  }
  AbiTensor(const AbiTensor&) = delete;
  AbiTensor& operator=(const AbiTensor&) = delete;
  AbiTensor(AbiTensor&&) = default;
  AbiTensor& operator=(AbiTensor&&) = default;

  qspec_tensor view() {
    return qspec_tensor{name_.c_str(), to_abi_dtype(dtype_), static_cast<std::int32_t>(shape_.size()), shape_.data(),
                        bytes_.empty() ? nullptr : bytes_.data(), bytes_.size()};
  }
  // The buffer's current contents as a Tensor.
  Tensor to_tensor() const {
    Tensor t{name_, dtype_, shape_, {}};
    const std::size_t n = bytes_.size() / static_cast<std::size_t>(dtype_size(dtype_));
    t.data.reserve(n);
    for (std::size_t i = 0; i < n; ++i) t.data.push_back(load_element(dtype_, bytes_.data(), i));
    return t;
  }

 private:
  std::string name_;
  DType dtype_;
  std::vector<std::int64_t> shape_;
  std::vector<unsigned char> bytes_;
};

// Reads an ABI tensor (any producer) into a Tensor; throws std::invalid_argument if the
// descriptor is inconsistent (unknown dtype, negative dimension, buffer size mismatch).
inline Tensor tensor_from_abi(const qspec_tensor& a) {
  Tensor t;
  t.name = a.name ? a.name : "";
  if (!from_abi_dtype(a.dtype, t.dtype)) throw std::invalid_argument("tensor '" + t.name + "': unknown dtype code");
  if (a.rank < 0 || (a.rank > 0 && a.shape == nullptr)) throw std::invalid_argument("tensor '" + t.name + "': bad rank/shape");
  std::int64_t n = 1;
  for (std::int32_t i = 0; i < a.rank; ++i) {
    if (a.shape[i] < 0) throw std::invalid_argument("tensor '" + t.name + "': negative dimension");
    t.shape.push_back(a.shape[i]);
    n *= a.shape[i];
  }
  const std::size_t need = static_cast<std::size_t>(n) * static_cast<std::size_t>(dtype_size(t.dtype));
  if (a.size_bytes != need || (need > 0 && a.data == nullptr))
    throw std::invalid_argument("tensor '" + t.name + "': buffer of " + std::to_string(a.size_bytes) + " bytes, shape needs " +
                                std::to_string(need));
  t.data.reserve(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) t.data.push_back(load_element(t.dtype, a.data, i));
  return t;
}

}  // namespace qspec
