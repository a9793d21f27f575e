// One test inside the worker: inputs, guarded outputs, the call, the checks, the reply (worker_test_call.h).
#include "worker_test_call.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "qspec/core/abi_tensor.h"

namespace qspec::harness::worker {
namespace {

std::size_t align64(std::size_t n) { return (n + 63) / 64 * 64; }

std::size_t element_bytes(qspec_dtype d) {
  DType t;
  return from_abi_dtype(d, t) ? static_cast<std::size_t>(dtype_size(t)) : 1;
}

std::size_t numel(const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::size_t>(d < 0 ? 0 : d);
  return n;
}

std::string mib_text(std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

void append_error(std::string& errors, const std::string& e) { errors += (errors.empty() ? "" : "; ") + e; }

}  // namespace

bool TestCall::serve(std::string_view payload, std::string& reply) {
  if (!parse_run(payload, req_)) return false;
  place_inputs(payload);
  const std::size_t reply_capacity = reply.capacity();
  const std::string unmapped = place_outputs();
  if (!unmapped.empty()) {
    build_result_frame(reply, QSPEC_STATUS_ERROR, "", unmapped, heap_.total_growth(), {});
  } else {
    const Answer a = call_backend();
    const std::string harness_error = check_outputs(a);
    build_result_frame(reply, static_cast<std::uint32_t>(a.status), a.message, harness_error, heap_.total_growth(),
                       before_);
  }
  if (reply.capacity() != reply_capacity) heap_.harness_grew();  // after the call: counts for the next one
  return true;
}

// The payload's bytes are not aligned: each input is copied into the 64-byte aligned scratch.
void TestCall::place_inputs(std::string_view payload) {
  std::size_t total = 0;
  for (const auto& in : req_.inputs) total += align64(in.size);
  if (input_bytes_.size() < total + 64) {
    input_bytes_.resize(total + 64);
    heap_.harness_grew();
  }
  auto* at = reinterpret_cast<unsigned char*>(align64(reinterpret_cast<std::uintptr_t>(input_bytes_.data())));
  in_views_.clear();
  for (const auto& in : req_.inputs) {
    unsigned char* data = in.size ? at : nullptr;
    if (data) std::memcpy(data, payload.data() + in.at, in.size);
    in_views_.push_back(qspec_tensor{in.name.c_str(), in.dtype, static_cast<std::int32_t>(in.shape.size()),
                                     in.shape.data(), data, in.size});
    at += align64(in.size);
  }
}

// Each output ends at a guard page, with canaries below, pre-filled with 0xA5; the kGuardFault
// frame naming it is built now (the signal handler only sends it).
std::string TestCall::place_outputs() {
  const std::size_t n_out = req_.outputs.size();
  if (buffers_.size() < n_out) buffers_.resize(n_out);
  out_shapes_.resize(n_out);
  outs_.assign(n_out, qspec_tensor{});
  guards_.clear();
  guard_frames_.resize(n_out);
  std::string errors;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t i = 0; i < n_out; ++i) {
    const RunRequest::Tensor& o = req_.outputs[i];
    out_shapes_[i] = o.shape;
    const std::size_t bytes = numel(o.shape) * element_bytes(o.dtype);
    unsigned char* data = nullptr;
    if (bytes > 0) {
      const std::size_t mapped = buffers_[i].mapped();
      data = buffers_[i].place(bytes);
      if (buffers_[i].mapped() != mapped) heap_.harness_grew();
      if (!data) {
        append_error(errors, "cannot map output '" + o.name + "' (" + std::to_string(bytes) +
                                 " bytes) in the worker (--worker-memory-limit?)");
        continue;
      }
      guard_frames_[i] = frame(kGuardFault, "wrote past the end of output '" + o.name + "' (guard page)");
      const auto lo = reinterpret_cast<std::uintptr_t>(buffers_[i].guard());
      guards_.push_back({lo, lo + page, guard_frames_[i].data(), guard_frames_[i].size()});
    }
    outs_[i] = qspec_tensor{o.name.c_str(),        o.dtype, static_cast<std::int32_t>(out_shapes_[i].size()),
                            out_shapes_[i].data(), data,    bytes};
  }
  return errors;
}

TestCall::Answer TestCall::call_backend() {
  before_ = outs_;
  const qspec_backend& b = backend_.abi();
  Answer a;
  std::string thrown;
  message_[0] = '\0';
  message_.back() = '\0';
  arm_guards(guards_.data(), guards_.size());
  const std::uint64_t vm_before = heap_.vm_before_call();
  try {
    a.status = b.run(b.self, req_.op.c_str(), req_.convention.c_str(), req_.attributes.c_str(),
                     in_views_.empty() ? nullptr : in_views_.data(), in_views_.size(),
                     outs_.empty() ? nullptr : outs_.data(), outs_.size(), message_.data(), message_.size());
  } catch (const std::exception& e) {
    a.status = QSPEC_STATUS_ERROR;
    thrown = std::string("backend threw an exception: ") + e.what();
  } catch (...) {
    a.status = QSPEC_STATUS_ERROR;
    thrown = "backend threw a non-standard exception";
  }
  a.leaked = heap_.after_call(vm_before, leak_limit_);
  disarm_guards();
  message_.back() = '\0';
  a.message = thrown.empty() ? std::string(message_.data()) : thrown;
  if (a.status < QSPEC_STATUS_OK || a.status > QSPEC_STATUS_ERROR) {
    a.message =
        "backend returned unknown status " + std::to_string(a.status) + (a.message.empty() ? "" : ": " + a.message);
    a.status = QSPEC_STATUS_ERROR;
  }
  return a;
}

// What the backend must not have touched: the output descriptors (the harness's, read-only),
// the bytes below each buffer, and the heap beyond the leak limit.
std::string TestCall::check_outputs(const Answer& answer) const {
  std::string errors;
  for (std::size_t i = 0; i < outs_.size(); ++i) {
    const qspec_tensor& a = outs_[i];
    const qspec_tensor& o = before_[i];
    std::string fields;
    auto field = [&](bool changed, const char* name) {
      if (changed) fields += (fields.empty() ? "" : ", ") + std::string(name);
    };
    field(a.name != o.name, "name");
    field(a.dtype != o.dtype, "dtype");
    field(a.rank != o.rank, "rank");
    field(a.shape != o.shape || out_shapes_[i] != req_.outputs[i].shape, "shape");
    field(a.data != o.data, "data");
    field(a.size_bytes != o.size_bytes, "size_bytes");
    const std::string& name = req_.outputs[i].name;
    if (!fields.empty())
      append_error(errors, "backend changed the " + fields + " of output '" + name +
                               "' (qspec_tensor descriptors are the harness's, read-only)");
    if (o.data)
      if (const std::size_t changed = changed_canaries(static_cast<const unsigned char*>(o.data)))
        append_error(errors, "wrote before the start of output '" + name + "' (" + std::to_string(changed) +
                                 " of the " + std::to_string(kCanaryBytes) + " canary bytes below the buffer changed)");
  }
  if (answer.leaked)
    append_error(errors, "leaked " + std::to_string(answer.leaked) + " bytes in this call (the heap grew by " +
                             mib_text(answer.leaked) + " during run(); limit " + mib_text(leak_limit_) +
                             ", --leak-limit)");
  return errors;
}

}  // namespace qspec::harness::worker
