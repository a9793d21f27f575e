// Which x86 kernel family XNNPACK dispatches to on this machine (its results may depend on it).
#pragma once

#include <string>

namespace qspec::xnnpack_adapter {

// "avx512skx", "xop", "avx2", "avx", "sse41" or "sse2" on x86 (the level XNNPACK's init picks
// for its quantized kernels from the CPU's features), "aarch64" on AArch64.
std::string dispatched_isa();

}  // namespace qspec::xnnpack_adapter
