// Test-side client of an adapter plugin: dlopen + qspec_backend_create2, then typed calls of run().
//
// Tests drive each adapter exactly as the harness or an out-of-tree user does (through the C ABI
// of a loaded .so), with small hand-made tensors, and compare against hand-derived values.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "qspec/backend.h"

namespace qspec::thirdparty::testing {

// A tensor the test owns: values as int64 (floats as their bit patterns), packed on demand.
struct HostTensor {
  std::string name;
  qspec_dtype dtype = QSPEC_DTYPE_INT32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> data;
};

inline std::size_t element_size(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: case QSPEC_DTYPE_UINT8: return 1;
    case QSPEC_DTYPE_INT16: case QSPEC_DTYPE_UINT16: return 2;
    case QSPEC_DTYPE_INT32: case QSPEC_DTYPE_FLOAT32: return 4;
    default: return 8;
  }
}

inline std::uint32_t f32_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// "0x3e800000" for attrs (the vector format's float32 encoding).
inline std::string f32_hex(float f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", f32_bits(f));
  return buf;
}

struct Result {
  qspec_status status = QSPEC_STATUS_ERROR;
  std::string message;
  std::vector<std::int64_t> y;  // first output's values (integers)
};

// Asks the adapter for its all-conventions mode (the run option of `qspec run --all-conventions`).
inline constexpr bool kAllConventions = true;

class PluginClient {
 public:
  explicit PluginClient(const char* path, bool all_conventions = false) {
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    auto create = reinterpret_cast<qspec_backend_create2_fn>(dlsym(handle_, "qspec_backend_create2"));
    if (!create) throw std::runtime_error("plugin does not export qspec_backend_create2");
    const qspec_backend_options options{sizeof(qspec_backend_options),
                                        all_conventions ? QSPEC_BACKEND_OPTION_ALL_CONVENTIONS : 0u};
    if (create(QSPEC_BACKEND_ABI_VERSION, &options, &b_) != 0) throw std::runtime_error("qspec_backend_create2 failed");
  }
  ~PluginClient() {
    if (b_.destroy) b_.destroy(b_.self);
    // The library stays loaded: XNNPACK/oneDNN keep process-wide state (never dlclose them).
  }
  PluginClient(const PluginClient&) = delete;
  PluginClient& operator=(const PluginClient&) = delete;

  const qspec_backend& backend() const { return b_; }
  bool supports(const char* op, const char* conv) const { return b_.supports(b_.self, op, conv) != 0; }
  std::string capabilities() const { return b_.capabilities_json ? b_.capabilities_json(b_.self) : ""; }

  // Runs op with the given inputs; the single output has out_dtype and out_shape.
  Result run(const std::string& op, const std::string& conv, const std::string& attrs,
             const std::vector<HostTensor>& inputs, qspec_dtype out_dtype, std::vector<std::int64_t> out_shape,
             const char* out_name = "y") const {
    std::vector<std::vector<unsigned char>> in_bufs;
    std::vector<qspec_tensor> in;
    in_bufs.reserve(inputs.size());
    for (const auto& t : inputs) {
      const std::size_t es = element_size(t.dtype);
      in_bufs.emplace_back(t.data.size() * es);
      for (std::size_t i = 0; i < t.data.size(); ++i) std::memcpy(in_bufs.back().data() + i * es, &t.data[i], es);
      in.push_back(qspec_tensor{t.name.c_str(), t.dtype, static_cast<std::int32_t>(t.shape.size()), t.shape.data(),
                                in_bufs.back().data(), in_bufs.back().size()});
    }
    std::int64_t n = 1;
    for (auto d : out_shape) n *= d;
    const std::size_t es = element_size(out_dtype);
    std::vector<unsigned char> out_buf(static_cast<std::size_t>(n) * es, 0xA5);
    qspec_tensor out{out_name, out_dtype, static_cast<std::int32_t>(out_shape.size()), out_shape.data(),
                     out_buf.data(), out_buf.size()};
    char message[4096] = "";
    Result r;
    r.status = b_.run(b_.self, op.c_str(), conv.c_str(), attrs.c_str(), in.data(), in.size(), &out, 1, message,
                      sizeof message);
    r.message = message;
    if (r.status == QSPEC_STATUS_OK) {
      for (std::int64_t i = 0; i < n; ++i) {
        const unsigned char* p = out_buf.data() + i * es;
        switch (out_dtype) {
          case QSPEC_DTYPE_INT8: r.y.push_back(static_cast<std::int8_t>(*p)); break;
          case QSPEC_DTYPE_UINT8: r.y.push_back(*p); break;
          case QSPEC_DTYPE_INT16: { std::int16_t v; std::memcpy(&v, p, 2); r.y.push_back(v); break; }
          case QSPEC_DTYPE_UINT16: { std::uint16_t v; std::memcpy(&v, p, 2); r.y.push_back(v); break; }
          case QSPEC_DTYPE_INT32: { std::int32_t v; std::memcpy(&v, p, 4); r.y.push_back(v); break; }
          case QSPEC_DTYPE_FLOAT32: { std::uint32_t v; std::memcpy(&v, p, 4); r.y.push_back(v); break; }  // bits
          default: { std::int64_t v; std::memcpy(&v, p, 8); r.y.push_back(v); break; }
        }
      }
    }
    return r;
  }

 private:
  void* handle_ = nullptr;
  qspec_backend b_{};
};

// The tensor helpers tests use most.
inline HostTensor i32(const char* name, std::vector<std::int64_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return HostTensor{name, QSPEC_DTYPE_INT32, {n}, std::move(v)};
}
inline HostTensor f32(const char* name, const std::vector<float>& v) {
  HostTensor t{name, QSPEC_DTYPE_FLOAT32, {static_cast<std::int64_t>(v.size())}, {}};
  for (float f : v) t.data.push_back(f32_bits(f));
  return t;
}

}  // namespace qspec::thirdparty::testing
