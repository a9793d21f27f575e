// gemmlowp matmul (seed 001 eqs. (4)-(7)) and TVM QNN operators (seed 002): accumulators + requantization.
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/quantized.h"

namespace qspec::ref::ops {
namespace {

void check_values(const IntArray& a, DType t, const char* what) {
  const Range r = int_range(t);
  for (const auto& v : a.data) QSPEC_ERROR_IF(v < r.lo || v > r.hi, std::string(what) + ": element outside " + std::string(dtype_name(t)));
}

IntArray transpose(const IntArray& a, const std::array<int, 4>& perm) {
  Shape s(4);
  for (int i = 0; i < 4; ++i) s[static_cast<std::size_t>(i)] = a.shape[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])];
  IntArray y(s);
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    const Shape idx = unravel(off, s);
    Shape src(4);
    for (int i = 0; i < 4; ++i) src[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = idx[static_cast<std::size_t>(i)];
    y.data[static_cast<std::size_t>(off)] = a.at(src);
  }
  return y;
}

Int requant_out(const Int& acc, const TvmQnnParams& p) {
  if (p.out_dtype == DType::I32) return acc;
  const std::uint32_t in_scale = f32_mul(p.input_scale, p.kernel_scale);  // a float32 product in Relay
  return tvm_requantize(acc, in_scale, Int(0), p.output_scale, p.output_zero_point, p.rounding, p.out_dtype);
}

void check_out_dtype(DType t) {
  QSPEC_ERROR_IF(t != DType::I8 && t != DType::U8 && t != DType::I32, "tvm.qnn: out_dtype must be int8, uint8 or int32");
}

}  // namespace

// spec: gemmlowp.matmul
IntArray gemmlowp_matmul_accumulator(const IntArray& lhs, const IntArray& rhs, const Int& lhs_zp, const Int& rhs_zp) {
  QSPEC_ERROR_IF(lhs.rank() != 2 || rhs.rank() != 2 || lhs.dim(1) != rhs.dim(0), "gemmlowp.matmul: lhs (M,K) and rhs (K,N)");
  check_values(lhs, DType::U8, "gemmlowp.matmul lhs");
  check_values(rhs, DType::U8, "gemmlowp.matmul rhs");
  QSPEC_ERROR_IF(lhs_zp < 0 || lhs_zp > 255 || rhs_zp < 0 || rhs_zp > 255, "gemmlowp.matmul: zero points are uint8");
  IntArray acc({lhs.dim(0), rhs.dim(1)});
  for (std::int64_t i = 0; i < lhs.dim(0); ++i)
    for (std::int64_t j = 0; j < rhs.dim(1); ++j) {
      std::vector<Int> a, b;
      for (std::int64_t k = 0; k < lhs.dim(1); ++k) {
        a.push_back(lhs.at2(i, k));
        b.push_back(rhs.at2(k, j));
      }
      // Offsets are minus the zero points (gemmlowp adds offsets); equation (6) + the offset terms.
      acc.at2(i, j) = gemmlowp_offset_dot_int32(a, b, Int(-lhs_zp), Int(-rhs_zp));
      QSPEC_REQUIRE(acc.at2(i, j) == gemmlowp_offset_dot(a, b, Int(-lhs_zp), Int(-rhs_zp)),
              "gemmlowp.matmul: the exact accumulator fits int32");
    }
  return acc;
}

// spec: gemmlowp.matmul
IntArray gemmlowp_matmul(const IntArray& lhs, const IntArray& rhs, const GemmlowpMatmulParams& p) {
  QSPEC_ERROR_IF(p.result_zero_point < 0 || p.result_zero_point > 255, "gemmlowp.matmul: result zero point is uint8");
  IntArray y = gemmlowp_matmul_accumulator(lhs, rhs, p.lhs_zero_point, p.rhs_zero_point);
  for (auto& v : y.data) v = saturate(gemmlowp_quantize_down_by_fixedpoint(v, p.multiplier, p.shift, p.result_zero_point), DType::U8);
  return y;
}

// spec: tvm.qnn.conv2d
IntArray tvm_qnn_conv2d_terms(const IntArray& x, const IntArray& w, const Conv2dAttrs& a, const Int& zp_in, const Int& zp_k) {
  const IntArray t1 = conv2d(x, w, a, zp_in);
  const IntArray window = conv2d(x, IntArray(w.shape, Int(1)), a, zp_in);
  const std::int64_t k = w.dim(1) * w.dim(2) * w.dim(3);
  IntArray y = t1;
  for (std::int64_t off = 0; off < y.numel(); ++off) {
    const Shape idx = unravel(off, y.shape);
    Int wsum = 0;
    for (std::int64_t i = 0; i < k; ++i) wsum += w.data[static_cast<std::size_t>(idx[1] * k + i)];
    y.data[static_cast<std::size_t>(off)] = t1.data[static_cast<std::size_t>(off)] - zp_k * window.data[static_cast<std::size_t>(off)] -
                                            zp_in * wsum + zp_in * zp_k * k;
  }
  return y;
}

// spec: tvm.qnn.conv2d
IntArray tvm_qnn_conv2d(const IntArray& x_in, const IntArray& w_in, const Conv2dAttrs& a, TvmLayout layout, const TvmQnnParams& p) {
  check_out_dtype(p.out_dtype);
  QSPEC_ERROR_IF(x_in.rank() != 4 || w_in.rank() != 4, "tvm.qnn.conv2d: rank-4 data and kernel");
  const bool nhwc = layout == TvmLayout::NHWC_HWIO;
  const IntArray x = nhwc ? transpose(x_in, {0, 3, 1, 2}) : x_in;  // NHWC -> NCHW
  const IntArray w = nhwc ? transpose(w_in, {3, 2, 0, 1}) : w_in;  // HWIO -> OIHW
  // Direct definition: subtract the zero points inside the sum; the pad holds zp_in (real 0).
  const IntArray xs = map_array<Int>(x, [&](const Int& v) { return Int(v - p.input_zero_point); });
  const IntArray ws = map_array<Int>(w, [&](const Int& v) { return Int(v - p.kernel_zero_point); });
  IntArray y = conv2d(xs, ws, a, Int(0));
  for (auto& v : y.data) v = requant_out(v, p);
  return nhwc ? transpose(y, {0, 2, 3, 1}) : y;  // NCHW -> NHWC
}

// spec: tvm.qnn.dense
IntArray tvm_qnn_dense(const IntArray& x, const IntArray& w, const TvmQnnParams& p) {
  check_out_dtype(p.out_dtype);
  const IntArray xs = map_array<Int>(x, [&](const Int& v) { return Int(v - p.input_zero_point); });
  const IntArray ws = map_array<Int>(w, [&](const Int& v) { return Int(v - p.kernel_zero_point); });
  IntArray y = fully_connected(xs, ws);
  for (auto& v : y.data) v = requant_out(v, p);
  return y;
}

// spec: tvm.qnn.concatenate
IntArray tvm_qnn_concatenate(const std::vector<IntArray>& xs, const std::vector<std::uint32_t>& scales,
                             const std::vector<Int>& zps, std::uint32_t out_scale, const Int& out_zp, std::int64_t axis,
                             DType out_dtype, TvmRounding rounding) {
  QSPEC_ERROR_IF(scales.size() != xs.size() || zps.size() != xs.size(), "tvm.qnn.concatenate: one scale and zero point per input");
  std::vector<IntArray> rq;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (scales[i] == out_scale && zps[i] == out_zp) {
      rq.push_back(xs[i]);
      continue;
    }
    rq.push_back(map_array<Int>(xs[i], [&](const Int& v) { return tvm_requantize(v, scales[i], zps[i], out_scale, out_zp, rounding, out_dtype); }));
  }
  return concat(rq, axis);
}

// spec: tvm.qnn.add
IntArray tvm_qnn_add(const IntArray& a, const IntArray& b, std::uint32_t sa, const Int& za, std::uint32_t sb, const Int& zb,
                     std::uint32_t s_out, const Int& z_out, DType out_dtype, TvmRounding rounding) {
  const IntArray ra = map_array<Int>(a, [&](const Int& v) { return tvm_requantize(v, sa, za, s_out, z_out, rounding, DType::I32); });
  const IntArray rb = map_array<Int>(b, [&](const Int& v) { return tvm_requantize(v, sb, zb, s_out, z_out, rounding, DType::I32); });
  IntArray y = broadcast_add(ra, rb);
  for (auto& v : y.data) v = saturate(Int(v - z_out), out_dtype);
  return y;
}

// spec: tvm.qnn.relu
IntArray tvm_qnn_relu(const IntArray& x, const Int& zp) { return relu(x, zp); }

// spec: tvm.qnn.max_pool2d
IntArray tvm_qnn_max_pool2d(const IntArray& x, const Pool2dAttrs& a) { return max_pool2d(x, a); }

}  // namespace qspec::ref::ops
