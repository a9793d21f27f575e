// The AArch64 kernels of the neon backend; the dot-product engine is used only after a HWCAP check.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qspec/simd/gemm.h"
#include "qspec/simd/quantize.h"
#include "qspec/simd/requant.h"

namespace qspec::simd::neon {

// requant.h kinds, 4 lanes per step.
void requant(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y);
// quantize.h kernels, 4 lanes per step.
void quantize(const QuantizeParams& p, std::size_t n, const float* x, void* y);
void dequantize(std::size_t n, const std::int32_t* x, std::int32_t zp, float s, float* y);

// u8 x s8 engines: SMULL + SADALP (every AArch64), SDOT (FEAT_DotProd, HWCAP_ASIMDDP).
const GemmEngine& gemm_engine_smull();
const GemmEngine& gemm_engine_sdot();

}  // namespace qspec::simd::neon
