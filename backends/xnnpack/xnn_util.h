// XNNPACK helpers for the adapter: an owning operator handle and status -> qspec outcome mapping.
#pragma once

#include <xnnpack.h>

#include <string>

#include "qspec/thirdparty/adapter.h"

namespace qspec::xnnpack_adapter {

// Owns one xnn_operator_t (XNNPACK packs weights and parameters at create time, so every
// parameter set gets its own operator).
class Operator {
 public:
  Operator() = default;
  ~Operator() {
    if (op_ != nullptr) xnn_delete_operator(op_);
  }
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;
  xnn_operator_t* out() { return &op_; }
  xnn_operator_t get() const { return op_; }

 private:
  xnn_operator_t op_ = nullptr;
};

const char* status_name(xnn_status s);

// Throws for anything but success: xnn_status_invalid_parameter -> Rejected (the library refuses
// the parameters as invalid), xnn_status_unsupported_parameter / _hardware -> Unsupported (valid
// but not implemented, e.g. a requantization scale >= 256), other statuses -> runtime_error.
// `what` names the call and the parameters that matter.
void check(xnn_status s, const std::string& what);

// For operator creation: a parameter refusal (invalid / unsupported parameter) is the library
// rejecting the vector's parameters under its own convention and "cannot express" under a
// translated one (Call::refuse); unsupported hardware is Unsupported; anything else an error.
void check_create(const thirdparty::Call& call, xnn_status s, const std::string& what);

// Calls xnn_initialize once per process (it initialises cpuinfo itself); throws on failure.
void ensure_initialized();

}  // namespace qspec::xnnpack_adapter
