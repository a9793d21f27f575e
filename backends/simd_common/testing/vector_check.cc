// A minimal golden-vector runner for one built-in optimized backend, without the harness library:
// used to run the neon backend under qemu-aarch64 where building the whole qspec tool is slow.
// Usage: <binary> DIR_OR_FILE...  (exit 1 on any unexpected outcome). `qspec run` is the real tool.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "qspec/backend.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/core/json_values.h"

extern "C" int QSPEC_VECTOR_CHECK_CREATE(std::uint32_t host_abi_version, qspec_backend* out);

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

struct Counts {
  long pass = 0, fail = 0, unsupported = 0;
  long unclaimed = 0;  // tests of pairs the backend does not claim (supports() is false)
};

void check_file(const qspec_backend& b, const fs::path& path, Counts& total) {
  std::ifstream in(path);
  const Json doc = Json::parse(in);
  const std::string op = doc.at("op"), conv = doc.at("convention");
  Counts c;
  if (!b.supports(b.self, op.c_str(), conv.c_str())) {
    for (const auto& g : doc.at("testGroups")) c.unclaimed += static_cast<long>(g.at("tests").size());
  } else {
    for (const auto& g : doc.at("testGroups"))
      for (const auto& t : g.at("tests")) {
        Json attrs = g.contains("attributes") ? g.at("attributes") : Json::object();
        if (t.contains("attributes"))
          for (const auto& [k, v] : t.at("attributes").items()) attrs[k] = v;  // the test's override the group's
        std::vector<qspec::AbiTensor> ins, outs;
        for (const auto& [name, tj] : t.at("inputs").items()) ins.emplace_back(qspec::json_to_tensor(name, tj));
        std::vector<qspec::Tensor> want;
        if (t.contains("expected"))
          for (const auto& [name, tj] : t.at("expected").items()) {
            want.push_back(qspec::json_to_tensor(name, tj));
            outs.emplace_back(want.back(), /*fill_pattern=*/true);
          }
        std::vector<qspec_tensor> iv, ov;
        for (auto& a : ins) iv.push_back(a.view());
        for (auto& a : outs) ov.push_back(a.view());
        char msg[1024] = {};
        const std::string aj = attrs.dump();
        const qspec_status st = b.run(b.self, op.c_str(), conv.c_str(), aj.c_str(), iv.data(), iv.size(), ov.data(),
                                      ov.size(), msg, sizeof msg);
        bool ok;
        if (t.at("result") == "invalid") {
          ok = st == QSPEC_STATUS_REJECTED;
        } else {
          ok = st == QSPEC_STATUS_OK;
          for (std::size_t i = 0; ok && i < outs.size(); ++i) ok = outs[i].to_tensor().data == want[i].data;
        }
        if (st == QSPEC_STATUS_UNSUPPORTED) {
          ++c.unsupported;
        } else if (ok) {
          ++c.pass;
        } else {
          ++c.fail;
          if (c.fail <= 3)
            std::printf("  FAIL tcId %lld: status %d %s\n", static_cast<long long>(t.at("tcId").get<std::int64_t>()),
                        st, msg);
        }
      }
  }
  std::printf("%s: %ld pass, %ld fail, %ld unsupported, %ld unclaimed\n", path.string().c_str(), c.pass, c.fail,
              c.unsupported, c.unclaimed);
  total.unclaimed += c.unclaimed;
  total.pass += c.pass;
  total.fail += c.fail;
  total.unsupported += c.unsupported;
}

}  // namespace

int main(int argc, char** argv) {
  qspec_backend b{};
  if (QSPEC_VECTOR_CHECK_CREATE(QSPEC_BACKEND_ABI_VERSION, &b) != 0) return 2;
  std::printf("backend %s %s\n", b.name, b.version);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::recursive_directory_iterator(argv[i]))
        if (e.path().extension() == ".json" && e.path().parent_path().filename() != "schema") files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  Counts total;
  for (const auto& f : files) {
    try {
      check_file(b, f, total);
    } catch (const std::exception& e) {
      std::printf("%s: unreadable (%s)\n", f.string().c_str(), e.what());
      ++total.fail;
    }
  }
  std::printf("total: %ld pass, %ld fail, %ld unsupported, %ld unclaimed\n", total.pass, total.fail, total.unsupported,
              total.unclaimed);
  b.destroy(b.self);
  return total.fail == 0 ? 0 : 1;
}
