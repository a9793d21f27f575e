// The C ABI glue of the optimized backends: capabilities, supports, run (with exception mapping).
#include "qspec/simd/backend_core.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "qspec/core/json_values.h"
#include "qspec/simd/cpu.h"

namespace qspec::simd {
namespace {

struct BackendState {
  std::string name;
  std::string version;
  std::string capabilities;
  KernelSet kernels;
  std::map<std::pair<std::string, std::string>, const OpEntry*> index;
};

void set_message(char* message, std::size_t size, const std::string& text) {
  if (message == nullptr || size == 0) return;
  std::snprintf(message, size, "%s", text.c_str());
}

const char* capabilities_json(void* self) { return static_cast<BackendState*>(self)->capabilities.c_str(); }

int supports(void* self, const char* op, const char* convention) {
  if (op == nullptr || convention == nullptr) return 0;
  const auto* st = static_cast<BackendState*>(self);
  return st->index.count({op, convention}) != 0 ? 1 : 0;
}

qspec_status run(void* self, const char* op, const char* convention, const char* attrs_json, const qspec_tensor* inputs,
                 std::size_t n_inputs, qspec_tensor* outputs, std::size_t n_outputs, char* message,
                 std::size_t message_size) {
  set_message(message, message_size, "");
  auto* st = static_cast<BackendState*>(self);
  auto it = st->index.find({op ? op : "", convention ? convention : ""});
  if (it == st->index.end()) {
    set_message(message, message_size,
                std::string("not implemented: ") + (op ? op : "?") + " / " + (convention ? convention : "?"));
    return QSPEC_STATUS_UNSUPPORTED;
  }
  try {
    const auto attrs = nlohmann::ordered_json::parse(attrs_json && *attrs_json ? attrs_json : "{}");
    OpCall call{st->kernels, attrs, inputs, n_inputs, outputs, n_outputs};
    it->second->fn(call);
    return QSPEC_STATUS_OK;
  } catch (const Rejected& e) {
    set_message(message, message_size, e.what());
    return QSPEC_STATUS_REJECTED;
  } catch (const Unsupported& e) {
    set_message(message, message_size, e.what());
    return QSPEC_STATUS_UNSUPPORTED;
  } catch (const std::exception& e) {
    set_message(message, message_size, e.what());
    return QSPEC_STATUS_ERROR;
  }
}

void destroy(void* self) { delete static_cast<BackendState*>(self); }

}  // namespace

const qspec_tensor& OpCall::input(std::string_view name, std::size_t position) const {
  for (std::size_t i = 0; i < n_inputs; ++i)
    if (inputs[i].name && name == inputs[i].name) return inputs[i];
  if (position < n_inputs) return inputs[position];
  throw std::invalid_argument("missing input tensor '" + std::string(name) + "'");
}

qspec_tensor& OpCall::output(std::string_view name, std::size_t position) const {
  for (std::size_t i = 0; i < n_outputs; ++i)
    if (outputs[i].name && name == outputs[i].name) return outputs[i];
  if (position < n_outputs) return outputs[position];
  throw std::invalid_argument("missing output tensor '" + std::string(name) + "'");
}

const std::vector<OpEntry>& op_table() {
  static const std::vector<OpEntry> table = [] {
    std::vector<OpEntry> t;
    add_requant_ops(t);
    add_float_ops(t);
    add_mrt_ops(t);
    add_nn_ops(t);
    add_qnn_ops(t);
    add_param_ops(t);
    add_glow_ops(t);
    add_expansion_ops(t);
    add_glow_nn_ops(t);
    add_qlinear_conv_ops(t);
    add_qlinear_linear_ops(t);
    add_qlinear_pool_ops(t);
    add_qlinear_lut_ops(t);
    add_qlinear_elementwise_ops(t);
    add_qlinear_concat_ops(t);
    add_qlinear_armnn_ops(t);
    add_qlinear_onednn_pool_ops(t);
    add_qlinear_pytorch_pool_ops(t);
    add_qlinear_pytorch_maxpool_ops(t);
    add_qlinear_pytorch_global_pool_ops(t);
    add_qlinear_leaky_relu_tflite_ops(t);
    add_qlinear_leaky_relu_armnn_ops(t);
    return t;
  }();
  return table;
}

int create_backend(std::uint32_t host_abi_version, qspec_backend* out, const char* name, const KernelSet& kernels) {
  if (host_abi_version != QSPEC_BACKEND_ABI_VERSION || out == nullptr) return 1;
  auto st = std::make_unique<BackendState>();
  st->name = name;
  st->kernels = kernels;
  st->version = std::string("0.1.0 (") + kernels.isa + ", gemm " + kernels.gemm->name() + ")";
  nlohmann::ordered_json caps = nlohmann::ordered_json::array();
  for (const auto& e : op_table()) {
    st->index[{e.op, e.convention}] = &e;
    caps.push_back({{"op", e.op}, {"convention", e.convention}, {"note", e.note}});
  }
  st->capabilities = caps.dump();
  *out = qspec_backend{};
  out->abi_version = QSPEC_BACKEND_ABI_VERSION;
  out->self = st.get();
  out->name = st->name.c_str();
  out->version = st->version.c_str();
  out->capabilities_json = capabilities_json;
  out->supports = supports;
  out->run = run;
  out->destroy = destroy;
  st.release();
  return 0;
}

// ---- tensor helpers ----

std::int64_t numel(const qspec_tensor& t) {
  std::int64_t n = 1;
  for (std::int32_t i = 0; i < t.rank; ++i) n *= t.shape[i];
  return n;
}

static const char* abi_dtype_name(qspec_dtype d) {
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

void expect_dtype(const qspec_tensor& t, qspec_dtype d, const char* what) {
  if (t.dtype != d)
    throw std::invalid_argument(std::string(what) + " must be " + abi_dtype_name(d) + ", got " +
                                abi_dtype_name(t.dtype));
}

void expect_same_shape(const qspec_tensor& a, const qspec_tensor& b, const char* what) {
  bool same = a.rank == b.rank;
  for (std::int32_t i = 0; same && i < a.rank; ++i) same = a.shape[i] == b.shape[i];
  if (!same) throw std::invalid_argument(std::string(what) + ": shapes differ");
}

OutType out_type_of(const qspec_tensor& t) {
  switch (t.dtype) {
    case QSPEC_DTYPE_INT8: return OutType::I8;
    case QSPEC_DTYPE_UINT8: return OutType::U8;
    case QSPEC_DTYPE_INT16: return OutType::I16;
    case QSPEC_DTYPE_UINT16: return OutType::U16;
    case QSPEC_DTYPE_INT32: return OutType::I32;
    default:
      throw Unsupported(std::string("output dtype ") + abi_dtype_name(t.dtype) + " is not an 8/16/32-bit integer");
  }
}

qspec_dtype dtype_attr(const nlohmann::ordered_json& attrs, const char* key) {
  const std::string s = attr_str(attrs, key);
  for (int d = QSPEC_DTYPE_INT8; d <= QSPEC_DTYPE_FLOAT64; ++d)
    if (s == abi_dtype_name(static_cast<qspec_dtype>(d))) return static_cast<qspec_dtype>(d);
  throw std::invalid_argument(std::string("attribute '") + key + "': unknown dtype \"" + s + "\"");
}

KernelSet scalar_kernel_set() {
  KernelSet k;
  k.isa = "scalar";
  k.requant = requant_scalar;
  k.gemm = &scalar_gemm_engine();
  k.depthwise = depthwise_scalar;
  k.quantize = quantize_scalar;
  k.dequantize = dequantize_scalar;
  k.add = add_scalar;
  k.avg_pool = pool_scalar;
  k.mul = mul_scalar;
  return k;
}

}  // namespace qspec::simd
