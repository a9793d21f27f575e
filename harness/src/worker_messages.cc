// Encoding and decoding of the plugin worker's messages (layouts in worker_messages.h).
#include "worker_messages.h"

#include <cstring>

#include "qspec/core/abi_tensor.h"

namespace qspec::harness::worker {
namespace {

void put_descriptor(std::string& s, const Tensor& t) {
  put_str(s, t.name);
  put_u32(s, static_cast<std::uint32_t>(to_abi_dtype(t.dtype)));
  put_u32(s, static_cast<std::uint32_t>(t.shape.size()));
  for (std::int64_t d : t.shape) put_u64(s, static_cast<std::uint64_t>(d));
}

bool read_descriptor(Reader& r, RunRequest::Tensor& t) {
  t.name = r.str();
  t.dtype = static_cast<qspec_dtype>(r.u32());
  const std::uint32_t rank = r.u32();
  if (r.bad || rank > 64) return false;
  t.shape.resize(rank);
  for (auto& d : t.shape) d = static_cast<std::int64_t>(r.u64());
  return !r.bad;
}

}  // namespace

std::string reply_text(std::string text) {
  constexpr const char* kCut = "... (cut)";
  if (text.size() > kMaxReplyText) text = text.substr(0, kMaxReplyText - std::strlen(kCut)) + kCut;
  return text;
}

std::uint64_t max_result_payload(const VectorTest& t) {
  std::uint64_t n = 4096 + 2 * kMaxReplyText;  // status, heap growth, the texts and their lengths
  for (const Tensor& e : t.expected)
    n += 8 + static_cast<std::uint64_t>(e.numel()) * static_cast<std::uint64_t>(dtype_size(e.dtype)) + e.name.size();
  return n;
}

std::string hello_frame(const BackendIdentity& id) {
  std::string p;
  put_str(p, id.name);
  put_str(p, id.version);
  put_str(p, id.source);
  return frame(kHello, p);
}

bool parse_hello(const std::string& payload, BackendIdentity& id) {
  Reader r{payload};
  id.name = r.str();
  id.version = r.str();
  id.source = r.str();
  return !r.bad;
}

std::string supports_frame(const std::string& op, const std::string& convention) {
  std::string p;
  put_str(p, op);
  put_str(p, convention);
  return frame(kSupports, p);
}

bool parse_supports(std::string_view payload, std::string& op, std::string& convention) {
  Reader r{payload};
  op = r.str();
  convention = r.str();
  return !r.bad;
}

std::string supports_reply_frame(bool supported) {
  std::string p;
  put_u32(p, supported ? 1 : 0);
  return frame(kSupportsReply, p);
}

bool parse_supports_reply(const std::string& payload, bool& supported) {
  if (payload.size() != 4) return false;
  supported = payload != std::string(4, '\0');
  return true;
}

void build_run_frame(std::string& s, const VectorFile& f, const VectorTest& t) {
  begin_frame(s, kRun);
  put_str(s, f.op);
  put_str(s, f.convention);
  put_str(s, attributes_text(t));
  put_u32(s, static_cast<std::uint32_t>(t.inputs.size()));
  for (const Tensor& in : t.inputs) {
    put_descriptor(s, in);
    const std::size_t bytes = static_cast<std::size_t>(in.numel()) * static_cast<std::size_t>(dtype_size(in.dtype));
    put_u64(s, bytes);
    const std::size_t at = s.size();
    s.resize(at + bytes);
    for (std::size_t i = 0; i < in.data.size(); ++i) store_element(in.dtype, s.data() + at, i, in.data[i]);
  }
  put_u32(s, static_cast<std::uint32_t>(t.expected.size()));
  for (const Tensor& e : t.expected) put_descriptor(s, e);
  end_frame(s);
}

bool parse_run(std::string_view payload, RunRequest& req) {
  Reader r{payload};
  req.op = r.str();
  req.convention = r.str();
  req.attributes = r.str();
  const std::uint32_t n_in = r.u32();
  if (r.bad || n_in > 4096) return false;
  req.inputs.resize(n_in);
  for (auto& in : req.inputs) {
    if (!read_descriptor(r, in)) return false;
    in.size = r.u64();
    in.at = r.pos;
    if (!r.skip(in.size)) return false;
  }
  const std::uint32_t n_out = r.u32();
  if (r.bad || n_out > 4096) return false;
  req.outputs.resize(n_out);
  for (auto& out : req.outputs)
    if (!read_descriptor(r, out)) return false;
  return true;
}

void build_result_frame(std::string& s, std::uint32_t status, const std::string& message,
                        const std::string& harness_error, std::uint64_t heap_growth,
                        const std::vector<qspec_tensor>& outputs) {
  begin_frame(s, kResult);
  put_u32(s, status);
  for (const std::string* text : {&message, &harness_error})
    put_str(s, text->size() > kMaxReplyText ? reply_text(*text) : *text);
  put_u64(s, heap_growth);
  if (harness_error.empty() && status == QSPEC_STATUS_OK)
    for (const qspec_tensor& o : outputs) {
      put_u64(s, o.size_bytes);
      if (o.size_bytes) s.append(static_cast<const char*>(o.data), o.size_bytes);
    }
  end_frame(s);
}

bool parse_result(const std::string& payload, const std::vector<Tensor>& expected, ResultReply& reply) {
  Reader r{payload};
  reply.status = r.u32();
  reply.message = r.str();
  reply.harness_error = r.str();
  reply.heap_growth = r.u64();
  reply.outputs.clear();
  if (r.bad) return false;
  if (!reply.harness_error.empty() || reply.status != QSPEC_STATUS_OK) return true;
  for (const Tensor& e : expected) {
    const std::string bytes = r.str();
    Tensor a{e.name, e.dtype, e.shape, {}};
    const std::size_t n = bytes.size() / static_cast<std::size_t>(dtype_size(e.dtype));
    a.data.reserve(n);
    for (std::size_t i = 0; i < n; ++i) a.data.push_back(load_element(e.dtype, bytes.data(), i));
    reply.outputs.push_back(std::move(a));
  }
  return !r.bad;
}

}  // namespace qspec::harness::worker
