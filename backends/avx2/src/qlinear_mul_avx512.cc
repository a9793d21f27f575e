// qlinear.mul kernels on zmm (AVX512F + BW + VL) for the conventions whose element arithmetic is int32
// or IEEE float (XNNPACK and ATen, ONNX Runtime, oneDNN): qlinear_mul_lanes.h's arithmetic on 16 int32
// lanes per step, VPMOVDB stores and a k-masked last step (no scalar tail), bit-exact with
// mul_scalar. TFLite's fixed point keeps the ymm kernel (qlinear_mul_avx2.cc), which this file calls.
// GCC 12 reports its own _mm512_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og as uninitialized (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>

#include "qlinear_binary_drive.h"
#include "qlinear_mul_lanes.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

template <bool kU8>
void mul_typed(const MulParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (!run_float_mul<Zmm>(p, [&](const auto& f) { drive_zmm<kU8>(f, n, a, b, y); }))
    qlinear_mul(p, n, a, b, y);  // TFLite's fixed point: the ymm kernel
}

}  // namespace

void qlinear_mul_zmm(const MulParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (p.u8)
    mul_typed<true>(p, n, a, b, y);
  else
    mul_typed<false>(p, n, a, b, y);
}

}  // namespace qspec::simd::avx2
