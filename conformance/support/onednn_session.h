// The oneDNN engine and stream the oneDNN cross-checks share (single-threaded), and the name of the
// ISA oneDNN dispatches to (ONEDNN_MAX_CPU_ISA and the CPU decide; the checks never assume it).
#pragma once

#include <dlfcn.h>

#include <oneapi/dnnl/dnnl.hpp>

namespace qspec::onednn_session {

// Single-threaded, as CI's two cores want: libgomp read OMP_NUM_THREADS when it was loaded, before
// main, so the runtime is asked directly.
inline void single_thread() {
  using SetThreads = void (*)(int);
  if (auto f = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(1);
}

inline dnnl::engine& engine() {
  static dnnl::engine e = (single_thread(), dnnl::engine(dnnl::engine::kind::cpu, 0));
  return e;
}

inline dnnl::stream& stream() {
  static dnnl::stream s(engine());
  return s;
}

inline const char* isa_name() {
  using i = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case i::sse41: return "sse41";
    case i::avx: return "avx";
    case i::avx2: return "avx2";
    case i::avx2_vnni: return "avx2_vnni";
    case i::avx512_core: return "avx512_core";
    case i::avx512_core_vnni: return "avx512_core_vnni";
    case i::avx512_core_bf16: return "avx512_core_bf16";
    case i::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

}  // namespace qspec::onednn_session
