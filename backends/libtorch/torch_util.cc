// ABI tensor <-> ATen tensor conversions and the quantized-engine selection of the libtorch adapter.
#include "torch_util.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/_make_per_tensor_quantized_tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/int_repr.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "ops.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::libtorch_adapter {

using thirdparty::Unsupported;

c10::ScalarType quantized_type(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: return c10::kQInt8;
    case QSPEC_DTYPE_UINT8: return c10::kQUInt8;
    case QSPEC_DTYPE_INT32: return c10::kQInt32;
    default:
      throw Unsupported(std::string("libtorch has quantized types qint8, quint8 and qint32 only, not ") +
                        thirdparty::dtype_name(d));
  }
}

c10::ScalarType int_type(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: return c10::kChar;
    case QSPEC_DTYPE_UINT8: return c10::kByte;
    case QSPEC_DTYPE_INT32: return c10::kInt;
    default:
      throw Unsupported(std::string("libtorch has quantized types qint8, quint8 and qint32 only, not ") +
                        thirdparty::dtype_name(d));
  }
}

namespace {
std::vector<std::int64_t> sizes_of(const qspec_tensor& t) { return thirdparty::shape_of(t); }
}  // namespace

at::Tensor float_tensor(const qspec_tensor& t) {
  const std::vector<float> v = thirdparty::read_f32(t);
  at::Tensor out = at::empty(sizes_of(t), at::TensorOptions().dtype(c10::kFloat));
  if (!v.empty()) std::memcpy(out.data_ptr<float>(), v.data(), v.size() * sizeof(float));
  return out;
}

at::Tensor int_tensor(const qspec_tensor& t) {
  const std::vector<std::int64_t> v = thirdparty::read_ints(t);
  at::Tensor out = at::empty(sizes_of(t), at::TensorOptions().dtype(int_type(t.dtype)));
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (t.dtype) {
      case QSPEC_DTYPE_INT8: out.data_ptr<std::int8_t>()[i] = static_cast<std::int8_t>(v[i]); break;
      case QSPEC_DTYPE_UINT8: out.data_ptr<std::uint8_t>()[i] = static_cast<std::uint8_t>(v[i]); break;
      default: out.data_ptr<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]); break;
    }
  }
  return out;
}

at::Tensor quantized_tensor(const qspec_tensor& t, double scale, std::int64_t zero_point) {
  return at::_make_per_tensor_quantized_tensor(int_tensor(t), scale, zero_point);
}

void write_int_repr(qspec_tensor& out, const at::Tensor& q) {
  const at::Tensor r = at::int_repr(q).contiguous();
  std::vector<std::int64_t> v(static_cast<std::size_t>(r.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (r.scalar_type()) {
      case c10::kChar: v[i] = r.data_ptr<std::int8_t>()[i]; break;
      case c10::kByte: v[i] = r.data_ptr<std::uint8_t>()[i]; break;
      case c10::kInt: v[i] = r.data_ptr<std::int32_t>()[i]; break;
      default: throw std::runtime_error("unexpected int_repr type");
    }
  }
  thirdparty::write_ints(out, v);
}

void write_float(qspec_tensor& out, const at::Tensor& f) {
  const at::Tensor c = f.contiguous();
  if (c.scalar_type() != c10::kFloat) throw std::runtime_error("libtorch returned a non-float32 tensor");
  const float* p = c.data_ptr<float>();
  thirdparty::write_f32(out, std::vector<float>(p, p + c.numel()));
}

namespace {
// The lower-case engine name a user writes in QSPEC_LIBTORCH_QENGINE ("NoQEngine" is "none").
std::string engine_name(c10::QEngine e) {
  if (e == c10::QEngine::NoQEngine) return "none";
  std::string n = c10::toString(e);
  for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return n;
}
}  // namespace

std::string select_engine() {
  auto& ctx = at::globalContext();
  std::string available;
  for (c10::QEngine e : ctx.supportedQEngines()) available += (available.empty() ? "" : ", ") + engine_name(e);
  if (const char* want = std::getenv("QSPEC_LIBTORCH_QENGINE"); want && *want) {
    bool found = false;
    for (c10::QEngine e : ctx.supportedQEngines()) {
      if (engine_name(e) == want) {
        ctx.setQEngine(e);
        found = true;
      }
    }
    if (!found)
      throw std::runtime_error(std::string("QSPEC_LIBTORCH_QENGINE=") + want + ": this libtorch has " + available);
  }
  return "qengine " + engine_name(ctx.qEngine()) + "; available: " + available;
}

c10::IValue call_op(const thirdparty::Call& call, const char* name, const char* overload,
                    std::vector<c10::IValue> args) {
  return guarded(call, name, [&] {
    const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
    torch::jit::Stack stack(std::move(args));
    op.callBoxed(&stack);
    return stack.at(0);
  });
}

void set_single_thread() { at::set_num_threads(1); }

}  // namespace qspec::libtorch_adapter
