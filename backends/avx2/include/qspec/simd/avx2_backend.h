// Entry points of the `avx2` backend for tests and benchmarks (the harness finds it by name).
#pragma once

#include <cstdint>

#include "qspec/backend.h"
#include "qspec/simd/backend_core.h"
#include "qspec/simd/cpu.h"

namespace qspec::simd::avx2 {
// The kernels the backend uses on a CPU with features f (scalar where f lacks AVX2).
KernelSet kernel_set(const CpuFeatures& f);
}  // namespace qspec::simd::avx2

// Creates the backend (the same function the built-in registry holds).
extern "C" int qspec_avx2_backend_create(std::uint32_t host_abi_version, qspec_backend* out);
