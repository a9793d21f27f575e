// oneDNN helpers for the adapter (see dnnl_util.h).
#include "dnnl_util.h"

#include "qspec/thirdparty/adapter.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::onednn_adapter {

dnnl::engine& cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream& cpu_stream() {
  static dnnl::stream s(cpu_engine());
  return s;
}

dnnl::memory::data_type to_dnnl(qspec_dtype d) {
  using dt = dnnl::memory::data_type;
  switch (d) {
    case QSPEC_DTYPE_INT8: return dt::s8;
    case QSPEC_DTYPE_UINT8: return dt::u8;
    case QSPEC_DTYPE_INT32: return dt::s32;
    case QSPEC_DTYPE_FLOAT32: return dt::f32;
    default:
      throw thirdparty::Unsupported(std::string("oneDNN 2.6 has no data type for ") + thirdparty::dtype_name(d) +
                                    " (integer types: s8, u8, s32)");
  }
}

void create_or_explain(const std::function<void()>& create, const std::string& what) {
  try {
    create();
  } catch (const dnnl::error& e) {
    const std::string msg = "oneDNN " + what + ": " + e.what() + " (status " + std::to_string(static_cast<int>(e.status)) + ")";
    if (e.status == dnnl_unimplemented) throw thirdparty::Unsupported(msg);
    if (e.status == dnnl_invalid_arguments) throw thirdparty::Rejected(msg);
    throw;
  }
}

namespace {
const char* isa_name(dnnl::cpu_isa isa) {
  using i = dnnl::cpu_isa;
  switch (isa) {
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
}  // namespace

std::string version_string() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
         " (cpu isa: " + isa_name(dnnl::get_effective_cpu_isa()) +
         (v->cpu_runtime == DNNL_RUNTIME_OMP ? ", runtime OMP)" : ", runtime other)");
}

}  // namespace qspec::onednn_adapter
