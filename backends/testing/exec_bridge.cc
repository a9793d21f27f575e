// A test client of the exec protocol: serves a plugin (.so) over stdin/stdout, with optional protocol faults.
//
//   qspec_testing_exec_bridge PLUGIN.so [--fault NAME] [--slow-start SECONDS] [--marker FILE]
//
// It implements docs/exec-protocol.md from the document (a third client beside the Python and
// Node.js examples): the hello exchange, then each run request decoded into qspec_tensor views,
// the plugin's run() called, the result encoded. Bridging the faulty plugins (faulty_backend.c)
// gives faulty exec backends for free: a plugin's SIGSEGV, exit(3), hang or forked grandchild
// happens in this process, which is the exec backend qspec started. The protocol faults below
// strike, like the plugins' faults, on the valid tests whose first input element is odd (unless
// they concern the handshake):
//   garbage        writes a line of text to stdout before the reply
//   oversized      announces a frame of 8 GiB, then writes up to 1 GiB of zeros
//   wrong_shape    answers OK with the first output one element short
//   bad_status     answers the status "MAYBE"
//   wrong_id       answers with the id of another request
//   bad_json       answers a frame whose JSON header is not JSON
//   misnamed       answers OK with the first output named "z"
//   no_outputs     answers OK with an empty "outputs" array
//   out_of_range   answers OK with the first output's offset past the frame's data
//   wrong_dtype    answers OK with the first output's "dtype" given as "float64"
//   bad_message    answers a "message" that is a number
//   wrong_type     answers a frame of "type": "hello" instead of "result"
//   truncated      writes the first half of its reply's frame, then exits 0 (EOF mid-frame)
//   refuse_restart exits 3 on the faulty tests, and once started before (--marker FILE exists)
//                  refuses the handshake: a program that cannot be started again
//   no_hello       prints a line to stderr and exits 2 before the hello
//   bad_hello      a hello without "name"
//   old_protocol   a hello of protocol version 99
//   refuse         answers the hello with {"type": "error", "message": "no board attached"}
//   hello_crash    prints a line to stderr and raises SIGSEGV before reading qspec's hello
//   hello_not_json answers the hello with a JSON header that is not JSON
//   no_claims      a hello without "claims"
//   bad_claim      a hello whose claim has no "convention"
//   unknown_claim  also claims requantize / made.up.convention (not in the catalogue)
//   env            the version names $QSPEC_TESTING_ENV and the working directory
// --slow-start S sleeps S seconds before reading qspec's hello.
#include <dlfcn.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "qspec/backend.h"

namespace {
using json = nlohmann::json;

std::string g_fault;
std::string g_marker;  // --marker: a file that exists once the bridge has started (refuse_restart)

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "exec bridge: %s\n", why.c_str());
  std::exit(2);
}

bool read_exact(char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::read(STDIN_FILENO, p, n);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

void write_exact(const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(STDOUT_FILENO, p, n);
    if (k <= 0) std::exit(0);  // qspec is gone
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

std::uint64_t le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

void put_le(std::string& s, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

// One frame: the JSON header and the data. False at EOF.
bool read_frame(json& header, std::string& data) {
  char h[16];
  if (!read_exact(h, sizeof h)) return false;
  if (std::memcmp(h, "QSPX", 4) != 0) die("qspec sent something that is not a frame");
  std::string text(le(h + 4, 4), '\0');
  data.assign(le(h + 8, 8), '\0');
  if (!read_exact(text.data(), text.size()) || !read_exact(data.data(), data.size())) return false;
  header = json::parse(text);
  return true;
}

void write_frame(const std::string& json_text, const std::string& data = {}) {
  std::string f = "QSPX";
  put_le(f, json_text.size(), 4);
  put_le(f, data.size(), 8);
  f += json_text;
  f += data;
  write_exact(f.data(), f.size());
}

qspec_dtype dtype_of(const std::string& name) {
  static const char* names[] = {"int8", "uint8", "int16", "uint16", "int32", "int64", "float32", "float64"};
  for (int i = 0; i < 8; ++i)
    if (name == names[i]) return static_cast<qspec_dtype>(i);
  die("unknown dtype " + name);
}

std::size_t width(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8:
    case QSPEC_DTYPE_UINT8: return 1;
    case QSPEC_DTYPE_INT16:
    case QSPEC_DTYPE_UINT16: return 2;
    case QSPEC_DTYPE_INT32:
    case QSPEC_DTYPE_FLOAT32: return 4;
    default: return 8;
  }
}

// The plugin, created as qspec would create it (qspec_backend_create2 with the options if it has it).
struct Plugin {
  qspec_backend b{};
  bool takes_options = false;
};

Plugin load(const char* path, bool all_conventions) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) die(std::string("cannot load ") + path + ": " + dlerror());
  Plugin p;
  if (auto c2 = reinterpret_cast<qspec_backend_create2_fn>(dlsym(h, "qspec_backend_create2"))) {
    const qspec_backend_options o{sizeof o, all_conventions ? QSPEC_BACKEND_OPTION_ALL_CONVENTIONS : 0u};
    if (c2(QSPEC_BACKEND_ABI_VERSION, &o, &p.b) != 0) die("qspec_backend_create2 failed");
    p.takes_options = true;
  } else if (auto c = reinterpret_cast<qspec_backend_create_fn>(dlsym(h, "qspec_backend_create"))) {
    if (c(QSPEC_BACKEND_ABI_VERSION, &p.b) != 0 && c(1, &p.b) != 0) die("qspec_backend_create failed");
  } else {
    die("the plugin exports no create function");
  }
  return p;
}

std::string hello(const Plugin& p, bool all_asked) {
  json claims = json::array();
  if (p.b.capabilities_json)
    for (const auto& c : json::parse(p.b.capabilities_json(p.b.self)))
      if (c.value("convention", "") != "*") claims.push_back({{"op", c["op"]}, {"convention", c["convention"]}});
  if (g_fault == "unknown_claim") claims.push_back({{"op", "requantize"}, {"convention", "made.up.convention"}});
  std::string version = p.b.version ? p.b.version : "";
  if (g_fault == "env") {
    const char* v = std::getenv("QSPEC_TESTING_ENV");
    char cwd[4096] = "?";
    if (!::getcwd(cwd, sizeof cwd)) std::strcpy(cwd, "?");
    version = std::string("env=") + (v ? v : "(unset)") + " cwd=" + cwd;
  }
  json h = {{"type", "hello"},
            {"protocol", g_fault == "old_protocol" ? 99 : 1},
            {"version", version},
            {"claims", claims},
            {"all_conventions", all_asked && p.takes_options}};
  if (g_fault != "bad_hello") h["name"] = std::string("bridge.") + p.b.name;
  if (g_fault == "no_claims") h.erase("claims");
  if (g_fault == "bad_claim") h["claims"] = json::array({{{"op", "requantize"}}});
  if (g_fault == "refuse") h = {{"type", "error"}, {"message", "no board attached"}};
  if (g_fault == "refuse_restart" && !g_marker.empty()) {
    if (FILE* m = std::fopen(g_marker.c_str(), "r")) {
      std::fclose(m);
      h = {{"type", "error"}, {"message", "the board is still rebooting"}};
    } else if (FILE* created = std::fopen(g_marker.c_str(), "w")) {
      std::fclose(created);
    }
  }
  if (g_fault == "hello_not_json") return "[hello";
  return h.dump();
}

// The valid tests whose first input's first int32 element is odd (faulty_backend.c's rule).
bool faulty(const std::vector<qspec_tensor>& in, std::size_t n_out) {
  if (n_out == 0 || in.empty() || in[0].dtype != QSPEC_DTYPE_INT32 || in[0].size_bytes < 4) return false;
  std::int32_t v;
  std::memcpy(&v, in[0].data, 4);
  return v % 2 != 0;
}

void serve(const Plugin& p, const json& req, const std::string& data) {
  std::vector<std::vector<std::int64_t>> shapes;
  std::vector<std::string> names;
  shapes.reserve(req["inputs"].size() + req["outputs"].size());
  names.reserve(shapes.capacity());
  std::vector<qspec_tensor> in, out;
  std::vector<std::string> out_bytes;
  out_bytes.reserve(req["outputs"].size());
  for (const auto& d : req["inputs"]) {
    names.push_back(d["name"]);
    shapes.push_back(d["shape"]);
    const std::size_t off = d["offset"], size = d["size"];
    in.push_back({names.back().c_str(), dtype_of(d["dtype"]), static_cast<std::int32_t>(shapes.back().size()),
                  shapes.back().data(), const_cast<char*>(data.data() + off), size});
  }
  for (const auto& d : req["outputs"]) {
    names.push_back(d["name"]);
    shapes.push_back(d["shape"]);
    const qspec_dtype dt = dtype_of(d["dtype"]);
    std::size_t n = 1;
    for (auto s : shapes.back()) n *= static_cast<std::size_t>(s);
    out_bytes.emplace_back(n * width(dt), static_cast<char>(0xA5));
    out.push_back({names.back().c_str(), dt, static_cast<std::int32_t>(shapes.back().size()), shapes.back().data(),
                   out_bytes.back().data(), out_bytes.back().size()});
  }
  const bool fault = faulty(in, out.size());
  if (fault && g_fault == "garbage") {
    const char text[] = "bridge debug: odd first element\n";
    write_exact(text, sizeof text - 1);
  }
  if (fault && g_fault == "oversized") {
    std::string h = "QSPX";
    put_le(h, 0xffffffffu, 4);
    put_le(h, std::uint64_t{8} << 30, 8);
    write_exact(h.data(), h.size());
    const std::string zeros(1 << 20, '\0');
    for (int i = 0; i < 1024; ++i) write_exact(zeros.data(), zeros.size());
  }
  if (fault && g_fault == "refuse_restart") std::exit(3);
  char message[4096] = "";
  const qspec_status st =
      p.b.run(p.b.self, req["op"].get<std::string>().c_str(), req["convention"].get<std::string>().c_str(),
              req["attributes"].dump().c_str(), in.empty() ? nullptr : in.data(), in.size(),
              out.empty() ? nullptr : out.data(), out.size(), message, sizeof message);
  static const char* status_names[] = {"OK", "REJECTED", "UNSUPPORTED", "ERROR"};
  json reply = {{"type", "result"}, {"id", req["id"]}, {"status", status_names[st]}, {"message", message}};
  std::string bytes;
  json outs = json::array();
  if (st == QSPEC_STATUS_OK)
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::size_t size = out_bytes[i].size();
      if (fault && g_fault == "wrong_shape" && i == 0) size -= width(out[i].dtype);
      outs.push_back({{"name", out[i].name}, {"offset", bytes.size()}, {"size", size}});
      bytes.append(out_bytes[i], 0, size);
    }
  if (fault && !outs.empty()) {
    if (g_fault == "misnamed") outs[0]["name"] = "z";
    if (g_fault == "no_outputs") outs = json::array();
    if (g_fault == "out_of_range") outs[0]["offset"] = bytes.size() + 64;
    if (g_fault == "wrong_dtype") outs[0]["dtype"] = "float64";
  }
  reply["outputs"] = outs;
  if (fault && g_fault == "bad_status") reply["status"] = "MAYBE";
  if (fault && g_fault == "wrong_id") reply["id"] = req["id"].get<std::uint64_t>() + 1000;
  if (fault && g_fault == "bad_message") reply["message"] = 5;
  if (fault && g_fault == "wrong_type") reply["type"] = "hello";
  if (fault && g_fault == "truncated") {  // half a frame, then the program is gone
    std::string f = "QSPX";
    put_le(f, reply.dump().size(), 4);
    put_le(f, bytes.size(), 8);
    f += reply.dump();
    write_exact(f.data(), f.size() / 2);
    std::exit(0);
  }
  write_frame(fault && g_fault == "bad_json" ? std::string("{not json") : reply.dump(), bytes);
}

}  // namespace

int main(int argc, char** argv) {
  // A program under test dies of its own signal. In the sanitizer build AddressSanitizer installs
  // handlers that turn a SIGSEGV into a report and SIGABRT, so the default dispositions come back:
  // qspec must see, and the tests expect, the signal an uninstrumented program would die of.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
  if (argc < 2) die("usage: qspec_testing_exec_bridge PLUGIN.so [--fault NAME] [--slow-start SECONDS] [--marker FILE]");
  double slow_start = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--fault") == 0)
      g_fault = argv[i + 1];
    else if (std::strcmp(argv[i], "--slow-start") == 0)
      slow_start = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--marker") == 0)
      g_marker = argv[i + 1];
    else
      die(std::string("unknown argument ") + argv[i]);
  }
  if (g_fault == "no_hello") die("refusing to start (fault no_hello)");
  if (g_fault == "hello_crash") {
    std::fprintf(stderr, "exec bridge: crashing before the hello (fault hello_crash)\n");
    std::fflush(stderr);
    std::raise(SIGSEGV);
  }
  if (slow_start > 0) std::this_thread::sleep_for(std::chrono::duration<double>(slow_start));
  json req;
  std::string data;
  if (!read_frame(req, data)) return 0;
  if (req.value("type", "") != "hello") die("the first frame is not a hello");
  const bool all_asked = req["options"].value("all_conventions", false);
  const Plugin p = load(argv[1], all_asked);
  write_frame(hello(p, all_asked));
  while (read_frame(req, data)) {
    if (req.value("type", "") != "run") die("unexpected request " + req.dump());
    serve(p, req, data);
  }
  return 0;  // EOF: qspec is done
}
