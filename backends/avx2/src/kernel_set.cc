// The x86 kernel table: the best kernels the given CPU features allow, scalar where they lack AVX2.
#include "qspec/simd/avx2_backend.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {

KernelSet kernel_set(const CpuFeatures& f) {
  KernelSet k = scalar_kernel_set();
  if (f.avx2) {
    k.requant = requant;
    k.gemm = &gemm_engine_madd();
    k.depthwise = depthwise;
    k.quantize = quantize;
    k.dequantize = dequantize;
  }
  if (f.avx512vnni) {
    k.gemm = &gemm_engine_vnni();
    k.depthwise = depthwise_vnni;
  }
  k.isa = isa_name(f);
  return k;
}

}  // namespace qspec::simd::avx2
