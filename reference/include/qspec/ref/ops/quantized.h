// Quantized operators of gemmlowp (seed 001) and TVM QNN (seed 002): an exact int32 accumulator
// clause composed with the library's own requantization clause (gemmlowp.h, tvm_qnn.h).
#pragma once

#include <cstdint>
#include <string>

#include "qspec/ref/ops/nn.h"
#include "qspec/ref/tvm_qnn.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

struct GemmlowpMatmulParams {
  Int lhs_zero_point{0}, rhs_zero_point{0}, result_zero_point{0};
  Int multiplier{1 << 30};  // Q31 fixed-point multiplier in [2^30, 2^31)
  int shift = 0;            // right shift in [0, 31]
};

// spec: gemmlowp.matmul
// Equations (4)-(7) of seed 001 end to end for lhs (M, K) and rhs (K, N), uint8:
// acc[i,j] = sum_k (lhs[i,k] - lhs_zp)(rhs[k,j] - rhs_zp) computed with gemmlowp's offset trick in
// wrapping int32 (gemmlowp.offset_identity); result = sat_uint8(RDBPOT(SRDHM(acc, M), shift) +
// result_zp) (requant.gemmlowp.fixedpoint_output_stage). ERROR_IF the shapes do not chain or an
// operand / zero point is outside uint8; REQUIRE the exact accumulator in int32.
IntArray gemmlowp_matmul_accumulator(const IntArray& lhs, const IntArray& rhs, const Int& lhs_zp, const Int& rhs_zp);
IntArray gemmlowp_matmul(const IntArray& lhs, const IntArray& rhs, const GemmlowpMatmulParams& p);

enum class TvmLayout { NCHW_OIHW, NHWC_HWIO };

struct TvmQnnParams {
  Int input_zero_point{0}, kernel_zero_point{0}, output_zero_point{0};
  std::uint32_t input_scale = 0x3f800000, kernel_scale = 0x3f800000, output_scale = 0x3f800000;  // float32 bits
  DType out_dtype = DType::I32;  // int32: the accumulator; int8/uint8: requantized (the RFC's out_dtype)
  TvmRounding rounding = TvmRounding::Upward;
};

// spec: tvm.qnn.conv2d
// acc[n,o,p,q] = sum_{i,ki,kj} (Xp[n, g IC + i, p SH + ki DH - PH, q SW + kj DW - PW] - zp_in) (W[o,i,ki,kj] - zp_k)
// with Xp padded with zp_in (real 0), then for int8/uint8 out_dtype
// tvm.requantize(acc, fl32(input_scale * kernel_scale), 0, output_scale, output_zp, rounding, out_dtype).
// Layout NHWC/HWIO is transposed to NCHW/OIHW and back. ERROR_IF shapes as mrt.op.conv2d, input
// not int8/uint8 values (checked by the caller's dtype), out_dtype not in {int8, uint8, int32}.
IntArray tvm_qnn_conv2d(const IntArray& x, const IntArray& w, const Conv2dAttrs& a, TvmLayout layout, const TvmQnnParams& p);

// spec: tvm.qnn.conv2d
// TVM's lowering of the accumulator into four terms (src/relay/qnn/op/convolution.cc):
// Term1 - Term2 - Term3 + Term4 with Term1 = conv(pad(X, zp_in), W), Term2 = zp_k * window sums of
// pad(X, zp_in), Term3 = zp_in * sum W[o], Term4 = zp_in zp_k IC KH KW. NCHW/OIHW.
IntArray tvm_qnn_conv2d_terms(const IntArray& x, const IntArray& w, const Conv2dAttrs& a, const Int& zp_in, const Int& zp_k);

// spec: tvm.qnn.dense
// acc[n,m] = sum_k (X[n,k] - zp_in)(W[m,k] - zp_k), then requantized as tvm.qnn.conv2d.
IntArray tvm_qnn_dense(const IntArray& x, const IntArray& w, const TvmQnnParams& p);

// spec: tvm.qnn.concatenate
// Each input i is requantized to the output parameters (tvm.requantize(x, s_i, zp_i, s_out, zp_out,
// rounding, out_dtype); inputs already at the output parameters pass unchanged), then concatenated.
IntArray tvm_qnn_concatenate(const std::vector<IntArray>& xs, const std::vector<std::uint32_t>& scales,
                             const std::vector<Int>& zps, std::uint32_t out_scale, const Int& out_zp, std::int64_t axis,
                             DType out_dtype, TvmRounding rounding = TvmRounding::Upward);

// spec: tvm.qnn.add
// q = sat_out(requant32(a) + requant32(b) - zp_out), requant32(x) = tvm.requantize(x, s_x, zp_x, s_out,
// zp_out, rounding, int32): TVM's qnn.add lowering. ERROR_IF the shapes do not broadcast.
IntArray tvm_qnn_add(const IntArray& a, const IntArray& b, std::uint32_t sa, const Int& za, std::uint32_t sb, const Int& zb,
                     std::uint32_t s_out, const Int& z_out, DType out_dtype, TvmRounding rounding = TvmRounding::Upward);

// spec: tvm.qnn.relu
// relu on a quantized tensor keeps the input's parameters: Y = max(X, zp) (real max(0, x)).
IntArray tvm_qnn_relu(const IntArray& x, const Int& zp);

// spec: tvm.qnn.max_pool2d
// max pool on a quantized tensor keeps the input's parameters: mrt.op.max_pool2d on the integers
// (padding never wins: TVM pads max pooling with the dtype's lowest value).
IntArray tvm_qnn_max_pool2d(const IntArray& x, const Pool2dAttrs& a);

}  // namespace qspec::ref::ops
