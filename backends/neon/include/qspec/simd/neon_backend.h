// Entry points of the `neon` backend for tests (the harness finds it by name).
#pragma once

#include <cstdint>

#include "qspec/backend.h"
#include "qspec/simd/backend_core.h"
#include "qspec/simd/cpu.h"

namespace qspec::simd::neon {
// The kernels the backend uses on a CPU with features f (scalar where f lacks NEON).
KernelSet kernel_set(const CpuFeatures& f);
}  // namespace qspec::simd::neon

extern "C" int qspec_neon_backend_create(std::uint32_t host_abi_version, qspec_backend* out);
