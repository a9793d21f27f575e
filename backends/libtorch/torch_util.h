// Conversions between ABI tensors and ATen (quantized) tensors, and libtorch error translation.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qspec/backend.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::libtorch_adapter {

// qint8 / quint8 / qint32 for int8 / uint8 / int32; Unsupported for any other dtype.
c10::ScalarType quantized_type(qspec_dtype d);
// The plain integer type holding a quantized type's values (int8 -> kChar, ...).
c10::ScalarType int_type(qspec_dtype d);

// A float32 CPU tensor with t's shape and values (bit-exact copy).
at::Tensor float_tensor(const qspec_tensor& t);
// An integer CPU tensor with t's shape and values (dtype int8 / uint8 / int32).
at::Tensor int_tensor(const qspec_tensor& t);
// A per-tensor affine quantized tensor whose stored integers are t's values.
at::Tensor quantized_tensor(const qspec_tensor& t, double scale, std::int64_t zero_point);

// Writes a quantized tensor's stored integers (int_repr) into out (shapes must agree in size).
void write_int_repr(qspec_tensor& out, const at::Tensor& q);
// Writes a float32 tensor into out, bit-exact.
void write_float(qspec_tensor& out, const at::Tensor& f);

// The integer list attribute `key` (default d) of exactly n entries; refused otherwise (the pooling
// adapters' kernel, strides, dilations and pads).
inline std::vector<std::int64_t> int_list(const thirdparty::Call& call, const attr::IntArray& key,
                                          std::vector<std::int64_t> d, std::size_t n) {
  auto v = attr::get_or(call.attrs, key, std::move(d));
  if (v.size() != n) call.refuse(std::string(key.name) + " needs " + std::to_string(n) + " entries");
  return v;
}

// Runs fn; a c10::Error (libtorch's TORCH_CHECK) becomes call.refuse(what + ": " + message), the
// library's refusal of the parameters (Rejected on the library's own convention, Unsupported on a
// translated one).
template <typename Fn>
auto guarded(const thirdparty::Call& call, const std::string& what, Fn&& fn) -> decltype(fn()) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const c10::Error& e) {
    call.refuse(what + ": " + e.what_without_backtrace());
  }
}

// Calls a quantized operator registered with libtorch's dispatcher by name (the quantized
// operators are not in ATen's C++ API; TorchScript calls them so); returns its first result. A
// libtorch error becomes call.refuse, as in guarded.
c10::IValue call_op(const thirdparty::Call& call, const char* name, const char* overload,
                    std::vector<c10::IValue> args);

}  // namespace qspec::libtorch_adapter
