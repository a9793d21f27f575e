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
    k.mul = qlinear_mul;  // no FMA: the multiplication conventions fuse nothing
  }
  if (f.avx2 && f.fma) {  // every AVX2 CPU so far has FMA; checked all the same
    k.add = qlinear_add;
    k.avg_pool = qlinear_pool;
  }
  if (f.avx2 && f.avxvnni) {  // the ymm VNNI kernels, VEX-encoded; AVX512-VNNI, where present, comes next
    k.gemm = &gemm_engine_avxvnni();
    k.depthwise = depthwise_avxvnni;
    k.depthwise_fuses_requant = true;  // the VNNI depthwise kernels requantize in their stores
  }
  if (f.avx512vnni) {
    k.gemm = &gemm_engine_vnni();
    k.depthwise = depthwise_vnni;
    k.depthwise_fuses_requant = true;
  }
  if (f.avx512vnni && f.zmm) {
    k.gemm = &gemm_engine_vnni512();  // FC, matmul and every im2col conv
    k.direct_conv = &direct_conv_vnni512();
    k.depthwise = depthwise_vnni512;
    if (f.fma) {
      k.add = qlinear_add_zmm;
      k.avg_pool = qlinear_pool_zmm;
    }
    k.mul = qlinear_mul_zmm;
    k.depthwise_fuses_requant = true;
    k.requant = requant_avx512;  // needs AVX512F only, but a level of its own would be one more to test
  }
  if (f.avx512vnni && f.zmm && f.vbmi) k.depthwise = depthwise_vnni512_vbmi;
  k.isa = isa_name(f);
  return k;
}

}  // namespace qspec::simd::avx2
