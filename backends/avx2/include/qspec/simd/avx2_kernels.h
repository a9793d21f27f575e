// The x86 kernels of the avx2 backend; each is called only after a run-time CPU check.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qspec/simd/conv.h"
#include "qspec/simd/gemm.h"
#include "qspec/simd/qlinear_add.h"
#include "qspec/simd/qlinear_mul.h"
#include "qspec/simd/qlinear_pool.h"
#include "qspec/simd/quantize.h"
#include "qspec/simd/requant.h"

namespace qspec::simd::avx2 {

// requant.h kinds, 8 lanes per step (AVX2).
void requant(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y);
// The same, 16 lanes per step on zmm (AVX512F; the zmm level), with a masked tail.
void requant_avx512(const RequantParams& p, std::size_t n, const std::int32_t* x, void* y);

// quantize.h kernels, 8 lanes per step.
void quantize(const QuantizeParams& p, std::size_t n, const float* x, void* y);
void dequantize(std::size_t n, const std::int32_t* x, std::int32_t zp, float s, float* y);

// qlinear_add.h's kernel, 8 lanes per step (AVX2 + FMA: ONNX Runtime's fused multiply-adds).
void qlinear_add(const AddParams& p, std::size_t n, const void* a, const void* b, void* y);
// The same on zmm, 16 lanes per step (AVX512F + BW + VL, FMA); TFLite's kinds run qlinear_add.
void qlinear_add_zmm(const AddParams& p, std::size_t n, const void* a, const void* b, void* y);
// qlinear_mul.h's kernel, 8 lanes per step (AVX2).
void qlinear_mul(const MulParams& p, std::size_t n, const void* a, const void* b, void* y);
// The same on zmm, 16 lanes per step (AVX512F + BW + VL); TFLite's kinds run qlinear_mul.
void qlinear_mul_zmm(const MulParams& p, std::size_t n, const void* a, const void* b, void* y);

// qlinear_pool.h's kernel, 8 channels per step (AVX2; built with FMA like the add kernels, checked by
// kernel_set the same way).
void qlinear_pool(const PoolParams& p, const void* x, void* y);
// The same on zmm, 16 channels per step (AVX512F + BW + VL); TFLite's Mean runs qlinear_pool.
void qlinear_pool_zmm(const PoolParams& p, const void* x, void* y);

// GemmEngine::prepare_a with VPSADBW row sums (shared by both x86 engines).
void prepare_a_avx2(std::int64_t m, std::int64_t k, const std::uint8_t* a, std::int64_t lda, std::uint8_t flip,
                    std::uint8_t* dst, std::int64_t ldd, std::int64_t* sums);

// u8 x s8 engines: VPMADDWD on widened operands (AVX2), VPDPBUSD on ymm (AVX512-VNNI + VL; and
// the same kernels with AVX-VNNI's VEX VPDPBUSD, no AVX-512) and on zmm (AVX512F + BW + VNNI), the
// VNNI ones with a GEMV kernel for single rows.
const GemmEngine& gemm_engine_madd();
const GemmEngine& gemm_engine_vnni();
const GemmEngine& gemm_engine_avxvnni();
const GemmEngine& gemm_engine_vnni512();
// The VNNI engines' shared layout of B: 16-column panels, 64 bytes (16 columns x 4 k) per group
// of 4 k values, zero-padded; fills everything but out.engine.
void pack_vnni_panels(std::int64_t n, std::int64_t k, const std::int8_t* b, std::int64_t ldb, PackedB& out);

// The direct (implicit-GEMM) convolution on zmm VNNI (AVX512F + BW + VNNI): groups 1, any window,
// stride and dilation; conv2d's im2col route covers what it does not support.
const DirectConv& direct_conv_vnni512();

// Depthwise conv2d (NHWC, multiplier 1), 16 channels per step with VPMADDWD on tap pairs.
void depthwise(const DepthwiseArgs& a);
// The same with VPDPBUSD (AVX512-VNNI + VL + BW), 32 channels per block and four input bytes of
// one channel per int32 lane; it runs `depthwise` when the weights (w - zw) do not all fit int8
// or the padding value is not a byte of the input's type.
void depthwise_vnni(const DepthwiseArgs& a);
// depthwise_vnni's kernels with AVX-VNNI (VEX VPDPBUSD, AVX2 for the rest; no AVX-512).
void depthwise_avxvnni(const DepthwiseArgs& a);
// depthwise_vnni with its VPDPBUSD, loads and stores on zmm (AVX512F + BW + VL + VNNI), 16 channels each.
void depthwise_vnni512(const DepthwiseArgs& a);
// depthwise_vnni512 where the CPU also has AVX512-VBMI: stride-1 layers with kw <= 3, kh <= 4 and
// channels a multiple of 32 form their groups with VPERMT2B in registers instead of an L1 ring.
void depthwise_vnni512_vbmi(const DepthwiseArgs& a);

}  // namespace qspec::simd::avx2
