// What each frame between qspec and a plugin worker carries (the layouts; framing in worker_frames.h).
//
//   kHello          str name, str version, str source
//   kHelloError     the loader's message (raw bytes)
//   kSupports       str op, str convention
//   kSupportsReply  u32 0|1
//   kRun            str op, str convention, str attributes (JSON), u32 n_inputs,
//                   n_inputs x {descriptor, u64 size, packed bytes}, u32 n_outputs, n_outputs x descriptor
//                   (descriptor: str name, u32 qspec_dtype, u32 rank, rank x u64 dim)
//   kResult         u32 status, str message, str harness_error, u64 heap growth since load,
//                   and when status is OK and harness_error empty: one str of bytes per output
//   kGuardFault     the reason (raw bytes)
// Encoders and decoders of both sides live together here so that they cannot drift apart.
//
// qspec never buffers more of a reply than it can legitimately hold: a worker's message and
// harness error are cut to kMaxReplyText, so a kResult is at most max_result_payload(test) and
// any other reply is small. A bigger frame header means the stream is not the worker's (a
// backend wrote into the socket): the call fails without reading it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/backend.h"
#include "qspec/harness/vector_file.h"
#include "worker_frames.h"

namespace qspec::harness::worker {

constexpr std::size_t kMaxReplyText = 8192;             // bytes of a reply's message or harness error
constexpr std::uint64_t kMaxHelloPayload = 1 << 20;     // name, version, source; or the loader's message
constexpr std::uint64_t kMaxSupportsPayload = 1 << 16;  // the u32 answer

// `text` cut to kMaxReplyText bytes (marked as cut).
std::string reply_text(std::string text);

struct BackendIdentity {
  std::string name, version, source;
};

std::string hello_frame(const BackendIdentity& id);
bool parse_hello(const std::string& payload, BackendIdentity& id);

std::string supports_frame(const std::string& op, const std::string& convention);
bool parse_supports(std::string_view payload, std::string& op, std::string& convention);
std::string supports_reply_frame(bool supported);
bool parse_supports_reply(const std::string& payload, bool& supported);

// The kRun frame for one test, built into `s` (reused from test to test).
void build_run_frame(std::string& s, const VectorFile& f, const VectorTest& t);

// A kRun payload as the worker reads it. Tensor bytes are not copied: `at` is their offset in
// the payload. The vectors are reused from request to request.
struct RunRequest {
  struct Tensor {
    std::string name;
    qspec_dtype dtype = QSPEC_DTYPE_INT32;
    std::vector<std::int64_t> shape;
    std::size_t at = 0, size = 0;  // inputs only: the packed bytes in the payload
  };
  std::string op, convention, attributes;
  std::vector<Tensor> inputs, outputs;
};
// False if the payload is malformed (qspec never sends one: the worker gives up).
bool parse_run(std::string_view payload, RunRequest& r);

// The kResult frame, built into `s`: `outputs` (data and size_bytes) are sent only when
// status is OK and harness_error is empty.
void build_result_frame(std::string& s, std::uint32_t status, const std::string& message,
                        const std::string& harness_error, std::uint64_t heap_growth,
                        const std::vector<qspec_tensor>& outputs);

// The largest kResult or kGuardFault payload a worker sends for test `t`: its outputs' bytes, two
// texts of at most kMaxReplyText, and small fixed fields.
std::uint64_t max_result_payload(const VectorTest& t);

struct ResultReply {
  std::uint32_t status = 0;
  std::string message, harness_error;
  std::uint64_t heap_growth = 0;
  std::vector<Tensor> outputs;  // decoded with the expected outputs' names, dtypes and shapes
};
// False if the payload is malformed.
bool parse_result(const std::string& payload, const std::vector<Tensor>& expected, ResultReply& r);

}  // namespace qspec::harness::worker
