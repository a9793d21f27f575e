// The C ABI glue shared by every third-party adapter: exceptions -> statuses, claims -> supports().
#include "qspec/thirdparty/adapter.h"

#include <cstddef>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "qspec/core/abi_tensor.h"
#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::thirdparty {
namespace {

const qspec_tensor* find_named(std::span<const qspec_tensor> ts, std::string_view name) {
  for (const auto& t : ts)
    if (t.name != nullptr && name == t.name) return &t;
  return nullptr;
}

// Backend state behind the C function table.
struct State {
  std::unique_ptr<Adapter> adapter;
  std::string name, version, capabilities;
  std::vector<Claim> claims;
  std::set<std::string> claimed_ops;
  bool all_conventions = false;

  const Claim* native_claim(const std::string& op, const std::string& convention) const {
    for (const auto& c : claims)
      if (c.op == op && c.convention == convention && (all_conventions || !c.all_conventions_only)) return &c;
    return nullptr;
  }
  // The convention the adapter computes for (op, convention), or "" if unsupported.
  std::string native_for(const std::string& op, const std::string& convention) const {
    if (native_claim(op, convention)) return convention;
    if (!all_conventions) return "";
    for (const auto& c : claims)
      if (c.op == op) return c.convention;  // the library's one behaviour for this op
    return "";
  }
};

void put_message(char* message, std::size_t size, const std::string& text) {
  if (message == nullptr || size == 0) return;
  const std::size_t n = std::min(text.size(), size - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

const char* capabilities_json(void* self) { return static_cast<State*>(self)->capabilities.c_str(); }

int supports(void* self, const char* op, const char* convention) {
  if (op == nullptr || convention == nullptr) return 0;
  return static_cast<State*>(self)->native_for(op, convention).empty() ? 0 : 1;
}

qspec_status run(void* self, const char* op, const char* convention, const char* attrs_json,
                 const qspec_tensor* inputs, std::size_t n_inputs, qspec_tensor* outputs, std::size_t n_outputs,
                 char* message, std::size_t message_size) {
  auto* s = static_cast<State*>(self);
  put_message(message, message_size, "");
  try {
    Call call;
    call.op = op ? op : "";
    call.requested = convention ? convention : "";
    call.native = s->native_for(call.op, call.requested);
    call.all_conventions = s->all_conventions;
    if (const Claim* c = s->native_claim(call.op, call.native)) call.foreign = c->all_conventions_only;
    if (call.native.empty()) {
      put_message(message, message_size, s->name + " does not implement op '" + call.op + "' with convention '" +
                                             call.requested + "'");
      return QSPEC_STATUS_UNSUPPORTED;
    }
    call.attrs = nlohmann::ordered_json::parse(attrs_json && attrs_json[0] ? attrs_json : "{}");
    call.inputs = std::span<const qspec_tensor>(inputs, n_inputs);
    call.outputs = std::span<qspec_tensor>(outputs, n_outputs);
    if (n_outputs == 0 && !s->adapter->output_dtype_hint(call, call.sink_dtype) && n_inputs > 0)
      call.sink_dtype = inputs[0].dtype;
    s->adapter->run(call);
    return QSPEC_STATUS_OK;
  } catch (const Unsupported& e) {
    put_message(message, message_size, e.what());
    return QSPEC_STATUS_UNSUPPORTED;
  } catch (const Rejected& e) {
    put_message(message, message_size, e.what());
    return QSPEC_STATUS_REJECTED;
  } catch (const std::exception& e) {
    put_message(message, message_size, std::string(s->name) + " adapter error: " + e.what());
    return QSPEC_STATUS_ERROR;
  } catch (...) {
    put_message(message, message_size, s->name + " adapter error: unknown exception");
    return QSPEC_STATUS_ERROR;
  }
}

void destroy(void* self) { delete static_cast<State*>(self); }

}  // namespace

const qspec_tensor& Call::input(std::string_view name) const {
  if (const auto* t = find_named(inputs, name)) return *t;
  throw std::invalid_argument("missing input tensor '" + std::string(name) + "'");
}

qspec_tensor& Call::output(std::string_view name) const {
  if (outputs.empty()) return first_output();
  for (auto& t : outputs)
    if (t.name != nullptr && name == t.name) return t;
  throw std::invalid_argument("missing output tensor '" + std::string(name) + "'");
}

qspec_tensor& Call::first_output() const {
  if (!outputs.empty()) return outputs[0];
  sink.dtype = sink_dtype;
  return sink;
}

void Call::refuse(const std::string& why) const {
  if (translated()) throw Unsupported(why + " (parameters translated from convention '" + requested + "')");
  throw Rejected(why);
}

bool Call::has_input(std::string_view name) const { return find_named(inputs, name) != nullptr; }

bool Adapter::output_dtype_hint(const Call& call, qspec_dtype& out) const {
  const catalogue::OpSpec* op = catalogue::get().op(call.op);
  if (op == nullptr || op->outputs.empty()) return false;
  const catalogue::TensorSpec& y = op->outputs.front();
  if (!y.dtype_from_attribute.empty() && call.attrs.is_object()) {
    const auto it = call.attrs.find(y.dtype_from_attribute);
    if (it != call.attrs.end() && it->is_string())
      if (const auto t = qspec::dtype_from_name(it->get<std::string>())) {
        out = to_abi_dtype(*t);
        return true;
      }
  }
  if (!y.dtype_same_as.empty() && call.has_input(y.dtype_same_as)) {
    out = call.input(y.dtype_same_as).dtype;
    return true;
  }
  if (y.dtypes.size() != 1) return false;
  out = to_abi_dtype(y.dtypes.front());
  return true;
}

int make_backend(std::unique_ptr<Adapter> adapter, std::uint32_t host_abi_version,
                 const qspec_backend_options* options, qspec_backend* out) {
  if (host_abi_version != QSPEC_BACKEND_ABI_VERSION || out == nullptr || adapter == nullptr) return 1;
  auto s = std::make_unique<State>();
  s->name = adapter->name();
  s->version = adapter->version();
  s->claims = adapter->claims();
  // The flags word is read only if the harness's options struct has it.
  s->all_conventions = options != nullptr &&
                       options->struct_size >= offsetof(qspec_backend_options, flags) + sizeof options->flags &&
                       (options->flags & QSPEC_BACKEND_OPTION_ALL_CONVENTIONS) != 0;
  auto caps = nlohmann::ordered_json::array();
  for (const auto& c : s->claims) {
    if (c.all_conventions_only && !s->all_conventions) continue;
    s->claimed_ops.insert(c.op);
    caps.push_back({{"op", c.op}, {"convention", c.convention}, {"note", c.note}});
  }
  if (s->all_conventions)
    for (const auto& op : s->claimed_ops)
      caps.push_back({{"op", op},
                      {"convention", "*"},
                      {"note", std::string("all-conventions mode (--all-conventions): every convention of this op "
                                           "is computed with the library's native one, parameters translated as "
                                           "a user porting a model would")}});
  s->capabilities = caps.dump();
  s->adapter = std::move(adapter);
  *out = qspec_backend{};
  out->abi_version = QSPEC_BACKEND_ABI_VERSION;
  out->name = s->name.c_str();
  out->version = s->version.c_str();
  out->capabilities_json = &capabilities_json;
  out->supports = &supports;
  out->run = &run;
  out->destroy = &destroy;
  out->self = s.release();
  return 0;
}

}  // namespace qspec::thirdparty
