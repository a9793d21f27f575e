// The AArch64 kernel table: NEON kernels, the SDOT engine when the CPU has the dot product.
#include "qspec/simd/neon_backend.h"
#include "qspec/simd/neon_kernels.h"

namespace qspec::simd::neon {

KernelSet kernel_set(const CpuFeatures& f) {
  KernelSet k = scalar_kernel_set();
  if (f.neon) {
    k.requant = requant;
    k.quantize = quantize;
    k.dequantize = dequantize;
    k.gemm = &gemm_engine_smull();
  }
  if (f.dotprod) k.gemm = &gemm_engine_sdot();
  k.isa = isa_name(f);
  return k;
}

}  // namespace qspec::simd::neon
