// qlinear.add kernels on zmm (AVX512F + BW + VL, FMA) for the conventions whose element arithmetic is
// int32 or IEEE float (XNNPACK, ONNX Runtime, oneDNN, ATen): 16 int32 lanes per step, VPMOVDB stores and a
// k-masked last step (no scalar tail), bit-exact with add_scalar. TFLite's fixed point keeps the
// ymm kernel (qlinear_add_avx2.cc), which this file calls for it.
//
// The ymm kernel's arithmetic (qlinear_add_lanes.h) on twice the lanes: VPMULLD / VPADDD / VPSRAD
// (XNNPACK), two VFMADD (ONNX Runtime's specified fused multiply-adds), VMULPS / VADDPS (oneDNN
// and ATen), then the clamp and VCVTPS2DQ (rne).
// GCC 12 reports its own _mm512_undefined_* placeholders (the unmasked forms of the AVX-512
// intrinsics) as maybe-uninitialized once inlined, and at -Og as uninitialized (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>

#include "qlinear_add_lanes.h"
#include "qlinear_binary_drive.h"
#include "qspec/simd/avx2_kernels.h"

namespace qspec::simd::avx2 {
namespace {

template <bool kU8>
void add_typed(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (!run_float_kind<Zmm>(p, [&](const auto& f) { drive_zmm<kU8>(f, n, a, b, y); }))
    qlinear_add(p, n, a, b, y);  // TFLite's fixed point: the ymm kernel
}

}  // namespace

void qlinear_add_zmm(const AddParams& p, std::size_t n, const void* a, const void* b, void* y) {
  if (p.u8)
    add_typed<true>(p, n, a, b, y);
  else
    add_typed<false>(p, n, a, b, y);
}

}  // namespace qspec::simd::avx2
