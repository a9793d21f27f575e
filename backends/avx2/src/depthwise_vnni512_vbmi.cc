// The zmm VNNI depthwise kernel on CPUs with AVX512-VBMI (Ice Lake, Sapphire Rapids, Zen 4/5; not
// Skylake-X or Cascade Lake): depthwise_vnni512's kernel, whose common layers take the direct
// strips of depthwise_direct_vbmi.h (groups formed by VPERMT2B in registers, no ring) and the
// others its ring. Built with -mavx512vbmi; kernel_set picks it only where the CPU has VBMI.
// GCC 12's maybe-uninitialized reports on the AVX-512 intrinsics: see depthwise_vnni512.cc.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "depthwise_vnni_kernel.h"
#include "depthwise_zmm_vector.h"
#include "depthwise_direct_vbmi.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

// VnniZmm with the direct strips: depthwise_vnni_run calls direct() where their layout applies.
struct VnniZmmVbmi : VnniZmm {
  static constexpr bool kDirect = true;
  template <class T>
  static void direct(const Plan& pl, const DepthwiseArgs& a, T* y) {
    depthwise_direct<VnniZmmVbmi, T>(pl, a, y);
  }
};

}  // namespace

void depthwise_vnni512_vbmi(const DepthwiseArgs& a) { depthwise_vnni_any<VnniZmmVbmi>(a); }

}  // namespace qspec::simd::avx2
