// XNNPACK helpers for the adapter (see xnn_util.h).
#include "xnn_util.h"

#include <stdexcept>

#include "qspec/thirdparty/adapter.h"

namespace qspec::xnnpack_adapter {

const char* status_name(xnn_status s) {
  switch (s) {
    case xnn_status_success: return "xnn_status_success";
    case xnn_status_uninitialized: return "xnn_status_uninitialized";
    case xnn_status_invalid_parameter: return "xnn_status_invalid_parameter";
    case xnn_status_invalid_state: return "xnn_status_invalid_state";
    case xnn_status_unsupported_parameter: return "xnn_status_unsupported_parameter";
    case xnn_status_unsupported_hardware: return "xnn_status_unsupported_hardware";
    case xnn_status_out_of_memory: return "xnn_status_out_of_memory";
  }
  return "unknown xnn_status";
}

void check(xnn_status s, const std::string& what) {
  if (s == xnn_status_success) return;
  const std::string msg = "XNNPACK " + what + " returned " + status_name(s);
  switch (s) {
    case xnn_status_invalid_parameter: throw thirdparty::Rejected(msg);
    case xnn_status_unsupported_parameter:
    case xnn_status_unsupported_hardware: throw thirdparty::Unsupported(msg);
    default: throw std::runtime_error(msg);
  }
}

void check_create(const thirdparty::Call& call, xnn_status s, const std::string& what) {
  if (s == xnn_status_invalid_parameter || s == xnn_status_unsupported_parameter)
    call.refuse("XNNPACK " + what + " returned " + status_name(s));
  check(s, what);
}

void ensure_initialized() {
  static const xnn_status status = xnn_initialize(nullptr);
  if (status != xnn_status_success)
    throw std::runtime_error(std::string("xnn_initialize failed: ") + status_name(status));
}

}  // namespace qspec::xnnpack_adapter
