// A C++ base for third-party adapters: one Adapter subclass per library, exposed through the C ABI.
//
// Each adapter (backends/gemmlowp, backends/xnnpack, backends/onednn) is built as a plugin .so
// exporting qspec_backend_create2, exactly as an out-of-tree user would build one. This header
// turns the C ABI into a C++ interface so the adapters only write what is library-specific:
//   - claims():   the (op, convention) pairs the library documents or is known to implement;
//   - run(call):  drive the real library entry point and write the outputs, or throw
//                 Unsupported / Rejected with the reason (never a silent pass).
// The glue (make_backend) catches every exception at the ABI boundary and turns it into a status
// and a message; it also implements the "all conventions" mode used for the conformance tables.
//
// The all-conventions mode (`qspec run --all-conventions`, given to the backend as the run option
// QSPEC_BACKEND_OPTION_ALL_CONVENTIONS of ABI version 2): normally an adapter claims only the
// (op, convention) pairs the library implements. For the conformance tables (docs/third-party.md)
// we also want to know how far a library is from every OTHER convention: in this mode supports()
// claims every convention of each op the library implements, and run() computes the library's
// one native behaviour after translating the requested convention's parameters into the
// library's own (requant_params.h says how, as a user porting a model would). The harness then
// reports, per failure, which convention the library's results actually match.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/backend.h"

namespace qspec::thirdparty {

// The library cannot express this op, convention or parameter set (QSPEC_STATUS_UNSUPPORTED).
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The library rejected the input as invalid (QSPEC_STATUS_REJECTED): the spec's ERROR_IF side.
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One (op, convention) pair the adapter implements natively, with a note for `qspec backends`.
struct Claim {
  std::string op;
  std::string convention;
  std::string note;
  // Claimed only in the all-conventions mode: the library can compute the op but not with this
  // convention's arithmetic (e.g. XNNPACK on TVM's dense, which requantizes TVM's way).
  bool all_conventions_only = false;
};

// The claim of (Op, convention) named through the catalogue's typed names (qspec/catalogue/keys.h):
// claim<cat::requantize>(cat::requantize::conv::xnnpack_fp32, note).
template <class Op>
Claim claim(std::string_view convention, std::string note, bool all_conventions_only = false) {
  return {std::string(Op::op), std::string(convention), std::move(note), all_conventions_only};
}

// One call of run(): the request as the harness sent it, plus the convention the adapter should
// actually apply (differs from `requested` only in the all-conventions mode).
struct Call {
  std::string op;
  std::string requested;         // convention named by the vector
  std::string native;            // convention the adapter implements and will compute
  bool all_conventions = false;  // the backend was created in the all-conventions mode (see above)
  nlohmann::ordered_json attrs;
  std::span<const qspec_tensor> inputs;
  std::span<qspec_tensor> outputs;

  // True in the all-conventions mode when the vector's convention is not the library's own:
  // the parameters were translated, so a refusal by the library is "cannot express"
  // (Unsupported), not a rejection of the vector's input.
  bool translated() const { return requested != native || foreign; }
  bool foreign = false;  // the claim is all_conventions_only: the library computes it its own way
  // Throws Rejected for the library's own convention, Unsupported for a translated one: how an
  // adapter reports that the library refused a parameter set.
  [[noreturn]] void refuse(const std::string& why) const;

  // Named tensor lookup; throws std::invalid_argument naming the missing tensor.
  const qspec_tensor& input(std::string_view name) const;
  // The named output, or the first one. An invalid test (the spec's ERROR_IF side) comes with no
  // output buffers: the library must still be driven so that it can refuse, so these then return
  // a sink (rank -1, no buffer, dtype `sink_dtype`, see Adapter::output_dtype_hint) that
  // tensor_io's writers ignore.
  qspec_tensor& output(std::string_view name) const;
  qspec_tensor& first_output() const;
  bool has_input(std::string_view name) const;
  bool has_outputs() const { return !outputs.empty(); }
  qspec_dtype sink_dtype = QSPEC_DTYPE_INT32;
  mutable qspec_tensor sink{"(no output: invalid test)", QSPEC_DTYPE_INT32, -1, nullptr, nullptr, 0};
};

class Adapter {
 public:
  virtual ~Adapter() = default;
  virtual std::string name() const = 0;
  virtual std::string version() const = 0;
  virtual std::vector<Claim> claims() const = 0;
  // Computes call.outputs with the library, or throws Unsupported / Rejected / anything else
  // (reported as QSPEC_STATUS_ERROR).
  virtual void run(const Call& call) = 0;
  // The dtype an op's first output would have, for the output sink of an invalid test (see
  // Call::output); false if unknown (the sink then takes the first input's dtype). By default the
  // catalogue's rule for the output (spec/catalogue/<op>.json): the value of its dtype_from
  // attribute when the call has it, the dtype of its same_dtype_as input, or its one listed dtype.
  virtual bool output_dtype_hint(const Call& call, qspec_dtype& out) const;
};

// Fills *out with a backend that owns `adapter`, in the all-conventions mode when `options` ask
// for it. Returns 0 on success, nonzero if the host's ABI version differs. Used by every
// adapter's qspec_backend_create2.
int make_backend(std::unique_ptr<Adapter> adapter, std::uint32_t host_abi_version, const qspec_backend_options* options,
                 qspec_backend* out);

}  // namespace qspec::thirdparty
