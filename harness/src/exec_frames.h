// The exec protocol's messages (docs/exec-protocol.md): frames, the handshake, one test's request
// and its reply, encoded and checked here so that the document and the code have one place to agree.
//
// A frame is a 16-byte header (the bytes "QSPX", the JSON header's size as u32 little-endian,
// the data's size as u64 little-endian), a JSON object (UTF-8), and the data: the tensors'
// elements, little-endian at their dtype's width (float32/float64 as IEEE bit patterns), each
// tensor at the offset its JSON entry gives.
//
// What qspec accepts from a backend is bounded per message, JSON and data together (a result:
// kMaxExecJson + kExecDataSlack + the test's output bytes; a hello: kMaxExecHello): a frame
// announcing more is not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/harness/backend_loader.h"
#include "qspec/harness/vector_file.h"
#include "worker_wait.h"

namespace qspec::harness::worker {

constexpr int kExecProtocolVersion = 1;
extern const FrameFormat kExecFrames;  // Waited::kind is the JSON header's size

constexpr std::uint64_t kMaxExecJson = 1 << 20;    // bytes allowed for a reply's JSON header
constexpr std::uint64_t kExecDataSlack = 1 << 16;  // data beyond the outputs' bytes (padding, alignment)
constexpr std::size_t kMaxExecMessage = 8192;      // bytes of a reply's message kept
constexpr std::uint64_t kExecAlignment = 64;       // a request's tensors start at multiples of it in its data

// The largest hello reply, and the largest result for test `t`.
constexpr std::uint64_t kMaxExecHello = kMaxExecJson;
std::uint64_t max_exec_result(const VectorTest& t);

// Appends a frame: header, `header` serialized, `data`.
void put_exec_frame(std::string& s, const nlohmann::json& header, std::string_view data = {});
// A received frame's two parts (kind: the JSON size from the header).
struct ExecFrame {
  std::string_view json, data;
};
ExecFrame split_exec_frame(std::string_view payload, std::uint32_t json_size);

// qspec's hello: the protocol version and the run options.
std::string exec_hello_frame(const BackendOptions& options);

// The backend's hello, checked: a name, a version, claims (each an op and a convention), and
// whether it took the all-conventions request. On a problem, `error` says what (for the user).
struct ExecHello {
  std::string name, version;
  std::vector<Capability> claims;
  bool all_conventions = false;
};
bool parse_exec_hello(const ExecFrame& f, ExecHello& hello, std::string& error);

// The request for one test, built into `s` (reused from test to test).
void build_exec_run_frame(std::string& s, std::uint64_t id, const VectorFile& f, const VectorTest& t);

// A result frame read against the test it answers.
struct ExecResult {
  enum Kind {
    Answer,     // the backend's status, message and (OK) outputs
    Malformed,  // well framed but not a valid result for this test: ERROR, `problem` says why
    OutOfStep,  // not a reply to this request (another type or id): the stream cannot be trusted
  } kind = Malformed;
  BackendResult result;
  std::string problem;
};
ExecResult parse_exec_result(const ExecFrame& f, std::uint64_t id, const std::vector<Tensor>& expected);

}  // namespace qspec::harness::worker
