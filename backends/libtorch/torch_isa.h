// Which instruction sets libtorch dispatches to on this machine (its results may depend on them).
#pragma once

#include <string>

namespace qspec::libtorch_adapter {

// "aten_<ATen CPU capability>" (aten_no_avx, aten_avx2, aten_avx512), followed by
// "-dnnl_<oneDNN ISA>" when the quantized engine is onednn (whose kernels oneDNN dispatches).
std::string dispatched_isa(bool onednn_engine);

}  // namespace qspec::libtorch_adapter
