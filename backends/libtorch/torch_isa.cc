// The instruction sets libtorch dispatches to, for the adapter's version string ("isa: ...").
#include "torch_isa.h"

#include <ATen/Version.h>
#include <dlfcn.h>

#include <cctype>
#include <cstdio>

namespace qspec::libtorch_adapter {
namespace {

// ATen's CPU capability as its build summary reports it ("CPU capability usage: AVX2"), as a
// token: "no_avx", "avx2" or "avx512". libtorch 1.13 picks AVX2 on an AVX-512 machine unless
// ATEN_CPU_CAPABILITY=avx512 asks for more; ATEN_CPU_CAPABILITY=default gives "NO AVX".
std::string aten_capability() {
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  const auto at = config.find(key);
  if (at == std::string::npos) return "unknown";
  std::string cap;
  for (std::size_t i = at + key.size(); i < config.size() && config[i] != '\n'; ++i) {
    const auto c = static_cast<unsigned char>(config[i]);
    cap += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '_';
  }
  return cap.empty() ? "unknown" : cap;
}

// The ISA of the oneDNN that libtorch's onednn quantized engine uses (Debian's libtorch links the
// system libdnnl.so.2; ONEDNN_MAX_CPU_ISA lowers it), asked through its C API without a build
// dependency on oneDNN's headers.
std::string dnnl_isa() {
  void* h = dlopen("libdnnl.so.2", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return "none";
  using Fn = int (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(h, "dnnl_get_effective_cpu_isa"));
  const int isa = fn ? fn() : -1;
  dlclose(h);
  switch (isa) {  // dnnl_cpu_isa_t of oneDNN 2.x (dnnl_types.h)
    case 0x1: return "sse41";
    case 0x3: return "avx";
    case 0x7: return "avx2";
    case 0x407: return "avx2_vnni";
    case 0x27: return "avx512_core";
    case 0x67: return "avx512_core_vnni";
    case 0xe7: return "avx512_core_bf16";
    case 0x3e7: return "avx512_core_amx";
    default: {
      char b[32];
      std::snprintf(b, sizeof b, "0x%x", static_cast<unsigned>(isa));
      return b;
    }
  }
}

}  // namespace

std::string dispatched_isa(bool onednn_engine) {
  return "aten_" + aten_capability() + (onednn_engine ? "-dnnl_" + dnnl_isa() : std::string());
}

}  // namespace qspec::libtorch_adapter
