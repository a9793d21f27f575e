// The built-in `reference` backend: every registered exact reference op behind the backend C ABI.
//
// It serves two purposes: `qspec run --backend reference` (the vectors must pass on it, a
// self-check of the pipeline), and diagnostics, where the harness runs the other conventions of
// a failing op through it. It claims every (op, convention) of the refops registry, normative
// and diagnostic-only; capabilities_json carries each one's clauses and description.
//
// Mapping of reference outcomes to ABI statuses:
//   outputs                 -> QSPEC_STATUS_OK
//   qspec::ref::ErrorIf     -> QSPEC_STATUS_REJECTED (the spec's ERROR_IF)
//   RequireViolated         -> QSPEC_STATUS_ERROR   (undefined input: vectors never go there)
//   std::invalid_argument   -> QSPEC_STATUS_ERROR   (attributes this convention cannot read)
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "qspec/backend.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/builtin_backends.h"
#include "qspec/ref/exact.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

struct ReferenceBackendState {
  std::string capabilities;
};

void set_message(char* message, std::size_t size, const std::string& text) {
  if (message == nullptr || size == 0) return;
  std::snprintf(message, size, "%s", text.c_str());
}

const char* capabilities_json(void* self) {
  auto* st = static_cast<ReferenceBackendState*>(self);
  if (st->capabilities.empty()) {
    nlohmann::ordered_json caps = nlohmann::ordered_json::array();
    for (const OpImpl* op : all_ops())
      caps.push_back({{"op", op->op},
                      {"convention", op->convention},
                      {"clauses", op->clauses},
                      {"description", op->description},
                      {"diagnostic_only", op->diagnostic_only}});
    st->capabilities = caps.dump();
  }
  return st->capabilities.c_str();
}

int supports(void*, const char* op, const char* convention) {
  return op && convention && find_op(op, convention) != nullptr ? 1 : 0;
}

// Copies the reference's outputs into the harness's buffers, matching by name (by position
// when the harness's tensors are unnamed). Returns an error text, empty on success.
std::string copy_outputs(const std::vector<Tensor>& results, qspec_tensor* outputs, std::size_t n_outputs) {
  if (results.size() != n_outputs)
    return "the reference produced " + std::to_string(results.size()) + " outputs, the harness expects " + std::to_string(n_outputs);
  for (std::size_t i = 0; i < n_outputs; ++i) {
    qspec_tensor& out = outputs[i];
    const Tensor* src = &results[i];
    if (out.name && out.name[0] != '\0') {
      src = nullptr;
      for (const auto& r : results)
        if (r.name == out.name) src = &r;
      if (!src) return std::string("the reference produced no output named '") + out.name + "'";
    }
    DType dt;
    if (!from_abi_dtype(out.dtype, dt) || dt != src->dtype)
      return "output '" + src->name + "': the reference computes " + std::string(dtype_name(src->dtype)) + ", another dtype was requested";
    if (static_cast<std::size_t>(out.rank) != src->shape.size() ||
        (out.rank > 0 && std::memcmp(out.shape, src->shape.data(), src->shape.size() * sizeof(std::int64_t)) != 0))
      return "output '" + src->name + "': shape differs from the requested one";
    if (out.size_bytes != src->data.size() * static_cast<std::size_t>(dtype_size(dt)) || (out.size_bytes > 0 && !out.data))
      return "output '" + src->name + "': buffer size does not match";
    for (std::size_t k = 0; k < src->data.size(); ++k) store_element(dt, out.data, k, src->data[k]);
  }
  return "";
}

qspec_status run(void*, const char* op_name, const char* convention, const char* attrs_json, const qspec_tensor* inputs,
                 std::size_t n_inputs, qspec_tensor* outputs, std::size_t n_outputs, char* message, std::size_t message_size) {
  const OpImpl* op = find_op(op_name ? op_name : "", convention ? convention : "");
  if (!op) {
    set_message(message, message_size, "no reference op for this (op, convention)");
    return QSPEC_STATUS_UNSUPPORTED;
  }
  try {
    const Attrs attrs = Attrs::parse(attrs_json ? attrs_json : "{}");
    std::vector<Tensor> in;
    for (std::size_t i = 0; i < n_inputs; ++i) in.push_back(tensor_from_abi(inputs[i]));
    const std::vector<Tensor> results = op->fn(attrs, in);
    const std::string err = copy_outputs(results, outputs, n_outputs);
    if (!err.empty()) {
      set_message(message, message_size, err);
      return QSPEC_STATUS_ERROR;
    }
    return QSPEC_STATUS_OK;
  } catch (const ref::ErrorIf& e) {
    set_message(message, message_size, e.what());
    return QSPEC_STATUS_REJECTED;
  } catch (const ref::RequireViolated& e) {
    set_message(message, message_size, std::string("undefined input (") + e.what() + ")");
    return QSPEC_STATUS_ERROR;
  } catch (const std::exception& e) {
    set_message(message, message_size, std::string("cannot evaluate: ") + e.what());
    return QSPEC_STATUS_ERROR;
  }
}

void destroy(void* self) { delete static_cast<ReferenceBackendState*>(self); }

int create_reference_backend(std::uint32_t host_abi_version, qspec_backend* out) {
  if (host_abi_version != QSPEC_BACKEND_ABI_VERSION || out == nullptr) return 1;
  *out = qspec_backend{};
  out->abi_version = QSPEC_BACKEND_ABI_VERSION;
  out->name = "reference";
  out->version = "exact (cpp_int/cpp_rational), every registered reference op";
  out->self = new ReferenceBackendState;
  out->capabilities_json = capabilities_json;
  out->supports = supports;
  out->run = run;
  out->destroy = destroy;
  return 0;
}

}  // namespace

QSPEC_REGISTER_BUILTIN_BACKEND("reference", create_reference_backend);

}  // namespace qspec::refops
