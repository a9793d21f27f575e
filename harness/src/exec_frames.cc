// Encoding and checking the exec protocol's messages (exec_frames.h, docs/exec-protocol.md).
#include "exec_frames.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "qspec/core/abi_tensor.h"

namespace qspec::harness::worker {
namespace {

using OJ = nlohmann::ordered_json;

void put_le(std::string& s, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t get_le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

void read_exec_header(const char* header, std::uint32_t& kind, std::uint64_t& payload_size) {
  kind = static_cast<std::uint32_t>(get_le(header + 4, 4));
  const std::uint64_t data = get_le(header + 8, 8);
  // The sum cannot wrap: a data size this large is refused as too large anyway.
  payload_size = data > (std::uint64_t{1} << 62) ? data : kind + data;
}

std::string printable(std::string_view bytes) {
  std::string s;
  for (unsigned char ch : bytes) {
    if (ch == '\n')
      s += "\\n";
    else if (ch >= 0x20 && ch < 0x7f)
      s += static_cast<char>(ch);
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      s += buf;
    }
  }
  return s;
}

std::string exec_not_a_frame(std::string_view first) {
  return "the backend wrote bytes that are not a frame of the exec protocol to its stdout (they begin \"" +
         printable(first.substr(0, 40)) + "\"; a backend writes only frames there, diagnostics go to stderr)";
}

std::string exec_too_large(std::uint64_t announced, std::uint64_t max_payload) {
  return "the backend announced a frame of " + std::to_string(announced) +
         " bytes, more than the reply can hold (at most " + std::to_string(max_payload) +
         " bytes: a JSON header of at most 1 MiB and, for a test, its outputs' bytes); it was not read";
}

// Packs a tensor's elements little-endian at its dtype's width, appending to `s`.
void put_elements(std::string& s, const Tensor& t) {
  const std::size_t width = static_cast<std::size_t>(dtype_size(t.dtype));
  const std::size_t at = s.size();
  s.resize(at + t.data.size() * width);
  for (std::size_t i = 0; i < t.data.size(); ++i) store_element(t.dtype, s.data() + at, i, t.data[i]);
  if constexpr (std::endian::native == std::endian::big)
    for (std::size_t i = 0; i < t.data.size(); ++i)
      std::reverse(s.data() + at + i * width, s.data() + at + (i + 1) * width);
}

// The elements of a tensor of `e`'s dtype and shape from little-endian bytes.
Tensor take_elements(const Tensor& e, std::string_view bytes) {
  Tensor a{e.name, e.dtype, e.shape, {}};
  const std::size_t width = static_cast<std::size_t>(dtype_size(e.dtype));
  const std::size_t n = bytes.size() / width;
  a.data.resize(n);
  char element[8];
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(element, bytes.data() + i * width, width);
    if constexpr (std::endian::native == std::endian::big) std::reverse(element, element + width);
    a.data[i] = load_element(e.dtype, element, 0);
  }
  return a;
}

OJ descriptor(const Tensor& t) {
  OJ d = OJ::object();
  d["name"] = t.name;
  d["dtype"] = std::string(dtype_name(t.dtype));
  d["shape"] = t.shape;
  return d;
}

const nlohmann::json* field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

bool string_field(const nlohmann::json& j, const char* key, std::string& out) {
  const auto* v = field(j, key);
  if (!v || !v->is_string()) return false;
  out = v->get<std::string>();
  return true;
}

bool unsigned_field(const nlohmann::json& j, const char* key, std::uint64_t& out) {
  const auto* v = field(j, key);
  if (!v || !v->is_number_unsigned()) return false;
  out = v->get<std::uint64_t>();
  return true;
}

std::string cut(std::string text) {
  if (text.size() > kMaxExecMessage) text = text.substr(0, kMaxExecMessage - 9) + "... (cut)";
  return text;
}

}  // namespace

const FrameFormat kExecFrames{{'Q', 'S', 'P', 'X'}, read_exec_header, exec_not_a_frame, exec_too_large};

std::uint64_t max_exec_result(const VectorTest& t) {
  std::uint64_t n = kMaxExecJson + kExecDataSlack;
  for (const Tensor& e : t.expected)
    n += static_cast<std::uint64_t>(e.numel()) * static_cast<std::uint64_t>(dtype_size(e.dtype));
  return n;
}

// The header and the JSON of a frame whose `data_size` bytes of data the caller appends.
template <class Json>
void begin_exec_frame(std::string& s, const Json& header, std::uint64_t data_size) {
  const std::string json = header.dump();
  s += "QSPX";
  put_le(s, json.size(), 4);
  put_le(s, data_size, 8);
  s += json;
}

void put_exec_frame(std::string& s, const nlohmann::json& header, std::string_view data) {
  begin_exec_frame(s, header, data.size());
  s += data;
}

ExecFrame split_exec_frame(std::string_view payload, std::uint32_t json_size) {
  return {payload.substr(0, json_size), payload.substr(json_size)};
}

std::string exec_hello_frame(const BackendOptions& options) {
  std::string s;
  put_exec_frame(s, {{"type", "hello"},
                     {"protocol", kExecProtocolVersion},
                     {"options", {{"all_conventions", options.all_conventions}}}});
  return s;
}

bool parse_exec_hello(const ExecFrame& f, ExecHello& hello, std::string& error) {
  nlohmann::json j = nlohmann::json::parse(f.json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    error = "its hello is not a JSON object: \"" + printable(f.json.substr(0, 80)) + "\"";
    return false;
  }
  std::string type;
  string_field(j, "type", type);
  if (type == "error") {
    std::string message;
    string_field(j, "message", message);
    error = "it refused the handshake: " + cut(message);
    return false;
  }
  if (type != "hello") {
    error = "its first frame is not a hello (\"type\": \"" + cut(type) + "\")";
    return false;
  }
  const auto* protocol = field(j, "protocol");
  if (!protocol || !protocol->is_number_integer() || protocol->get<std::int64_t>() != kExecProtocolVersion) {
    error = "it speaks exec protocol version " + (protocol ? protocol->dump() : std::string("(none)")) +
            ", qspec speaks version " + std::to_string(kExecProtocolVersion);
    return false;
  }
  if (!string_field(j, "name", hello.name) || hello.name.empty()) {
    error = "its hello has no \"name\" (a non-empty string)";
    return false;
  }
  if (const auto* v = field(j, "version"); v && !string_field(j, "version", hello.version)) {
    error = "its hello's \"version\" is not a string";
    return false;
  }
  const auto* claims = field(j, "claims");
  if (!claims || !claims->is_array()) {
    error = "its hello has no \"claims\" array ([{\"op\": ..., \"convention\": ...}, ...])";
    return false;
  }
  hello.claims.clear();
  for (const auto& c : *claims) {
    Capability cap;
    if (!c.is_object() || !string_field(c, "op", cap.op) || !string_field(c, "convention", cap.convention)) {
      error = "its claim " + c.dump() + " needs a string \"op\" and a string \"convention\"";
      return false;
    }
    string_field(c, "note", cap.note);
    hello.claims.push_back(std::move(cap));
  }
  const auto* all = field(j, "all_conventions");
  if (all && !all->is_boolean()) {
    error = "its hello's \"all_conventions\" is not true or false";
    return false;
  }
  hello.all_conventions = all && all->get<bool>();
  return true;
}

void build_exec_run_frame(std::string& s, std::uint64_t id, const VectorFile& f, const VectorTest& t) {
  OJ header = OJ::object();
  header["type"] = "run";
  header["id"] = id;
  header["test"] = f.display_name + "#" + std::to_string(t.tc_id);
  header["op"] = f.op;
  header["convention"] = f.convention;
  header["attributes"] = t.attributes.is_object() ? t.attributes : OJ::object();
  OJ inputs = OJ::array();
  std::uint64_t offset = 0;
  for (const Tensor& in : t.inputs) {  // in the request's order, each at a multiple of kExecAlignment
    OJ d = descriptor(in);
    const std::uint64_t size =
        static_cast<std::uint64_t>(in.data.size()) * static_cast<std::uint64_t>(dtype_size(in.dtype));
    offset = (offset + kExecAlignment - 1) / kExecAlignment * kExecAlignment;
    d["offset"] = offset;
    d["size"] = size;
    offset += size;
    inputs.push_back(std::move(d));
  }
  header["inputs"] = std::move(inputs);
  OJ outputs = OJ::array();
  for (const Tensor& e : t.expected) outputs.push_back(descriptor(e));
  header["outputs"] = std::move(outputs);
  s.clear();
  begin_exec_frame(s, header, offset);
  const std::size_t data_start = s.size();
  for (const Tensor& in : t.inputs) {
    s.resize(data_start + (s.size() - data_start + kExecAlignment - 1) / kExecAlignment * kExecAlignment, '\0');
    put_elements(s, in);
  }
}

ExecResult parse_exec_result(const ExecFrame& f, std::uint64_t id, const std::vector<Tensor>& expected) {
  ExecResult r;
  nlohmann::json j = nlohmann::json::parse(f.json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    r.problem = "the backend's reply is not a JSON object: \"" + printable(f.json.substr(0, 80)) + "\"";
    return r;
  }
  std::string type;
  std::uint64_t reply_id = 0;
  string_field(j, "type", type);
  if (type != "result" || !unsigned_field(j, "id", reply_id) || reply_id != id) {
    r.kind = ExecResult::OutOfStep;
    r.problem = "the backend's reply is not the result of request " + std::to_string(id) +
                " (\"type\": " + (field(j, "type") ? cut(field(j, "type")->dump()) : "none") +
                ", \"id\": " + (field(j, "id") ? cut(field(j, "id")->dump()) : "none") + ")";
    return r;
  }
  std::string status, message;
  string_field(j, "status", status);
  if (const auto* m = field(j, "message"); m && !m->is_null() && !string_field(j, "message", message)) {
    r.problem = "the backend's \"message\" is not a string";
    return r;
  }
  r.result.message = cut(std::move(message));
  if (status == "REJECTED" || status == "UNSUPPORTED" || status == "ERROR") {
    r.kind = ExecResult::Answer;
    r.result.status = status == "REJECTED"      ? QSPEC_STATUS_REJECTED
                      : status == "UNSUPPORTED" ? QSPEC_STATUS_UNSUPPORTED
                                                : QSPEC_STATUS_ERROR;
    return r;
  }
  if (status != "OK") {
    r.problem = "the backend answered the unknown status " +
                (field(j, "status") ? cut(field(j, "status")->dump()) : "(none)") +
                " (OK, REJECTED, UNSUPPORTED or ERROR)";
    return r;
  }
  const auto* outs = field(j, "outputs");
  if (!outs || !outs->is_array()) {
    r.problem = "the backend answered OK without an \"outputs\" array";
    return r;
  }
  if (outs->size() != expected.size()) {
    r.problem = "the backend answered OK with " + std::to_string(outs->size()) + " outputs, the test has " +
                std::to_string(expected.size());
    return r;
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Tensor& e = expected[i];
    const nlohmann::json& o = (*outs)[i];
    const std::string where = "output " + std::to_string(i) + " ('" + e.name + "')";
    std::string name, dtype;
    std::uint64_t offset = 0, size = 0;
    if (!o.is_object() || !string_field(o, "name", name) || !unsigned_field(o, "offset", offset) ||
        !unsigned_field(o, "size", size)) {
      r.problem = "the backend's " + where + " needs \"name\", \"offset\" and \"size\"";
      return r;
    }
    if (name != e.name) {
      r.problem = "the backend's " + where + " is named '" + cut(name) + "' (outputs come in the request's order)";
      return r;
    }
    if (field(o, "dtype") && (!string_field(o, "dtype", dtype) || dtype != dtype_name(e.dtype))) {
      r.problem = "the backend's " + where + " has dtype " + cut(field(o, "dtype")->dump()) + ", the test's is " +
                  std::string(dtype_name(e.dtype));
      return r;
    }
    if (const auto* shape = field(o, "shape"); shape && *shape != nlohmann::json(e.shape)) {
      r.problem = "the backend's " + where + " has shape " + cut(shape->dump()) + ", the test's is " +
                  nlohmann::json(e.shape).dump();
      return r;
    }
    const std::uint64_t want = static_cast<std::uint64_t>(e.numel()) * static_cast<std::uint64_t>(dtype_size(e.dtype));
    if (size != want) {
      r.problem = "the backend's " + where + " has " + std::to_string(size) + " bytes, the test's " +
                  std::string(dtype_name(e.dtype)) + nlohmann::json(e.shape).dump() + " has " + std::to_string(want);
      return r;
    }
    if (offset > f.data.size() || f.data.size() - offset < size) {
      r.problem = "the backend's " + where + " lies outside the frame's data (offset " + std::to_string(offset) +
                  ", size " + std::to_string(size) + ", " + std::to_string(f.data.size()) + " bytes of data)";
      return r;
    }
    r.result.outputs.push_back(take_elements(e, f.data.substr(offset, size)));
  }
  r.kind = ExecResult::Answer;
  r.result.status = QSPEC_STATUS_OK;
  return r;
}

}  // namespace qspec::harness::worker
